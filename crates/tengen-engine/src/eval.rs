//! The static evaluation and its weights.
//!
//! A position's value for the side to move sums a weight per (empty cell, direction) by the line
//! pattern each colour would make there, a weight per empty cell by the
//! [`line pair`](crate::position::line_pair) each colour would make there, and a few threat
//! terms. The weights are data: one text file per rule under `crates/tengen-engine/data/eval/`,
//! embedded in the engine, written by the tuning pipeline (`scripts/tune`) or by hand, and a
//! file of the same form can replace them at run time ([`Engine::set_eval_weights`]).
//!
//! [`Engine::set_eval_weights`]: crate::Engine::set_eval_weights

use std::fmt;
use std::sync::OnceLock;

use tengen_rules::Rule;

use crate::pattern::PATS;
use crate::position::{Counts, PAIRS, Position};

/// The evaluation's weights, as read from a weights file.
///
/// The text form is one `name value` line per weight (`#` starts a comment; a weight not named
/// is zero): `own_PATTERN` and `opp_PATTERN` per line pattern (`two`, `two_open`, `three`,
/// `three_open`, `four`, `four_double`, `four_open`, `five`), `own_pair_A_B` and `opp_pair_A_B` per
/// line pair (`A` the strongest line, `B` the second, each `2`, `2o`, `3`, `3o` or `4`),
/// `fork_to_make`, `forks_against`, `own_four_in_hand`, `tempo`, `own_scale N D` (the side to
/// move's pattern sum is multiplied by `N/D`), `divisor` (the total is divided by it),
/// `minus_parent 1` (the weighted sum less the position before's, see the field), and one
/// weight per threat mask, `threat_none` or `threat_` followed by what
/// each side has somewhere, joined by `_`: for the side to move `3` (an open three to make),
/// `4` (a four), `33` (a double three), `43` (a four-three); for the opponent the same with an
/// `x` before, and `x44` (a straight four or a double four to make). The file names only the
/// masks the fit gave a weight; the text form writes only those that are not zero.
///
/// ```
/// use tengen_engine::EvalWeights;
/// let w: EvalWeights = "own_three_open 20\nopp_three_open -24 # the opponent's\n".parse()?;
/// assert_eq!(w.get("own_three_open"), Some(20));
/// assert_eq!(w.get("own_four"), Some(0));
/// assert!("own_three_open twenty".parse::<EvalWeights>().is_err());
/// // The text form reads back the same.
/// assert_eq!(w.to_string().parse::<EvalWeights>()?, w);
/// # Ok::<(), tengen_engine::WeightsError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalWeights {
    own: [i32; PATS],
    own_scale: (i32, i32),
    opponent: [i32; PATS],
    own_pairs: [i32; PAIRS],
    opponent_pairs: [i32; PAIRS],
    /// A double three or a four-three to make for the side to move, against an opponent with
    /// no four to gain a tempo: nearly always a win, which the VCF at the leaves cannot see
    /// when the attack starts with an open three.
    fork_to_make: i32,
    /// Each of the opponent's double-three and four-three points (three at most): the side to
    /// move has one move to deal with them.
    per_fork_against: i32,
    /// A four to make for the side to move: a tempo in hand.
    own_four: i32,
    /// Having the move.
    tempo: i32,
    divisor: i32,
    /// Whether the evaluation is the position's weighted features less those of the position
    /// before the last move (for its own side to move), plus the tempo: `minus_parent 1` in
    /// the text form. The difference evens out what the side to move's last stone changed,
    /// which a plain sum swings by as the search's depth goes from odd to even.
    minus_parent: bool,
    /// A weight per threat mask ([`Position::threat_mask`]): which combined threats each side
    /// has somewhere, taken together. Whether an open three counts depends on whether the
    /// other side has a four to gain a tempo with; the sums of the other weights cannot say
    /// that, a weight per combination can.
    threats: [i32; THREAT_MASKS],
}

/// Number of threat masks (see [`Position::threat_mask`]): nine kinds of threat, each there or not.
pub(crate) const THREAT_MASKS: usize = 512;

/// The name of threat mask `m`'s weight in the text form of [`EvalWeights`].
pub(crate) fn threat_name(m: usize) -> String {
    const TOKENS: [&str; 9] = ["3", "4", "33", "43", "x3", "x4", "x33", "x43", "x44"];
    let parts: Vec<&str> = (0..9)
        .filter(|b| m >> b & 1 == 1)
        .map(|b| TOKENS[b])
        .collect();
    if parts.is_empty() {
        "threat_none".into()
    } else {
        format!("threat_{}", parts.join("_"))
    }
}

