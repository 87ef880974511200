//! Tengen's engine: line patterns kept up to date move by move, threat search (VCF), iterative
//! deepening alpha-beta with a transposition table, time management, levels and analysis.
//!
//! It depends on the rules library only and prints nothing: progress is reported through a
//! callback.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use tengen_engine::{Engine, Limits};
//! use tengen_rules::{BoardSize, Game, Rule, parse_point};
//!
//! let mut game = Game::new(BoardSize::STANDARD, Rule::Freestyle);
//! for m in ["h8", "a1", "i8", "a2", "j8", "a3", "k8", "b5"] {
//!     game.play(parse_point(BoardSize::STANDARD, m)?)?;
//! }
//! let mut engine = Engine::new(16);
//! let limits = Limits { depth: Some(4), ..Limits::default() };
//! let result = engine.search_game(&game, &limits, &AtomicBool::new(false), &mut |_| {});
//! // Black completes the five at g8 or l8.
//! let best = result.best().expect("a move");
//! assert!(["g8", "l8"].contains(&tengen_rules::point_name(BoardSize::STANDARD, best).as_str()));
//! assert_eq!(result.lines[0].score, tengen_engine::Score::Win(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod bench;
pub mod decide;
mod eval;
#[doc(hidden)]
pub mod features;
mod level;
pub mod opening_set;
mod order;
mod pattern;
mod position;
mod search;
mod threat;
mod time;
mod tt;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tengen_rules::{Board, Color, Game, Point, Rule};

pub use eval::{EvalWeights, WeightsError};
pub use level::{Level, Played};
pub use time::{TimeControl, TimePlan};
pub use tt::TableSizeError;

use position::Position;
use search::{Searcher, WIN, WIN_BOUND};

/// How long and how deep to search. Nodes and depth limits make a search repeat exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Stop after this long.
    pub time: Option<Duration>,
    /// Start no new iteration after about this long: stretched while the best move is
    /// unsettled, shortened once it holds (see [`TimeControl::plan`]). `None`: use `time` alone.
    pub soft_time: Option<Duration>,
    /// Stop after this many nodes.
    pub nodes: Option<u64>,
    /// Search no deeper than this many plies (before extensions).
    pub depth: Option<u32>,
    /// How many best moves to report (1 when 0).
    pub multipv: usize,
}

/// A score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// A heuristic evaluation, positive when the side to move stands better.
    Eval(i32),
    /// A proven win: the side to move makes five in this many of its own and the opponent's
    /// moves (plies), counting its own first move.
    Win(u32),
    /// A proven loss: the opponent makes five after this many plies.
    Loss(u32),
}

impl Score {
    fn from_internal(s: i32) -> Score {
        if s > WIN_BOUND {
            Score::Win((WIN - s) as u32)
        } else if s < -WIN_BOUND {
            Score::Loss((WIN + s) as u32)
        } else {
            Score::Eval(s)
        }
    }

    fn internal(self) -> i32 {
        match self {
            Score::Eval(s) => s,
            Score::Win(n) => WIN - n as i32,
            Score::Loss(n) => -(WIN - n as i32),
        }
    }

    /// Whether the result is proven.
    pub fn is_decisive(self) -> bool {
        !matches!(self, Score::Eval(_))
    }

    /// The score as a number: evaluations as they are, proven results as +-30000 less the plies.
    pub fn value(self) -> i32 {
        self.internal()
    }
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Eval(s) => write!(f, "{s:+}"),
            Score::Win(n) => write!(f, "win in {n}"),
            Score::Loss(n) => write!(f, "loss in {n}"),
        }
    }
}

/// One line of play: the moves, first the one to play now, and their score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The principal variation.
    pub moves: Vec<Point>,
    /// Its score for the side to move.
    pub score: Score,
}

/// Progress of a search, reported after each completed depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    /// Nominal depth completed.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search began.
    pub elapsed: Duration,
    /// The best lines, best first.
    pub lines: Vec<Line>,
}

/// The result of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The best lines found, best first (as many as asked by `multipv`, fewer if fewer moves).
    pub lines: Vec<Line>,
    /// Depth completed.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

impl SearchResult {
    /// The move to play.
    pub fn best(&self) -> Option<Point> {
        self.lines.first().and_then(|l| l.moves.first().copied())
    }

    /// The score of the best move.
    pub fn score(&self) -> Option<Score> {
        self.lines.first().map(|l| l.score)
    }
}

/// The engine. It keeps its transposition table between searches.
#[derive(Debug)]
pub struct Engine {
    tt: tt::Table,
    hash_mb: usize,
    /// Weights that replace the built-in ones under every rule.
    eval_override: Option<EvalWeights>,
    /// Search threads (Lazy SMP); 1 searches on the caller's thread alone.
    threads: usize,
}

