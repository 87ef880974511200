//! The evaluation's features of a position, for fitting its weights to game results
//! (`scripts/tune`). Not part of the engine's API.

use tengen_rules::{Board, BoardSize, Color, Point, Rule};

use crate::eval::PAIR_PATS;
use crate::pattern::Pat;
use crate::position::{Combo, NO_PAIR, PAIRS, Position};
use crate::search::{Forced, Gen, generate};

/// Names of the values [`features`] returns, in order: [`BASE_NAMES`], then per colour (own
/// first) the count of empty cells by line-pair code (`pair_A_B`: the strongest line `A`, the
/// second `B`, each `2`, `2o`, `3`, `3o` or `4`), then one value per threat mask (`threat_...`,
/// 1 for the position's mask and 0 for the others; see [`crate::EvalWeights`]).
pub fn names() -> Vec<String> {
    let mut names: Vec<String> = BASE_NAMES.iter().map(|n| n.to_string()).collect();
    for side in ["own", "opp"] {
        for a in PAIR_PATS {
            for b in PAIR_PATS {
                names.push(format!("{side}_pair_{a}_{b}"));
            }
        }
    }
    names.extend((0..crate::eval::THREAT_MASKS).map(crate::eval::threat_name));
    names
}

/// Names of the pattern and threat values that start what [`features`] returns.
pub const BASE_NAMES: [&str; 17] = [
    "own_two",
    "own_two_open",
    "own_three",
    "own_three_open",
    "own_four",
    "own_four_double",
    "own_four_open",
    "opp_two",
    "opp_two_open",
    "opp_three",
    "opp_three_open",
    "opp_four",
    "opp_four_double",
    "opp_four_open",
    "fork_to_make",
    "forks_against",
    "own_four_in_hand",
];

/// The side to move's evaluation features: per colour, how many (empty cell, direction) pairs
/// hold each pattern from a two to a straight four, then the threat terms. `None` when the
/// position is not quiet (a five or a straight four to make): the search, not the
/// evaluation, decides those.
///
/// ```
/// use tengen_rules::{Board, BoardSize, Color, Rule};
/// let board = Board::new(BoardSize::STANDARD);
/// let f = tengen_engine::features::features(&board, Rule::Renju, Color::Black).unwrap();
/// assert_eq!(f.len(), tengen_engine::features::names().len());
/// ```
pub fn features(board: &Board, rule: Rule, side: Color) -> Option<Vec<i32>> {
    let pos = Position::new(board, rule, side);
    quiet(&pos).then(|| values(&pos))
}

/// The features of the position `board` less those of the position `before` it (one stone
/// fewer, the other side to move), for the evaluation that weighs that difference (the weight
/// `minus_parent`, see [`crate::EvalWeights`]). `None` when `board` is not quiet, as in
/// [`features`]; `before` need not be.
///
/// ```
/// use tengen_rules::{Board, BoardSize, Color, Point, Rule};
/// let before = Board::new(BoardSize::STANDARD);
/// let mut board = before.clone();
/// board.place(Point::new(7, 7), Color::Black)?;
/// let f = tengen_engine::features::features_minus_parent(&before, &board, Rule::Freestyle, Color::White)
///     .unwrap();
/// assert_eq!(f.len(), tengen_engine::features::names().len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn features_minus_parent(
    before: &Board,
    board: &Board,
    rule: Rule,
    side: Color,
) -> Option<Vec<i32>> {
    let pos = Position::new(board, rule, side);
    if !quiet(&pos) {
        return None;
    }
    let parent = Position::new(before, rule, side.opponent());
    Some(
        values(&pos)
            .iter()
            .zip(values(&parent))
            .map(|(now, then)| now - then)
            .collect(),
    )
}

// Whether the side to move has no five or straight four to make and the opponent no five.
fn quiet(pos: &Position) -> bool {
    let me = pos.side();
    let op = me.opponent();
    !(pos.has_five(me)
        || pos.has_five(op)
        || pos.may_have_open_four(me)
        || pos.combo_count(me, Combo::FlexFour) > 0)
}

// The feature values of `pos` for its side to move, in the order of [`names`].
fn values(pos: &Position) -> Vec<i32> {
    let me = pos.side();
    let op = me.opponent();
    let mut f = Vec::with_capacity(BASE_NAMES.len() + 2 * (PAIRS - 1));
    for c in [me, op] {
        let counts = pos.pat_counts(c);
        f.extend((Pat::Two as usize..=Pat::FourOpen as usize).map(|p| counts[p]));
    }
    f.push((!pos.may_have_four(op) && pos.fork_count(me) > 0) as i32);
    f.push(pos.fork_count(op).min(3) as i32);
    f.push(pos.may_have_four(me) as i32);
    for c in [me, op] {
        f.extend_from_slice(&pos.pair_counts(c)[..NO_PAIR as usize]);
    }
    let mask = pos.threat_mask();
    f.extend((0..crate::eval::THREAT_MASKS).map(|m| (m == mask) as i32));
    f
}

/// One position's move-ordering sample: the moves the search would look at, with the table
/// indices of each (see `scripts/tune/fit_order.py`).
#[derive(Clone, Debug)]
pub struct OrderSample {
    /// Which weight table the position uses (0 freestyle, 1 renju with black to move, 2 renju
    /// with white to move, 3 standard, 4 caro).
    pub table: usize,
    /// Whether the moves answer an open three (the search's forced case).
    pub forced: bool,
    /// The candidate moves, as the generator gives them.
    pub moves: Vec<Point>,
    /// Each move's table indices.
    pub features: Vec<[u16; ORDER_FEATURES]>,
}

