//! A slow, deliberately naive renju forbidden-point checker, written straight from the RIF rule
//! text (articles 9.2 and 9.3) to cross-check the fast table-driven one in `src/forbidden.rs`.
//!
//! It shares no code with the crate's `line.rs` or `forbidden.rs`: it only places stones on
//! clones of the board and counts stones in a row with `Board::get`. Every question ("is this a
//! five?", "is this a straight four?") is answered by actually putting the stones on a board and
//! looking, never by reasoning about patterns, so that it is easy to check against the rule text.
//! Speed does not matter here; clarity does.
//!
//! The rule text, for black:
//! - *five*: exactly five black stones in an unbroken row. A move that makes a five wins, and is
//!   never forbidden, whatever else it makes (RIF 9.2).
//! - *overline*: six or more black stones in an unbroken row. Forbidden.
//! - *four*: a row of stones which one more black stone can turn into a five. A move making two
//!   or more fours at once (double-four) is forbidden, also when both lie on one line.
//! - *straight four*: four in an unbroken row with both ends open, each end making a five.
//! - *three*: a row of stones which one more black stone can turn into a straight four. A three
//!   counts only if that straight four can really be made: the move making it must be neither
//!   forbidden itself nor a five (RIF 9.3). A move making two or more threes (double-three) is
//!   forbidden.

use tengen_rules::{Board, Color, Direction, Forbidden, Point};

/// How far along a line a stone can matter: a five containing two points holds them at most
/// four cells apart. Looking one cell further costs nothing and makes it obvious nothing is
/// missed.
const LOOK: i32 = 5;

/// Why `p` is forbidden to black on `board` under RIF renju, or `None` if black may play it (or
/// it is occupied or off the board: then it is no move at all).
pub fn slow_forbidden(board: &Board, p: Point) -> Option<Forbidden> {
    judge(board, p, Threes::Real)
}

/// Whether `p` would be a double-three if every three counted, real or not: the naive check that
/// skips RIF 9.3. Tests use it to count the false double-threes a run has met, so that the
/// recursive part of the rule is known to have been exercised.
pub fn naive_double_three(board: &Board, p: Point) -> bool {
    judge(board, p, Threes::Naive) == Some(Forbidden::DoubleThree)
}

/// Which threes count.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Threes {
    /// Only those whose straight four can really be made (RIF 9.3).
    Real,
    /// Every three, without looking deeper.
    Naive,
}

fn judge(board: &Board, p: Point, threes: Threes) -> Option<Forbidden> {
    if !is_free(board, p) {
        return None;
    }
    let after = with_black(board, p);

    // RIF 9.2: a five wins; the move is not forbidden even if it also makes an overline, a
    // double-four or a double-three on other lines.
    if Direction::ALL
        .iter()
        .any(|&d| row_through(&after, p, d).len() == 5)
    {
        return None;
    }
    // Overline: six or more in a row.
    if Direction::ALL
        .iter()
        .any(|&d| row_through(&after, p, d).len() >= 6)
    {
        return Some(Forbidden::Overline);
    }
    // Double-four: two or more fours made by this move, on one line or on several.
    let fours = Direction::ALL.map(|d| fours_made(&after, p, d));
    if fours.iter().sum::<usize>() >= 2 {
        return Some(Forbidden::DoubleFour);
    }
    // Double-three: two or more lines each holding a three made by this move. A line that holds
    // a four is not a three as well (a four and a three is a legal four-three).
    let three_lines = Direction::ALL
        .iter()
        .zip(fours)
        .filter(|&(&d, f)| f == 0 && makes_three(&after, p, d, threes))
        // Two are enough to decide; not asking about the rest saves deep recursions.
        .take(2)
        .count();
    (three_lines >= 2).then_some(Forbidden::DoubleThree)
}

