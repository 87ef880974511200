//! One game in the app: the rules' game plus who plays which colour, the moves taken back (for
//! redo), the clock, and what the page needs to draw it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tengen_engine::{Level, Score, ThreatKind, TimeControl};
use tengen_rules::{
    BoardSize, Choice, Color, EndReason, ForbiddenPolicy, Game, OpeningRule, Pending, Phase, Point,
    Rule, Seat, point_name,
};

use tengen_wire::ClockSpec;

use crate::clock::{self, Clock, TurnEnd};
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
    /// The computer's running search's stop flag.
    pub search: Option<Arc<AtomicBool>>,
    /// The running hint's or analysis's stop flag (apart from the computer's move, which a
    /// look at the position must not stop).
    pub analysis: Option<Arc<AtomicBool>>,
    /// Whether the human took back moves or asked for hints (such wins stay off the hero board).
    pub assisted: bool,
    /// Whether the result has been stored.
    pub recorded: bool,
    /// Whether the game began from a set-up position (an import or a continuation), not from
    /// the empty board. Its result is never stored: like a game from a set position on a chess
    /// server, it was not played from the start, and an imported won game or a continuation of
    /// a finished one would otherwise count a result nobody played for.
    pub set_up: bool,
    /// When the game began.
    pub started: Instant,
    /// When the session was last used.
    pub touched: Instant,
    /// Undos applied (each takes back one or more actions), for the end-of-game summary.
    pub undos: u32,
    /// The forbidden points and threats of the position, computed once per position.
    marks: crate::marks::Marks<(Vec<ForbiddenPoint>, Vec<ThreatPoint>)>,
    /// How long the game lasted, from its start to its end, once it is over.
    pub ended: Option<Duration>,
    /// Events stored so far.
    pub seq: u64,
    /// The computer waits for `step` (an imported or continued position is looked at first).
    pub held: bool,
    /// Set while a task plays the computer's turn.
    pub driving: Arc<AtomicBool>,
    /// Tells the game's WebSockets of each stored change.
    pub notify: tokio::sync::watch::Sender<u64>,
    /// The game left memory (`leave`, or to make room): the store may hold changes made since
    /// on a copy loaded afresh, so this one must store nothing more, nor play the computer's
    /// turn.
    pub left: bool,
    clock: Option<Clock>,
    seed: u64,
}

/// A game's changeable part, kept while a change is being stored.
#[derive(Debug)]
pub struct Snapshot {
    game: Game,
    redo: Vec<Redo>,
    assisted: bool,
    held: bool,
    clock: Option<Clock>,
    undos: u32,
    ended: Option<Duration>,
}

/// One stored change to a game: the event log replays into the game exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A position to start from (an imported record or a game continued from a move): its
    /// actions, and the actions that redo would play again (the next last).
    Position {
        /// The actions, in order.
        actions: Vec<StoredAction>,
        /// Actions taken back.
        redo: Vec<StoredAction>,
    },
    /// A stone, by whoever is to move.
    Move {
        /// `[x, y]`.
        at: [i32; 2],
    },
    /// A swap decision.
    Choose {
        /// `black`, `white` or `place_two`.
        choice: String,
    },
    /// Undo (against the computer: back to the human's last action).
    Undo,
    /// Redo (against the computer: up to the human's next turn).
    Redo,
    /// A colour resigned.
    Resign {
        /// `black` or `white`.
        color: String,
    },
    /// A draw by agreement.
    Draw,
    /// A colour's flag fell.
    Timeout {
        /// `black` or `white`.
        color: String,
    },
    /// A hint or an analysis was asked for.
    Assisted,
    /// The server stopped (gracefully) with a clock running: the time it had left then, in
    /// milliseconds. Clocks do not run while the server is down: replayed, the turn goes on
    /// from there.
    Pause {
        /// The running clock's time left.
        left_ms: u64,
    },
}

