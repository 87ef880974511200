//! `bench`: a fixed set of positions searched to a fixed depth. Its node count is the search's
//! signature: any change to what the search does changes it.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use tengen_rules::{BoardSize, Game, Rule, parse_point};

use crate::{Engine, Limits};

/// The bench positions: rule, board, and moves from the empty board.
pub const POSITIONS: &[(Rule, u32, &str)] = &[
    (Rule::Freestyle, 15, "h8"),
    (Rule::Freestyle, 15, "h8 i9 j8 i8 i7 j6 g9 h9 k9"),
    (
        Rule::Freestyle,
        15,
        "h8 h9 i9 g7 j10 k11 i10 i8 j11 g9 h10 g10 k9",
    ),
    (Rule::Standard, 15, "h8 i7 i8 g8 j7 h6 j9 j8 k10"),
    (Rule::Renju, 15, "h8 h9 i10"),
    (Rule::Renju, 15, "h8 i9 j10 g9 i7 h7 g8 j8 f7 e6 i8 k9"),
    (
        Rule::Renju,
        15,
        "h8 h9 j8 i7 i8 g8 j9 j7 k7 l6 h10 j10 g11 f12 k9",
    ),
    (Rule::Caro, 15, "h8 i9 h9 h10 i8 g8 j7 k6 g10"),
    (Rule::Freestyle, 20, "j10 k11 k10 l10 j11 j12 i9 h8 l9"),
    (Rule::Freestyle, 100, "ax50 ay51 az50 ay50 ay49 ax48 aw51"),
];

/// The figures of one bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchReport {
    /// Positions searched.
    pub positions: usize,
    /// Total nodes: the signature.
    pub nodes: u64,
    /// Total time.
    pub elapsed: Duration,
}

impl BenchReport {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            (self.nodes as f64 / secs) as u64
        } else {
            0
        }
    }
}

/// Searches every bench position to `depth` with a fresh 16 MB table and returns the totals.
pub fn bench(depth: u32) -> BenchReport {
    let stop = AtomicBool::new(false);
    let mut nodes = 0;
    let start = Instant::now();
    for &(rule, side, moves) in POSITIONS {
        let size = BoardSize::square(side).unwrap_or(BoardSize::STANDARD);
        let mut game = Game::new(size, rule);
        for m in moves.split_whitespace() {
            // The positions are fixed and legal; a bad one would show as a changed signature.
            if let Ok(p) = parse_point(size, m) {
                game.play(p).ok();
            }
        }
        let mut engine = Engine::new(16);
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        nodes += engine.search_game(&game, &limits, &stop, &mut |_| {}).nodes;
    }
    BenchReport {
        positions: POSITIONS.len(),
        nodes,
        elapsed: start.elapsed(),
    }
}

/// The engine's own position, exposed so that benchmarks can time its parts one by one.
#[derive(Clone, Debug)]
pub struct BenchPosition(crate::position::Position);

impl BenchPosition {
    /// The position of `board` with `side` to move.
    pub fn new(
        board: &tengen_rules::Board,
        rule: Rule,
        side: tengen_rules::Color,
    ) -> BenchPosition {
        BenchPosition(crate::position::Position::new(board, rule, side))
    }

    /// Plays `p` (which must be empty) and takes it back: the incremental pattern update, twice.
    pub fn make_unmake(&mut self, p: tengen_rules::Point) {
        if let Some(sq) = self.0.sq(p).filter(|&sq| self.0.is_empty(sq)) {
            self.0.make(sq);
            self.0.unmake();
        }
    }

    /// Generates the moves for the side to move; returns how many.
    pub fn generate(&mut self) -> usize {
        let mut scratch = Vec::new();
        match crate::search::generate(&mut self.0, &mut scratch) {
            crate::search::Gen::Moves(m, _) => m.len(),
            _ => 1,
        }
    }
}
