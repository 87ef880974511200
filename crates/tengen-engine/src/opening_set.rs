//! Random openings the engine judges balanced, for engine-vs-engine matches.
//!
//! Stones dropped at random near the centre are rarely fair: with equal stones and black to
//! move, or even black two stones against one with white to move, freestyle's first player
//! usually stands far better, and a match on such openings measures mostly who had black. So a
//! candidate is kept only when a search finds it within [`BALANCED`] of even, the bound the
//! swap2 decisions use too.

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;

use tengen_rules::{Board, BoardSize, Color, Point, Rule};

use crate::decide::{BALANCED, judge, playable};
use crate::level::Rng;
use crate::{Engine, Limits};

/// The search budget that judges each candidate.
pub const JUDGE_NODES: u64 = 100_000;

/// How many candidates are tried before giving up on one opening.
const MAX_TRIES: usize = 400;

/// A balanced opening with its judgement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgedOpening {
    /// The stones, black first, alternating.
    pub moves: Vec<Point>,
    /// The search's value for black (white is to move).
    pub black_value: i32,
}

/// One random opening with white to move that a search of [`JUDGE_NODES`] nodes finds within
/// [`BALANCED`] of even: three stones within two points of the centre, or five within three
/// (both shapes leave white to move, the only way equal-looking openings come out even). `None`
/// when no candidate of [`MAX_TRIES`] passes (a board too small, say) or `stop` is set.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use tengen_engine::{Engine, opening_set};
/// use tengen_rules::{BoardSize, Rule};
/// let mut engine = Engine::new(1);
/// let o = opening_set::balanced_random_opening(
///     &mut engine, BoardSize::STANDARD, Rule::Freestyle, 7, 2_000, &AtomicBool::new(false));
/// let o = o.expect("an opening");
/// assert!(o.moves.len() % 2 == 1 && o.black_value.abs() < tengen_engine::decide::BALANCED);
/// ```
pub fn balanced_random_opening(
    engine: &mut Engine,
    size: BoardSize,
    rule: Rule,
    seed: u64,
    judge_nodes: u64,
    stop: &AtomicBool,
) -> Option<JudgedOpening> {
    let mut rng = Rng::new(seed);
    let centre = size.center();
    let limits = Limits {
        nodes: Some(judge_nodes),
        ..Limits::default()
    };
    for _ in 0..MAX_TRIES {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let (count, radius) = if rng.below(2) == 0 { (3, 2) } else { (5, 3) };
        let Some((board, moves)) = random_board(&mut rng, size, rule, centre, count, radius) else {
            continue;
        };
        let j = judge(engine, &board, rule, Color::White, &limits, stop);
        if !j.score.is_decisive() && j.black_value.abs() < BALANCED {
            return Some(JudgedOpening {
                moves,
                black_value: j.black_value,
            });
        }
    }
    None
}

/// Balanced openings from successive seeds (`seed`, `seed + 1`, ...), each with the seed that
/// made it, without repeats: a position already given (the same stones of each colour, in
/// whatever order) is skipped. Ends when a seed finds no balanced opening or `stop` is set.
pub fn distinct_balanced_openings<'a>(
    size: BoardSize,
    rule: Rule,
    seed: u64,
    judge_nodes: u64,
    stop: &'a AtomicBool,
) -> impl Iterator<Item = (u64, JudgedOpening)> + 'a {
    let mut seen: HashSet<[Vec<Point>; 2]> = HashSet::new();
    (seed..=u64::MAX)
        .map_while(move |seed| {
            // A fresh engine for each seed, so that each opening depends on its seed alone.
            let mut engine = Engine::new(1);
            let o = balanced_random_opening(&mut engine, size, rule, seed, judge_nodes, stop)?;
            let mut stones = [Vec::new(), Vec::new()];
            for (i, &p) in o.moves.iter().enumerate() {
                stones[i % 2].push(p);
            }
            stones
                .iter_mut()
                .for_each(|s| s.sort_by_key(|p| (p.y, p.x)));
            Some(seen.insert(stones).then_some((seed, o)))
        })
        .flatten()
}

// `count` stones, black on the centre, the rest within `radius` of it, each playable for its
// colour under `rule`.
fn random_board(
    rng: &mut Rng,
    size: BoardSize,
    rule: Rule,
    centre: Point,
    count: usize,
    radius: i32,
) -> Option<(Board, Vec<Point>)> {
    let mut board = Board::new(size);
    let mut moves = Vec::with_capacity(count);
    let span = 2 * radius as u64 + 1;
    for _ in 0..100 {
        if moves.len() == count {
            return Some((board, moves));
        }
        let p = if moves.is_empty() {
            centre
        } else {
            centre.offset(
                rng.below(span) as i32 - radius,
                rng.below(span) as i32 - radius,
            )
        };
        let side = Color::of_ply(moves.len());
        // Occupied, off the board or forbidden: another point (a board too small for the
        // shape runs out of tries, and the caller draws another shape).
        if playable(&board, rule, side, p) && board.place(p, side).is_ok() {
            moves.push(p);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_balanced_playable_and_repeat_from_the_seed() {
        let stop = AtomicBool::new(false);
        for rule in [Rule::Freestyle, Rule::Renju] {
            let mut engine = Engine::new(1);
            let a =
                balanced_random_opening(&mut engine, BoardSize::STANDARD, rule, 3, 3_000, &stop)
                    .expect("an opening");
            assert!(a.black_value.abs() < BALANCED);
            assert_eq!(a.moves[0], BoardSize::STANDARD.center());
            let mut board = Board::new(BoardSize::STANDARD);
            for (i, &p) in a.moves.iter().enumerate() {
                assert!(p.chebyshev(BoardSize::STANDARD.center()) <= 3);
                assert!(playable(&board, rule, Color::of_ply(i), p));
                board.place(p, Color::of_ply(i)).expect("free");
            }
            // A fresh engine (an empty table) judges the same candidates the same way.
            let mut fresh = Engine::new(1);
            let b = balanced_random_opening(&mut fresh, BoardSize::STANDARD, rule, 3, 3_000, &stop);
            assert_eq!(Some(a), b);
        }
    }

    #[test]
    fn a_set_has_no_repeats_and_takes_successive_seeds() {
        let stop = AtomicBool::new(false);
        let set: Vec<(u64, JudgedOpening)> =
            distinct_balanced_openings(BoardSize::STANDARD, Rule::Freestyle, 2, 3_000, &stop)
                .take(12)
                .collect();
        assert_eq!(set.len(), 12);
        assert_eq!(set[0].0, 2);
        assert!(set.windows(2).all(|w| w[0].0 < w[1].0));
        let moves: HashSet<&Vec<Point>> = set.iter().map(|(_, o)| &o.moves).collect();
        assert_eq!(moves.len(), 12);
    }

    #[test]
    fn a_stopped_search_gives_no_opening() {
        let mut engine = Engine::new(1);
        let stop = AtomicBool::new(true);
        let o = balanced_random_opening(
            &mut engine,
            BoardSize::STANDARD,
            Rule::Freestyle,
            1,
            1_000,
            &stop,
        );
        assert_eq!(o, None);
    }
}