impl Event {
    /// Whether the event only notes something (a hint asked for, the clock at a stop) and
    /// leaves the game, its turn and its clock as they were.
    pub fn is_note(&self) -> bool {
        matches!(self, Event::Assisted | Event::Pause { .. })
    }
}

/// A move or decision in a stored position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoredAction {
    /// A stone at `[x, y]`.
    Move([i32; 2]),
    /// A swap decision.
    Choose(String),
}

impl StoredAction {
    fn of(a: Redo) -> StoredAction {
        match a {
            Redo::Move(p) => StoredAction::Move([p.x, p.y]),
            Redo::Choice(c) => StoredAction::Choose(c.name().into()),
        }
    }

    fn action(&self) -> Result<Redo, ApiError> {
        Ok(match self {
            StoredAction::Move([x, y]) => Redo::Move(Point::new(*x, *y)),
            StoredAction::Choose(c) => Redo::Choice(parse_choice(c)?),
        })
    }
}

/// Parses a swap decision's name.
pub fn parse_choice(s: &str) -> Result<Choice, ApiError> {
    s.parse()
        .map_err(|e: tengen_rules::ChoiceError| ApiError::BadRequest(e.to_string()))
}

/// A game's settings as stored (names, so that the row reads on its own).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StoredSetup {
    opponent: Opponent,
    level: String,
    human: String,
    rule: String,
    opening: String,
    size: String,
    clock: ClockSpec,
    forbidden: String,
    player: String,
    seed: u64,
}

impl StoredSetup {
    /// The settings of `s`.
    pub fn of(s: &Session) -> StoredSetup {
        let size = s.setup.size;
        StoredSetup {
            opponent: s.setup.opponent,
            level: s.setup.level.name().into(),
            human: s.setup.human.name().into(),
            rule: s.setup.rule.name().into(),
            opening: s.setup.opening.name().into(),
            size: match (size.width(), size.height()) {
                (Some(w), Some(h)) => format!("{w}x{h}"),
                _ => "unbounded".into(),
            },
            clock: s.setup.clock,
            forbidden: match s.setup.policy {
                ForbiddenPolicy::Lose => "lose".into(),
                _ => "refuse".into(),
            },
            player: s.setup.player.clone(),
            seed: s.seed,
        }
    }

    /// The setup and the engine's seed.
    pub fn setup(&self) -> Result<(Setup, u64), String> {
        Ok((
            Setup {
                opponent: self.opponent,
                level: self.level.parse::<Level>().map_err(|e| e.to_string())?,
                human: parse_color(&self.human).map_err(|e| e.to_string())?,
                rule: self.rule.parse::<Rule>().map_err(|e| e.to_string())?,
                opening: self
                    .opening
                    .parse::<OpeningRule>()
                    .map_err(|e| e.to_string())?,
                size: self.size.parse::<BoardSize>().map_err(|e| e.to_string())?,
                clock: self.clock,
                policy: if self.forbidden == "lose" {
                    ForbiddenPolicy::Lose
                } else {
                    ForbiddenPolicy::Refuse
                },
                player: self.player.clone(),
            },
            self.seed,
        ))
    }
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
    /// Changes stored so far: a state with a higher `seq` is newer.
    pub seq: u64,
    /// The computer is to act but waits for `step` (an imported or continued position).
    pub computer_waits: bool,
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
    /// The threats of the player who is not to move, which the one to move must answer.
    pub threats: Vec<ThreatPoint>,
    /// Whether undo can take something back.
    pub can_undo: bool,
    /// The clock, if any.
    pub clock: Option<ClockState>,
    /// Whether moves were taken back or hints asked for.
    pub assisted: bool,
    /// Once the game is over: its moves, how long it lasted and the undos used.
    pub summary: Option<Summary>,
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

/// A point where the player who is not to move would make a five (`kind` `five`: it has a
/// four) or a straight four (`open_four`: it has an open three, split ones included).
#[derive(Clone, Debug, Serialize)]
pub struct ThreatPoint {
    /// Column from the left.
    pub x: i32,
    /// Row from the top.
    pub y: i32,
    /// Its name, `h8`.
    pub name: String,
    /// `five` or `open_four`.
    pub kind: &'static str,
}

/// The threats of the player who is not to move (none once the game is over), from the
/// engine's own patterns, so the page and the engine see the same threats.
pub fn threats_against(game: &Game) -> Vec<ThreatPoint> {
    let Some(to_move) = game.to_move() else {
        return Vec::new();
    };
    let size = game.board().size();
    tengen_engine::threat_points(game.board(), game.rule(), to_move.opponent())
        .into_iter()
        .map(|(p, k)| ThreatPoint {
            x: p.x,
            y: p.y,
            name: point_name(size, p),
            kind: match k {
                ThreatKind::Five => "five",
                ThreatKind::OpenFour => "open_four",
            },
        })
        .collect()
}

/// The forbidden points and the opponent's threats of `game`'s position, as the state shows
/// them.
fn marks_of(game: &Game) -> (Vec<ForbiddenPoint>, Vec<ThreatPoint>) {
    let size = game.board().size();
    let forbidden = game
        .forbidden_points()
        .into_iter()
        .map(|(p, f)| ForbiddenPoint {
            x: p.x,
            y: p.y,
            name: point_name(size, p),
            kind: f.key(),
        })
        .collect();
    (forbidden, threats_against(game))
}

/// A finished game in figures, for the end-of-game summary.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Stones on the board.
    pub moves: usize,
    /// From the game's start to its end.
    pub duration_ms: u64,
    /// Undos used.
    pub undos: u32,
}

