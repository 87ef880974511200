//! Board sizes and the board itself: stones on intersections, nothing about rules.

use std::fmt;
use std::str::FromStr;

use crate::excerpt::excerpt;
use crate::{Color, Point};

/// The smallest side a bounded board may have.
pub const MIN_SIDE: u32 = 5;
/// The largest side a bounded board may have.
pub const MAX_SIDE: u32 = 100;
/// How far apart (in columns or rows) two stones may be on the unbounded board. The board has no
/// edge, but its storage is dense, so a game spread over millions of columns is refused with
/// [`PlaceError::TooFar`] rather than allowed to take gigabytes.
pub const MAX_UNBOUNDED_EXTENT: u32 = 1000;
/// How far from the origin, in columns or rows, a point of the unbounded board may lie. The board
/// has no edge a game could reach, but coordinates are `i32`: keeping every stone this far inside
/// their range lets the cells, windows and margins around it be computed without overflow. A
/// point beyond is off the board ([`PlaceError::OffBoard`]), and reads as an edge.
pub const MAX_UNBOUNDED_COORD: i32 = 1_000_000_000;

/// The shape of a board: a `width` x `height` rectangle, or unbounded.
///
/// ```
/// use tengen_rules::BoardSize;
/// let s: BoardSize = "16x14".parse()?;
/// assert_eq!((s.width(), s.height()), (Some(16), Some(14)));
/// assert_eq!("15".parse::<BoardSize>()?, BoardSize::square(15)?);
/// assert!("unbounded".parse::<BoardSize>()?.is_unbounded());
/// assert!(BoardSize::square(4).is_err());
/// # Ok::<(), tengen_rules::SizeError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct BoardSize {
    // Both zero for the unbounded board; otherwise validated to MIN_SIDE..=MAX_SIDE.
    width: u8,
    height: u8,
}

/// A board size outside what Tengen plays, or a size string it cannot read.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum SizeError {
    /// A side shorter than [`MIN_SIDE`] or longer than [`MAX_SIDE`].
    #[error("board side {0} is out of range (5 to 100)")]
    OutOfRange(u32),
    /// Text that is neither `N`, `WxH` nor `unbounded`.
    #[error("cannot read board size {0:?} (expected 15, 16x14 or unbounded)")]
    Syntax(String),
}

impl BoardSize {
    /// The classic 15x15 board.
    pub const STANDARD: BoardSize = BoardSize {
        width: 15,
        height: 15,
    };
    /// The board with no edge.
    pub const UNBOUNDED: BoardSize = BoardSize {
        width: 0,
        height: 0,
    };

    /// A square board of side `n`.
    pub fn square(n: u32) -> Result<BoardSize, SizeError> {
        BoardSize::rect(n, n)
    }

    /// A `width` x `height` board.
    pub fn rect(width: u32, height: u32) -> Result<BoardSize, SizeError> {
        for side in [width, height] {
            if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
                return Err(SizeError::OutOfRange(side));
            }
        }
        // In range 5..=100, so the casts cannot truncate.
        Ok(BoardSize {
            width: width as u8,
            height: height as u8,
        })
    }

    /// Whether this is the board with no edge.
    pub const fn is_unbounded(self) -> bool {
        self.width == 0
    }

    /// Columns, or `None` on the unbounded board.
    pub const fn width(self) -> Option<u32> {
        if self.is_unbounded() {
            None
        } else {
            Some(self.width as u32)
        }
    }

    /// Rows, or `None` on the unbounded board.
    pub const fn height(self) -> Option<u32> {
        if self.is_unbounded() {
            None
        } else {
            Some(self.height as u32)
        }
    }

    /// Number of intersections, or `None` on the unbounded board.
    pub const fn area(self) -> Option<u32> {
        if self.is_unbounded() {
            None
        } else {
            Some(self.width as u32 * self.height as u32)
        }
    }

    /// Whether `p` is on the board: on the unbounded board, whether neither coordinate is
    /// further than [`MAX_UNBOUNDED_COORD`] from 0.
    pub const fn contains(self, p: Point) -> bool {
        if self.is_unbounded() {
            let max = MAX_UNBOUNDED_COORD.unsigned_abs();
            p.x.unsigned_abs() <= max && p.y.unsigned_abs() <= max
        } else {
            p.x >= 0 && p.y >= 0 && p.x < self.width as i32 && p.y < self.height as i32
        }
    }

    /// The centre point: `(width / 2, height / 2)`, so h8 on 15x15; the origin when unbounded.
    pub const fn center(self) -> Point {
        Point::new(self.width as i32 / 2, self.height as i32 / 2)
    }

    /// Every point of a bounded board, row by row from the top; nothing for the unbounded board.
    pub fn points(self) -> impl Iterator<Item = Point> {
        let (w, h) = (self.width as i32, self.height as i32);
        (0..h).flat_map(move |y| (0..w).map(move |x| Point::new(x, y)))
    }
}

