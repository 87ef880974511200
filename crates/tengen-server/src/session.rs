//! One game in the app: the rules' game plus who plays which colour, the moves taken back (for
//! redo), the clock, and what the page needs to draw it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tengen_engine::{Level, Score, TimeControl};
use tengen_rules::{
    BoardSize, Color, EndReason, ForbiddenPolicy, Game, OpeningRule, Point, Rule, point_name,
};

use crate::error::ApiError;

/// Who plays against whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Opponent {
    /// The human against the computer.
    Computer,
    /// Two people taking turns on one screen.
    Friend,
    /// The computer against itself.
    Computers,
}

/// The clock, as asked for when the game is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ClockSpec {
    /// No clock.
    #[default]
    None,
    /// At most `ms` for each move.
    PerMove {
        /// Milliseconds per move.
        ms: u64,
    },
    /// `ms` for the whole game, plus `increment_ms` after each move.
    Total {
        /// Milliseconds for the game.
        ms: u64,
        /// Added after each move.
        #[serde(default)]
        increment_ms: u64,
    },
}

#[derive(Clone, Debug)]
struct Clock {
    spec: ClockSpec,
    // Time left for black and white (total clocks only).
    left: [u64; 2],
    turn_started: Instant,
}

fn idx(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

impl Clock {
    fn new(spec: ClockSpec) -> Option<Clock> {
        let left = match spec {
            ClockSpec::None => return None,
            ClockSpec::PerMove { .. } => [0, 0],
            ClockSpec::Total { ms, .. } => [ms, ms],
        };
        Some(Clock {
            spec,
            left,
            turn_started: Instant::now(),
        })
    }

    /// Time left for `c` now, when `c` is to move.
    fn remaining(&self, c: Color, running: bool) -> u64 {
        let used = if running {
            self.turn_started.elapsed().as_millis() as u64
        } else {
            0
        };
        match self.spec {
            ClockSpec::None => u64::MAX,
            ClockSpec::PerMove { ms } => {
                if running {
                    ms.saturating_sub(used)
                } else {
                    ms
                }
            }
            ClockSpec::Total { .. } => self.left[idx(c)].saturating_sub(used),
        }
    }

    /// Charges the move just made by `c`; false when its flag fell.
    fn charge(&mut self, c: Color) -> bool {
        let used = self.turn_started.elapsed().as_millis() as u64;
        self.turn_started = Instant::now();
        match self.spec {
            ClockSpec::None => true,
            ClockSpec::PerMove { ms } => used <= ms,
            ClockSpec::Total { increment_ms, .. } => {
                let left = &mut self.left[idx(c)];
                if used > *left {
                    *left = 0;
                    false
                } else {
                    *left = *left - used + increment_ms;
                    true
                }
            }
        }
    }

    fn time_control(&self, c: Color) -> TimeControl {
        match self.spec {
            ClockSpec::None => TimeControl::default(),
            ClockSpec::PerMove { ms } => TimeControl {
                per_move: Some(ms),
                left: None,
                increment: 0,
            },
            ClockSpec::Total { increment_ms, .. } => TimeControl {
                per_move: None,
                left: Some(self.remaining(c, true)),
                increment: increment_ms,
            },
        }
    }
}

/// What a new game is made of.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Who plays.
    pub opponent: Opponent,
    /// The computer's level (for both colours against itself).
    pub level: Level,
    /// The human's colour against the computer.
    pub human: Color,
    /// The rule.
    pub rule: Rule,
    /// The opening rule (free or beginner).
    pub opening: OpeningRule,
    /// The board.
    pub size: BoardSize,
    /// The clock.
    pub clock: ClockSpec,
    /// Whether black's forbidden moves are refused (friendly) or lose (tournament).
    pub policy: ForbiddenPolicy,
    /// The player's name for results.
    pub player: String,
}

