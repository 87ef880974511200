//! One game in the app: the rules' game plus who plays which colour, the moves taken back (for
//! redo), the clock, and what the page needs to draw it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tengen_engine::{Level, Score, TimeControl};
use tengen_rules::{
    BoardSize, Choice, Color, EndReason, ForbiddenPolicy, Game, OpeningRule, Pending, Phase, Point,
    Rule, Seat, point_name,
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
    /// Actions taken back (moves and swap decisions), the next to redo last.
    pub redo: Vec<Redo>,
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

/// An action taken back, which redo plays again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redo {
    /// A stone.
    Move(Point),
    /// A swap decision.
    Choice(Choice),
}

/// The decision or stone the game waits for, as the page shows it.
#[derive(Clone, Debug, Serialize)]
pub struct PendingState {
    /// `move` or `choice`.
    pub kind: &'static str,
    /// Who acts: `first` or `second` (the player who placed the first stone is `first`).
    pub seat: &'static str,
    /// The colour of the next stone (for a move).
    pub color: Option<&'static str>,
    /// For a choice: `black`, `white` and, under swap2 after three stones, `place_two`.
    pub options: Vec<&'static str>,
    /// Whether the human acts (always between friends; never computer against computer).
    pub human: bool,
    /// Whether the opening is still being placed (stones of both colours by one player).
    pub opening_stone: bool,
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
    /// What the game waits for (none when it is over).
    pub pending: Option<PendingState>,
    /// The human's seat against the computer: `first` (chose black, places the first stones)
    /// or `second`.
    pub human_seat: &'static str,
    /// The colour the human plays now against the computer (`human` until a swap settles it;
    /// none while a swap opening is undecided).
    pub human_color: Option<&'static str>,
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

/// Checks a clock's times: between 1 second and 24 hours, an increment of at most an hour.
pub fn check_clock(clock: ClockSpec) -> Result<(), ApiError> {
    let in_range = |ms: u64| (1_000..=24 * 3_600_000).contains(&ms);
    match clock {
        ClockSpec::PerMove { ms } | ClockSpec::Total { ms, .. } if !in_range(ms) => Err(
            ApiError::BadRequest("clock time must be between 1 second and 24 hours".into()),
        ),
        ClockSpec::Total { increment_ms, .. } if increment_ms > 3_600_000 => Err(
            ApiError::BadRequest("the increment must be at most an hour".into()),
        ),
        _ => Ok(()),
    }
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

/// Who acts next in `game`, if it goes on.
pub fn actor(game: &Game) -> Option<Seat> {
    match game.pending() {
        Pending::Move { seat, .. } | Pending::Choice { seat, .. } => Some(seat),
        Pending::Over => None,
    }
}

/// Takes back `game`'s last action; `None` when there was none.
fn pop_action(game: &mut Game) -> Option<Redo> {
    let before_phase = game.phase();
    let before_moves = game.moves().len();
    let before = game.clone();
    if let Some(p) = game.undo() {
        return Some(Redo::Move(p));
    }
    if game.moves().len() != before_moves || *game == before {
        return None;
    }
    // A decision was taken back: which one shows in the phase it led to.
    let Phase::Choosing { by, .. } = game.phase() else {
        return None;
    };
    Some(Redo::Choice(match before_phase {
        Phase::Settled { black } if black == by => Choice::Black,
        Phase::Settled { .. } => Choice::White,
        _ => Choice::PlaceTwo,
    }))
}

/// Plays `a` in `game`.
fn apply(game: &mut Game, a: Redo) -> Result<(), tengen_rules::PlayError> {
    match a {
        Redo::Move(p) => game.play(p).map(|_| ()),
        Redo::Choice(c) => game.choose(c),
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

    /// The human's seat: the first player when they chose black, else the second.
    pub fn human_seat(&self) -> Seat {
        match self.setup.human {
            Color::Black => Seat::First,
            Color::White => Seat::Second,
        }
    }

    /// Whether the computer sits in `seat`.
    pub fn computer_sits(&self, seat: Seat) -> bool {
        match self.setup.opponent {
            Opponent::Computer => seat != self.human_seat(),
            Opponent::Friend => false,
            Opponent::Computers => true,
        }
    }

    /// The colour the human plays now: settled by the swap, else the one asked for.
    pub fn human_color(&self) -> Color {
        match self.game.black_seat() {
            Some(black) if black == self.human_seat() => Color::Black,
            Some(_) => Color::White,
            None => self.setup.human,
        }
    }

    /// Who acts next, if the game goes on.
    pub fn actor(&self) -> Option<Seat> {
        actor(&self.game)
    }

    /// Whether the computer is to act now (a stone or a swap decision).
    pub fn computer_to_move(&self) -> bool {
        self.actor().is_some_and(|seat| self.computer_sits(seat))
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

    /// Whether the game ended without a move (resignation, time, agreement).
    fn ended_off_board(&self) -> bool {
        self.game.outcome().is_some_and(|o| {
            matches!(
                o.reason,
                EndReason::Resignation
                    | EndReason::Timeout
                    | EndReason::Agreement
                    | EndReason::Abandonment
            )
        })
    }

    /// Reopens a game ended without a move by replaying its actions.
    fn reopen(&mut self) {
        let mut old = self.game.clone();
        let mut actions = Vec::new();
        while let Some(a) = pop_action(&mut old) {
            actions.push(a);
        }
        let g = &self.game;
        let mut game = Game::with_opening(g.board().size(), g.rule(), g.opening());
        game.set_forbidden_policy(ForbiddenPolicy::Lose);
        for a in actions.into_iter().rev() {
            // These actions were legal in this game already.
            let _ = apply(&mut game, a);
        }
        game.set_forbidden_policy(self.setup.policy);
        self.game = game;
    }

    fn pop(&mut self) -> Option<Redo> {
        let a = pop_action(&mut self.game);
        if let Some(a) = a {
            self.redo.push(a);
        }
        a
    }

    /// Takes a swap decision for the player who must choose.
    pub fn choose(&mut self, choice: Choice) -> Result<(), ApiError> {
        if self.game.outcome().is_some() {
            return Err(ApiError::Conflict("the game is over".into()));
        }
        let Pending::Choice { may_place_two, .. } = self.game.pending() else {
            return Err(ApiError::Conflict(
                "there is no swap decision to take now".into(),
            ));
        };
        if choice == Choice::PlaceTwo && !may_place_two {
            return Err(ApiError::Conflict(
                "placing two more stones is not an option now (swap2, after three stones only)"
                    .into(),
            ));
        }
        self.game
            .choose(choice)
            .map_err(|e| ApiError::Conflict(e.to_string()))?;
        self.restart_clock();
        self.changed();
        Ok(())
    }

    /// Takes back: against the computer, back to your last action (with the computer's replies
    /// after it); otherwise one action (a move or a swap decision).
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
                let mut human_undone = false;
                while self.pop().is_some() {
                    if self.actor().is_some_and(|seat| !self.computer_sits(seat)) {
                        human_undone = true;
                        break;
                    }
                }
                if !human_undone || self.game == snapshot.0 {
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

    /// Whether undo would take something back.
    fn can_undo(&self) -> bool {
        if self.ended_off_board() {
            return true;
        }
        match self.setup.opponent {
            Opponent::Computer => {
                let mut g = self.game.clone();
                while pop_action(&mut g).is_some() {
                    if actor(&g).is_some_and(|seat| !self.computer_sits(seat)) {
                        return true;
                    }
                }
                false
            }
            _ => !self.game.moves().is_empty(),
        }
    }

    /// Plays again actions taken back: against the computer, up to your next turn.
    pub fn redo(&mut self) -> Result<(), ApiError> {
        if self.redo.is_empty() {
            return Err(ApiError::Conflict("there is nothing to redo".into()));
        }
        while let Some(a) = self.redo.pop() {
            if let Err(e) = apply(&mut self.game, a) {
                self.redo.push(a);
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
        let redo_moves = self
            .redo
            .iter()
            .filter(|a| matches!(a, Redo::Move(_)))
            .count();
        let total = self.game.moves().len() + redo_moves;
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
            let Some(a) = self.redo.pop() else { break };
            if let Err(e) = apply(&mut self.game, a) {
                self.redo.push(a);
                return Err(ApiError::Conflict(format!("cannot replay: {e}")));
            }
        }
        self.restart_clock();
        self.changed();
        Ok(())
    }

    fn pending_state(&self) -> Option<PendingState> {
        let seat_name = |s: Seat| match s {
            Seat::First => "first",
            Seat::Second => "second",
        };
        match self.game.pending() {
            Pending::Over => None,
            Pending::Move { color, seat } => Some(PendingState {
                kind: "move",
                seat: seat_name(seat),
                color: Some(color_name(color)),
                options: Vec::new(),
                human: !self.computer_sits(seat),
                opening_stone: matches!(self.game.phase(), Phase::Placing { .. }),
            }),
            Pending::Choice {
                seat,
                may_place_two,
            } => Some(PendingState {
                kind: "choice",
                seat: seat_name(seat),
                color: None,
                options: if may_place_two {
                    vec!["black", "white", "place_two"]
                } else {
                    vec!["black", "white"]
                },
                human: !self.computer_sits(seat),
                opening_stone: false,
            }),
        }
    }

    fn opening_status(&self) -> Option<String> {
        let opening = match self.game.opening() {
            OpeningRule::Swap => "Swap",
            OpeningRule::Swap2 => "Swap2",
            _ => return None,
        };
        let who = |seat: Seat| -> &'static str {
            match self.setup.opponent {
                Opponent::Computer if self.computer_sits(seat) => "the computer",
                Opponent::Computer => "you",
                _ => match seat {
                    Seat::First => "the first player",
                    Seat::Second => "the second player",
                },
            }
        };
        let human_acts =
            |seat: Seat| self.setup.opponent == Opponent::Computer && !self.computer_sits(seat);
        match (self.game.pending(), self.game.phase()) {
            (
                Pending::Choice {
                    seat,
                    may_place_two,
                },
                _,
            ) => Some(if human_acts(seat) {
                if may_place_two {
                    format!("{opening}: choose your colour, or place two more stones")
                } else {
                    format!("{opening}: choose your colour")
                }
            } else if self.setup.opponent == Opponent::Computer {
                format!("{opening}: the computer is choosing its colour")
            } else {
                let w = who(seat);
                format!("{opening}: {w} chooses a colour")
            }),
            (Pending::Move { color, seat }, Phase::Placing { until, .. }) => {
                let n = self.game.board().stone_count() + 1;
                let c = color_name(color);
                Some(if human_acts(seat) {
                    format!("{opening}: place opening stone {n} of {until} ({c})")
                } else if self.setup.opponent == Opponent::Computer {
                    format!(
                        "{opening}: the computer places the opening (stone {n} of {until}, {c})"
                    )
                } else {
                    let w = who(seat);
                    format!("{opening}: {w} places opening stone {n} of {until} ({c})")
                })
            }
            _ => None,
        }
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
                if self.computer_to_move() && self.setup.opponent == Opponent::Computer =>
            {
                format!("{} to move (computer thinking)", capitalised(c))
            }
            (None, Some(c)) => format!("{} to move", capitalised(c)),
            (None, None) => "Game over".to_string(),
        };
        let status = match (outcome, self.opening_status()) {
            (None, Some(opening)) => opening,
            _ => status,
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
        let can_undo = self.can_undo();
        let redo_moves: Vec<Point> = self
            .redo
            .iter()
            .rev()
            .filter_map(|a| match a {
                Redo::Move(p) => Some(*p),
                Redo::Choice(_) => None,
            })
            .collect();
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
            redo: redo_moves.iter().map(|&p| point_name(size, p)).collect(),
            redo_points: redo_moves.iter().map(|&p| xy(p)).collect(),
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
            pending: self.pending_state(),
            human_seat: match self.human_seat() {
                Seat::First => "first",
                Seat::Second => "second",
            },
            human_color: match (self.game.opening(), self.game.black_seat()) {
                (OpeningRule::Swap | OpeningRule::Swap2, None) => None,
                _ => Some(color_name(self.human_color())),
            },
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