/// The most search threads an engine runs.
pub const MAX_THREADS: usize = 64;

impl Engine {
    /// An engine with a transposition table of about `hash_mb` megabytes.
    pub fn new(hash_mb: usize) -> Engine {
        Engine {
            tt: tt::Table::new(hash_mb),
            hash_mb,
            eval_override: None,
            threads: 1,
        }
    }

    /// An engine with a transposition table of about `hash_mb` megabytes, or an error when the
    /// system has not the memory. The table's pages are only taken as the search fills them, so
    /// even a large one costs no time up front.
    ///
    /// ```
    /// use tengen_engine::Engine;
    /// assert!(Engine::try_new(16).is_ok());
    /// assert!(Engine::try_new(usize::MAX).is_err());
    /// ```
    pub fn try_new(hash_mb: usize) -> Result<Engine, TableSizeError> {
        Ok(Engine {
            tt: tt::Table::try_new(hash_mb)?,
            hash_mb,
            eval_override: None,
            threads: 1,
        })
    }

    /// Resizes (and clears) the transposition table.
    pub fn set_hash_size(&mut self, hash_mb: usize) {
        if hash_mb != self.hash_mb {
            self.tt = tt::Table::new(hash_mb);
            self.hash_mb = hash_mb;
        }
    }

    /// Resizes (and clears) the transposition table, keeping the old one when the system has
    /// not the memory for the new.
    pub fn try_set_hash_size(&mut self, hash_mb: usize) -> Result<(), TableSizeError> {
        if hash_mb != self.hash_mb {
            self.tt = tt::Table::try_new(hash_mb)?;
            self.hash_mb = hash_mb;
        }
        Ok(())
    }

    /// Plays with `weights` under every rule instead of the built-in ones
    /// ([`EvalWeights::builtin`]); `None` returns to those. Used to try out newly fitted weights
    /// before they are built in. Clears the transposition table, whose scores the old weights
    /// made.
    pub fn set_eval_weights(&mut self, weights: Option<EvalWeights>) {
        self.eval_override = weights;
        self.tt.clear();
    }

    /// Searches with `threads` threads (clamped to 1..=[`MAX_THREADS`]), Lazy SMP: helper
    /// threads search the same position at staggered depths and share what they find through
    /// the transposition table, which is lock-free. The move played is the main thread's,
    /// unless a helper completed a deeper iteration and the main thread's result is not a
    /// proven win or loss (with one best line asked for). A node limit counts the main thread's
    /// nodes; the nodes reported are all threads' together. With one thread and a node or depth
    /// limit a search repeats exactly; with more, the threads' timing makes it vary.
    ///
    /// ```
    /// use tengen_engine::{Engine, MAX_THREADS};
    /// let mut engine = Engine::new(16);
    /// engine.set_threads(0);
    /// assert_eq!(engine.threads(), 1);
    /// engine.set_threads(1000);
    /// assert_eq!(engine.threads(), MAX_THREADS);
    /// ```
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, MAX_THREADS);
    }

    /// The number of search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Forgets everything learnt in earlier searches.
    pub fn clear_hash(&mut self) {
        self.tt.clear();
    }

    /// Searches the position of `game` for the side to move.
    pub fn search_game(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let side = game.to_move().unwrap_or(Color::of_ply(game.moves().len()));
        self.search(game.board(), game.rule(), side, limits, stop, on_info)
    }

    /// Searches any position: `board` with `side` to move under `rule`. Setting `stop` ends the
    /// search early with the best move found so far.
    pub fn search(
        &mut self,
        board: &Board,
        rule: Rule,
        side: Color,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let pos = Position::new(board, rule, side);
        let weights = weights_for(&self.eval_override, rule);
        if self.threads <= 1 {
            let mut s = Searcher::new(pos, &self.tt, weights, *limits, stop);
            let lines = s.run(on_info);
            return SearchResult {
                depth: s.completed_depth,
                nodes: s.nodes,
                elapsed: s.elapsed(),
                lines,
            };
        }
        let tt = &self.tt;
        // The helpers stop when the main search ends, or when the caller says stop.
        let main_done = AtomicBool::new(false);
        let main_depth = std::sync::atomic::AtomicU32::new(0);
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..self.threads)
                .map(|id| {
                    let (pos, main_done, main_depth) = (pos.clone(), &main_done, &main_depth);
                    scope.spawn(move || {
                        let mut h = Searcher::helper(
                            pos,
                            tt,
                            weights,
                            *limits,
                            [stop, main_done],
                            main_depth,
                            id,
                        );
                        h.run(&mut |_| {});
                        (h.nodes, h.deepest.take())
                    })
                })
                .collect();
            let mut s = Searcher::new(pos, tt, weights, *limits, stop).with_helpers(&main_depth);
            let mut lines = s.run(on_info);
            main_done.store(true, Ordering::Relaxed);
            let mut nodes = s.nodes;
            let mut depth = s.completed_depth;
            let keep_main =
                limits.multipv > 1 || lines.first().is_some_and(|l| l.score.is_decisive());
            for h in helpers {
                // A helper that panicked has only lost its own work.
                let Ok((h_nodes, deepest)) = h.join() else {
                    continue;
                };
                nodes += h_nodes;
                if let Some((d, line)) = deepest.filter(|(d, _)| *d > depth && !keep_main) {
                    depth = d;
                    lines = vec![line];
                }
            }
            SearchResult {
                depth,
                nodes,
                elapsed: s.elapsed(),
                lines,
            }
        })
    }

    /// Looks for a victory by continuous fours for the side to move, within `max_fours` of its
    /// fours. Returns the line (attacker and defender moves, ending with the five).
    pub fn find_vcf(
        &mut self,
        board: &Board,
        rule: Rule,
        side: Color,
        max_fours: u32,
        limits: &Limits,
        stop: &AtomicBool,
    ) -> Option<Vec<Point>> {
        let pos = Position::new(board, rule, side);
        let weights = weights_for(&self.eval_override, rule);
        let mut s = Searcher::new(pos, &self.tt, weights, *limits, stop);
        let mut line = Vec::new();
        s.vcf(max_fours, &mut line)
            .then(|| line.iter().map(|&sq| s.pos.point(sq)).collect())
    }
}

