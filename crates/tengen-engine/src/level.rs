//! Playing strength levels. Lower levels search less and err like a person: they sometimes
//! take a natural-looking move over the best one, and the beginner now and then overlooks an
//! open three. None of them ever misses its own five or fails to block a four.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use tengen_rules::{Game, Point};

use crate::{Engine, Limits, Score, TimeControl, TimePlan};

/// How strongly the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Looks two plies ahead and overlooks threats now and then.
    Beginner,
    /// Looks four plies ahead and sometimes prefers a natural move.
    Intermediate,
    /// Full search with a quarter of the master's time (at most 1.5 s) and ten plies.
    Expert,
    /// Full strength: every bit of the time it is given.
    Master,
}

/// A level name Tengen does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelError(pub String);

impl fmt::Display for LevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown level {:?} (expected beginner, intermediate, expert or master)",
            self.0
        )
    }
}

impl std::error::Error for LevelError {}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [
        Level::Beginner,
        Level::Intermediate,
        Level::Expert,
        Level::Master,
    ];

    /// `"beginner"`, `"intermediate"`, `"expert"` or `"master"`.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Intermediate => "intermediate",
            Level::Expert => "expert",
            Level::Master => "master",
        }
    }

    /// The search limits for this level given the time the clock allows (see
    /// [`TimeControl::plan`]).
    pub fn limits(self, plan: TimePlan) -> Limits {
        // A soft limit only where time saved on one move can be spent on another.
        let soft = |t: Duration| (plan.soft < plan.hard).then_some(t);
        match self {
            Level::Beginner => Limits {
                depth: Some(2),
                nodes: Some(20_000),
                time: Some(plan.hard.min(Duration::from_millis(250))),
                soft_time: None,
                multipv: 4,
            },
            Level::Intermediate => Limits {
                depth: Some(4),
                nodes: Some(60_000),
                time: Some(plan.hard.min(Duration::from_millis(250))),
                soft_time: None,
                multipv: 2,
            },
            // The master's search with a quarter of its time (at most 1.5 s) and at most ten
            // plies: the same judgement, so it never plays nonsense, but a shorter look ahead,
            // so it loses the long fights against the master.
            Level::Expert => Limits {
                depth: Some(10),
                nodes: None,
                time: Some((plan.hard / 4).min(Duration::from_millis(1500))),
                soft_time: soft((plan.soft / 4).min(Duration::from_millis(1500))),
                multipv: 1,
            },
            Level::Master => Limits {
                depth: None,
                nodes: None,
                time: Some(plan.hard),
                soft_time: soft(plan.soft),
                multipv: 1,
            },
        }
    }

    // Chance (in percent) of taking another near-best line instead of the best, and how far
    // below the best (in evaluation units) such a line may be.
    const fn looseness(self) -> (u64, i32) {
        match self {
            Level::Beginner => (45, 120),
            Level::Intermediate => (20, 40),
            Level::Expert | Level::Master => (0, 0),
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Level {
    type Err = LevelError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        Level::ALL
            .into_iter()
            .find(|l| l.name() == t)
            .ok_or_else(|| LevelError(s.to_string()))
    }
}

/// The move a player who sees only their own chances would choose: a five if there is one, the
/// block of a four, else one of the three points that do most for their own lines.
fn own_chances_move(game: &Game, rng: &mut Rng) -> Option<Point> {
    let me = game.to_move()?;
    let mut pos = crate::position::Position::new(game.board(), game.rule(), me);
    let mut cells = Vec::new();
    pos.empty_near_cells(&mut cells);
    let mut block = None;
    let mut scored = Vec::new();
    for sq in cells {
        let mine = crate::threat::info(&mut pos, sq, me);
        if mine.five {
            return Some(pos.point(sq));
        }
        if !mine.forbidden && crate::threat::info(&mut pos, sq, me.opponent()).five {
            block = Some(sq);
        }
        if !mine.forbidden {
            scored.push((mine.weight, sq));
        }
    }
    if let Some(sq) = block {
        return Some(pos.point(sq));
    }
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    scored.truncate(3);
    let pick = scored.get(rng.below(scored.len() as u64) as usize)?;
    Some(pos.point(pick.1))
}

/// A small deterministic generator (xorshift64*), so a game at a level repeats from its seed.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// Every seed its own stream: the seed goes through SplitMix64's finaliser (a bijection),
    /// so seeds that differ in one bit start far apart. (Forcing the low bit to one instead, to
    /// keep the state non-zero, made seeds `2k` and `2k + 1` play the same stream.)
    pub(crate) fn new(seed: u64) -> Rng {
        let z = crate::position::splitmix64(seed);
        // xorshift's one fixed point; the finaliser maps exactly one seed there.
        Rng(if z == 0 { 0x2545_f491_4f6c_dd1d } else { z })
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}

/// A move [`Engine::play_scored`] chose, with what its search thought of the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The move.
    pub at: Point,
    /// The position's score for the side to move (the best line's, whichever move a lower level
    /// picked), or none when the move was chosen without a search.
    pub score: Option<Score>,
}

impl Engine {
    /// Chooses a move for the side to move in `game` at `level`, within the clock `tc`.
    /// `seed` drives the lower levels' human-like choices.
    pub fn play(
        &mut self,
        game: &Game,
        level: Level,
        tc: &TimeControl,
        seed: u64,
        stop: &AtomicBool,
    ) -> Option<Point> {
        self.play_scored(game, level, tc, seed, stop).map(|p| p.at)
    }

    /// [`Engine::play`], with the search's score, for the decisions that follow from it
    /// (`decide::resigns`).
    pub fn play_scored(
        &mut self,
        game: &Game,
        level: Level,
        tc: &TimeControl,
        seed: u64,
        stop: &AtomicBool,
    ) -> Option<Played> {
        let mut rng = Rng::new(seed.wrapping_add(game.moves().len() as u64));
        let limits = level.limits(tc.plan());
        // The beginner, one time in four, looks only at its own chances, as a person who has
        // not seen the opponent's open three (it still takes a five and blocks a four).
        if level == Level::Beginner && rng.below(4) == 0 {
            if let Some(at) = own_chances_move(game, &mut rng) {
                return Some(Played { at, score: None });
            }
        }
        // Below master a level's strength is its limits, and its games repeat from the seed:
        // one thread, whatever the engine is set to.
        let threads = self.threads();
        if level != Level::Master {
            self.set_threads(1);
        }
        let result = self.search_game(game, &limits, stop, &mut |_| {});
        self.set_threads(threads);
        let best = result.lines.first()?;
        let played = |at: Option<&Point>| {
            at.map(|&at| Played {
                at,
                score: Some(best.score),
            })
        };
        let (chance, margin) = level.looseness();
        if chance == 0 || best.score.is_decisive() || rng.below(100) >= chance {
            return played(best.moves.first());
        }
        let near: Vec<_> = result
            .lines
            .iter()
            .filter(|l| matches!((l.score, best.score), (Score::Eval(s), Score::Eval(b)) if s >= b - margin))
            .collect();
        let pick = near
            .get(rng.below(near.len() as u64) as usize)
            .unwrap_or(&best);
        played(pick.moves.first())
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn neighbouring_seeds_give_different_streams() {
        let firsts: std::collections::HashSet<Vec<u64>> = (0..2_000u64)
            .map(|seed| {
                let mut rng = Rng::new(seed);
                (0..4).map(|_| rng.below(1 << 40)).collect()
            })
            .collect();
        assert_eq!(firsts.len(), 2_000);
    }
}
