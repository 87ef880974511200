//! The winning rules and the test for five in a row.

use std::fmt;
use std::str::FromStr;

use crate::board::Board;
use crate::excerpt::excerpt;
use crate::{Color, Direction, Point};

/// Which rows of five win.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Rule {
    /// Five or more in a row wins, for both colours.
    #[default]
    Freestyle,
    /// Exactly five wins; an overline wins for nobody.
    Standard,
    /// RIF renju: black's overline, double-four and double-three are forbidden and black wins by
    /// exactly five; white has no restriction and wins by five or more.
    Renju,
    /// Exactly five wins unless the opponent blocks it at both ends (the board edge is no block).
    /// Piskvork's "standard Caro", `INFO rule 9`.
    Caro,
    /// Caro with overlines: five or more wins, except a row of exactly five that the opponent
    /// blocks at both ends (the board edge is no block). Piskvork's `INFO rule 8`.
    CaroOverlines,
}

/// A rule name Tengen does not know.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("unknown rule {0:?} (expected freestyle, standard, renju, caro or caro-overlines)")]
pub struct RuleError(pub String);

impl Rule {
    /// Every rule.
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::Standard,
        Rule::Renju,
        Rule::Caro,
        Rule::CaroOverlines,
    ];

    /// `"freestyle"`, `"standard"`, `"renju"`, `"caro"` or `"caro-overlines"`.
    pub const fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
            Rule::Caro => "caro",
            Rule::CaroOverlines => "caro-overlines",
        }
    }

    /// The Gomocup protocol's `INFO rule` bit value: 0, 1, 4, 9 (caro and exact five) or 8.
    pub const fn gomocup_bits(self) -> u32 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
            Rule::Caro => 9,
            Rule::CaroOverlines => 8,
        }
    }

    /// The rule an `INFO rule` value names: the renju bit first, then the caro bit (with the
    /// exact-five bit caro, alone caro with overlines, as Piskvork reads them), then exact five.
    pub const fn from_gomocup_bits(bits: u32) -> Rule {
        if bits & 4 != 0 {
            Rule::Renju
        } else if bits & 8 != 0 {
            if bits & 1 != 0 {
                Rule::Caro
            } else {
                Rule::CaroOverlines
            }
        } else if bits & 1 != 0 {
            Rule::Standard
        } else {
            Rule::Freestyle
        }
    }

    /// Whether black has forbidden points under this rule.
    pub const fn has_forbidden(self) -> bool {
        matches!(self, Rule::Renju)
    }

    /// The rows of five (or more, where they win) that `color`'s stone on `p` completes, each
    /// as its points in order along the line. Empty when the move does not win.
    ///
    /// ```
    /// use tengen_rules::{Board, BoardSize, Color, Point, Rule};
    /// let mut b = Board::new(BoardSize::STANDARD);
    /// for x in 0..6 {
    ///     b.place(Point::new(x, 0), Color::Black)?;
    /// }
    /// assert_eq!(Rule::Freestyle.fives(&b, Point::new(5, 0), Color::Black).len(), 1);
    /// assert!(Rule::Standard.fives(&b, Point::new(5, 0), Color::Black).is_empty());
    /// # Ok::<(), tengen_rules::PlaceError>(())
    /// ```
    pub fn fives(self, board: &Board, p: Point, color: Color) -> Vec<Vec<Point>> {
        Direction::ALL
            .into_iter()
            .filter_map(|dir| {
                let (lo, hi) = run_through(board, p, color, dir);
                let len = hi - lo + 1;
                let opp = Some(color.opponent());
                let blocked_twice = || {
                    board.get(p.step(dir, lo - 1)) == opp && board.get(p.step(dir, hi + 1)) == opp
                };
                let wins = match self {
                    Rule::Freestyle => len >= 5,
                    Rule::Standard => len == 5,
                    Rule::Renju => len == 5 || (len > 5 && color == Color::White),
                    Rule::Caro => len == 5 && !blocked_twice(),
                    Rule::CaroOverlines => len > 5 || (len == 5 && !blocked_twice()),
                };
                wins.then(|| (lo..=hi).map(|k| p.step(dir, k)).collect())
            })
            .collect()
    }
}