/// Names of the line patterns in weight names, by [`Pat`](crate::pattern::Pat) code; nothing
/// and an overline are never weighed. Fives are named but weigh nothing in practice: the
/// search decides them before it evaluates.
const PAT_NAMES: [&str; PATS] = [
    "",
    "two",
    "two_open",
    "three",
    "three_open",
    "four",
    "four_double",
    "four_open",
    "five",
    "",
];

/// The patterns a line pair is made of, weakest first.
pub(crate) const PAIR_PATS: [&str; 5] = ["2", "2o", "3", "3o", "4"];

/// Why a weights file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightsError {
    /// The line, counting from 1.
    pub line: usize,
    /// What is wrong there.
    pub reason: String,
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for WeightsError {}

/// Where a named weight lives.
#[derive(Clone, Copy)]
enum Slot {
    Own(usize),
    Opponent(usize),
    OwnPair(usize),
    OpponentPair(usize),
    ForkToMake,
    ForksAgainst,
    OwnFour,
    Tempo,
    Divisor,
    Threat(usize),
}

/// Every single-valued weight's name and slot, in the order the text form writes them.
fn slots() -> Vec<(String, Slot)> {
    let mut v = Vec::new();
    for (side, own) in [("own", true), ("opp", false)] {
        for (p, name) in PAT_NAMES.iter().enumerate().filter(|(_, n)| !n.is_empty()) {
            let slot = if own { Slot::Own(p) } else { Slot::Opponent(p) };
            v.push((format!("{side}_{name}"), slot));
        }
    }
    for (side, own) in [("own", true), ("opp", false)] {
        for (a, pa) in PAIR_PATS.iter().enumerate() {
            for (b, pb) in PAIR_PATS.iter().enumerate() {
                let i = a * PAIR_PATS.len() + b;
                let slot = if own {
                    Slot::OwnPair(i)
                } else {
                    Slot::OpponentPair(i)
                };
                v.push((format!("{side}_pair_{pa}_{pb}"), slot));
            }
        }
    }
    v.push(("fork_to_make".into(), Slot::ForkToMake));
    v.push(("forks_against".into(), Slot::ForksAgainst));
    v.push(("own_four_in_hand".into(), Slot::OwnFour));
    v.push(("tempo".into(), Slot::Tempo));
    v.push(("divisor".into(), Slot::Divisor));
    for m in 0..THREAT_MASKS {
        v.push((threat_name(m), Slot::Threat(m)));
    }
    v
}

impl EvalWeights {
    const ZERO: EvalWeights = EvalWeights {
        own: [0; PATS],
        own_scale: (1, 1),
        opponent: [0; PATS],
        own_pairs: [0; PAIRS],
        opponent_pairs: [0; PAIRS],
        fork_to_make: 0,
        per_fork_against: 0,
        own_four: 0,
        tempo: 0,
        divisor: 1,
        minus_parent: false,
        threats: [0; THREAT_MASKS],
    };

    /// The weights the engine plays with under `rule` unless told otherwise, fitted by
    /// `scripts/tune`, each rule to its own games. Standard and caro (with overlines too,
    /// unmeasured) to their self-play games (`scripts/tune/data/games-standard-caro.txt.gz`,
    /// half the result and half a 10,000-node search's score; caro without threat masks, which
    /// lost there): against freestyle's first fit, which both played with before, self-play at
    /// 100,000 nodes a move scored 74.5-46.5 under standard (H1 of an SPRT for +30 Elo after 121
    /// games) and 92.5-64.5 under caro (H1 after 157; with the masks 36-56, H0).
    pub fn builtin(rule: Rule) -> &'static EvalWeights {
        static FREESTYLE: OnceLock<EvalWeights> = OnceLock::new();
        static STANDARD: OnceLock<EvalWeights> = OnceLock::new();
        static CARO: OnceLock<EvalWeights> = OnceLock::new();
        static RENJU: OnceLock<EvalWeights> = OnceLock::new();
        let (cell, text) = match rule {
            Rule::Freestyle => (&FREESTYLE, include_str!("../data/eval/freestyle.txt")),
            Rule::Standard => (&STANDARD, include_str!("../data/eval/standard.txt")),
            Rule::Caro | Rule::CaroOverlines => (&CARO, include_str!("../data/eval/caro.txt")),
            Rule::Renju => (&RENJU, include_str!("../data/eval/renju.txt")),
        };
        // The embedded files are checked by the tests below; a bad one is a build mistake.
        cell.get_or_init(|| text.parse().expect("embedded evaluation weights"))
    }

    /// The weight called `name` (as in the text form), or `None` when there is no such weight.
    pub fn get(&self, name: &str) -> Option<i32> {
        slots()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, slot)| *self.slot(slot))
    }

    fn slot(&self, slot: Slot) -> &i32 {
        match slot {
            Slot::Own(i) => &self.own[i],
            Slot::Opponent(i) => &self.opponent[i],
            Slot::OwnPair(i) => &self.own_pairs[i],
            Slot::OpponentPair(i) => &self.opponent_pairs[i],
            Slot::ForkToMake => &self.fork_to_make,
            Slot::ForksAgainst => &self.per_fork_against,
            Slot::OwnFour => &self.own_four,
            Slot::Tempo => &self.tempo,
            Slot::Divisor => &self.divisor,
            Slot::Threat(i) => &self.threats[i],
        }
    }

    fn slot_mut(&mut self, slot: Slot) -> &mut i32 {
        match slot {
            Slot::Own(i) => &mut self.own[i],
            Slot::Opponent(i) => &mut self.opponent[i],
            Slot::OwnPair(i) => &mut self.own_pairs[i],
            Slot::OpponentPair(i) => &mut self.opponent_pairs[i],
            Slot::ForkToMake => &mut self.fork_to_make,
            Slot::ForksAgainst => &mut self.per_fork_against,
            Slot::OwnFour => &mut self.own_four,
            Slot::Tempo => &mut self.tempo,
            Slot::Divisor => &mut self.divisor,
            Slot::Threat(i) => &mut self.threats[i],
        }
    }
}

