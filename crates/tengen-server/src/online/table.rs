//! One online game without I/O: the seats, the game, the clocks and the open request. Every change
//! is an [`Event`]; [`Table::act`] checks an action and returns the events it made, which the
//! caller stores before telling anyone, and [`Table::restore`] replays stored events through the
//! same code after a restart.

use std::collections::VecDeque;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tengen_rules::{
    BoardSize, Choice, Color, ForbiddenPolicy, Game, OpeningRule, Pending, Point, Rule, Seat,
    parse_point, point_name,
};

use crate::clock::{self, Clock, TurnEnd};
use tengen_wire::{
    self as wire, ChatLine, ClockSpec, GameState, OutcomeState, PendingState, RequestKind,
    RequestState, Role, SeatState,
};

/// How many chat lines a game keeps for newcomers.
pub const CHAT_HISTORY: usize = 50;

/// The most chat lines a game stores. Every line is an event of the game's record, which is
/// replayed whenever the game is loaded; without a cap, spectators (each connection with its
/// own rate) could grow one game's record without end.
pub const CHAT_LINES_PER_GAME: u64 = 500;

/// A game's settings, fixed at creation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSettings {
    /// The rule's name.
    pub rule: String,
    /// The board size, as `BoardSize` prints it.
    pub size: String,
    /// The opening rule's name.
    pub opening: String,
    /// The clock.
    pub clock: ClockSpec,
    /// Whether black's forbidden moves stand and lose (`true`) or are refused.
    pub forbidden_loses: bool,
    /// Whether the lobby lists the game.
    pub listed: bool,
}

impl TableSettings {
    /// A new game under these settings, or why they are wrong.
    pub fn new_game(&self) -> Result<Game, String> {
        let size: BoardSize = self.size.parse().map_err(|e| format!("{e}"))?;
        let rule: Rule = self.rule.parse().map_err(|e| format!("{e}"))?;
        let opening: OpeningRule = self.opening.parse().map_err(|e| format!("{e}"))?;
        let mut game = Game::with_opening(size, rule, opening);
        game.set_forbidden_policy(if self.forbidden_loses {
            ForbiddenPolicy::Lose
        } else {
            ForbiddenPolicy::Refuse
        });
        Ok(game)
    }
}

/// A seated player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// The name others see.
    pub name: String,
    /// SHA-256 of the seat token, in hex.
    pub token_hash: String,
}

/// A stored change. Clocks after it travel beside it (see [`Stored`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A player took a seat.
    Join {
        /// The seat.
        seat: Role,
        /// The player's name.
        name: String,
        /// SHA-256 of the token, hex.
        token_hash: String,
    },
    /// A stone.
    Move {
        /// Who played it.
        seat: Role,
        /// Column.
        x: i32,
        /// Row.
        y: i32,
    },
    /// A swap decision.
    Choose {
        /// Who decided.
        seat: Role,
        /// `black`, `white` or `place_two`.
        choice: String,
    },
    /// An accepted takeback: the last `actions` moves and decisions are undone.
    Takeback {
        /// Who asked for it.
        by: Role,
        /// How many actions were undone.
        actions: u32,
    },
    /// An agreed draw.
    Draw,
    /// A resignation.
    Resign {
        /// Who resigned.
        seat: Role,
    },
    /// A fallen flag.
    Timeout {
        /// Whose time ran out.
        seat: Role,
    },
    /// A win claimed over a player gone past the grace period.
    Claim {
        /// Who claimed.
        seat: Role,
    },
    /// A rematch was agreed: the new game's id.
    Rematch {
        /// The new game.
        id: String,
    },
    /// A chat line.
    Chat(ChatLine),
    /// A player asked the other (a takeback, a draw, a rematch): the request stays open until
    /// it is answered, withdrawn or lapses.
    Request {
        /// Who asked.
        by: Role,
        /// What.
        request: RequestKind,
    },
    /// The open request was declined or withdrawn.
    RequestClosed,
    /// The server stopped (gracefully) with a clock running: the time it had left then, in
    /// milliseconds. Clocks do not run while the server is down: replayed, the turn goes on
    /// from there.
    Pause {
        /// The running clock's time left.
        left_ms: u64,
    },
}

/// An event with the clocks as they stand after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    /// The change.
    pub event: Event,
    /// Time left for the first and second seats when the next turn starts (`crate::clock`: a
    /// per-move clock's full time, zero for a fallen flag; zeros without a clock; logs stored
    /// before hold zeros for per-move clocks, which are not read back).
    pub clocks: [u64; 2],
}

/// What a player asks the table to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// Play a stone; with `moves`, only on the position with that many stones (the one the
    /// player saw), so that a move that crossed a change of position is refused.
    Move {
        /// The point, as the player wrote it.
        at: String,
        /// The stones on the board the player saw.
        moves: Option<u32>,
    },
    /// Take a swap decision (with `moves`, only on the position the player saw).
    Choose {
        /// The decision's name.
        choice: String,
        /// The stones on the board the player saw.
        moves: Option<u32>,
    },
    /// Ask the opponent.
    Request(RequestKind),
    /// Accept the opponent's request; with a kind, only a request of that kind (the one the
    /// player saw), so that an answer that crossed a change of request answers nothing.
    Accept(Option<RequestKind>),
    /// Decline the opponent's request (with a kind, only a request of that kind).
    Decline(Option<RequestKind>),
    /// Withdraw one's request.
    Cancel,
    /// Resign.
    Resign,
    /// Claim the win over a gone opponent.
    Claim,
}