impl Default for BoardSize {
    fn default() -> Self {
        BoardSize::STANDARD
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_unbounded() {
            f.write_str("unbounded")
        } else if self.width == self.height {
            write!(f, "{}", self.width)
        } else {
            write!(f, "{}x{}", self.width, self.height)
        }
    }
}

impl BoardSize {
    /// The board's size in words for messages: `15x15`, `16x14` or `unbounded` (where
    /// [`Display`](fmt::Display) writes the short form a command line takes, `15`).
    ///
    /// ```
    /// use tengen_rules::BoardSize;
    /// assert_eq!(BoardSize::STANDARD.dimensions(), "15x15");
    /// assert_eq!(BoardSize::STANDARD.to_string(), "15");
    /// assert_eq!(BoardSize::UNBOUNDED.dimensions(), "unbounded");
    /// ```
    pub fn dimensions(self) -> String {
        if self.is_unbounded() {
            "unbounded".to_string()
        } else {
            format!("{}x{}", self.width, self.height)
        }
    }
}

impl FromStr for BoardSize {
    type Err = SizeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        if matches!(t.as_str(), "unbounded" | "infinite" | "inf") {
            return Ok(BoardSize::UNBOUNDED);
        }
        let syntax = || SizeError::Syntax(excerpt(s));
        let side = |n: &str| n.trim().parse::<u32>().map_err(|_| syntax());
        match t.split_once(['x', '*']) {
            Some((w, h)) => BoardSize::rect(side(w)?, side(h)?),
            None => BoardSize::square(side(&t)?),
        }
    }
}

/// Why a stone could not be placed on or removed from a [`Board`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum PlaceError {
    /// The point is off the board: outside a bounded board, or further than
    /// [`MAX_UNBOUNDED_COORD`] from the origin of the unbounded one.
    #[error("point ({}, {}) is off the board", .0.x, .0.y)]
    OffBoard(Point),
    /// A stone is already there.
    #[error("point ({}, {}) is occupied", .0.x, .0.y)]
    Occupied(Point),
    /// Nothing to remove there.
    #[error("point ({}, {}) is empty", .0.x, .0.y)]
    Empty(Point),
    /// On the unbounded board, the stones would spread wider than [`MAX_UNBOUNDED_EXTENT`].
    #[error("point ({}, {}) is too far from the other stones", .0.x, .0.y)]
    TooFar(Point),
}

pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
pub(crate) const EDGE: u8 = 3;

const fn code(c: Color) -> u8 {
    match c {
        Color::Black => BLACK,
        Color::White => WHITE,
    }
}

// Empty margin kept around the stones of the unbounded board, so that its storage grows rarely.
const UNBOUNDED_MARGIN: i32 = 16;

/// Stones on a board of any [`BoardSize`]. It knows nothing of turns or rules: see
/// [`Game`](crate::Game) for that.
///
/// ```
/// use tengen_rules::{Board, BoardSize, Color, Point};
/// let mut b = Board::new(BoardSize::STANDARD);
/// b.place(Point::new(7, 7), Color::Black)?;
/// assert_eq!(b.get(Point::new(7, 7)), Some(Color::Black));
/// assert!(b.place(Point::new(15, 0), Color::White).is_err());
/// # Ok::<(), tengen_rules::PlaceError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Board {
    size: BoardSize,
    // Dense storage of the rectangle [ox, ox + sw) x [oy, oy + sh). On a bounded board it is the
    // board itself; on the unbounded board it covers every stone plus a margin and grows on demand.
    cells: Vec<u8>,
    ox: i32,
    oy: i32,
    sw: i32,
    sh: i32,
    stones: u32,
    // Bounding box of the stones (min x, min y, max x, max y), when there are any.
    extent: Option<(i32, i32, i32, i32)>,
}

/// A picture of a board that [`Board::from_rows`] cannot read.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum RowsError {
    /// The rows are not all as long as the first.
    #[error("row {0} is {1} cells long, not {2}")]
    Ragged(usize, usize, usize),
    /// A character other than `X`, `O` and `.`.
    #[error("row {0} holds {1:?}, not X, O or .")]
    BadCell(usize, char),
    /// Too few or too many rows or columns.
    #[error(transparent)]
    Size(#[from] SizeError),
}