/// A game being played.
#[derive(Debug)]
pub struct Session {
    /// The game's id.
    pub id: String,
    /// How it was set up.
    pub setup: Setup,
    /// The game.
    pub game: Game,
    /// Moves taken back, the next to redo last.
    pub redo: Vec<Point>,
    /// Changes on every change to the game, so a search on an older position is not applied.
    pub version: u64,
    /// The running search's stop flag.
    pub search: Option<Arc<AtomicBool>>,
    /// Whether the human took back moves or asked for hints (such wins stay off the hero board).
    pub assisted: bool,
    /// Whether the result has been stored.
    pub recorded: bool,
    /// When the game began.
    pub started: Instant,
    /// When the session was last used.
    pub touched: Instant,
    clock: Option<Clock>,
    seed: u64,
}

/// The game as the page draws it.
#[derive(Clone, Debug, Serialize)]
pub struct State {
    /// The game's id.
    pub id: String,
    /// `"15x15"`, `"16x14"` or `"unbounded"`.
    pub size: String,
    /// Columns (none when unbounded).
    pub width: Option<u32>,
    /// Rows (none when unbounded).
    pub height: Option<u32>,
    /// The rule.
    pub rule: &'static str,
    /// The opening rule.
    pub opening: &'static str,
    /// `computer`, `friend` or `computers`.
    pub opponent: Opponent,
    /// The computer's level.
    pub level: &'static str,
    /// The human's colour against the computer.
    pub human: &'static str,
    /// The player's name.
    pub player: String,
    /// The moves in notation.
    pub moves: Vec<String>,
    /// The moves as `[x, y]` (y from the top).
    pub points: Vec<[i32; 2]>,
    /// Moves taken back that redo would play again, next first, in notation.
    pub redo: Vec<String>,
    /// Moves taken back as points, next first.
    pub redo_points: Vec<[i32; 2]>,
    /// `"black"`, `"white"`, or none when the game is over.
    pub to_move: Option<&'static str>,
    /// Whether the computer is to move now.
    pub computer_to_move: bool,
    /// "Black to move", "White wins: five in a row", ...
    pub status: String,
    /// Whether the game is over.
    pub over: bool,
    /// The winner, if any.
    pub winner: Option<&'static str>,
    /// Why the game ended (`five`, `forbidden`, `resignation`, ...).
    pub reason: Option<&'static str>,
    /// The stones of the winning row(s).
    pub winning_line: Vec<[i32; 2]>,
    /// The last move.
    pub last_move: Option<[i32; 2]>,
    /// Black's forbidden points now (renju, black to move).
    pub forbidden: Vec<ForbiddenPoint>,
    /// Whether undo can take something back.
    pub can_undo: bool,
    /// The clock, if any.
    pub clock: Option<ClockState>,
    /// Whether moves were taken back or hints asked for.
    pub assisted: bool,
}

/// A forbidden point.
#[derive(Clone, Debug, Serialize)]
pub struct ForbiddenPoint {
    /// Column from the left.
    pub x: i32,
    /// Row from the top.
    pub y: i32,
    /// Its name, `h8`.
    pub name: String,
    /// `double_three`, `double_four` or `overline`.
    pub kind: &'static str,
}

/// The clock as the page shows it.
#[derive(Clone, Debug, Serialize)]
pub struct ClockState {
    /// The clock's kind and settings.
    pub spec: ClockSpec,
    /// Black's time left (for a per-move clock: of this move).
    pub black_ms: u64,
    /// White's time left.
    pub white_ms: u64,
    /// Whose clock runs.
    pub running: Option<&'static str>,
}

/// Parses a colour name.
pub fn parse_color(s: &str) -> Result<Color, ApiError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "black" => Ok(Color::Black),
        "white" => Ok(Color::White),
        _ => Err(ApiError::BadRequest(format!(
            "unknown colour {s:?} (expected black or white)"
        ))),
    }
}

fn color_name(c: Color) -> &'static str {
    c.name()
}