impl std::str::FromStr for EvalWeights {
    type Err = WeightsError;

    fn from_str(text: &str) -> Result<EvalWeights, WeightsError> {
        let slots = slots();
        let mut w = EvalWeights::ZERO;
        let mut seen = std::collections::HashSet::new();
        for (i, raw) in text.lines().enumerate() {
            let err = |reason: String| WeightsError {
                line: i + 1,
                reason,
            };
            let line = raw.split('#').next().unwrap_or("").trim();
            let mut words = line.split_whitespace();
            let Some(name) = words.next() else { continue };
            let values = words
                .map(|v| {
                    v.parse::<i32>()
                        .map_err(|_| err(format!("`{v}` is not a whole number")))
                })
                .collect::<Result<Vec<i32>, _>>()?;
            if !seen.insert(name.to_string()) {
                return Err(err(format!("`{name}` is given twice")));
            }
            if name == "minus_parent" {
                match values[..] {
                    [v @ (0 | 1)] => w.minus_parent = v == 1,
                    _ => return Err(err("minus_parent takes 0 or 1".into())),
                }
                continue;
            }
            if name == "own_scale" {
                match values[..] {
                    [n, d] if d > 0 => w.own_scale = (n, d),
                    _ => return Err(err("own_scale takes two numbers, N and D > 0".into())),
                }
                continue;
            }
            let Some(&(_, slot)) = slots.iter().find(|(n, _)| n == name) else {
                return Err(err(format!("no weight is called `{name}`")));
            };
            let [value] = values[..] else {
                return Err(err(format!("`{name}` takes one number")));
            };
            if matches!(slot, Slot::Divisor) && value <= 0 {
                return Err(err("the divisor must be above zero".into()));
            }
            *w.slot_mut(slot) = value;
        }
        Ok(w)
    }
}

impl fmt::Display for EvalWeights {
    /// The text form: every weight, named, one a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "own_scale {} {}", self.own_scale.0, self.own_scale.1)?;
        if self.minus_parent {
            writeln!(f, "minus_parent 1")?;
        }
        for (name, slot) in slots() {
            if matches!(slot, Slot::Threat(_)) && *self.slot(slot) == 0 {
                continue;
            }
            writeln!(f, "{name} {}", self.slot(slot))?;
        }
        Ok(())
    }
}

/// Static evaluation from the side to move's point of view.
pub(crate) fn evaluate(pos: &Position, w: &EvalWeights) -> i32 {
    let now = pos.counts();
    let e = if w.minus_parent {
        // Without a move since the position was set up (a search's root), the same stones with
        // the other side to move stand in for the position before.
        let before = pos
            .parent_counts()
            .unwrap_or_else(|| now.other_side_to_move());
        sum(now, w) - sum(before, w)
    } else {
        sum(now, w)
    };
    (e + w.tempo) / w.divisor
}

/// The weighted features of one position for its side to move, the tempo left out.
#[inline(always)]
fn sum(counts: Counts, w: &EvalWeights) -> i32 {
    let me = counts.side();
    let op = me.opponent();
    let own = dot(&w.own, counts.pat_counts(me)) * w.own_scale.0 / w.own_scale.1;
    let mut e = own + dot(&w.opponent, counts.pat_counts(op));
    e += dot(&w.own_pairs, counts.pair_counts(me)) + dot(&w.opponent_pairs, counts.pair_counts(op));
    if !counts.may_have_four(op) && counts.fork_count(me) > 0 {
        e += w.fork_to_make;
    }
    e += w.per_fork_against * counts.fork_count(op).min(3) as i32;
    e += w.threats[counts.threat_mask()];
    if counts.may_have_four(me) {
        e += w.own_four;
    }
    e
}

