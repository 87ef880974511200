//! Black's forbidden points under renju (RIF rules, articles 9.2 and 9.3).

use std::fmt;

use crate::board::{BLACK, Board, EMPTY};
use crate::line::{self, LineShape};
use crate::{Color, Direction, Point};

/// Why a point is forbidden to black under renju.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Forbidden {
    /// Two or more open threes made at once.
    DoubleThree,
    /// Two or more fours made at once (two on one line included).
    DoubleFour,
    /// Six or more in a row.
    Overline,
}

impl Forbidden {
    /// `"double_three"`, `"double_four"` or `"overline"`.
    pub const fn key(self) -> &'static str {
        match self {
            Forbidden::DoubleThree => "double_three",
            Forbidden::DoubleFour => "double_four",
            Forbidden::Overline => "overline",
        }
    }

    /// Reads a [`Forbidden::key`] back.
    pub fn from_key(key: &str) -> Option<Forbidden> {
        [
            Forbidden::DoubleThree,
            Forbidden::DoubleFour,
            Forbidden::Overline,
        ]
        .into_iter()
        .find(|f| f.key() == key)
    }
}

impl fmt::Display for Forbidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Forbidden::DoubleThree => "double-three",
            Forbidden::DoubleFour => "double-four",
            Forbidden::Overline => "overline",
        })
    }
}

fn shapes(board: &Board, p: Point) -> [LineShape; 4] {
    Direction::ALL.map(|d| line::shape(board, p, d))
}

/// Whether black on the empty point `p` makes exactly five in some line.
pub(crate) fn makes_black_five(board: &Board, p: Point) -> bool {
    Direction::ALL
        .iter()
        .any(|&d| line::shape(board, p, d).five())
}

// The verdict the four lines give without looking deeper.
enum Quick {
    Legal,
    Forbidden(Forbidden),
    // Two or more lines may hold a three: each must be checked for being real.
    Threes([LineShape; 4]),
}

fn quick(board: &Board, p: Point) -> Quick {
    let s = shapes(board, p);
    // A five wins outright: a point that makes one is never forbidden (RIF 9.2).
    if s.iter().any(|l| l.five()) {
        return Quick::Legal;
    }
    if s.iter().any(|l| l.overline()) {
        return Quick::Forbidden(Forbidden::Overline);
    }
    if s.iter().map(|l| l.fours()).sum::<u32>() >= 2 {
        return Quick::Forbidden(Forbidden::DoubleFour);
    }
    // A line that holds a four is not also a three.
    let candidates = s
        .iter()
        .filter(|l| l.fours() == 0 && l.straight_four_points().next().is_some())
        .count();
    if candidates >= 2 {
        Quick::Threes(s)
    } else {
        Quick::Legal
    }
}

/// Whether the empty point `p` is forbidden to black under renju, and why.
///
/// A three counts only if it can become a straight four by a move that is itself neither
/// forbidden nor a five elsewhere, which this checks recursively (RIF 9.3). An occupied point or
/// one off the board is not forbidden: it is not playable at all.
///
/// ```
/// use tengen_rules::{Board, BoardSize, Color, Forbidden, Point, forbidden};
/// let mut b = Board::new(BoardSize::STANDARD);
/// // Black stones on g8, h9 and i8 ... and h7: black at h8 makes two open threes.
/// for (x, y) in [(6, 7), (8, 7), (7, 6), (7, 8)] {
///     b.place(Point::new(x, y), Color::Black)?;
/// }
/// assert_eq!(forbidden(&b, Point::new(7, 7)), Some(Forbidden::DoubleThree));
/// assert_eq!(forbidden(&b, Point::new(0, 0)), None);
/// # Ok::<(), tengen_rules::PlaceError>(())
/// ```
pub fn forbidden(board: &Board, p: Point) -> Option<Forbidden> {
    if board.cell(p) != EMPTY {
        return None;
    }
    match quick(board, p) {
        Quick::Legal => None,
        Quick::Forbidden(f) => Some(f),
        // Rare: only here is a scratch board needed, for the recursive test.
        Quick::Threes(s) => {
            real_threes_at_least_two(&mut board.clone(), p, s).then_some(Forbidden::DoubleThree)
        }
    }
}