fn capitalised(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

fn xy(p: Point) -> [i32; 2] {
    [p.x, p.y]
}

/// How a score reads to a person: "+35", "forced win in 3", "forced loss in 2" (in the side's
/// own moves).
pub fn score_text(s: Score) -> String {
    match s {
        Score::Eval(v) => format!("{v:+}"),
        Score::Win(plies) => format!("forced win in {}", plies.div_ceil(2)),
        Score::Loss(plies) => format!("forced loss in {}", plies.div_ceil(2)),
    }
}

impl Session {
    /// A new game.
    pub fn new(id: String, setup: Setup, seed: u64) -> Session {
        let mut game = Game::with_opening(setup.size, setup.rule, setup.opening);
        game.set_forbidden_policy(setup.policy);
        Session {
            id,
            clock: Clock::new(setup.clock),
            setup,
            game,
            redo: Vec::new(),
            version: 0,
            search: None,
            assisted: false,
            recorded: false,
            started: Instant::now(),
            touched: Instant::now(),
            seed,
        }
    }

    /// The engine's seed for this game.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether the computer plays `c`.
    pub fn computer_plays(&self, c: Color) -> bool {
        match self.setup.opponent {
            Opponent::Computer => c != self.setup.human,
            Opponent::Friend => false,
            Opponent::Computers => true,
        }
    }

    /// Whether the computer is to move now.
    pub fn computer_to_move(&self) -> bool {
        self.game.to_move().is_some_and(|c| self.computer_plays(c))
    }

    /// The clock the engine sees for the side to move.
    pub fn time_control(&self) -> TimeControl {
        match (&self.clock, self.game.to_move()) {
            (Some(clock), Some(c)) => clock.time_control(c),
            _ => TimeControl::default(),
        }
    }

    /// Stops the running search, if any.
    pub fn cancel_search(&mut self) {
        if let Some(stop) = self.search.take() {
            stop.store(true, Ordering::Relaxed);
        }
    }

    fn changed(&mut self) {
        self.version += 1;
        self.cancel_search();
    }

    /// Ends the game on time if the side to move's flag has fallen. Returns whether it did.
    pub fn check_flag(&mut self) -> bool {
        let (Some(clock), Some(c)) = (&self.clock, self.game.to_move()) else {
            return false;
        };
        if clock.remaining(c, true) == 0 && self.game.lose_on_time(c).is_ok() {
            self.changed();
            return true;
        }
        false
    }

    /// Plays `p` for the side to move; the clock is charged first (a fallen flag loses instead).
    pub fn play(&mut self, p: Point) -> Result<(), ApiError> {
        let size = self.game.board().size();
        let color = self
            .game
            .to_move()
            .ok_or(ApiError::Conflict("the game is over".into()))?;
        // Try the move on a copy so that a refused move changes nothing, not even the clock.
        let mut trial = self.game.clone();
        trial
            .play(p)
            .map_err(|e| ApiError::IllegalMove(format!("{}: {e}", point_name(size, p))))?;
        if let Some(clock) = &mut self.clock {
            if !clock.charge(color) {
                let _ = self.game.lose_on_time(color);
                self.changed();
                return Ok(());
            }
        }
        self.game = trial;
        self.changed();
        Ok(())
    }

    /// Clears the moves taken back (a new move was played).
    pub fn clear_redo(&mut self) {
        self.redo.clear();
    }

    fn restart_clock(&mut self) {
        if let Some(clock) = &mut self.clock {
            clock.turn_started = Instant::now();
        }
    }

    fn last_mover(&self) -> Option<Color> {
        let n = self.game.moves().len();
        (n > 0).then(|| Color::of_ply(n - 1))
    }

    /// Whether the game ended without a move (resignation, time, agreement).
    fn ended_off_board(&self) -> bool {
        self.game.outcome().is_some_and(|o| {
            matches!(
                o.reason,
                EndReason::Resignation | EndReason::Timeout | EndReason::Agreement
            )
        })
    }

    /// Reopens a game ended without a move by replaying its moves.
    fn reopen(&mut self) {
        let mut game = Game::with_opening(self.setup.size, self.setup.rule, self.setup.opening);
        game.set_forbidden_policy(ForbiddenPolicy::Lose);
        for &p in self.game.moves() {
            // These moves were legal in this game already.
            let _ = game.play(p);
        }
        game.set_forbidden_policy(self.setup.policy);
        self.game = game;
    }

    fn pop(&mut self) -> Option<Point> {
        let p = self.game.undo();
        if let Some(p) = p {
            self.redo.push(p);
        }
        p
    }

    /// Takes back moves: against the computer, your last move and its reply; otherwise one move.
    pub fn undo(&mut self) -> Result<(), ApiError> {
        if self.game.moves().is_empty() && self.game.outcome().is_none() {
            return Err(ApiError::Conflict("there is nothing to undo".into()));
        }
        let snapshot = (self.game.clone(), self.redo.clone());
        match self.setup.opponent {
            Opponent::Computer => {
                if self.ended_off_board() {
                    self.reopen();
                }
                if self.last_mover().is_some_and(|c| self.computer_plays(c)) {
                    self.pop();
                }
                if self.last_mover().is_some_and(|c| !self.computer_plays(c)) {
                    self.pop();
                }
                if self.computer_to_move() || self.game == snapshot.0 {
                    (self.game, self.redo) = snapshot;
                    return Err(ApiError::Conflict("there is nothing to undo".into()));
                }
            }
            Opponent::Friend | Opponent::Computers => {
                if self.ended_off_board() {
                    self.reopen();
                } else {
                    self.pop();
                }
            }
        }
        self.assisted = true;
        self.restart_clock();
        self.changed();
        Ok(())
    }

    /// Plays again moves taken back: against the computer, up to your next turn.
    pub fn redo(&mut self) -> Result<(), ApiError> {
        if self.redo.is_empty() {
            return Err(ApiError::Conflict("there is nothing to redo".into()));
        }
        while let Some(p) = self.redo.pop() {
            if let Err(e) = self.game.play(p) {
                self.redo.push(p);
                return Err(ApiError::Conflict(format!("cannot redo: {e}")));
            }
            if self.setup.opponent != Opponent::Computer || !self.computer_to_move() {
                break;
            }
        }
        self.restart_clock();
        self.changed();
        Ok(())
    }

    /// Goes to the position after `ply` moves of the game and its moves taken back.
    pub fn goto(&mut self, ply: usize) -> Result<(), ApiError> {
        let total = self.game.moves().len() + self.redo.len();
        if ply > total {
            return Err(ApiError::BadRequest(format!(
                "ply {ply} is past the last move ({total})"
            )));
        }
        if self.ended_off_board() {
            self.reopen();
        }
        while self.game.moves().len() > ply {
            if self.pop().is_none() {
                break;
            }
        }
        while self.game.moves().len() < ply {
            let Some(p) = self.redo.pop() else { break };
            if let Err(e) = self.game.play(p) {
                self.redo.push(p);
                return Err(ApiError::Conflict(format!("cannot replay: {e}")));
            }
        }
        self.restart_clock();
        self.changed();
        Ok(())
    }

    /// The state the page draws.
    pub fn state(&self) -> State {
        let g = &self.game;
        let size = g.board().size();
        let to_move = g.to_move();
        let outcome = g.outcome();
        let status = match (outcome, to_move) {
            (Some(o), _) => o.to_string(),
            (None, Some(c))
                if self.computer_plays(c) && self.setup.opponent == Opponent::Computer =>
            {
                format!("{} to move (computer thinking)", capitalised(c))
            }
            (None, Some(c)) => format!("{} to move", capitalised(c)),
            (None, None) => "Game over".to_string(),
        };
        let forbidden = g
            .forbidden_points()
            .into_iter()
            .map(|(p, f)| ForbiddenPoint {
                x: p.x,
                y: p.y,
                name: point_name(size, p),
                kind: f.key(),
            })
            .collect();
        let clock = self.clock.as_ref().map(|c| ClockState {
            spec: c.spec,
            black_ms: c.remaining(Color::Black, to_move == Some(Color::Black)),
            white_ms: c.remaining(Color::White, to_move == Some(Color::White)),
            running: to_move.map(color_name),
        });
        let can_undo = match self.setup.opponent {
            Opponent::Computer => g
                .moves()
                .iter()
                .enumerate()
                .any(|(i, _)| !self.computer_plays(Color::of_ply(i))),
            _ => !g.moves().is_empty(),
        } || outcome.is_some_and(|o| {
            !matches!(
                o.reason,
                EndReason::Five
                    | EndReason::Forbidden(_)
                    | EndReason::BoardFull
                    | EndReason::MoveLimit
            )
        });
        State {
            id: self.id.clone(),
            size: match (size.width(), size.height()) {
                (Some(w), Some(h)) => format!("{w}x{h}"),
                _ => "unbounded".to_string(),
            },
            width: size.width(),
            height: size.height(),
            rule: g.rule().name(),
            opening: g.opening().name(),
            opponent: self.setup.opponent,
            level: self.setup.level.name(),
            human: color_name(self.setup.human),
            player: self.setup.player.clone(),
            moves: g.moves().iter().map(|&p| point_name(size, p)).collect(),
            points: g.moves().iter().map(|&p| xy(p)).collect(),
            redo: self
                .redo
                .iter()
                .rev()
                .map(|&p| point_name(size, p))
                .collect(),
            redo_points: self.redo.iter().rev().map(|&p| xy(p)).collect(),
            to_move: to_move.map(color_name),
            computer_to_move: self.computer_to_move(),
            status,
            over: outcome.is_some(),
            winner: outcome.and_then(|o| o.winner).map(color_name),
            reason: outcome.map(|o| o.reason.key()),
            winning_line: outcome
                .map(|o| o.lines.iter().flatten().map(|&p| xy(p)).collect())
                .unwrap_or_default(),
            last_move: g.last_move().map(xy),
            forbidden,
            can_undo,
            clock,
            assisted: self.assisted,
        }
    }

    /// How long the game has lasted.
    pub fn duration(&self) -> Duration {
        self.started.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(opponent: Opponent) -> Setup {
        Setup {
            opponent,
            level: Level::Beginner,
            human: Color::Black,
            rule: Rule::Freestyle,
            opening: OpeningRule::Free,
            size: BoardSize::STANDARD,
            clock: ClockSpec::None,
            policy: ForbiddenPolicy::Refuse,
            player: "me".into(),
        }
    }

    #[test]
    fn undo_against_the_computer_takes_back_two_moves_and_redo_replays_them() {
        let mut s = Session::new("g".into(), setup(Opponent::Computer), 1);
        for p in [
            Point::new(7, 7),
            Point::new(8, 8),
            Point::new(7, 8),
            Point::new(9, 9),
        ] {
            s.play(p).expect("legal");
        }
        s.undo().expect("undo");
        assert_eq!(s.game.moves().len(), 2);
        assert_eq!(s.state().redo, vec!["h7", "j6"]);
        s.redo().expect("redo");
        assert_eq!(s.game.moves().len(), 4);
        assert!(s.redo().is_err());
    }

    #[test]
    fn a_refused_move_changes_nothing() {
        let mut s = Session::new("g".into(), setup(Opponent::Friend), 1);
        s.play(Point::new(7, 7)).expect("legal");
        let v = s.version;
        assert!(s.play(Point::new(7, 7)).is_err());
        assert_eq!((s.version, s.game.moves().len()), (v, 1));
    }

    #[test]
    fn score_texts() {
        assert_eq!(score_text(Score::Win(5)), "forced win in 3");
        assert_eq!(score_text(Score::Eval(12)), "+12");
    }
}