/// The clock as the page shows it.
#[derive(Clone, Debug, Serialize)]
pub struct ClockState {
    /// The clock's kind and settings.
    pub spec: ClockSpec,
    /// Black's time left (for a per-move clock: of this move; 0 once its flag fell).
    pub black_ms: u64,
    /// White's time left.
    pub white_ms: u64,
    /// Whose clock runs (none before the first stone and after the end).
    pub running: Option<&'static str>,
}

/// Parses a colour name.
pub fn parse_color(s: &str) -> Result<Color, ApiError> {
    s.parse()
        .map_err(|e: tengen_rules::ColorError| ApiError::BadRequest(e.to_string()))
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

/// All the actions of `game`, in order.
fn actions_of(game: &Game) -> Vec<Redo> {
    let mut g = game.clone();
    let mut actions = Vec::new();
    while let Some(a) = pop_action(&mut g) {
        actions.push(a);
    }
    actions.reverse();
    actions
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
            analysis: None,
            assisted: false,
            recorded: false,
            set_up: false,
            started: Instant::now(),
            touched: Instant::now(),
            undos: 0,
            marks: Default::default(),
            ended: None,
            seq: 0,
            held: false,
            driving: Arc::new(AtomicBool::new(false)),
            notify: tokio::sync::watch::channel(0).0,
            left: false,
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

    /// Whether the server plays the computer's turn now on its own: against the computer, its
    /// turn, and not a position being looked at first.
    pub fn computer_should_act(&self) -> bool {
        self.setup.opponent == Opponent::Computer
            && !self.held
            && !self.left
            && self.computer_to_move()
    }

    /// The clock the engine sees for the player to act.
    pub fn time_control(&self) -> TimeControl {
        let (Some(clock), Some(seat)) = (&self.clock, self.actor()) else {
            return TimeControl::default();
        };
        match clock.spec() {
            ClockSpec::None => TimeControl::default(),
            ClockSpec::PerMove { ms } => TimeControl {
                per_move: Some(ms),
                left: None,
                increment: 0,
            },
            ClockSpec::Total { increment_ms, .. } => TimeControl {
                per_move: None,
                left: Some(clock.remaining(seat, Instant::now())),
                increment: increment_ms,
            },
        }
    }

    /// What `apply_live` changes, to put back when storing the change fails.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            game: self.game.clone(),
            redo: self.redo.clone(),
            assisted: self.assisted,
            held: self.held,
            clock: self.clock.clone(),
            undos: self.undos,
            ended: self.ended,
        }
    }

    /// Puts back what `snapshot` saw.
    pub fn restore(&mut self, s: Snapshot) {
        (self.game, self.redo, self.assisted, self.held, self.clock) =
            (s.game, s.redo, s.assisted, s.held, s.clock);
        (self.undos, self.ended) = (s.undos, s.ended);
    }

    /// The readings to store with an event: time left for black and white (the store's columns
    /// are by colour; before colours settle, the first player's clock is black's).
    pub fn clocks(&self) -> [u64; 2] {
        self.clock.as_ref().map_or([0, 0], |c| {
            let r = c.readings();
            let i = |color| usize::from(clock::seat_of(&self.game, color) == Seat::Second);
            [r[i(Color::Black)], r[i(Color::White)]]
        })
    }

    /// Stops the computer's running search and any hint or analysis.
    pub fn cancel_search(&mut self) {
        for stop in [self.search.take(), self.analysis.take()]
            .into_iter()
            .flatten()
        {
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// After a change was stored: searches on the old position stop, and the game's
    /// WebSockets hear of it.
    pub fn changed(&mut self) {
        self.version += 1;
        self.cancel_search();
        self.notify.send_replace(self.version);
    }

    /// After a change that leaves the position as it was (a hint noted) was stored: the
    /// computer's search goes on; the game's WebSockets hear of it.
    pub fn noted(&mut self) {
        self.notify.send_replace(self.version);
    }

    /// The event that ends the game on time, if the running clock's flag has fallen.
    pub fn flag_event(&self) -> Option<Event> {
        let seat = self.clock.as_ref()?.fallen(Instant::now())?;
        Some(Event::Timeout {
            color: clock::color_of(&self.game, seat).name().into(),
        })
    }

    /// The event that notes the running clock's time left as the server stops, if a clock runs.
    pub fn pause_event(&self) -> Option<Event> {
        let left_ms = self.clock.as_ref()?.paused(Instant::now())?;
        Some(Event::Pause { left_ms })
    }

    /// Plays `ev`, a new event, checking it against the game: the game and the clock change,
    /// or (an error) nothing does.
    pub fn apply_live(&mut self, ev: &Event) -> Result<(), ApiError> {
        let now = Instant::now();
        let end = match (ev, self.actor()) {
            (Event::Timeout { .. }, _) => TurnEnd::Flag,
            (Event::Move { .. }, Some(seat)) => TurnEnd::Stone(seat),
            _ => TurnEnd::Other,
        };
        let readings = self.clock.as_ref().map(|c| c.after(end, now));
        let trial = (
            self.game.clone(),
            self.redo.clone(),
            self.assisted,
            self.held,
            self.undos,
        );
        if let Err(e) = self.apply_event(ev) {
            (self.game, self.redo, self.assisted, self.held, self.undos) = trial;
            return Err(e);
        }
        let over = self.game.outcome().is_some();
        self.ended = match (over, self.ended) {
            (true, None) => Some(self.started.elapsed()),
            (true, kept) => kept,
            // An undo of a five reopens the game.
            (false, _) => None,
        };
        // A hint noted or a pause leaves the turn, so the clock, as it was.
        if let (Some(clock), Some(readings)) = (&mut self.clock, readings)
            && !ev.is_note()
        {
            clock.set(readings, &self.game, clock::Start::FirstStone, now);
        }
        Ok(())
    }

    /// Plays `ev`, a stored event, with the clock readings stored with it (black's and
    /// white's); the turn to act starts now (clocks do not run while the server is down).
    pub fn replay(&mut self, ev: &Event, clocks: [u64; 2]) -> Result<(), ApiError> {
        self.apply_event(ev)?;
        if let Some(clock) = &mut self.clock {
            let mut readings = clocks;
            if clock::seat_of(&self.game, Color::Black) == Seat::Second {
                readings.reverse();
            }
            match ev {
                // The turn goes on with the time it had left when the server stopped.
                Event::Pause { left_ms } => clock.resume_at(*left_ms),
                _ => clock.set(
                    readings,
                    &self.game,
                    clock::Start::FirstStone,
                    Instant::now(),
                ),
            }
        }
        self.seq += 1;
        Ok(())
    }

    /// The game's part of an event (not the clock).
    fn apply_event(&mut self, ev: &Event) -> Result<(), ApiError> {
        let conflict = |e: tengen_rules::PlayError| ApiError::Conflict(e.to_string());
        match ev {
            Event::Position { actions, redo } => {
                let g = &self.game;
                let mut game = Game::with_opening(g.board().size(), g.rule(), g.opening());
                // A record is replayed as a referee would: a forbidden move stands and loses.
                game.set_forbidden_policy(ForbiddenPolicy::Lose);
                for a in actions {
                    apply(&mut game, a.action()?).map_err(|e| {
                        ApiError::BadRequest(format!("the position holds an illegal move: {e}"))
                    })?;
                }
                game.set_forbidden_policy(self.setup.policy);
                self.game = game;
                self.set_up = true;
                self.redo = redo
                    .iter()
                    .map(StoredAction::action)
                    .collect::<Result<_, _>>()?;
            }
            Event::Move { at: [x, y] } => {
                let p = Point::new(*x, *y);
                if self.game.outcome().is_some() {
                    return Err(ApiError::Conflict("the game is over".into()));
                }
                let size = self.game.board().size();
                self.game.play(p).map_err(|e| {
                    // Most refusals name the point themselves ("h8 is already occupied").
                    use tengen_rules::PlayError as E;
                    ApiError::IllegalMove(match e {
                        E::OffBoard(_)
                        | E::Occupied(_)
                        | E::TooFar(_)
                        | E::Forbidden(..)
                        | E::Opening(..) => e.to_string(),
                        _ => format!("{}: {e}", point_name(size, p)),
                    })
                })?;
                self.redo.clear();
            }
            Event::Choose { choice } => {
                self.choose(parse_choice(choice)?)?;
                self.redo.clear();
            }
            Event::Undo => {
                self.undo()?;
                self.undos += 1;
            }
            Event::Redo => self.redo()?,
            Event::Resign { color } => self.game.resign(parse_color(color)?).map_err(conflict)?,
            Event::Draw => self.game.agree_draw().map_err(conflict)?,
            Event::Timeout { color } => self
                .game
                .lose_on_time(parse_color(color)?)
                .map_err(conflict)?,
            Event::Assisted => self.assisted = true,
            Event::Pause { .. } => {}
        }
        if !ev.is_note() {
            self.held = matches!(ev, Event::Position { .. });
        }
        Ok(())
    }

    /// The event that sets up `game` (replayed from a record) with `redo` to play again.
    pub fn position_event(game: &Game, redo: &[Redo]) -> Event {
        Event::Position {
            actions: actions_of(game).into_iter().map(StoredAction::of).collect(),
            redo: redo.iter().copied().map(StoredAction::of).collect(),
        }
    }

    /// The event that starts a new game at the position after `ply` moves of this one (its
    /// moves and the moves taken back).
    pub fn continue_event(&self, ply: usize) -> Result<Event, ApiError> {
        let mut all = actions_of(&self.game);
        all.extend(self.redo.iter().rev().copied());
        let total = all.iter().filter(|a| matches!(a, Redo::Move(_))).count();
        if ply > total {
            return Err(ApiError::BadRequest(format!(
                "ply {ply} is past the last move ({total})"
            )));
        }
        let mut moves = 0;
        let mut actions = Vec::new();
        for a in all {
            if moves == ply {
                break;
            }
            if matches!(a, Redo::Move(_)) {
                moves += 1;
            }
            actions.push(StoredAction::of(a));
        }
        Ok(Event::Position {
            actions,
            redo: Vec::new(),
        })
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

    fn pop(&mut self) -> Option<Redo> {
        let a = pop_action(&mut self.game);
        if let Some(a) = a {
            self.redo.push(a);
        }
        a
    }

    /// Takes a swap decision for the player who must choose.
    fn choose(&mut self, choice: Choice) -> Result<(), ApiError> {
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
            .map_err(|e| ApiError::Conflict(e.to_string()))
    }

    /// Takes back: against the computer, back to your last action (with the computer's replies
    /// after it); otherwise one action (a move or a swap decision). A game lost on time, by
    /// resignation or drawn by agreement stays over: a result is not taken back.
    fn undo(&mut self) -> Result<(), ApiError> {
        if self.ended_off_board() {
            return Err(ApiError::Conflict(
                "the game is over: a game ended by resignation, on time or by agreement cannot \
                 be taken back"
                    .into(),
            ));
        }
        if self.game.moves().is_empty() {
            return Err(ApiError::Conflict("there is nothing to undo".into()));
        }
        let snapshot = (self.game.clone(), self.redo.clone());
        match self.setup.opponent {
            Opponent::Computer => {
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
                self.pop();
            }
        }
        self.assisted = true;
        Ok(())
    }

    /// Whether undo would take something back.
    fn can_undo(&self) -> bool {
        if self.ended_off_board() {
            return false;
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
    fn redo(&mut self) -> Result<(), ApiError> {
        if self.redo.is_empty() {
            return Err(ApiError::Conflict("there is nothing to redo".into()));
        }
        if self.game.outcome().is_some() {
            return Err(ApiError::Conflict("the game is over".into()));
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
        Ok(())
    }

    /// Takes back moves until `ply` are left, to be played again with redo (an import that
    /// stops part way).
    pub fn rewind(&mut self, ply: usize) -> Result<(), ApiError> {
        let total = self.game.moves().len();
        if ply > total {
            return Err(ApiError::BadRequest(format!(
                "ply {ply} is past the last move ({total})"
            )));
        }
        while self.game.moves().len() > ply {
            if self.pop().is_none() {
                break;
            }
        }
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
                options: Choice::offered(may_place_two)
                    .iter()
                    .map(|c| c.name())
                    .collect(),
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

    /// Computes the marks of the position (forbidden points, threats) on a blocking thread,
    /// unless they are kept already: on the async runtime, [`Session::state`] comes after it.
    pub async fn ready_marks(&self) {
        self.marks.ready(&self.game, marks_of).await;
    }

    /// The line of text that says where the game stands.
    pub fn status(&self) -> String {
        let outcome = self.game.outcome();
        let status = match (outcome, self.game.to_move()) {
            (Some(o), _) => o.to_string(),
            (None, Some(c)) if self.computer_should_act() => {
                format!("{} to move (computer thinking)", capitalised(c))
            }
            (None, Some(c)) => format!("{} to move", capitalised(c)),
            (None, None) => "Game over".to_string(),
        };
        match (outcome, self.opening_status()) {
            (None, Some(opening)) => opening,
            _ => status,
        }
    }

    /// The state the page draws.
    pub fn state(&self) -> State {
        let g = &self.game;
        let size = g.board().size();
        let to_move = g.to_move();
        let outcome = g.outcome();
        let status = self.status();
        let (forbidden, threats) = self.marks.of(g, marks_of);
        let now = Instant::now();
        let clock = self.clock.as_ref().map(|c| ClockState {
            spec: c.spec(),
            black_ms: c.remaining(clock::seat_of(g, Color::Black), now),
            white_ms: c.remaining(clock::seat_of(g, Color::White), now),
            running: c.running().map(|seat| color_name(clock::color_of(g, seat))),
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
            seq: self.seq,
            computer_waits: self.held && self.computer_to_move(),
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
            threats,
            can_undo,
            clock,
            assisted: self.assisted,
            summary: outcome.map(|_| Summary {
                moves: g.moves().len(),
                duration_ms: u64::try_from(
                    self.ended
                        .unwrap_or_else(|| self.started.elapsed())
                        .as_millis(),
                )
                .unwrap_or(u64::MAX),
                undos: self.undos,
            }),
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

    fn mv(x: i32, y: i32) -> Event {
        Event::Move { at: [x, y] }
    }

    #[test]
    fn undo_against_the_computer_takes_back_two_moves_and_redo_replays_them() {
        let mut s = Session::new("g".into(), setup(Opponent::Computer), 1);
        for e in [mv(7, 7), mv(8, 8), mv(7, 8), mv(9, 9)] {
            s.apply_live(&e).expect("legal");
        }
        s.apply_live(&Event::Undo).expect("undo");
        assert_eq!(s.game.moves().len(), 2);
        assert_eq!(s.state().redo, vec!["h7", "j6"]);
        s.apply_live(&Event::Redo).expect("redo");
        assert_eq!(s.game.moves().len(), 4);
        assert!(s.apply_live(&Event::Redo).is_err());
    }

    #[test]
    fn the_state_lists_the_threats_the_player_to_move_must_answer() {
        let mut s = Session::new("g".into(), setup(Opponent::Friend), 1);
        // Black h8, j8, k8 (a split three), white far away: white to move must answer at i8.
        for e in [mv(7, 7), mv(0, 0), mv(9, 7), mv(0, 14), mv(10, 7)] {
            s.apply_live(&e).expect("legal");
        }
        let t = s.state().threats;
        assert_eq!(t.len(), 1, "{t:?}");
        assert_eq!((t[0].name.as_str(), t[0].kind), ("i8", "open_four"));
        // White's own stones threaten nothing; after white's reply it is black's turn, and
        // white's (none) are listed.
        s.apply_live(&mv(8, 7)).expect("legal");
        assert!(s.state().threats.is_empty());
    }

    #[test]
    fn a_finished_game_is_summed_up_with_its_undos() {
        let mut s = Session::new("g".into(), setup(Opponent::Friend), 1);
        for e in [mv(7, 7), mv(7, 8), mv(0, 0), Event::Undo, mv(8, 7)] {
            s.apply_live(&e).expect("legal");
        }
        assert!(
            s.state().summary.is_none(),
            "no summary while the game goes on"
        );
        for e in [
            mv(8, 8),
            mv(9, 7),
            mv(9, 8),
            mv(10, 7),
            mv(10, 8),
            mv(11, 7),
        ] {
            s.apply_live(&e).expect("legal");
        }
        let sum = s.state().summary.expect("over");
        assert_eq!((sum.moves, sum.undos), (9, 1));
        // Taking back the five reopens the game: no summary again.
        s.apply_live(&Event::Undo).expect("undo");
        assert!(s.state().summary.is_none());
    }

    #[test]
    fn a_refused_move_changes_nothing() {
        let mut s = Session::new("g".into(), setup(Opponent::Friend), 1);
        s.apply_live(&mv(7, 7)).expect("legal");
        assert!(s.apply_live(&mv(7, 7)).is_err());
        assert_eq!(s.game.moves().len(), 1);
    }

    #[test]
    fn undo_never_reopens_a_game_ended_off_the_board() {
        for (end, opponent) in [
            (
                Event::Resign {
                    color: "black".into(),
                },
                Opponent::Computer,
            ),
            (Event::Draw, Opponent::Friend),
            (
                Event::Timeout {
                    color: "white".into(),
                },
                Opponent::Friend,
            ),
        ] {
            let mut s = Session::new("g".into(), setup(opponent), 1);
            for e in [mv(7, 7), mv(8, 8), end] {
                s.apply_live(&e).expect("legal");
            }
            let before = s.game.clone();
            assert!(!s.state().can_undo);
            assert!(s.apply_live(&Event::Undo).is_err());
            assert!(s.apply_live(&Event::Redo).is_err());
            assert_eq!(s.game, before);
        }
    }

    #[test]
    fn the_event_log_replays_into_the_same_game() {
        let mut live = Session::new("g".into(), setup(Opponent::Friend), 1);
        let log = [
            mv(7, 7),
            mv(8, 8),
            mv(7, 8),
            Event::Undo,
            Event::Redo,
            Event::Undo,
            mv(6, 6),
            Event::Assisted,
        ];
        for e in &log {
            live.apply_live(e).expect("legal");
        }
        let mut back = Session::new("g".into(), setup(Opponent::Friend), 1);
        for e in &log {
            let json = serde_json::to_string(e).expect("json");
            let e: Event = serde_json::from_str(&json).expect("event");
            back.replay(&e, [0, 0]).expect("replays");
        }
        assert_eq!(back.game, live.game);
        assert_eq!(back.redo, live.redo);
        assert!(back.assisted);
        assert_eq!(back.seq, log.len() as u64);
    }

    #[test]
    fn a_continued_game_starts_from_the_position_asked_for() {
        let mut s = Session::new("g".into(), setup(Opponent::Friend), 1);
        for e in [mv(7, 7), mv(8, 8), mv(7, 8), Event::Undo] {
            s.apply_live(&e).expect("legal");
        }
        // Two moves played and one taken back: any of the three can be continued from.
        let ev = s.continue_event(3).expect("in range");
        let mut c = Session::new("c".into(), setup(Opponent::Friend), 1);
        c.apply_live(&ev).expect("position");
        assert_eq!(
            c.game.moves(),
            &[Point::new(7, 7), Point::new(8, 8), Point::new(7, 8)]
        );
        assert!(s.continue_event(4).is_err());
        assert_eq!(
            s.game.moves().len(),
            2,
            "the game continued from is unchanged"
        );
    }

    #[test]
    fn a_per_move_clock_waits_for_the_first_stone_and_a_flag_reads_zero() {
        let mut setup = setup(Opponent::Friend);
        setup.clock = ClockSpec::PerMove { ms: 5_000 };
        let mut s = Session::new("g".into(), setup, 1);
        let clock = s.state().clock.expect("clock");
        assert_eq!(clock.running, None);
        assert!(s.flag_event().is_none());
        s.apply_live(&mv(7, 7)).expect("legal");
        assert_eq!(s.state().clock.expect("clock").running, Some("white"));
        s.apply_live(&Event::Timeout {
            color: "white".into(),
        })
        .expect("flag");
        let clock = s.state().clock.expect("clock");
        assert_eq!(
            (clock.black_ms, clock.white_ms, clock.running),
            (5_000, 0, None)
        );
    }

    #[test]
    fn a_swap_openings_stones_are_timed_on_the_placers_clock_and_replay_by_colour() {
        let mut setup = setup(Opponent::Friend);
        setup.opening = OpeningRule::Swap;
        setup.clock = ClockSpec::Total {
            ms: 10_000,
            increment_ms: 1_000,
        };
        let mut s = Session::new("g".into(), setup.clone(), 1);
        let mut log = Vec::new();
        for e in [mv(7, 7), mv(8, 7), mv(7, 6)] {
            s.apply_live(&e).expect("legal");
            log.push((e, s.clocks()));
        }
        // The first player placed all three: the second player's clock has not moved.
        let [first, second] = s.clocks();
        assert_eq!(second, 10_000);
        assert!(first <= 13_000);
        assert_eq!(s.state().clock.expect("clock").running, Some("white"));
        // The second player takes black: no increment for a decision, and the readings, stored
        // by colour, swap columns.
        let choose = Event::Choose {
            choice: "black".into(),
        };
        s.apply_live(&choose).expect("a decision");
        log.push((choose, s.clocks()));
        let [black, white] = s.clocks();
        assert!(black <= 10_000);
        assert_eq!(white, first);
        // Replayed from the stored readings, the same clocks.
        let mut r = Session::new("g".into(), setup, 1);
        for (e, clocks) in &log {
            r.replay(e, *clocks).expect("replays");
        }
        assert_eq!(r.clocks(), s.clocks());
        assert_eq!(r.state().clock.expect("clock").running, Some("white"));
    }

    #[test]
    fn score_texts() {
        assert_eq!(score_text(Score::Win(5)), "forced win in 3");
        assert_eq!(score_text(Score::Eval(12)), "+12");
    }
}