fn forbidden_on_scratch(scratch: &mut Board, p: Point) -> Option<Forbidden> {
    match quick(scratch, p) {
        Quick::Legal => None,
        Quick::Forbidden(f) => Some(f),
        Quick::Threes(s) => {
            real_threes_at_least_two(scratch, p, s).then_some(Forbidden::DoubleThree)
        }
    }
}

// With black on `p`, counts the lines in which some straight-four point is a real move: not a
// five elsewhere (then it is a four, not a three) and not itself forbidden. Leaves `scratch` as
// it found it.
fn real_threes_at_least_two(scratch: &mut Board, p: Point, shapes: [LineShape; 4]) -> bool {
    scratch.put_scratch(p, BLACK);
    let mut real = 0;
    let candidates: Vec<(Direction, LineShape)> = Direction::ALL
        .into_iter()
        .zip(shapes)
        .filter(|(_, l)| l.fours() == 0)
        .collect();
    let mut left = candidates
        .iter()
        .filter(|(_, l)| l.straight_four_points().next().is_some())
        .count();
    for (dir, shape) in candidates {
        if shape.straight_four_points().next().is_none() {
            continue;
        }
        // Stop as soon as the answer is known either way.
        if real >= 2 || real + left < 2 {
            break;
        }
        left -= 1;
        let is_real = shape.straight_four_points().any(|k| {
            let q = p.step(dir, k);
            !makes_black_five(scratch, q) && forbidden_on_scratch(scratch, q).is_none()
        });
        if is_real {
            real += 1;
        }
    }
    scratch.put_scratch(p, EMPTY);
    real >= 2
}

/// Whether black has a free point that is not forbidden to play. Only on a bounded board nearly
/// full can every free point be forbidden (each an overline, a double four or a double three);
/// black then has no legal move and the game cannot go on.
///
/// ```
/// use tengen_rules::{Board, BoardSize, black_can_move};
/// assert!(black_can_move(&Board::new(BoardSize::STANDARD)));
/// ```
pub fn black_can_move(board: &Board) -> bool {
    let size = board.size();
    size.is_unbounded()
        || size
            .points()
            .any(|p| board.is_empty_at(p) && forbidden(board, p).is_none())
}

/// Every forbidden point for black on `board`, in the order of [`BoardSize::points`]
/// (on the unbounded board, the points near the stones).
///
/// [`BoardSize::points`]: crate::BoardSize::points
pub fn forbidden_points(board: &Board) -> Vec<(Point, Forbidden)> {
    candidate_points(board)
        .filter_map(|p| forbidden(board, p).map(|f| (p, f)))
        .collect()
}

// Points that could be forbidden: every point of a bounded board; on the unbounded board, the
// points within four cells of a black stone along one of its lines (a forbidden point's threes,
// fours and overline are lines through it holding black stones that near), row by row. Not the
// box around the stones: stones far apart would make it a million points.
fn candidate_points(board: &Board) -> Box<dyn Iterator<Item = Point> + '_> {
    let size = board.size();
    if !size.is_unbounded() {
        return Box::new(size.points());
    }
    let r = line::REACH - 1;
    let mut near: Vec<Point> = board
        .stones()
        .filter(|&(_, c)| c == Color::Black)
        .flat_map(|(s, _)| {
            Direction::ALL
                .into_iter()
                .flat_map(move |d| (-r..=r).map(move |k| s.step(d, k)))
        })
        .filter(|&p| board.contains(p))
        .collect();
    near.sort_unstable_by_key(|p| (p.y, p.x));
    near.dedup();
    Box::new(near.into_iter())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BoardSize;

    /// On the unbounded board the points looked at are those along the black stones' lines:
    /// a double three is found as on a bounded board, and a black stone far away adds nothing
    /// (nor makes the look cover the box between them).
    #[test]
    fn unbounded_forbidden_points_are_found_near_black_stones_only() {
        let mut board = Board::new(BoardSize::UNBOUNDED);
        for (x, y) in [(10, 12), (11, 12), (12, 10), (12, 11)] {
            board
                .place(Point::new(x, y), Color::Black)
                .expect("a free point");
        }
        let near = forbidden_points(&board);
        assert_eq!(near, vec![(Point::new(12, 12), Forbidden::DoubleThree)]);
        board
            .place(Point::new(900, 900), Color::Black)
            .expect("a free point");
        assert_eq!(forbidden_points(&board), near);
        assert!(candidate_points(&board).count() <= 5 * 4 * 9);
    }
}