fn dot<const N: usize>(weights: &[i32; N], counts: &[i32; N]) -> i32 {
    weights.iter().zip(counts).map(|(w, n)| w * n).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_weights_read_and_round_trip() {
        for rule in Rule::ALL {
            let w = EvalWeights::builtin(rule);
            assert_eq!(
                &w.to_string().parse::<EvalWeights>().expect("reads back"),
                w
            );
            // Fitted or set by hand, an open three of one's own is worth something.
            assert!(w.get("own_three_open").expect("a weight") > 0, "{rule:?}");
        }
        // The hand-set weights, the tuning pipeline's starting point, still read as written.
        let hand: EvalWeights = include_str!("../data/eval/hand-set.txt")
            .parse()
            .expect("the hand-set weights");
        assert_eq!(hand.own_scale, (6, 5));
        assert_eq!(hand.get("opp_four_open"), Some(-80));
        // Caro's two forms share one file; each other rule has its own.
        assert_eq!(
            EvalWeights::builtin(Rule::Caro),
            EvalWeights::builtin(Rule::CaroOverlines)
        );
        let own = [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro];
        for (i, a) in own.iter().enumerate() {
            for b in &own[i + 1..] {
                assert_ne!(
                    EvalWeights::builtin(*a),
                    EvalWeights::builtin(*b),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    #[test]
    fn the_engine_searches_with_the_weights_it_is_given() {
        use std::sync::atomic::AtomicBool;
        use tengen_rules::{BoardSize, Game, parse_point};
        let mut game = Game::new(BoardSize::STANDARD, Rule::Freestyle);
        for m in ["h8", "j10", "h9"] {
            game.play(parse_point(BoardSize::STANDARD, m).expect("a point"))
                .expect("legal");
        }
        let limits = crate::Limits {
            depth: Some(1),
            ..crate::Limits::default()
        };
        let mut engine = crate::Engine::new(1);
        let score = |engine: &mut crate::Engine| {
            let stop = AtomicBool::new(false);
            engine
                .search_game(&game, &limits, &stop, &mut |_| {})
                .score()
        };
        // Weights worth only having the move: after any move the opponent has it.
        engine.set_eval_weights(Some("tempo 500".parse().expect("weights")));
        assert_eq!(score(&mut engine), Some(crate::Score::Eval(-500)));
        engine.set_eval_weights(None);
        assert_ne!(score(&mut engine), Some(crate::Score::Eval(-500)));
    }

    #[test]
    fn threat_mask_weights_read_and_round_trip() {
        // The freestyle fit with threat masks that the tuning keeps (scripts/tune/README.md).
        let w: EvalWeights = include_str!("../../../scripts/tune/data/freestyle-threats.txt")
            .parse()
            .expect("the kept fit");
        let weighed = w.threats.iter().filter(|&&t| t != 0).count();
        assert!(weighed > 50, "{weighed} masks weighed");
        assert_eq!(w.to_string().parse::<EvalWeights>().expect("reads back"), w);
        assert_eq!(
            w.get("threat_x4_x44"),
            Some(w.threats[1 << 5 | 1 << 8]),
            "a mask's name and index agree"
        );
        // Of the built-in weights only standard's, fitted with them, weigh masks.
        for rule in Rule::ALL {
            let weighs = EvalWeights::builtin(rule).threats.iter().any(|&t| t != 0);
            assert_eq!(weighs, rule == Rule::Standard, "{rule:?}");
        }
    }

    #[test]
    fn minus_parent_reads_and_round_trips() {
        let w: EvalWeights = "minus_parent 1\ntempo 5".parse().expect("weights");
        assert!(w.minus_parent);
        assert_eq!(w.to_string().parse::<EvalWeights>().expect("reads back"), w);
        let plain: EvalWeights = "minus_parent 0\ntempo 5".parse().expect("weights");
        assert!(!plain.minus_parent && !plain.to_string().contains("minus_parent"));
    }

    #[test]
    fn bad_weight_files_say_where() {
        let cases = [
            ("tempo 3\ntempo 4", 2, "twice"),
            ("own_three_open 2 3", 1, "one number"),
            ("\n\nown_fice 1", 3, "no weight"),
            ("divisor 0", 1, "above zero"),
            ("own_scale 6", 1, "two numbers"),
            ("tempo 1.5", 1, "whole number"),
            ("tempo 1\nminus_parent 2", 2, "0 or 1"),
        ];
        for (text, line, words) in cases {
            let e = text.parse::<EvalWeights>().expect_err("refused");
            assert_eq!(e.line, line, "{text}");
            assert!(e.reason.contains(words), "{text}: {e}");
        }
    }
}
