//! Coordinates as people and programs write them.
//!
//! Two forms: renju notation, columns `a`, `b`, ... `z`, `aa`, `ab`, ... from the left and rows
//! `1`, `2`, ... from the bottom (h8 is the centre of 15x15); and the Gomocup form `x,y`, 0-based,
//! `x` the column and `y = 0` the top row. A [`Coord`] is what the text says; [`Coord::to_point`]
//! then checks it against a board.

use std::fmt;
use std::str::FromStr;

use crate::excerpt::excerpt;
use crate::{BoardSize, Point};

/// A coordinate as written, not yet checked against a board.
///
/// ```
/// use tengen_rules::{BoardSize, Coord, Point};
/// let c: Coord = "h8".parse()?;
/// assert_eq!(c.to_point(BoardSize::STANDARD)?, Point::new(7, 7));
/// let g: Coord = "7,7".parse()?;
/// assert_eq!(g.to_point(BoardSize::STANDARD)?, Point::new(7, 7));
/// assert_eq!(Coord::renju(BoardSize::STANDARD, Point::new(0, 14)).unwrap().to_string(), "a1");
/// # Ok::<(), tengen_rules::CoordError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Coord {
    /// Renju notation: `column` from 0 at the left (`a`), `row` from 1 at the bottom.
    Renju {
        /// 0 for `a`, 25 for `z`, 26 for `aa`.
        column: u32,
        /// 1 for the bottom row.
        row: u32,
    },
    /// Gomocup notation: `x` the column, `y` the row from the top, both 0-based.
    Numeric {
        /// Column.
        x: i32,
        /// Row from the top.
        y: i32,
    },
}

/// A coordinate that cannot be read, or that names no point of the board.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum CoordError {
    /// Text that is neither `h8` nor `7,7`.
    #[error("cannot read coordinate {0:?} (expected a form like h8 or 7,7)")]
    Syntax(String),
    /// A well-formed coordinate outside the board.
    #[error("coordinate {coord} is off the {board} board", coord = .0, board = .1.dimensions())]
    OffBoard(String, BoardSize),
    /// Renju notation needs a bottom row to count from, which the unbounded board has not.
    #[error(
        "coordinate {0} is in renju notation, which the unbounded board does not use (write x,y)"
    )]
    RenjuOnUnbounded(String),
}

/// The column letters: `a`..`z`, then `aa`, `ab`, ... as spreadsheet columns.
pub fn column_letters(column: u32) -> String {
    let mut n = column as u64 + 1;
    let mut out = Vec::new();
    while n > 0 {
        n -= 1;
        out.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

fn parse_column(letters: &str) -> Option<u32> {
    if letters.is_empty() || letters.len() > 4 {
        return None;
    }
    letters
        .bytes()
        .try_fold(0u32, |acc, b| {
            let b = b.to_ascii_lowercase();
            b.is_ascii_lowercase()
                .then(|| acc * 26 + (b - b'a') as u32 + 1)
        })
        .map(|n| n - 1)
}

impl Coord {
    /// The renju-notation coordinate of `p`, or `None` on the unbounded board or off the board.
    pub fn renju(size: BoardSize, p: Point) -> Option<Coord> {
        let h = size.height()?;
        size.contains(p).then(|| Coord::Renju {
            column: p.x as u32,
            row: h - p.y as u32,
        })
    }

    /// The Gomocup coordinate of `p`.
    pub const fn numeric(p: Point) -> Coord {
        Coord::Numeric { x: p.x, y: p.y }
    }

    /// The point this coordinate names on a board of `size`.
    pub fn to_point(self, size: BoardSize) -> Result<Point, CoordError> {
        let p = match self {
            Coord::Numeric { x, y } => Point::new(x, y),
            Coord::Renju { column, row } => {
                let h = size
                    .height()
                    .ok_or_else(|| CoordError::RenjuOnUnbounded(self.to_string()))?;
                let y = h as i64 - row as i64;
                Point::new(
                    i32::try_from(column).unwrap_or(i32::MAX),
                    i32::try_from(y).unwrap_or(-1),
                )
            }
        };
        if size.contains(p) {
            Ok(p)
        } else {
            Err(CoordError::OffBoard(self.to_string(), size))
        }
    }
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Coord::Renju { column, row } => write!(f, "{}{}", column_letters(column), row),
            Coord::Numeric { x, y } => write!(f, "{x},{y}"),
        }
    }
}