// Two boards are equal when they hold the same stones on the same size of board, however the
// unbounded board's storage happens to have grown.
impl PartialEq for Board {
    fn eq(&self, other: &Board) -> bool {
        self.size == other.size && self.stones == other.stones && self.stones().eq(other.stones())
    }
}

impl Eq for Board {}

impl Board {
    /// A bounded board from a picture: one string per row from the top, `X` black, `O` white,
    /// `.` empty (the form of the published test positions).
    ///
    /// ```
    /// use tengen_rules::{Board, Color, Point};
    /// let b = Board::from_rows(&[".....", "..X..", "..O..", ".....", "....."])?;
    /// assert_eq!(b.get(Point::new(2, 1)), Some(Color::Black));
    /// assert_eq!(b.stone_count(), 2);
    /// # Ok::<(), tengen_rules::RowsError>(())
    /// ```
    pub fn from_rows<S: AsRef<str>>(rows: &[S]) -> Result<Board, RowsError> {
        let width = rows.first().map_or(0, |r| r.as_ref().chars().count());
        let size = BoardSize::rect(width as u32, rows.len() as u32)?;
        let mut board = Board::new(size);
        for (y, row) in rows.iter().enumerate() {
            let row = row.as_ref();
            let len = row.chars().count();
            if len != width {
                return Err(RowsError::Ragged(y + 1, len, width));
            }
            for (x, c) in row.chars().enumerate() {
                let color = match c {
                    'X' => Color::Black,
                    'O' => Color::White,
                    '.' => continue,
                    other => return Err(RowsError::BadCell(y + 1, other)),
                };
                // Inside the board just sized from the rows, and each point visited once.
                board.place(Point::new(x as i32, y as i32), color).ok();
            }
        }
        Ok(board)
    }

    /// An empty board.
    pub fn new(size: BoardSize) -> Board {
        if size.is_unbounded() {
            let side = 2 * UNBOUNDED_MARGIN;
            Board {
                size,
                cells: vec![EMPTY; (side * side) as usize],
                ox: -UNBOUNDED_MARGIN,
                oy: -UNBOUNDED_MARGIN,
                sw: side,
                sh: side,
                stones: 0,
                extent: None,
            }
        } else {
            let (w, h) = (size.width as i32, size.height as i32);
            Board {
                size,
                cells: vec![EMPTY; (w * h) as usize],
                ox: 0,
                oy: 0,
                sw: w,
                sh: h,
                stones: 0,
                extent: None,
            }
        }
    }

    /// The board's shape.
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// Whether `p` is on the board.
    pub fn contains(&self, p: Point) -> bool {
        self.size.contains(p)
    }

