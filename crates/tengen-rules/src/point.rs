//! Points on a board and the four line directions.

/// An intersection of the board.
///
/// `x` is the column counted from the left and `y` the row counted from the top, both from 0, as in
/// the Gomocup protocol. On a bounded board they run over `0..width` and `0..height`; on the
/// unbounded board they may be negative, and run from `-MAX_UNBOUNDED_COORD` to
/// [`MAX_UNBOUNDED_COORD`](crate::MAX_UNBOUNDED_COORD). A point is plain data: any `i32` pair is a
/// `Point`, and [`BoardSize::contains`](crate::BoardSize::contains) says whether it is on a board.
///
/// ```
/// use tengen_rules::Point;
/// let p = Point::new(7, 7);
/// assert_eq!(p.offset(1, -1), Point::new(8, 6));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Point {
    /// Column, from the left.
    pub x: i32,
    /// Row, from the top.
    pub y: i32,
}

impl Point {
    /// The point at column `x`, row `y` (from the top).
    pub const fn new(x: i32, y: i32) -> Point {
        Point { x, y }
    }

    /// The point `dx` columns right and `dy` rows down of this one.
    pub const fn offset(self, dx: i32, dy: i32) -> Point {
        Point::new(self.x.wrapping_add(dx), self.y.wrapping_add(dy))
    }

    /// The point `steps` steps along `dir`.
    pub const fn step(self, dir: Direction, steps: i32) -> Point {
        let (dx, dy) = dir.delta();
        // Wrapping like `offset`: a step count of i32::MIN must not overflow when negated.
        self.offset(dx.wrapping_mul(steps), dy.wrapping_mul(steps))
    }

    /// Distance in king moves (the larger of the column and row distances).
    pub fn chebyshev(self, other: Point) -> u32 {
        self.x.abs_diff(other.x).max(self.y.abs_diff(other.y))
    }
}

/// One of the four lines through a point along which five in a row counts.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Direction {
    /// Left to right.
    Horizontal,
    /// Top to bottom.
    Vertical,
    /// Top-left to bottom-right.
    Diagonal,
    /// Bottom-left to top-right.
    AntiDiagonal,
}

impl Direction {
    /// All four directions.
    pub const ALL: [Direction; 4] = [
        Direction::Horizontal,
        Direction::Vertical,
        Direction::Diagonal,
        Direction::AntiDiagonal,
    ];

    /// The step `(dx, dy)` of one move along this direction.
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Direction::Horizontal => (1, 0),
            Direction::Vertical => (0, 1),
            Direction::Diagonal => (1, 1),
            Direction::AntiDiagonal => (1, -1),
        }
    }
}
