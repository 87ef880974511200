//! What a move makes across its four lines: fives, fours, open threes, and black's forbidden
//! points under renju, checked exactly (RIF 9.3 recursion) on the engine's own position.

use tengen_rules::{Color, Rule};

use crate::pattern::Pat;
use crate::position::{Position, Sq};

/// What one colour would make by playing one empty cell.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct Info {
    /// A winning five.
    pub five: bool,
    /// Fours made (two on one line count two; a straight four counts one).
    pub fours: u8,
    /// A straight four among them.
    pub open_four: bool,
    /// Open threes made (lines that can become a straight four).
    pub threes: u8,
    /// Black may not play here under renju.
    pub forbidden: bool,
    /// Pattern weights, for move ordering.
    pub weight: i32,
}

impl Info {
    /// Wins by force on the next own move: a straight four or two fours (and not forbidden).
    pub fn flex_four(&self) -> bool {
        !self.forbidden && !self.five && (self.open_four || self.fours >= 2)
    }

    /// Makes at least one four.
    pub fn any_four(&self) -> bool {
        self.fours > 0 && !self.forbidden
    }
}

const ORDER_WEIGHT: [i32; 10] = [0, 4, 12, 14, 60, 70, 500, 600, 10_000, 0];

/// The lines `c` would make on the empty `sq`, with the exact forbidden test for black under
/// renju.
pub(crate) fn info(pos: &mut Position, sq: Sq, c: Color) -> Info {
    let pats = pos.pats(sq, c);
    let mut i = Info::default();
    let mut overline = false;
    for p in pats {
        i.weight += ORDER_WEIGHT[p as usize];
        match p {
            Pat::Five => i.five = true,
            Pat::Overline => overline = true,
            Pat::FourOpen => {
                i.fours += 1;
                i.open_four = true;
            }
            Pat::FourDouble => i.fours += 2,
            Pat::Four => i.fours += 1,
            Pat::ThreeOpen => i.threes += 1,
            _ => {}
        }
    }
    if c == Color::Black
        && pos.rule() == Rule::Renju
        && !i.five
        && (overline || i.fours >= 2 || i.threes >= 2)
    {
        i.forbidden = forbidden(pos, sq);
        if i.forbidden {
            // Black cannot play here, so neither side gains by looking at it.
            i.weight = 0;
        }
    }
    i
}

/// Whether black may not play the empty `sq` under renju: overline, double-four, or two real
/// threes, where a three is real only if a straight-four point of it is neither a five elsewhere
/// nor forbidden itself (checked recursively, RIF 9.3).
pub(crate) fn forbidden(pos: &mut Position, sq: Sq) -> bool {
    let pats = pos.pats(sq, Color::Black);
    if pats.contains(&Pat::Five) {
        return false;
    }
    if pats.contains(&Pat::Overline) {
        return true;
    }
    let fours: u32 = pats
        .iter()
        .map(|p| match p {
            Pat::Four | Pat::FourOpen => 1,
            Pat::FourDouble => 2,
            _ => 0,
        })
        .sum();
    if fours >= 2 {
        return true;
    }
    let three_dirs: Vec<usize> = (0..4).filter(|&d| pats[d] == Pat::ThreeOpen).collect();
    if three_dirs.len() < 2 {
        return false;
    }
    pos.place(sq, Color::Black);
    let mut real = 0;
    let mut left = three_dirs.len();
    for d in three_dirs {
        if real >= 2 || real + left < 2 {
            break;
        }
        left -= 1;
        if real_three(pos, sq, d) {
            real += 1;
        }
    }
    pos.unplace(sq, Color::Black);
    real >= 2
}

// With black on `sq`: is there a point on line `d` that makes a straight four through `sq` and is
// a move black may make, not a five elsewhere?
fn real_three(pos: &mut Position, sq: Sq, d: usize) -> bool {
    let delta = pos.deltas[d];
    for side in [-1isize, 1] {
        for k in 1..=3isize {
            let q = (sq as isize + side * k * delta) as Sq;
            if !pos.is_empty(q) {
                if pos.cell(q) == crate::pattern::BLACK {
                    continue;
                }
                break;
            }
            // Every cell between sq and q is black (we stopped at the first non-black), so the
            // run through q contains sq.
            if pos.pat(q, Color::Black, d) == Pat::FourOpen
                && !pos.pats(q, Color::Black).contains(&Pat::Five)
                && !forbidden(pos, q)
            {
                return true;
            }
            break;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_rules::{Board, BoardSize, point_name};

    fn board_of<S: AsRef<str>>(rows: &[S]) -> Board {
        Board::from_rows(rows).expect("a valid test board")
    }

    /// The engine's forbidden test must agree with the rules library's on every point.
    fn agree(board: &Board) -> Vec<String> {
        let mut pos = Position::new(board, Rule::Renju, Color::Black);
        let mut bad = Vec::new();
        for p in BoardSize::STANDARD.points() {
            if !board.is_empty_at(p) {
                continue;
            }
            let sq = pos.sq(p).expect("on board");
            let engine = info(&mut pos, sq, Color::Black).forbidden;
            let rules = tengen_rules::forbidden(board, p).is_some();
            if engine != rules {
                bad.push(format!(
                    "{} engine {engine} rules {rules}",
                    point_name(BoardSize::STANDARD, p)
                ));
            }
        }
        bad
    }

    #[test]
    fn forbidden_points_agree_with_the_rules_library_on_published_suites() {
        #[derive(serde::Deserialize)]
        struct Suite {
            cases: Vec<Rows>,
            #[serde(default)]
            full_maps: Vec<Rows>,
        }
        #[derive(serde::Deserialize)]
        struct Rows {
            id: String,
            rows: Vec<String>,
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tengen-rules/tests/data/");
        let mut checked = 0;
        for file in ["forbidden_cases.json", "generated_false33_cases.json"] {
            let text = std::fs::read_to_string(format!("{dir}{file}")).expect("data");
            let suite: Suite = serde_json::from_str(&text).expect("json");
            for case in suite.cases.iter().chain(&suite.full_maps) {
                let rows: Vec<&str> = case.rows.iter().map(String::as_str).collect();
                let bad = agree(&board_of(&rows));
                assert!(bad.is_empty(), "{}: {bad:?}", case.id);
                checked += 1;
            }
        }
        assert_eq!(checked, 128 + 30 + 60);
    }
}