    /// The stone at `p`, or `None` if the point is empty or off the board.
    pub fn get(&self, p: Point) -> Option<Color> {
        match self.cell(p) {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    /// Whether `p` is on the board and free.
    pub fn is_empty_at(&self, p: Point) -> bool {
        self.cell(p) == EMPTY
    }

    /// Raw cell code: EMPTY, BLACK, WHITE, or EDGE off the board.
    #[inline]
    pub(crate) fn cell(&self, p: Point) -> u8 {
        let lx = p.x.wrapping_sub(self.ox);
        let ly = p.y.wrapping_sub(self.oy);
        if (lx as u32) < self.sw as u32 && (ly as u32) < self.sh as u32 {
            self.cells[(ly * self.sw + lx) as usize]
        } else if self.size.contains(p) {
            // Outside the storage of the unbounded board: space no stone has reached.
            EMPTY
        } else {
            EDGE
        }
    }

    /// Number of stones on the board.
    pub fn stone_count(&self) -> u32 {
        self.stones
    }

    /// Whether every intersection of a bounded board is taken (never true when unbounded).
    pub fn is_full(&self) -> bool {
        self.size.area() == Some(self.stones)
    }

    /// The smallest rectangle holding every stone, as its top-left and bottom-right corners.
    pub fn extent(&self) -> Option<(Point, Point)> {
        self.extent
            .map(|(x0, y0, x1, y1)| (Point::new(x0, y0), Point::new(x1, y1)))
    }

    /// Every stone, row by row from the top of the storage.
    pub fn stones(&self) -> impl Iterator<Item = (Point, Color)> + '_ {
        let (ox, oy, sw) = (self.ox, self.oy, self.sw);
        self.cells.iter().enumerate().filter_map(move |(i, &c)| {
            let p = Point::new(ox + i as i32 % sw, oy + i as i32 / sw);
            match c {
                BLACK => Some((p, Color::Black)),
                WHITE => Some((p, Color::White)),
                _ => None,
            }
        })
    }

    /// Puts a stone of `color` on the empty point `p`.
    pub fn place(&mut self, p: Point, color: Color) -> Result<(), PlaceError> {
        if !self.contains(p) {
            return Err(PlaceError::OffBoard(p));
        }
        if self.cell(p) != EMPTY {
            return Err(PlaceError::Occupied(p));
        }
        let extent = match self.extent {
            None => (p.x, p.y, p.x, p.y),
            Some((x0, y0, x1, y1)) => (x0.min(p.x), y0.min(p.y), x1.max(p.x), y1.max(p.y)),
        };
        if self.size.is_unbounded() {
            let (x0, y0, x1, y1) = extent;
            let too_far = |lo: i32, hi: i32| (hi as i64 - lo as i64) >= MAX_UNBOUNDED_EXTENT as i64;
            if too_far(x0, x1) || too_far(y0, y1) {
                return Err(PlaceError::TooFar(p));
            }
            self.reserve_around(extent);
        }
        self.extent = Some(extent);
        self.set(p, code(color));
        self.stones += 1;
        Ok(())
    }

    /// Takes the stone off `p`, returning its colour.
    pub fn remove(&mut self, p: Point) -> Result<Color, PlaceError> {
        let color = self.get(p).ok_or(PlaceError::Empty(p))?;
        self.set(p, EMPTY);
        self.stones -= 1;
        // Shrinking the extent needs a scan; it is only a display hint, so recompute it lazily
        // only when the removed stone lay on its border.
        if let Some((x0, y0, x1, y1)) = self.extent {
            if p.x == x0 || p.x == x1 || p.y == y0 || p.y == y1 {
                self.extent = self.stones().fold(None, |e, (q, _)| {
                    Some(match e {
                        None => (q.x, q.y, q.x, q.y),
                        Some((a, b, c, d)) => (a.min(q.x), b.min(q.y), c.max(q.x), d.max(q.y)),
                    })
                });
            }
        }
        Ok(color)
    }

    /// Writes a cell the caller knows is inside the storage.
    #[inline]
    pub(crate) fn set(&mut self, p: Point, c: u8) {
        let i = ((p.y - self.oy) * self.sw + (p.x - self.ox)) as usize;
        self.cells[i] = c;
    }

    // Grows the unbounded board's storage so that it covers `extent` plus the margin, clipped to
    // the board: a stored cell is always a point of the board, so that beyond the bound every
    // read finds the edge. The extent lies within MAX_UNBOUNDED_COORD, so nothing overflows.
    fn reserve_around(&mut self, (x0, y0, x1, y1): (i32, i32, i32, i32)) {
        let low = |v: i32, m: i32| (v - m).max(-MAX_UNBOUNDED_COORD);
        let high = |v: i32, m: i32| (v + m).min(MAX_UNBOUNDED_COORD);
        let m = UNBOUNDED_MARGIN / 2;
        let fits = low(x0, m) >= self.ox
            && low(y0, m) >= self.oy
            && high(x1, m) < self.ox + self.sw
            && high(y1, m) < self.oy + self.sh;
        if fits {
            return;
        }
        let (nx, ny) = (low(x0, UNBOUNDED_MARGIN), low(y0, UNBOUNDED_MARGIN));
        let (nw, nh) = (
            high(x1, UNBOUNDED_MARGIN) - nx + 1,
            high(y1, UNBOUNDED_MARGIN) - ny + 1,
        );
        let mut cells = vec![EMPTY; (nw * nh) as usize];
        for (p, c) in self.stones() {
            cells[((p.y - ny) * nw + (p.x - nx)) as usize] = code(c);
        }
        self.cells = cells;
        (self.ox, self.oy, self.sw, self.sh) = (nx, ny, nw, nh);
    }
}

impl Board {
    /// Sets a cell of a scratch copy used by the recursive forbidden test, growing the unbounded
    /// board's storage when a probe wanders outside it. Stone count and extent are not kept.
    pub(crate) fn put_scratch(&mut self, p: Point, c: u8) {
        // Probes stop at the edge, so this never happens; were it to, an off-board point holds
        // nothing rather than growing the storage past the coordinates' range.
        if !self.size.contains(p) {
            return;
        }
        let lx = p.x.wrapping_sub(self.ox);
        let ly = p.y.wrapping_sub(self.oy);
        if (lx as u32) >= self.sw as u32 || (ly as u32) >= self.sh as u32 {
            let (x0, y0, x1, y1) = self.extent.unwrap_or((p.x, p.y, p.x, p.y));
            let grown = (x0.min(p.x), y0.min(p.y), x1.max(p.x), y1.max(p.y));
            // The extent must cover every scratch stone too, or growing again would drop them.
            self.extent = Some(grown);
            self.reserve_around(grown);
        }
        self.set(p, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        for s in ["5", "15", "100", "16x14", "unbounded"] {
            let size: BoardSize = s.parse().expect("valid size");
            assert_eq!(size.to_string(), s);
        }
        assert_eq!("15x15".parse::<BoardSize>(), BoardSize::square(15));
        assert_eq!("4".parse::<BoardSize>(), Err(SizeError::OutOfRange(4)));
        assert_eq!(
            "101x15".parse::<BoardSize>(),
            Err(SizeError::OutOfRange(101))
        );
        assert!(matches!(
            "x".parse::<BoardSize>(),
            Err(SizeError::Syntax(_))
        ));
        assert!(matches!("".parse::<BoardSize>(), Err(SizeError::Syntax(_))));
    }

    #[test]
    fn pictures_that_are_not_boards() {
        assert_eq!(
            Board::from_rows(&["....."; 4]),
            Err(RowsError::Size(SizeError::OutOfRange(4)))
        );
        let ragged = [".....", "....", ".....", ".....", "....."];
        assert_eq!(Board::from_rows(&ragged), Err(RowsError::Ragged(2, 4, 5)));
        let bad = [".....", "..Y..", ".....", ".....", "....."];
        assert_eq!(Board::from_rows(&bad), Err(RowsError::BadCell(2, 'Y')));
        let wide = Board::from_rows(&[
            "X...............",
            "................",
            "................",
            "................",
            "...............O",
        ])
        .expect("16x5");
        assert_eq!(wide.size(), BoardSize::rect(16, 5).expect("valid"));
        assert_eq!(wide.get(Point::new(15, 4)), Some(Color::White));
    }

    #[test]
    fn rectangular_board_bounds() {
        let b = Board::new(BoardSize::rect(16, 14).expect("valid"));
        assert!(b.contains(Point::new(15, 13)));
        assert!(!b.contains(Point::new(13, 15)));
        assert_eq!(b.size().center(), Point::new(8, 7));
    }

    #[test]
    fn unbounded_board_grows_and_keeps_stones() {
        let mut b = Board::new(BoardSize::UNBOUNDED);
        let pts = [(0, 0), (-40, 3), (300, -250), (-5, 999 - 250)];
        for (i, &(x, y)) in pts.iter().enumerate() {
            b.place(Point::new(x, y), Color::of_ply(i))
                .expect("placeable");
        }
        for (i, &(x, y)) in pts.iter().enumerate() {
            assert_eq!(b.get(Point::new(x, y)), Some(Color::of_ply(i)));
        }
        assert_eq!(b.stone_count(), 4);
        assert_eq!(
            b.place(Point::new(0, -260), Color::Black),
            Err(PlaceError::TooFar(Point::new(0, -260)))
        );
        assert_eq!(b.stone_count(), 4);
        assert_eq!(
            b.extent(),
            Some((Point::new(-40, -250), Point::new(300, 749)))
        );
        b.remove(Point::new(300, -250)).expect("stone there");
        assert_eq!(b.extent(), Some((Point::new(-40, 0), Point::new(0, 749))));
    }

    #[test]
    fn place_errors_leave_board_unchanged() {
        let mut b = Board::new(BoardSize::STANDARD);
        b.place(Point::new(0, 0), Color::Black)
            .expect("empty point");
        let before = b.clone();
        assert_eq!(
            b.place(Point::new(0, 0), Color::White),
            Err(PlaceError::Occupied(Point::new(0, 0)))
        );
        assert_eq!(
            b.place(Point::new(-1, 0), Color::White),
            Err(PlaceError::OffBoard(Point::new(-1, 0)))
        );
        assert_eq!(
            b.remove(Point::new(1, 1)),
            Err(PlaceError::Empty(Point::new(1, 1)))
        );
        assert_eq!(b, before);
    }
}