impl Action {
    /// The action a player's message asks of the table; `None` for the messages the table does
    /// not take (hello and chat, which the connection handles itself).
    pub fn of_message(msg: wire::ClientMsg) -> Option<Action> {
        Some(match msg {
            wire::ClientMsg::Move { at, moves } => Action::Move { at, moves },
            wire::ClientMsg::Choose { choice, moves } => Action::Choose { choice, moves },
            wire::ClientMsg::Request { kind } => Action::Request(kind),
            wire::ClientMsg::Accept { kind } => Action::Accept(kind),
            wire::ClientMsg::Decline { kind } => Action::Decline(kind),
            wire::ClientMsg::Cancel => Action::Cancel,
            wire::ClientMsg::Resign => Action::Resign,
            wire::ClientMsg::Claim => Action::Claim,
            wire::ClientMsg::Hello { .. } | wire::ClientMsg::Chat { .. } => return None,
        })
    }
}

/// What an action did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Done {
    /// Events to store, in order, before telling anyone.
    pub stored: Vec<Stored>,
    /// A sentence for everyone that the state does not carry.
    pub notice: Option<String>,
    /// A rematch was agreed: the caller creates the new game and stores its id as an event.
    pub rematch: bool,
}

fn idx(seat: Seat) -> usize {
    match seat {
        Seat::First => 0,
        Seat::Second => 1,
    }
}

/// The role of a seat.
pub fn role(seat: Seat) -> Role {
    match seat {
        Seat::First => Role::First,
        Seat::Second => Role::Second,
    }
}

/// The seat of a player's role.
pub fn seat(role: Role) -> Option<Seat> {
    match role {
        Role::First => Some(Seat::First),
        Role::Second => Some(Seat::Second),
        Role::Spectator => None,
    }
}

fn ms_between(from: Instant, to: Instant) -> u64 {
    u64::try_from(to.saturating_duration_since(from).as_millis()).unwrap_or(u64::MAX)
}

/// Why an action was refused; the table is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

fn refuse<T>(why: impl Into<String>) -> Result<T, Refused> {
    Err(Refused(why.into()))
}

/// One online game.
#[derive(Clone, Debug)]
pub struct Table {
    /// The game's id.
    pub id: String,
    /// Its settings.
    pub settings: TableSettings,
    game: Game,
    players: [Option<Player>; 2],
    // Who took each action of the game (moves and decisions), in order, for takebacks.
    actors: Vec<Seat>,
    clock: Option<Clock>,
    request: Option<(RequestKind, Seat)>,
    rematch: Option<String>,
    seq: u64,
    chat: VecDeque<ChatLine>,
    // Chat lines stored so far, up to CHAT_LINES_PER_GAME.
    chat_lines: u64,
    // Since when a seated player has had no connection.
    gone_since: [Option<Instant>; 2],
    grace_ms: u64,
    marks: Marks,
}

/// The forbidden points and the opponent's threats of a position, as the state shows them.
type Marks = crate::marks::Marks<(Vec<wire::Forbidden>, Vec<wire::Threat>)>;

/// The forbidden points and the opponent's threats of `game`'s position.
fn marks_of(game: &Game) -> (Vec<wire::Forbidden>, Vec<wire::Threat>) {
    let forbidden = game
        .forbidden_points()
        .into_iter()
        .map(|(p, kind)| wire::Forbidden {
            x: p.x,
            y: p.y,
            kind: kind.to_string(),
        })
        .collect();
    let threats = crate::session::threats_against(game)
        .into_iter()
        .map(|t| wire::Threat {
            x: t.x,
            y: t.y,
            kind: t.kind.to_string(),
        })
        .collect();
    (forbidden, threats)
}

