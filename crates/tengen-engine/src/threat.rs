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

// One line's share of an [`Info`], packed so that the four lines' shares add up in one word
// without carries: the order weight (bits 0-15, at most 4 × 10,000), fours (16-19, two for a
// double four), straight fours (20-22), open threes (23-25), fives (26-28), overlines (29-31).
const WEIGHT_BITS: u32 = 0xffff;
const FOURS_AT: u32 = 16;
const OPEN_FOURS_AT: u32 = 20;
const THREES_AT: u32 = 23;
const FIVES_AT: u32 = 26;
const OVERLINES_AT: u32 = 29;

/// Each pattern's share, by its four-bit code (codes past the last pattern never occur).
const LINE_SHARE: [u32; 16] = {
    let mut t = [0u32; 16];
    let mut p = 0;
    while p < ORDER_WEIGHT.len() {
        let mut v = ORDER_WEIGHT[p] as u32;
        if p == Pat::Five as usize {
            v |= 1 << FIVES_AT;
        } else if p == Pat::Overline as usize {
            v |= 1 << OVERLINES_AT;
        } else if p == Pat::FourOpen as usize {
            v |= 1 << FOURS_AT | 1 << OPEN_FOURS_AT;
        } else if p == Pat::FourDouble as usize {
            v |= 2 << FOURS_AT;
        } else if p == Pat::Four as usize {
            v |= 1 << FOURS_AT;
        } else if p == Pat::ThreeOpen as usize {
            v |= 1 << THREES_AT;
        }
        t[p] = v;
        p += 1;
    }
    t
};

/// Both colours' shares (see [`LINE_SHARE`]) by packed pattern byte: black's in the low 32 bits,
/// white's in the high 32.
const BOTH_SHARES: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut v = 0;
    while v < 256 {
        t[v] = LINE_SHARE[v & 15] as u64 | (LINE_SHARE[v >> 4] as u64) << 32;
        v += 1;
    }
    t
};

/// The four lines' shares of the empty `sq` summed for both colours at once, for
/// [`info_of_shares`]: the move generator asks for both colours at every candidate of every
/// node.
#[inline(always)]
pub(crate) fn shares(pos: &Position, sq: Sq) -> u64 {
    pos.packed_pats(sq)
        .iter()
        .map(|&b| BOTH_SHARES[b as usize])
        .sum()
}

/// The lines `c` would make on the empty `sq`, with the exact forbidden test for black under
/// renju.
pub(crate) fn info(pos: &mut Position, sq: Sq, c: Color) -> Info {
    let shares = shares(pos, sq);
    info_of_shares(pos, sq, c, shares)
}

/// Whether the [`shares`] of a cell show nothing but ordering weight for either colour: no
/// five, four, open three or overline, so nothing [`info`] could flag (not even a forbidden
/// point). Most candidates of most nodes are such: the move generator takes their weights
/// without building an [`Info`].
#[inline(always)]
pub(crate) fn quiet_shares(shares: u64) -> bool {
    const WEIGHTS: u64 = WEIGHT_BITS as u64 | (WEIGHT_BITS as u64) << 32;
    shares & !WEIGHTS == 0
}

/// The half of a cell's [`shares`] that counts `c`'s lines.
#[inline(always)]
fn share_of(shares: u64, c: Color) -> u32 {
    (shares >> (32 * crate::position::ci(c))) as u32
}

/// The ordering weight of `c` in the [`shares`] of a cell.
#[inline(always)]
pub(crate) fn weight_of_shares(shares: u64, c: Color) -> i32 {
    (share_of(shares, c) & WEIGHT_BITS) as i32
}

/// [`info`] from the [`shares`] of `sq`.
#[inline(always)]
pub(crate) fn info_of_shares(pos: &mut Position, sq: Sq, c: Color, shares: u64) -> Info {
    let sum = share_of(shares, c);
    let fours = (sum >> FOURS_AT) & 15;
    let threes = (sum >> THREES_AT) & 7;
    let overline = (sum >> OVERLINES_AT) & 7 != 0;
    let i = Info {
        five: (sum >> FIVES_AT) & 7 != 0,
        fours: fours as u8,
        open_four: (sum >> OPEN_FOURS_AT) & 7 != 0,
        threes: threes as u8,
        forbidden: false,
        weight: (sum & WEIGHT_BITS) as i32,
    };
    with_forbidden_test(pos, sq, c, i, overline)
}