/// How many table indices a move has in an [`OrderSample`].
pub const ORDER_FEATURES: usize = crate::order::ORDER_FEATURES;

/// The move-ordering sample of the position after `moves` (black first, every move legal):
/// `None` when the position is decided by threats before any ordering (a five, a four to
/// block, a straight four) or has fewer than two moves to order.
pub fn order_sample(size: BoardSize, rule: Rule, moves: &[Point]) -> Option<OrderSample> {
    let side = if moves.len() % 2 == 0 {
        Color::Black
    } else {
        Color::White
    };
    let split = moves.len().saturating_sub(2);
    let mut board = Board::new(size);
    let mut c = Color::Black;
    for &m in &moves[..split] {
        board.place(m, c).ok()?;
        c = c.opponent();
    }
    let mut pos = Position::new(&board, rule, c);
    for &m in &moves[split..] {
        let sq = pos.sq(m)?;
        pos.make(sq);
    }
    debug_assert_eq!(pos.side(), side);
    let mut scratch = Vec::new();
    let Gen::Moves(cands, forced) = generate(&mut pos, &mut scratch) else {
        return None;
    };
    if cands.len() < 2 || forced == Forced::Four {
        return None;
    }
    let (last, prev) = (pos.last_move(), pos.move_before_last());
    let features = cands
        .iter()
        .map(|&(sq, _)| {
            let own = pos.pats(sq, side);
            let opp = pos.pats(sq, side.opponent());
            crate::order::order_features(&pos, sq, own, opp, last, prev)
        })
        .collect();
    Some(OrderSample {
        table: crate::order::table_kind(rule, side),
        forced: forced == Forced::Three,
        moves: cands.iter().map(|&(sq, _)| pos.point(sq)).collect(),
        features,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{EvalWeights, evaluate};

    /// Weights that give every feature a different value, `tempo` 7, and the lines of `extra`.
    fn distinct_weights(extra: &str) -> EvalWeights {
        let mut text = format!("tempo 7\n{extra}");
        for (i, name) in names().iter().enumerate() {
            text.push_str(&format!("{name} {}\n", (i as i32 * 37) % 101 - 50));
        }
        text.parse().expect("every feature is a weight")
    }

    /// The fit (`scripts/tune/fit.py`) takes the evaluation to be the features times their
    /// weights plus `tempo`: with every weight set to something different, the two agree on
    /// every quiet position of a pseudo-random game, for both sides to move, under three rules.
    #[test]
    fn the_evaluation_is_the_features_times_their_weights() {
        let names = names();
        let weights = distinct_weights("");
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut compared = 0;
        for rule in [
            Rule::Freestyle,
            Rule::Renju,
            Rule::Caro,
            Rule::CaroOverlines,
        ] {
            let mut board = Board::new(BoardSize::STANDARD);
            let mut side = Color::Black;
            for _ in 0..60 {
                let p = crate::position::random_point(&mut seed, 3, 9);
                if board.place(p, side).is_err() {
                    continue;
                }
                side = side.opponent();
                let Some(f) = features(&board, rule, side) else {
                    continue;
                };
                let by_features: i32 = f
                    .iter()
                    .zip(&names)
                    .map(|(v, n)| v * weights.get(n).expect("a weight"))
                    .sum::<i32>()
                    + 7;
                let pos = Position::new(&board, rule, side);
                assert_eq!(evaluate(&pos, &weights), by_features, "{rule:?} {board:?}");
                compared += 1;
            }
        }
        assert!(compared > 40, "only {compared} quiet positions");
    }

    /// With `minus_parent`, the evaluation of a position reached by a move in the search is its
    /// features less the position before's, times the weights, plus `tempo` (what the fit
    /// takes it to be), and after a pass the same stones with the other side to move stand
    /// for the position before.
    #[test]
    fn the_evaluation_minus_the_parent_is_the_difference_times_the_weights() {
        let names = names();
        let weights = distinct_weights("minus_parent 1\n");
        let by_features = |f: &[i32]| {
            f.iter()
                .zip(&names)
                .map(|(v, n)| v * weights.get(n).expect("a weight"))
                .sum::<i32>()
                + 7
        };
        let mut seed = 0x5851_f42d_4c95_7f2du64;
        let mut compared = 0;
        for rule in [Rule::Freestyle, Rule::Renju, Rule::Caro] {
            let mut board = Board::new(BoardSize::STANDARD);
            let mut side = Color::Black;
            for _ in 0..60 {
                let p = crate::position::random_point(&mut seed, 3, 9);
                let before = board.clone();
                if board.place(p, side).is_err() {
                    continue;
                }
                let mut pos = Position::new(&before, rule, side);
                pos.make(pos.sq(p).expect("on the board"));
                side = side.opponent();
                if let Some(f) = features_minus_parent(&before, &board, rule, side) {
                    assert_eq!(
                        evaluate(&pos, &weights),
                        by_features(&f),
                        "{rule:?} {board:?}"
                    );
                    compared += 1;
                }
                pos.pass();
                if let Some(f) = features_minus_parent(&board, &board, rule, side.opponent()) {
                    assert_eq!(
                        evaluate(&pos, &weights),
                        by_features(&f),
                        "{rule:?} {board:?}"
                    );
                }
            }
        }
        assert!(compared > 30, "only {compared} quiet positions");
    }
}