/// The fours `p` (already black on `after`) takes part in along `dir`.
///
/// A four is one more black stone away from a five, so the fours are found through their
/// completion points: the empty points that, played too, make exactly five together with `p`.
/// The two ends of a straight four (`.XXXX.`) both complete the same four, which is one four;
/// any other completion point is a four of its own (so `X.XXX.X` through the middle is two).
fn fours_made(after: &Board, p: Point, dir: Direction) -> usize {
    if too_few_stones(after, p, dir) {
        return 0;
    }
    let completions: Vec<i32> = (-LOOK..=LOOK)
        .filter(|&k| k != 0 && is_free(after, p.step(dir, k)))
        .filter(|&k| {
            let q = p.step(dir, k);
            let row = row_through(&with_black(after, q), p, dir);
            row.len() == 5 && row.contains(&q)
        })
        .collect();
    let straight_fours = completions
        .iter()
        .filter(|&&a| {
            // `a` and `a + 5` are the two open ends of one straight four: the four cells
            // between them are black (`p` among them) and both ends complete a five.
            completions.contains(&(a + 5))
                && (a + 1..a + 5).all(|k| after.get(p.step(dir, k)) == Some(Color::Black))
        })
        .count();
    completions.len() - straight_fours
}

/// Whether `p` (already black on `after`) makes a three along `dir`: some empty point `q` of the
/// line, played by black, makes a straight four holding both `p` and `q`. With [`Threes::Real`]
/// that straight four must also be a real option for black: `q` must not be a five (then it is
/// not a four being made but a win) and must not itself be forbidden, judged with `p` on the
/// board (RIF 9.3).
fn makes_three(after: &Board, p: Point, dir: Direction, threes: Threes) -> bool {
    if too_few_stones(after, p, dir) {
        return false;
    }
    (-LOOK..=LOOK)
        .filter(|&k| k != 0 && is_free(after, p.step(dir, k)))
        .any(|k| {
            let q = p.step(dir, k);
            let with_q = with_black(after, q);
            if !is_straight_four(&with_q, p, q, dir) {
                return false;
            }
            match threes {
                Threes::Naive => true,
                Threes::Real => !makes_five(after, q) && slow_forbidden(after, q).is_none(),
            }
        })
}

/// Whether the black stones on `board` through `p` along `dir` are a straight four holding `q`:
/// exactly four in an unbroken row, and each of the two cells just past its ends empty and
/// making exactly five (not six) when black plays there.
fn is_straight_four(board: &Board, p: Point, q: Point, dir: Direction) -> bool {
    let row = row_through(board, p, dir);
    if row.len() != 4 || !row.contains(&q) {
        return false;
    }
    let ends = [row[0].step(dir, -1), row[3].step(dir, 1)];
    ends.iter()
        .all(|&e| is_free(board, e) && row_through(&with_black(board, e), p, dir).len() == 5)
}

/// Whether the line through `p` along `dir` has too few black stones near `p` to hold a four or
/// a three through `p`: a four is `p` and three more stones, a three `p` and two more, all within
/// four cells of `p`. Only a shortcut (the answer would be the same without it), but it spares
/// most of the board copies on a sparse line.
fn too_few_stones(after: &Board, p: Point, dir: Direction) -> bool {
    let near = (-4..=4)
        .filter(|&k| k != 0 && after.get(p.step(dir, k)) == Some(Color::Black))
        .count();
    near < 2
}

/// Whether black on the empty point `q` makes exactly five along some line.
fn makes_five(board: &Board, q: Point) -> bool {
    let with_q = with_black(board, q);
    Direction::ALL
        .iter()
        .any(|&d| row_through(&with_q, q, d).len() == 5)
}

/// The unbroken row of black stones through the black stone `p` along `dir`, in order along the
/// line.
fn row_through(board: &Board, p: Point, dir: Direction) -> Vec<Point> {
    let black = |q: Point| board.get(q) == Some(Color::Black);
    let mut first = p;
    while black(first.step(dir, -1)) {
        first = first.step(dir, -1);
    }
    let mut row = vec![first];
    while black(row[row.len() - 1].step(dir, 1)) {
        row.push(row[row.len() - 1].step(dir, 1));
    }
    row
}

/// Whether a stone can be placed on `p`: on the board and empty.
fn is_free(board: &Board, p: Point) -> bool {
    board.contains(p) && board.get(p).is_none()
}

/// A copy of `board` with a black stone added on the free point `p`.
fn with_black(board: &Board, p: Point) -> Board {
    let mut b = board.clone();
    b.place(p, Color::Black)
        .expect("the reference only places stones on free points near other stones");
    b
}