// `i` with black's exact forbidden test under renju, for a point where black would make an
// overline, two fours or two open threes.
fn with_forbidden_test(pos: &mut Position, sq: Sq, c: Color, mut i: Info, overline: bool) -> Info {
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

/// The same, the plain way: one line after another (the definition the table above must
/// agree with).
#[cfg(test)]
fn info_by_lines(pos: &mut Position, sq: Sq, c: Color) -> Info {
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
    with_forbidden_test(pos, sq, c, i, overline)
}

/// What black's four line patterns on a point settle of its being forbidden under renju: not
/// with a five (which wins), yes with an overline or two fours, not with fewer than two open
/// threes. `None` for two open threes or more, which only the recursion on the board can judge
/// (each must be a real three).
pub(crate) fn forbidden_by_patterns(pats: [Pat; 4]) -> Option<bool> {
    if pats.contains(&Pat::Five) {
        return Some(false);
    }
    if pats.contains(&Pat::Overline) {
        return Some(true);
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
        return Some(true);
    }
    let threes = pats.iter().filter(|&&p| p == Pat::ThreeOpen).count();
    (threes < 2).then_some(false)
}

/// Whether black may not play the empty `sq` under renju: overline, double-four, or two real
/// threes, where a three is real only if a straight-four point of it is neither a five elsewhere
/// nor forbidden itself (checked recursively, RIF 9.3).
pub(crate) fn forbidden(pos: &mut Position, sq: Sq) -> bool {
    let pats = pos.pats(sq, Color::Black);
    if let Some(verdict) = forbidden_by_patterns(pats) {
        return verdict;
    }
    let mut left = pats.iter().filter(|&&p| p == Pat::ThreeOpen).count();
    // The test reads patterns alone: a lean stone spares the evaluation's bookkeeping.
    let was_lean = pos.set_lean(true);
    pos.place(sq, Color::Black);
    let mut real = 0;
    for d in (0..4).filter(|&d| pats[d] == Pat::ThreeOpen) {
        if real >= 2 || real + left < 2 {
            break;
        }
        left -= 1;
        if real_three(pos, sq, d) {
            real += 1;
        }
    }
    pos.unplace(sq, Color::Black);
    pos.set_lean(was_lean);
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

    /// The packed-table `info` reads every empty point as the line-by-line definition does,
    /// for both colours under each rule, along pseudo-random games dense enough for fours,
    /// fives, overlines and forbidden points.
    #[test]
    fn info_by_table_agrees_with_info_line_by_line() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut kinds = std::collections::HashSet::new();
        for rule in Rule::ALL {
            for _game in 0..6 {
                let mut board = Board::new(BoardSize::STANDARD);
                let mut side = Color::Black;
                for _ in 0..70 {
                    let p = crate::position::random_point(&mut seed, 3, 9);
                    if board.place(p, side).is_err() {
                        continue;
                    }
                    side = side.opponent();
                    let mut pos = Position::new(&board, rule, side);
                    for q in BoardSize::STANDARD.points() {
                        if !board.is_empty_at(q) {
                            continue;
                        }
                        let sq = pos.sq(q).expect("on board");
                        for c in [Color::Black, Color::White] {
                            let fast = info(&mut pos, sq, c);
                            assert_eq!(fast, info_by_lines(&mut pos, sq, c), "{rule:?} {board:?}");
                            kinds.insert((
                                fast.five,
                                fast.fours.min(2),
                                fast.open_four,
                                fast.forbidden,
                            ));
                        }
                    }
                }
            }
        }
        // Fives, double fours, straight fours and forbidden points all came up.
        assert!(kinds.iter().any(|k| k.0) && kinds.iter().any(|k| k.1 == 2));
        assert!(
            kinds.iter().any(|k| k.2) && kinds.iter().any(|k| k.3),
            "{kinds:?}"
        );
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