impl Table {
    /// A game with empty seats.
    pub fn new(id: String, settings: TableSettings, grace_ms: u64) -> Result<Table, String> {
        let game = settings.new_game()?;
        Ok(Table {
            id,
            clock: Clock::new(settings.clock),
            settings,
            game,
            players: [None, None],
            actors: Vec::new(),
            request: None,
            rematch: None,
            seq: 0,
            chat: VecDeque::new(),
            chat_lines: 0,
            gone_since: [None, None],
            grace_ms,
            marks: Marks::default(),
        })
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Stored events so far.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The players, first then second.
    pub fn players(&self) -> &[Option<Player>; 2] {
        &self.players
    }

    /// The last chat lines.
    pub fn chat(&self) -> impl Iterator<Item = &ChatLine> {
        self.chat.iter()
    }

    /// Whether the game is over.
    pub fn over(&self) -> bool {
        self.game.outcome().is_some()
    }

    /// The seat holding the token with this hash.
    pub fn seat_of(&self, token_hash: &str) -> Option<Seat> {
        [Seat::First, Seat::Second].into_iter().find(|&s| {
            self.players[idx(s)]
                .as_ref()
                .is_some_and(|p| p.token_hash == token_hash)
        })
    }

    /// Whether the game, not over, still waits for its second player.
    pub fn unjoined(&self) -> bool {
        !self.over() && self.free_seat().is_some()
    }

    /// The free seat, if any (the first one free).
    pub fn free_seat(&self) -> Option<Seat> {
        [Seat::First, Seat::Second]
            .into_iter()
            .find(|&s| self.players[idx(s)].is_none())
    }

    /// When the running clock's flag falls, if a clock runs.
    pub fn deadline(&self) -> Option<Instant> {
        self.clock.as_ref()?.deadline()
    }

    // The readings to store with an event that leaves the clocks as they are.
    fn readings(&self) -> [u64; 2] {
        self.clock.as_ref().map_or([0, 0], Clock::readings)
    }

    // The readings after a turn ended at `now` as `end` says.
    fn readings_after(&self, end: TurnEnd, now: Instant) -> [u64; 2] {
        self.clock
            .as_ref()
            .map_or([0, 0], |clock| clock.after(end, now))
    }

    /// When `seat`'s grace period ends, while it is gone (the state must then be sent again:
    /// the win becomes claimable).
    pub fn grace_deadline_of(&self, seat: Seat) -> Option<Instant> {
        if self.over() || self.players[idx(seat)].is_none() {
            return None;
        }
        self.gone_since[idx(seat)].map(|t| t + std::time::Duration::from_millis(self.grace_ms))
    }

    /// Marks a seated player present or gone.
    pub fn set_present(&mut self, seat: Seat, present: bool, now: Instant) {
        let gone = &mut self.gone_since[idx(seat)];
        if present {
            *gone = None;
        } else if gone.is_none() {
            *gone = Some(now);
        }
    }

    fn claimable(&self, seat: Seat, now: Instant) -> bool {
        !self.over()
            && self.players[idx(seat)].is_some()
            && self.gone_since[idx(seat)].is_some_and(|t| ms_between(t, now) >= self.grace_ms)
    }

    /// A flag that has fallen by `now`, as the event that ends the game.
    pub fn check_time(&mut self, now: Instant) -> Option<Stored> {
        let seat = self.clock.as_ref()?.fallen(now)?;
        let stored = Stored {
            event: Event::Timeout { seat: role(seat) },
            clocks: self.readings_after(TurnEnd::Flag, now),
        };
        self.apply(&stored, now).ok()?;
        Some(stored)
    }

    /// Seats a player in the free seat (or `want`, if free).
    pub fn join(
        &mut self,
        name: String,
        token_hash: String,
        want: Option<Seat>,
        now: Instant,
    ) -> Result<(Seat, Stored), Refused> {
        let seat = match want {
            Some(s) if self.players[idx(s)].is_none() => s,
            Some(_) => return refuse("that seat is taken"),
            None => match self.free_seat() {
                Some(s) => s,
                None => return refuse("both seats are taken; you can watch"),
            },
        };
        let stored = Stored {
            event: Event::Join {
                seat: role(seat),
                name,
                token_hash,
            },
            clocks: self.readings(),
        };
        self.apply(&stored, now).map_err(Refused)?;
        Ok((seat, stored))
    }

    /// A chat line, stored like any event; refused once the game has stored
    /// [`CHAT_LINES_PER_GAME`].
    pub fn chat_line(&mut self, line: ChatLine, now: Instant) -> Result<Stored, Refused> {
        if self.chat_lines >= CHAT_LINES_PER_GAME {
            return refuse(format!(
                "this game's chat is full ({CHAT_LINES_PER_GAME} lines)"
            ));
        }
        // Chat does not touch the clocks.
        let stored = Stored {
            event: Event::Chat(line),
            clocks: self.readings(),
        };
        self.apply(&stored, now).map_err(Refused)?;
        Ok(stored)
    }

    /// Records the rematch's id.
    pub fn set_rematch(&mut self, id: String, now: Instant) -> Stored {
        let stored = Stored {
            event: Event::Rematch { id },
            clocks: self.readings(),
        };
        self.apply(&stored, now).ok();
        stored
    }

    /// The new game's players for a rematch: the seats swapped.
    pub fn rematch_players(&self) -> [Option<Player>; 2] {
        [self.players[1].clone(), self.players[0].clone()]
    }

    /// At a graceful stop of the server: the event that notes the running clock's time left
    /// (or its fallen flag), applied; none when no clock runs.
    pub fn pause(&mut self, now: Instant) -> Option<Stored> {
        if let Some(timeout) = self.check_time(now) {
            return Some(timeout);
        }
        let left_ms = self.clock.as_ref()?.paused(now)?;
        let stored = Stored {
            event: Event::Pause { left_ms },
            clocks: self.readings(),
        };
        self.apply(&stored, now).ok()?;
        Some(stored)
    }

    /// Checks and does what `seat` asks at `now`.
    pub fn act(&mut self, seat: Seat, action: Action, now: Instant) -> Result<Done, Refused> {
        let mut done = Done::default();
        // 1. A flag that fell before this action ends the game first: time is checked by the
        //    server, not by the client's word.
        if let Some(timeout) = self.check_time(now) {
            done.stored.push(timeout);
        }
        let result = self.act_inner(seat, action, now, &mut done);
        match result {
            Ok(()) => Ok(done),
            // The timeout (if any) stands; report the refusal only when nothing happened.
            Err(e) if done.stored.is_empty() => Err(e),
            Err(e) => {
                done.notice = Some(e.0);
                Ok(done)
            }
        }
    }

    fn act_inner(
        &mut self,
        seat: Seat,
        action: Action,
        now: Instant,
        done: &mut Done,
    ) -> Result<(), Refused> {
        match action {
            Action::Move { at, moves } => self.play_move(seat, &at, moves, now, done),
            Action::Choose { choice, moves } => self.choose(seat, choice, moves, now, done),
            Action::Request(kind) => self.open_request(seat, kind, now, done),
            Action::Accept(kind) => self.accept(seat, kind, now, done),
            Action::Decline(kind) => self.decline(seat, kind, now, done),
            Action::Cancel => self.cancel(seat, now, done),
            Action::Resign => self.resign(seat, now, done),
            Action::Claim => self.claim(seat, now, done),
        }
    }

    // The one way a live action changes the game: the event is applied with the clocks as
    // they stand after it, and handed back to be stored.
    fn store(
        &mut self,
        event: Event,
        clocks: [u64; 2],
        now: Instant,
        done: &mut Done,
    ) -> Result<(), Refused> {
        let stored = Stored { event, clocks };
        self.apply(&stored, now).map_err(Refused)?;
        done.stored.push(stored);
        Ok(())
    }

    fn both_seated(&self) -> bool {
        self.players.iter().all(Option::is_some)
    }

    // Refuses a frame played on another position than the table's (`seen` stones, when the
    // frame says): it crossed a change (a takeback accepted meanwhile), and applied it would
    // land where its player never looked. The stones count the position as plies do in chess;
    // a takeback of a lone swap decision keeps them, but leaves that decision pending, which
    // the turn checks refuse a stale frame on.
    fn check_seen(&self, seen: Option<u32>, what: &str) -> Result<(), Refused> {
        let stones = self.game.moves().len();
        match seen {
            Some(seen) if usize::try_from(seen).ok() != Some(stones) => refuse(format!(
                "the position changed before your {what} arrived ({stones} stones on the board \
                 now, not {seen}): nothing was done"
            )),
            _ => Ok(()),
        }
    }

    fn play_move(
        &mut self,
        seat: Seat,
        text: &str,
        seen: Option<u32>,
        now: Instant,
        done: &mut Done,
    ) -> Result<(), Refused> {
        let p = self.point(text)?;
        if self.over() {
            return refuse("the game is over");
        }
        if !self.both_seated() {
            return refuse("wait for an opponent to join");
        }
        self.check_seen(seen, "move")?;
        match self.game.pending() {
            Pending::Move { seat: s, .. } if s == seat => {}
            Pending::Choice { seat: s, .. } if s == seat => {
                return refuse("choose a colour first");
            }
            _ => return refuse("it is not your turn"),
        }
        // 2. Check the move on a copy, so a refusal leaves the game as it was.
        let mut probe = self.game.clone();
        probe.play(p).map_err(|e| Refused(format!("{e}")))?;
        let lapsed = self.request.take();
        let event = Event::Move {
            seat: role(seat),
            x: p.x,
            y: p.y,
        };
        let clocks = self.readings_after(TurnEnd::Stone(seat), now);
        self.store(event, clocks, now, done)?;
        if let Some((kind, by)) = lapsed {
            done.notice = Some(format!(
                "{}'s {} request lapsed with the move",
                self.name(by),
                kind.name()
            ));
        }
        Ok(())
    }

    fn choose(
        &mut self,
        seat: Seat,
        text: String,
        seen: Option<u32>,
        now: Instant,
        done: &mut Done,
    ) -> Result<(), Refused> {
        // The wire's names exactly: no case folding or spaces, as before.
        let Some(choice) = Choice::by_name(&text) else {
            return refuse(format!(
                "unknown choice {text:?} (black, white or place_two)"
            ));
        };
        if !self.both_seated() {
            return refuse("wait for an opponent to join");
        }
        if self.over() {
            return refuse("the game is over");
        }
        self.check_seen(seen, "decision")?;
        match self.game.pending() {
            Pending::Choice { seat: s, .. } if s == seat => {}
            _ => return refuse("no decision of yours is open"),
        }
        let mut probe = self.game.clone();
        probe.choose(choice).map_err(|e| Refused(format!("{e}")))?;
        self.request = None;
        let event = Event::Choose {
            seat: role(seat),
            choice: text,
        };
        let clocks = self.readings_after(TurnEnd::Other, now);
        self.store(event, clocks, now, done)
    }

    fn open_request(
        &mut self,
        seat: Seat,
        kind: RequestKind,
        now: Instant,
        done: &mut Done,
    ) -> Result<(), Refused> {
        if !self.both_seated() {
            return refuse("there is no opponent to ask yet");
        }
        if let Some((open, by)) = self.request {
            // Both players asked for the same thing at once (their requests crossed): a draw
            // or a rematch each wants is agreed, as if the second had accepted the first.
            if by != seat && open == kind && kind != RequestKind::Takeback {
                return self.accept(seat, Some(kind), now, done);
            }
            return refuse("a request is already open");
        }
        match kind {
            RequestKind::Takeback | RequestKind::Draw if self.over() => {
                return refuse("the game is over");
            }
            RequestKind::Takeback if !self.actors.contains(&seat) => {
                return refuse("you have no move to take back");
            }
            RequestKind::Rematch if !self.over() => {
                return refuse("a rematch can be asked once the game is over");
            }
            RequestKind::Rematch if self.rematch.is_some() => {
                return refuse("the rematch is already agreed");
            }
            _ => {}
        }
        // Stored, so that a restart finds it open.
        let event = Event::Request {
            by: role(seat),
            request: kind,
        };
        let clocks = self.readings();
        self.store(event, clocks, now, done)
    }

    // The open request `seat` may answer: one made by the other seat, of the kind `seen` when
    // the answer names one.
    fn request_to_answer(
        &self,
        seat: Seat,
        seen: Option<RequestKind>,
    ) -> Result<(RequestKind, Seat), Refused> {
        let Some((kind, by)) = self.request else {
            return refuse("there is no request to answer");
        };
        if by == seat {
            return refuse("you cannot answer your own request");
        }
        if seen.is_some_and(|seen| seen != kind) {
            return refuse(format!(
                "the open request is for a {} now, not what you answered",
                kind.name()
            ));
        }
        Ok((kind, by))
    }

    fn accept(
        &mut self,
        seat: Seat,
        seen: Option<RequestKind>,
        now: Instant,
        done: &mut Done,
    ) -> Result<(), Refused> {
        let (kind, by) = self.request_to_answer(seat, seen)?;
        match kind {
            RequestKind::Takeback => {
                let last = self
                    .actors
                    .iter()
                    .rposition(|&s| s == by)
                    .ok_or_else(|| Refused("nothing to take back".into()))?;
                let actions = u32::try_from(self.actors.len() - last)
                    .map_err(|_| Refused("too many moves".into()))?;
                let event = Event::Takeback {
                    by: role(by),
                    actions,
                };
                let clocks = self.readings_after(TurnEnd::Other, now);
                self.store(event, clocks, now, done)
            }
            RequestKind::Draw => {
                let clocks = self.readings_after(TurnEnd::Other, now);
                self.store(Event::Draw, clocks, now, done)
            }
            RequestKind::Rematch => {
                self.request = None;
                done.rematch = true;
                Ok(())
            }
        }
    }

    fn decline(
        &mut self,
        seat: Seat,
        seen: Option<RequestKind>,
        now: Instant,
        done: &mut Done,
    ) -> Result<(), Refused> {
        let (kind, _) = self.request_to_answer(seat, seen)?;
        let clocks = self.readings();
        self.store(Event::RequestClosed, clocks, now, done)?;
        done.notice = Some(format!(
            "{} declined the {}",
            self.name(seat),
            match kind {
                RequestKind::Takeback => "takeback",
                RequestKind::Draw => "draw offer",
                RequestKind::Rematch => "rematch",
            }
        ));
        Ok(())
    }

    fn cancel(&mut self, seat: Seat, now: Instant, done: &mut Done) -> Result<(), Refused> {
        match self.request {
            Some((kind, by)) if by == seat => {
                let clocks = self.readings();
                self.store(Event::RequestClosed, clocks, now, done)?;
                done.notice = Some(format!(
                    "{} withdrew the {} request",
                    self.name(seat),
                    kind.name()
                ));
                Ok(())
            }
            _ => refuse("you have no open request"),
        }
    }

    fn resign(&mut self, seat: Seat, now: Instant, done: &mut Done) -> Result<(), Refused> {
        if self.over() {
            return refuse("the game is over");
        }
        if !self.both_seated() {
            return refuse("the game has not started");
        }
        let clocks = self.readings_after(TurnEnd::Other, now);
        self.store(Event::Resign { seat: role(seat) }, clocks, now, done)
    }

    fn claim(&mut self, seat: Seat, now: Instant, done: &mut Done) -> Result<(), Refused> {
        if self.over() {
            return refuse("the game is over");
        }
        if !self.claimable(seat.other(), now) {
            return refuse(format!(
                "you may claim the win only after your opponent has been gone {} seconds",
                self.grace_ms / 1000
            ));
        }
        let clocks = self.readings_after(TurnEnd::Other, now);
        self.store(Event::Claim { seat: role(seat) }, clocks, now, done)
    }

    fn point(&self, text: &str) -> Result<Point, Refused> {
        parse_point(self.game.board().size(), text.trim())
            .map_err(|e| Refused(format!("cannot read the point {text:?}: {e}")))
    }

    fn name(&self, seat: Seat) -> &str {
        self.players[idx(seat)]
            .as_ref()
            .map_or("?", |p| p.name.as_str())
    }

    fn color_of(&self, seat: Seat) -> Option<Color> {
        match self.game.phase() {
            tengen_rules::Phase::Settled { black } => Some(if black == seat {
                Color::Black
            } else {
                Color::White
            }),
            _ => None,
        }
    }

    /// Replays a stored event, as after a restart.
    pub fn restore(&mut self, stored: &Stored, now: Instant) -> Result<(), String> {
        self.apply(stored, now)
    }

    // The one place where the table changes: live actions and restored events both come here.
    fn apply(&mut self, stored: &Stored, now: Instant) -> Result<(), String> {
        let seat_of = |r: Role| seat(r).ok_or_else(|| "a spectator cannot act".to_string());
        match &stored.event {
            Event::Join {
                seat: r,
                name,
                token_hash,
            } => {
                let s = seat_of(*r)?;
                if self.players[idx(s)].is_some() {
                    return Err("seat already taken".into());
                }
                self.players[idx(s)] = Some(Player {
                    name: name.clone(),
                    token_hash: token_hash.clone(),
                });
            }
            Event::Move { seat: r, x, y } => {
                let s = seat_of(*r)?;
                self.game
                    .play(Point::new(*x, *y))
                    .map_err(|e| e.to_string())?;
                self.actors.push(s);
                self.request = None;
            }
            Event::Choose { seat: r, choice } => {
                let s = seat_of(*r)?;
                // Stored only after the live check, so always one of the names.
                let c =
                    Choice::by_name(choice).ok_or_else(|| format!("unknown choice {choice:?}"))?;
                self.game.choose(c).map_err(|e| e.to_string())?;
                self.actors.push(s);
                self.request = None;
            }
            Event::Takeback { actions, .. } => {
                for _ in 0..*actions {
                    if self.actors.pop().is_none() {
                        return Err("nothing to take back".into());
                    }
                    self.game.undo();
                }
                self.request = None;
            }
            Event::Draw => {
                self.game.agree_draw().map_err(|e| e.to_string())?;
                self.request = None;
            }
            Event::Resign { seat: r } | Event::Timeout { seat: r } | Event::Claim { seat: r } => {
                let s = seat_of(*r)?;
                // The loser: the resigner, the one out of time, or the claimer's opponent.
                let loser = match &stored.event {
                    Event::Claim { .. } => s.other(),
                    _ => s,
                };
                let color = self.color_of(loser).unwrap_or(match loser {
                    Seat::First => Color::Black,
                    Seat::Second => Color::White,
                });
                match &stored.event {
                    Event::Resign { .. } => self.game.resign(color),
                    Event::Timeout { .. } => self.game.lose_on_time(color),
                    _ => self.game.abandon(color),
                }
                .map_err(|e| e.to_string())?;
                self.request = None;
            }
            Event::Rematch { id } => {
                self.rematch = Some(id.clone());
                self.request = None;
            }
            Event::Request { by, request } => {
                self.request = Some((*request, seat_of(*by)?));
            }
            Event::RequestClosed => self.request = None,
            Event::Pause { .. } => {}
            Event::Chat(line) => {
                if self.chat.len() == CHAT_HISTORY {
                    self.chat.pop_front();
                }
                self.chat.push_back(line.clone());
                self.chat_lines += 1;
            }
        }
        self.seq += 1;
        // Online the clock runs from the moment both seats are taken (see `crate::clock`).
        let start = if self.both_seated() {
            clock::Start::Now
        } else {
            clock::Start::NotYet
        };
        if let Some(clock) = &mut self.clock
            && !matches!(
                stored.event,
                Event::Chat(_)
                    | Event::Rematch { .. }
                    | Event::Request { .. }
                    | Event::RequestClosed
            )
        {
            // The clocks as stored; the seat to act (if any) starts thinking now.
            clock.set(stored.clocks, &self.game, start, now);
            // After a stop of the server, with the time it had left then.
            if let Event::Pause { left_ms } = stored.event {
                clock.resume_at(left_ms);
            }
        }
        Ok(())
    }

    /// Who won, as a seat, once over.
    pub fn winner_seat(&self) -> Option<Seat> {
        let winner = self.game.outcome()?.winner?;
        [Seat::First, Seat::Second].into_iter().find(|&s| {
            self.color_of(s).unwrap_or(if s == Seat::First {
                Color::Black
            } else {
                Color::White
            }) == winner
        })
    }

    /// Computes the marks of the position (forbidden points, threats) on a blocking thread,
    /// unless they are kept already: on the async runtime, [`Table::state`] comes after it.
    pub async fn ready_marks(&self) {
        self.marks.ready(&self.game, marks_of).await;
    }

    /// The whole game as everyone sees it at `now`.
    pub fn state(&self, now: Instant, connected: [bool; 2], spectators: u32) -> GameState {
        let size = self.game.board().size();
        let pending = if self.players.iter().any(Option::is_none) && !self.over() {
            PendingState {
                kind: "waiting".into(),
                seat: self.free_seat().map(role),
                color: None,
                options: Vec::new(),
            }
        } else {
            match self.game.pending() {
                Pending::Move { color, seat } => PendingState {
                    kind: "move".into(),
                    seat: Some(role(seat)),
                    color: Some(color.name().into()),
                    options: Vec::new(),
                },
                Pending::Choice {
                    seat,
                    may_place_two,
                } => PendingState {
                    kind: "choice".into(),
                    seat: Some(role(seat)),
                    color: None,
                    options: Choice::offered(may_place_two)
                        .iter()
                        .map(|c| c.name().to_string())
                        .collect(),
                },
                Pending::Over => PendingState {
                    kind: "over".into(),
                    seat: None,
                    color: None,
                    options: Vec::new(),
                },
            }
        };
        let seat_state = |s: Seat| {
            let i = idx(s);
            let p = self.players[i].as_ref();
            SeatState {
                name: p.map(|p| p.name.clone()),
                taken: p.is_some(),
                connected: connected[i],
                color: self.color_of(s).map(|c| c.name().to_string()),
                clock_ms: self.clock.as_ref().map(|c| c.remaining(s, now)),
                gone_ms: if p.is_some() {
                    self.gone_since[i].map(|t| ms_between(t, now))
                } else {
                    None
                },
                claimable: self.claimable(s, now),
                actions: Some(
                    u32::try_from(self.actors.iter().filter(|&&a| a == s).count())
                        .unwrap_or(u32::MAX),
                ),
            }
        };
        let (forbidden, threats) = self.marks.of(&self.game, marks_of);
        let outcome = self.game.outcome().map(|o| OutcomeState {
            winner: o.winner.map(|c| c.name().to_string()),
            winner_seat: self.winner_seat().map(role),
            reason: o.reason.key().to_string(),
            text: o.to_string(),
            lines: o
                .lines
                .iter()
                .map(|l| l.iter().map(|p| [p.x, p.y]).collect())
                .collect(),
        });
        GameState {
            id: self.id.clone(),
            seq: self.seq,
            rule: self.game.rule().name().to_string(),
            size: match (size.width(), size.height()) {
                (Some(w), Some(h)) => format!("{w}x{h}"),
                _ => "unbounded".into(),
            },
            width: size.width(),
            height: size.height(),
            opening: self.game.opening().to_string(),
            clock: self.settings.clock,
            moves: self
                .game
                .moves()
                .iter()
                .map(|&p| point_name(size, p))
                .collect(),
            points: self.game.moves().iter().map(|p| [p.x, p.y]).collect(),
            pending,
            seats: [seat_state(Seat::First), seat_state(Seat::Second)],
            running: self.clock.as_ref().and_then(Clock::running).map(role),
            request: self
                .request
                .map(|(kind, by)| RequestState { kind, by: role(by) }),
            outcome,
            forbidden,
            forbidden_policy: Some(
                if self.settings.forbidden_loses {
                    "lose"
                } else {
                    "refuse"
                }
                .into(),
            ),
            threats,
            spectators,
            rematch: self.rematch.clone(),
            grace_secs: self.grace_ms / 1000,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A stone, as an old client sends it (tied to no position).
    fn mv(at: &str) -> Action {
        Action::Move {
            at: at.into(),
            moves: None,
        }
    }

    fn choose(choice: &str) -> Action {
        Action::Choose {
            choice: choice.into(),
            moves: None,
        }
    }

    fn table(opening: &str, clock: ClockSpec) -> (Table, Instant) {
        let (t, now, _) = table_and_log(opening, clock);
        (t, now)
    }

    fn table_and_log(opening: &str, clock: ClockSpec) -> (Table, Instant, Vec<Stored>) {
        let settings = TableSettings {
            rule: "renju".into(),
            size: "15".into(),
            opening: opening.into(),
            clock,
            forbidden_loses: true,
            listed: true,
        };
        let mut t = Table::new("t".into(), settings, 120_000).expect("valid settings");
        let now = Instant::now();
        let (_, a) = t
            .join("Ann".into(), "a".into(), None, now)
            .expect("first seat");
        let (_, b) = t
            .join("Bea".into(), "b".into(), None, now)
            .expect("second seat");
        assert!(t.join("Cy".into(), "c".into(), None, now).is_err());
        (t, now, vec![a, b])
    }

    fn replayed(t: &Table, events: &[Stored]) -> Table {
        let mut r = Table::new(t.id.clone(), t.settings.clone(), 120_000).expect("settings");
        for e in events {
            r.restore(e, Instant::now()).expect("replays");
        }
        r
    }

    #[test]
    fn a_game_stores_a_capped_number_of_chat_lines_and_a_reload_keeps_the_count() {
        let (mut t, now, mut log) = table_and_log("free", ClockSpec::None);
        let line = |i: u64| ChatLine {
            name: "Cy".into(),
            role: Role::Spectator,
            text: format!("line {i}"),
            at_ms: i,
        };
        for i in 0..CHAT_LINES_PER_GAME {
            log.push(t.chat_line(line(i), now).expect("room for the line"));
        }
        let seq = t.seq();
        let refused = t.chat_line(line(CHAT_LINES_PER_GAME), now);
        assert!(
            refused.is_err_and(|r| r.0.contains("chat is full")),
            "the line past the cap is refused"
        );
        assert_eq!(t.seq(), seq, "a refused line stores nothing");
        assert_eq!(t.chat().count(), CHAT_HISTORY);
        assert_eq!(
            t.chat().last().map(|l| l.at_ms),
            Some(CHAT_LINES_PER_GAME - 1)
        );
        // Moves go on once the chat is full.
        assert!(t.act(Seat::First, mv("h8"), now).is_ok());
        // The count is part of the record: a reloaded game refuses the next line too.
        let mut reloaded = replayed(&t, &log);
        assert!(reloaded.chat_line(line(0), now).is_err());
    }

    #[test]
    fn swap2_takeback_undoes_a_decision_and_replay_agrees() {
        let (mut t, now, mut log) = table_and_log("swap2", ClockSpec::None);
        for at in ["h8", "h9", "i8"] {
            log.extend(t.act(Seat::First, mv(at), now).expect("opening").stored);
        }
        // The second player must decide; moving is refused.
        assert!(t.act(Seat::Second, mv("a1"), now).is_err());
        let d = t.act(Seat::Second, choose("black"), now).expect("choice");
        log.extend(d.stored);
        assert_eq!(t.game().black_seat(), Some(Seat::Second));
        // White (the first player) moves; then the second player takes back its decision,
        // which rolls back the decision and the move after it.
        log.extend(t.act(Seat::First, mv("g7"), now).expect("move").stored);
        log.extend(
            t.act(Seat::Second, Action::Request(RequestKind::Takeback), now)
                .expect("asks")
                .stored,
        );
        let d = t
            .act(Seat::First, Action::Accept(None), now)
            .expect("accepts");
        assert_eq!(
            d.stored[0].event,
            Event::Takeback {
                by: Role::Second,
                actions: 2
            }
        );
        log.extend(d.stored);
        assert_eq!(t.game().moves().len(), 3);
        assert!(matches!(
            t.game().pending(),
            Pending::Choice {
                seat: Seat::Second,
                ..
            }
        ));
        let r = replayed(&t, &log);
        assert_eq!(r.game(), t.game());
        assert_eq!(r.seq(), t.seq());
    }

    /// A swap decision, like a move, is taken only on the position its player saw.
    #[test]
    fn a_decision_on_another_position_is_refused() {
        let (mut t, now) = table("swap", ClockSpec::None);
        for at in ["h8", "h9", "i8"] {
            t.act(Seat::First, mv(at), now).expect("opening");
        }
        let seq = t.seq();
        let stale = Action::Choose {
            choice: "white".into(),
            moves: Some(2),
        };
        let refused = t.act(Seat::Second, stale, now);
        assert!(
            refused.is_err_and(|r| r.0.contains("position changed")),
            "a decision on two stones, with three on the board"
        );
        assert_eq!(t.seq(), seq, "a refused decision stores nothing");
        let seen = Action::Choose {
            choice: "white".into(),
            moves: Some(3),
        };
        t.act(Seat::Second, seen, now).expect("taken as seen");
        assert_eq!(t.game().black_seat(), Some(Seat::First));
    }

    #[test]
    fn clocks_charge_the_mover_and_a_flag_ends_the_game() {
        let clock = ClockSpec::Total {
            ms: 10_000,
            increment_ms: 1_000,
        };
        let (mut t, t0) = table("free", clock);
        // Both seats are taken at t0, so the first player's clock runs from then: 3 s off and
        // 1 s back for the first stone; the second untouched.
        assert_eq!(t.state(t0, [true, true], 0).running, Some(Role::First));
        assert_eq!(t.deadline(), Some(t0 + Duration::from_millis(10_000)));
        let d = t
            .act(Seat::First, mv("h8"), t0 + Duration::from_millis(3_000))
            .expect("move");
        assert_eq!(d.stored[0].clocks, [8_000, 10_000]);
        let t1 = t0 + Duration::from_millis(3_000);
        assert_eq!(t.deadline(), Some(t1 + Duration::from_millis(10_000)));
        assert!(t.check_time(t1 + Duration::from_millis(9_999)).is_none());
        // Past the flag, an action is too late: the timeout is stored instead.
        let d = t
            .act(Seat::Second, mv("h9"), t1 + Duration::from_millis(10_001))
            .expect("the timeout stands");
        assert_eq!(d.stored[0].event, Event::Timeout { seat: Role::Second });
        assert_eq!(t.game().moves().len(), 1);
        let out = t.game().outcome().expect("over");
        assert_eq!(out.reason, tengen_rules::EndReason::Timeout);
        assert_eq!(t.winner_seat(), Some(Seat::First));
    }

    #[test]
    fn a_player_who_never_plays_the_first_stone_loses_on_time() {
        let clock = ClockSpec::PerMove { ms: 5_000 };
        let settings = TableSettings {
            rule: "freestyle".into(),
            size: "15".into(),
            opening: "free".into(),
            clock,
            forbidden_loses: false,
            listed: true,
        };
        let mut t = Table::new("t".into(), settings, 120_000).expect("valid settings");
        let t0 = Instant::now();
        let (_, a) = t.join("Ann".into(), "a".into(), None, t0).expect("seat");
        // Waiting for an opponent costs nothing.
        assert_eq!(t.deadline(), None);
        assert!(t.check_time(t0 + Duration::from_secs(3_600)).is_none());
        let t1 = t0 + Duration::from_secs(3_600);
        let (_, b) = t.join("Bea".into(), "b".into(), None, t1).expect("seat");
        assert_eq!(t.deadline(), Some(t1 + Duration::from_millis(5_000)));
        // A restart replays the log: the first player's turn starts again, with its clock.
        let r = replayed(&t, &[a.clone(), b.clone()]);
        assert!(r.deadline().is_some());
        let flag = t
            .check_time(t1 + Duration::from_millis(5_001))
            .expect("the flag falls");
        assert_eq!(flag.event, Event::Timeout { seat: Role::First });
        let out = t.game().outcome().expect("over");
        assert_eq!(out.reason, tengen_rules::EndReason::Timeout);
        assert_eq!(t.winner_seat(), Some(Seat::Second));
    }

    /// Black builds a double three at h8 (g8 i8 / h7 h9 open threes around it).
    const DOUBLE_THREE_AT_H8: [(Seat, &str); 7] = [
        (Seat::First, "g8"),
        (Seat::Second, "a1"),
        (Seat::First, "i8"),
        (Seat::Second, "a3"),
        (Seat::First, "h7"),
        (Seat::Second, "a5"),
        (Seat::First, "h9"),
    ];

    /// The forbidden points shown are kept from one state to the next, and follow the position
    /// when it changes, a takeback included.
    #[test]
    fn the_forbidden_points_shown_follow_the_position() {
        let (mut t, now) = table("free", ClockSpec::None);
        let forbidden = |t: &Table| -> Vec<(i32, i32)> {
            t.state(now, [true, true], 0)
                .forbidden
                .iter()
                .map(|f| (f.x, f.y))
                .collect()
        };
        for (seat, at) in &DOUBLE_THREE_AT_H8[..6] {
            t.act(*seat, mv(at), now).expect("legal");
        }
        assert!(forbidden(&t).is_empty());
        t.act(Seat::First, mv("h9"), now).expect("legal");
        // White to move: nothing is forbidden to white.
        assert!(forbidden(&t).is_empty());
        t.act(Seat::Second, mv("a7"), now).expect("legal");
        // h8 makes two open threes: forbidden to black, shown twice alike.
        assert_eq!(forbidden(&t), vec![(7, 7)]);
        assert_eq!(forbidden(&t), vec![(7, 7)]);
        // White takes back a7 and blocks one three at h10 instead: h8 is no longer forbidden.
        t.act(Seat::Second, Action::Request(RequestKind::Takeback), now)
            .expect("asks");
        t.act(Seat::First, Action::Accept(None), now)
            .expect("accepts");
        assert!(forbidden(&t).is_empty());
        t.act(Seat::Second, mv("h10"), now).expect("legal");
        assert!(forbidden(&t).is_empty());
    }

    #[test]
    fn a_forbidden_move_loses_under_renju_and_requests_lapse() {
        let (mut t, now) = table("free", ClockSpec::None);
        for (seat, at) in DOUBLE_THREE_AT_H8 {
            t.act(seat, mv(at), now).expect("legal");
        }
        t.act(Seat::Second, Action::Request(RequestKind::Draw), now)
            .expect("offer");
        let d = t.act(Seat::Second, mv("a7"), now).expect("move");
        assert!(d.notice.is_some_and(|n| n.contains("lapsed")));
        assert!(t.act(Seat::First, Action::Accept(None), now).is_err());
        let d = t.act(Seat::First, mv("h8"), now).expect("stands");
        assert_eq!(d.stored.len(), 1);
        let out = t.game().outcome().expect("black lost");
        assert_eq!(out.winner, Some(Color::White));
        assert_eq!(t.winner_seat(), Some(Seat::Second));
    }

    #[test]
    fn open_requests_and_pauses_are_stored_and_replay() {
        let clock = ClockSpec::PerMove { ms: 10_000 };
        let (mut t, _, mut log) = table_and_log("free", clock);
        let t0 = Instant::now();
        for (seat, at) in [(Seat::First, "h8"), (Seat::Second, "h9")] {
            log.extend(t.act(seat, mv(at), t0).expect("legal").stored);
        }
        // A draw offer is an event of its own, which leaves the clocks alone.
        let d = t
            .act(Seat::Second, Action::Request(RequestKind::Draw), t0)
            .expect("offer");
        assert_eq!(
            d.stored[0].event,
            Event::Request {
                by: Role::Second,
                request: RequestKind::Draw
            }
        );
        log.extend(d.stored);
        // The server stops 3 s into black's turn.
        let stop = t0 + Duration::from_millis(3_000);
        let paused = t.pause(stop).expect("a clock runs");
        assert_eq!(paused.event, Event::Pause { left_ms: 7_000 });
        log.push(paused);
        // Replayed (a minute later, say): the turn goes on with the 7 s it had left.
        let r = replayed(&t, &log);
        let back = Instant::now();
        let state = r.state(back, [true, true], 0);
        let open = state.request.expect("the offer is open again");
        assert_eq!((open.kind, open.by), (RequestKind::Draw, Role::Second));
        let left = state.seats[0].clock_ms.expect("a clock");
        assert!((6_000..=7_000).contains(&left), "{left}");
        // Declined, it is gone, after a replay too.
        let d = t
            .act(Seat::First, Action::Decline(None), stop)
            .expect("declines");
        assert_eq!(d.stored[0].event, Event::RequestClosed);
        log.extend(d.stored);
        let r = replayed(&t, &log);
        assert!(r.state(back, [true, true], 0).request.is_none());
        assert_eq!(r.seq(), t.seq());
        // No clock runs: nothing to pause.
        let (mut quiet, _) = table("free", ClockSpec::None);
        assert!(quiet.pause(Instant::now()).is_none());
    }
}