impl Engine {
    /// Looks for a victory by continuous threats (fours and open threes) for the side to move,
    /// using at most `max_threes` open threes. Returns the first threat and the line played
    /// against the longest-lasting defence (every defence loses).
    pub fn find_vct(
        &mut self,
        board: &Board,
        rule: Rule,
        side: Color,
        max_threes: u32,
        limits: &Limits,
        stop: &AtomicBool,
    ) -> Option<Vec<Point>> {
        let pos = Position::new(board, rule, side);
        let weights = weights_for(&self.eval_override, rule);
        let mut s = Searcher::new(pos, &self.tt, weights, *limits, stop);
        let mut line = Vec::new();
        (s.vct(max_threes, &mut line) && !s.aborted)
            .then(|| line.iter().map(|&sq| s.pos.point(sq)).collect())
    }
}

/// What a threat point threatens: the move `color` would make there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreatKind {
    /// A five: `color` has a four, and this point must be taken at once.
    Five,
    /// A straight four: `color` has an open three (split ones included), and unless it is
    /// answered (here, or at another defence of the three) it wins.
    OpenFour,
}

/// The points where `color` would make a five or a straight four on `board` under `rule`: the
/// threats a player must answer, which the web app draws for the opponent of the side to
/// move. Black's forbidden points under renju are left out (a three that can only become a
/// straight four through one is no threat), and the patterns are the search's own, so this
/// agrees with what the engine sees. Sorted by row, then column. It reads the position only: no
/// search, no evaluation.
///
/// ```
/// use tengen_engine::{ThreatKind, threat_points};
/// use tengen_rules::{Board, Color, Point, Rule};
/// // Black's split three on the middle row: only the gap makes a straight four.
/// let board = Board::from_rows(&[
///     ".........",
///     ".........",
///     ".........",
///     ".........",
///     "..X.XX...",
///     ".........",
///     ".........",
///     ".........",
///     ".........",
/// ])?;
/// let threats = threat_points(&board, Rule::Freestyle, Color::Black);
/// assert_eq!(threats, vec![(Point::new(3, 4), ThreatKind::OpenFour)]);
/// assert!(threat_points(&board, Rule::Freestyle, Color::White).is_empty());
/// # Ok::<(), tengen_rules::RowsError>(())
/// ```
pub fn threat_points(board: &Board, rule: Rule, color: Color) -> Vec<(Point, ThreatKind)> {
    let mut pos = Position::new(board, rule, color);
    let mut cells = Vec::new();
    // A five or straight-four point is next to a stone of the line, so the cells near stones
    // (the move generator's candidates) hold every one.
    pos.empty_near_cells(&mut cells);
    let mut out: Vec<(Point, ThreatKind)> = cells
        .into_iter()
        .filter_map(|sq| {
            let i = threat::info(&mut pos, sq, color);
            let kind = if i.five {
                ThreatKind::Five
            } else if i.open_four && !i.forbidden {
                ThreatKind::OpenFour
            } else {
                return None;
            };
            Some((pos.point(sq), kind))
        })
        .collect();
    out.sort_by_key(|(p, _)| (p.y, p.x));
    out
}

/// The weights to search with (the override, else the rule's built-in ones).
fn weights_for(eval_override: &Option<EvalWeights>, rule: Rule) -> &EvalWeights {
    eval_override
        .as_ref()
        .unwrap_or_else(|| EvalWeights::builtin(rule))
}