// Offsets (from p, inclusive) of the run of `color` through p along `dir`, p counted as `color`.
fn run_through(board: &Board, p: Point, color: Color, dir: Direction) -> (i32, i32) {
    let mut lo = 0;
    while board.get(p.step(dir, lo - 1)) == Some(color) {
        lo -= 1;
    }
    let mut hi = 0;
    while board.get(p.step(dir, hi + 1)) == Some(color) {
        hi += 1;
    }
    (lo, hi)
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rule {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "freestyle" | "free" | "gomoku" | "0" => Ok(Rule::Freestyle),
            "standard" | "exact" | "exactfive" | "1" => Ok(Rule::Standard),
            "renju" | "4" => Ok(Rule::Renju),
            "caro" | "9" => Ok(Rule::Caro),
            "caro-overlines"
            | "caro-overline"
            | "caro_overlines"
            | "caro overlines"
            | "caro with overlines"
            | "8" => Ok(Rule::CaroOverlines),
            _ => Err(RuleError(excerpt(s))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BoardSize;

    fn board_with(stones: &[(i32, i32, Color)]) -> Board {
        let mut b = Board::new(BoardSize::STANDARD);
        for &(x, y, c) in stones {
            b.place(Point::new(x, y), c).expect("free point");
        }
        b
    }

    #[test]
    fn caro_five_blocked_at_both_ends_does_not_win() {
        use Color::{Black as B, White as W};
        let mut stones: Vec<_> = (1..=5).map(|x| (x, 3, B)).collect();
        stones.push((0, 3, W));
        stones.push((6, 3, W));
        let b = board_with(&stones);
        assert!(Rule::Caro.fives(&b, Point::new(3, 3), B).is_empty());
        assert_eq!(Rule::Standard.fives(&b, Point::new(3, 3), B).len(), 1);
        // Against the edge and one white stone: the edge is no block.
        let mut stones: Vec<_> = (0..5).map(|x| (x, 3, B)).collect();
        stones.push((5, 3, W));
        let b = board_with(&stones);
        assert_eq!(Rule::Caro.fives(&b, Point::new(2, 3), B).len(), 1);
    }

    #[test]
    fn caro_with_overlines_lets_a_six_win_and_a_five_blocked_at_both_ends_not() {
        use Color::{Black as B, White as W};
        let rule = Rule::CaroOverlines;
        // A six wins, where caro's five must be exact.
        let b = board_with(&(2..8).map(|x| (x, 3, B)).collect::<Vec<_>>());
        assert_eq!(rule.fives(&b, Point::new(4, 3), B)[0].len(), 6);
        assert!(Rule::Caro.fives(&b, Point::new(4, 3), B).is_empty());
        // Exactly five blocked at both ends does not win; blocked at one end it does.
        let mut stones: Vec<_> = (1..=5).map(|x| (x, 3, B)).collect();
        stones.push((0, 3, W));
        let b = board_with(&stones);
        assert_eq!(rule.fives(&b, Point::new(3, 3), B).len(), 1);
        stones.push((6, 3, W));
        let b = board_with(&stones);
        assert!(rule.fives(&b, Point::new(3, 3), B).is_empty());
        // A six blocked at both ends still wins.
        let mut stones: Vec<_> = (1..=6).map(|y| (5, y, W)).collect();
        stones.push((5, 0, B));
        stones.push((5, 7, B));
        let b = board_with(&stones);
        assert_eq!(rule.fives(&b, Point::new(5, 1), W)[0].len(), 6);
        // Exactly five along the edge and blocked by one stone: the edge is no block.
        let mut stones: Vec<_> = (0..5).map(|i| (i, i, B)).collect();
        stones.push((5, 5, W));
        let b = board_with(&stones);
        assert_eq!(rule.fives(&b, Point::new(0, 0), B).len(), 1);
    }

    #[test]
    fn renju_overline_wins_for_white_only() {
        let white: Vec<_> = (0..6).map(|y| (4, y, Color::White)).collect();
        let b = board_with(&white);
        assert_eq!(
            Rule::Renju.fives(&b, Point::new(4, 2), Color::White)[0].len(),
            6
        );
        let black: Vec<_> = (0..6).map(|y| (4, y, Color::Black)).collect();
        let b = board_with(&black);
        assert!(
            Rule::Renju
                .fives(&b, Point::new(4, 2), Color::Black)
                .is_empty()
        );
    }

    #[test]
    fn gomocup_bits_round_trip() {
        for r in Rule::ALL {
            assert_eq!(Rule::from_gomocup_bits(r.gomocup_bits()), r);
            assert_eq!(r.name().parse::<Rule>(), Ok(r));
            assert_eq!(r.gomocup_bits().to_string().parse::<Rule>(), Ok(r));
        }
        // Piskvork's 8 is caro with overlines, 9 (caro and exact five) caro; the continuous
        // game's bit 2 changes neither, and renju's bit comes first.
        for (bits, rule) in [
            (8, Rule::CaroOverlines),
            (9, Rule::Caro),
            (10, Rule::CaroOverlines),
            (11, Rule::Caro),
            (12, Rule::Renju),
            (3, Rule::Standard),
        ] {
            assert_eq!(Rule::from_gomocup_bits(bits), rule, "{bits}");
        }
        for (name, rule) in [
            ("Caro", Rule::Caro),
            ("CARO-OVERLINES", Rule::CaroOverlines),
            ("caro with overlines", Rule::CaroOverlines),
        ] {
            assert_eq!(name.parse::<Rule>(), Ok(rule), "{name}");
        }
        assert!("chess".parse::<Rule>().is_err());
    }
}