impl FromStr for Coord {
    type Err = CoordError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = || CoordError::Syntax(excerpt(s));
        let t = s.trim();
        if let Some((x, y)) = t.split_once(',') {
            let num = |v: &str| v.trim().parse::<i32>().map_err(|_| syntax());
            return Ok(Coord::Numeric {
                x: num(x)?,
                y: num(y)?,
            });
        }
        let split = t
            .find(|c: char| !c.is_ascii_alphabetic())
            .ok_or_else(syntax)?;
        let (letters, digits) = t.split_at(split);
        let column = parse_column(letters).ok_or_else(syntax)?;
        if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax());
        }
        let row: u32 = digits.parse().map_err(|_| syntax())?;
        if row == 0 {
            return Err(syntax());
        }
        Ok(Coord::Renju { column, row })
    }
}

/// Reads a point in either notation and checks it is on the board.
///
/// ```
/// use tengen_rules::{BoardSize, Point, parse_point};
/// assert_eq!(parse_point(BoardSize::STANDARD, "H8")?, Point::new(7, 7));
/// assert!(parse_point(BoardSize::STANDARD, "p1").is_err());
/// assert_eq!(parse_point(BoardSize::UNBOUNDED, "-3,12")?, Point::new(-3, 12));
/// # Ok::<(), tengen_rules::CoordError>(())
/// ```
pub fn parse_point(size: BoardSize, text: &str) -> Result<Point, CoordError> {
    text.parse::<Coord>()?.to_point(size)
}

/// The usual name of `p`: renju notation on a bounded board, `x,y` on the unbounded one.
pub fn point_name(size: BoardSize, p: Point) -> String {
    Coord::renju(size, p)
        .unwrap_or(Coord::numeric(p))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_past_z() {
        assert_eq!(column_letters(0), "a");
        assert_eq!(column_letters(25), "z");
        assert_eq!(column_letters(26), "aa");
        assert_eq!(column_letters(27), "ab");
        assert_eq!(column_letters(99), "cv");
        for c in 0..200 {
            assert_eq!(parse_column(&column_letters(c)), Some(c));
        }
    }

    #[test]
    fn renju_rows_count_from_the_bottom() {
        let s = BoardSize::rect(16, 14).expect("valid");
        assert_eq!(parse_point(s, "a1"), Ok(Point::new(0, 13)));
        assert_eq!(parse_point(s, "p14"), Ok(Point::new(15, 0)));
        assert!(matches!(
            parse_point(s, "q1"),
            Err(CoordError::OffBoard(..))
        ));
        assert!(matches!(
            parse_point(s, "a15"),
            Err(CoordError::OffBoard(..))
        ));
        let big = BoardSize::square(100).expect("valid");
        assert_eq!(parse_point(big, "cv100"), Ok(Point::new(99, 0)));
        assert_eq!(point_name(big, Point::new(99, 0)), "cv100");
    }

    #[test]
    fn bad_text_is_a_syntax_error() {
        for bad in [
            "", "8h", "h", "h0", "h-1", "7,", ",7", "h8x", "é8", "7;7", "h99999",
        ] {
            assert!(
                matches!(bad.parse::<Coord>(), Err(CoordError::Syntax(_))),
                "{bad:?} should not parse"
            );
        }
        assert!(matches!(
            parse_point(BoardSize::UNBOUNDED, "h8"),
            Err(CoordError::RenjuOnUnbounded(_))
        ));
    }
}
