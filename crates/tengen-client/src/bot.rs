//! `tengen bot`: plays one seat of an online game (`docs/api.md`, "Online play") with Tengen's
//! engine at a level, or with any Gomocup brain, until the game is over, and then rematches if
//! asked to.
//!
//! The bot joins the free seat (or acts for the seat whose token it is given), holds one
//! WebSocket to the game and acts whenever the state says it is its turn: a stone, or a colour
//! in a swap opening. It declines takebacks, answers draw offers as the web app's computer does
//! (`tengen_engine::decide`: it takes the draw unless it stands clearly better; a Gomocup brain,
//! which the protocol does not ask, declines), resigns as the app's computer does (the master a
//! near proven loss, no other level), and claims the win over an opponent gone past the grace
//! period. Its searches and the brain's turns
//! run on blocking threads, never on the async runtime, and a search whose position changed
//! meanwhile is stopped and its answer dropped.
//!
//! Its opening stones and swap decisions are the web app's computer's (`tengen_engine::decide`):
//! - the first three stones of a swap, swap2 or beginner opening are the centre, a stone beside
//!   it and one near both (the shapes of the 26 renju openings; they also satisfy the beginner
//!   opening's restrictions), with a Gomocup brain as with the engine;
//! - a swap decision: with the engine, the colour whose side a short search favours (black on a
//!   level position); with a Gomocup brain (the protocol has no such question), black. The bot
//!   never places two more stones under swap2, which would take placing them to keep the
//!   balance, a thing a Gomocup brain is not asked.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tengen_engine::{Engine, Level, TimeControl, decide};
use tengen_protocol::client::{Client, ClientError};
use tengen_protocol::command::{Field, Info, Stone};
use tengen_rules::{Board, BoardSize, Choice, Color, Game, OpeningRule, Point, Rule, point_name};
use tengen_wire::ClockSpec;
use tengen_wire::{ClientMsg, GameState, JoinGame, OutcomeState, RequestKind, Role, ServerMsg};
use tokio::task::JoinHandle;

use crate::online::{OnlineClient, OnlineError, Socket};

/// Hash table of the bot's engine, in megabytes.
const HASH_MB: usize = 32;
/// How long to wait, after a game, for the opponent to ask for or accept a rematch.
const REMATCH_WAIT: Duration = Duration::from_secs(30);
/// How long a brain may take to answer `START`.
const BRAIN_START: Duration = Duration::from_secs(10);
/// A brain's turn when the game has no clock (told with `INFO timeout_turn`).
const BRAIN_DEFAULT_TURN_MS: u64 = 5_000;
/// Extra time a brain gets to answer before it counts as stalled.
const BRAIN_GRACE: Duration = Duration::from_secs(2);
/// Past the opponent's grace period, how long the bot waits before claiming the win (the
/// server's clock and the bot's may differ a little).
const CLAIM_SLACK: Duration = Duration::from_millis(500);
/// After a claim refused as too early, when to claim again.
const CLAIM_RETRY: Duration = Duration::from_secs(5);

/// Who plays for the bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Player {
    /// Tengen's engine at a level.
    Engine(Level),
    /// A Gomocup brain: the command line, split like a shell would (`"pbrain-x --fast"`).
    Brain(String),
}

/// What `tengen bot` is asked to do.
#[derive(Clone, Debug)]
pub struct BotConfig {
    /// The server: `http://host:port`.
    pub server: String,
    /// The game id.
    pub game: String,
    /// A seat token held already; without one the bot joins the free seat.
    pub token: Option<String>,
    /// The name to join under (default: after the player).
    pub name: Option<String>,
    /// Who plays.
    pub player: Player,
    /// How many rematches to ask for or accept after the first game.
    pub rematch: u32,
}

/// One game played to its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// The game.
    pub id: String,
    /// The bot's seat.
    pub role: Role,
    /// The bot's colour, once settled.
    pub color: Option<String>,
    /// How it ended.
    pub outcome: OutcomeState,
}

impl GameResult {
    /// `"won"`, `"lost"` or `"drew"`, for the bot.
    pub fn verdict(&self) -> &'static str {
        match self.outcome.winner_seat {
            None => "drew",
            Some(r) if r == self.role => "won",
            Some(_) => "lost",
        }
    }
}

/// What the bot did, as it happens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BotEvent {
    /// It took the free seat of a game.
    Joined {
        /// The game.
        id: String,
        /// The seat.
        role: Role,
    },
    /// It is connected to a game and sits in `role`.
    Connected {
        /// The game.
        id: String,
        /// The seat.
        role: Role,
    },
    /// It played a stone.
    Moved {
        /// The game.
        id: String,
        /// The move's number, from 1.
        number: usize,
        /// The point, in notation.
        at: String,
    },
    /// It took a swap decision.
    Chose {
        /// The game.
        id: String,
        /// `black` or `white`.
        choice: &'static str,
    },
    /// It declined the opponent's request.
    Declined {
        /// What was asked.
        kind: RequestKind,
    },
    /// It accepted the opponent's request (a draw).
    Accepted {
        /// What was asked.
        kind: RequestKind,
    },
    /// It resigned: its search proved the game lost (`decide::resigns`).
    Resigned {
        /// The game.
        id: String,
    },
    /// A game ended.
    Finished(GameResult),
    /// It follows the rematch to a new game.
    Rematch {
        /// The new game.
        id: String,
    },
    /// Anything else worth telling: the server's notices, refused requests, no rematch.
    Note(String),
}

impl BotEvent {
    /// One line for people.
    pub fn to_text(&self) -> String {
        match self {
            BotEvent::Joined { id, role } => format!("joined game {id} as {}", role.name()),
            BotEvent::Connected { id, role } => {
                format!("connected to game {id} as the {} player", role.name())
            }
            BotEvent::Moved { number, at, .. } => format!("move {number}: {at}"),
            BotEvent::Chose { choice, .. } => format!("takes {choice}"),
            BotEvent::Declined { kind } => format!("declines the {} request", kind.name()),
            BotEvent::Accepted { kind } => format!("accepts the {} request", kind.name()),
            BotEvent::Resigned { .. } => "resigns: its search proves the game lost".into(),
            BotEvent::Finished(r) => format!(
                "game {} over: {} (the bot, {}{}, {})",
                r.id,
                r.outcome.text,
                r.role.name(),
                r.color
                    .as_deref()
                    .map(|c| format!(", {c}"))
                    .unwrap_or_default(),
                r.verdict()
            ),
            BotEvent::Rematch { id } => format!("rematch: game {id}"),
            BotEvent::Note(text) => text.clone(),
        }
    }
}

/// Why the bot stopped before its games were over.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// Talking to the server failed.
    #[error(transparent)]
    Online(#[from] OnlineError),
    /// Both seats of the game are taken.
    #[error("game {0}: both seats are taken (give --token to act for a seat you hold)")]
    SeatsTaken(String),
    /// The server did not accept the token.
    #[error("game {id}: the server refused the token: {message}")]
    Refused {
        /// The game.
        id: String,
        /// The server's reason.
        message: String,
    },
    /// The token was accepted but holds no seat.
    #[error("game {0}: the token holds no seat (the server seated the bot as a spectator)")]
    NotSeated(String),
    /// The connection closed while the game was on.
    #[error("game {0}: the server closed the connection during the game")]
    Closed(String),
    /// The server refused the bot's move or decision.
    #[error("game {id}: the server refused the bot's {what}: {message}")]
    ActionRefused {
        /// The game.
        id: String,
        /// The move or decision.
        what: String,
        /// The server's reason.
        message: String,
    },
    /// The server said something the API does not allow here.
    #[error("game {id}: {message}")]
    Protocol {
        /// The game.
        id: String,
        /// What was wrong.
        message: String,
    },
    /// The brain failed. (Not a `source`: the brain's errors already tell their cause.)
    #[error("the brain: {0}")]
    Brain(ClientError),
    /// The brain answered an impossible move.
    #[error("the brain played {0}, which is not an empty point of the board")]
    BrainMove(String),
    /// `--brain` could not be read.
    #[error("--brain: {0}")]
    BrainCommand(String),
    /// Neither the engine nor the brain came up with a move.
    #[error("game {0}: the engine found no move")]
    NoMove(String),
    /// The runtime could not start, or a thinking thread died.
    #[error("internal: {0}")]
    Internal(String),
}

impl From<ClientError> for BotError {
    fn from(e: ClientError) -> Self {
        BotError::Brain(e)
    }
}

/// Plays as `config` says, telling `on_event` what happens; the games played to their end.
/// Runs its own (single-threaded) async runtime; searches go to blocking threads.
pub fn run(
    config: &BotConfig,
    on_event: &mut dyn FnMut(&BotEvent),
) -> Result<Vec<GameResult>, BotError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| BotError::Internal(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(run_async(config, on_event))
}

/// [`run`] on the caller's runtime.
pub async fn run_async(
    config: &BotConfig,
    on_event: &mut dyn FnMut(&BotEvent),
) -> Result<Vec<GameResult>, BotError> {
    let server = OnlineClient::new(&config.server)?;
    // The game first: a brain must be told the board before it plays, and a brain that cannot
    // play this game should fail before it takes a seat.
    let first = server.state(&config.game).await?;
    let pos = SeenPosition::of(&first).map_err(|message| BotError::Protocol {
        id: first.id.clone(),
        message,
    })?;
    let mut mover = Some(match &config.player {
        Player::Engine(level) => Mover::Engine {
            engine: Box::new(Engine::new(HASH_MB)),
            level: *level,
            seed: clock_seed(),
        },
        Player::Brain(command) => {
            let words = tengen_match::shell_split(command).map_err(BotError::BrainCommand)?;
            let (program, args) = words
                .split_first()
                .ok_or_else(|| BotError::BrainCommand("no command given".into()))?;
            let mut client = Client::spawn(program, args)?;
            let (size, rule, clock) = (pos.size, pos.rule, first.clock);
            let client = tokio::task::spawn_blocking(move || {
                brain_start(&mut client, size, rule, clock).map(|()| client)
            })
            .await
            .map_err(|e| BotError::Internal(e.to_string()))??;
            Mover::Brain {
                client: Box::new(client),
            }
        }
    });
    let token = match &config.token {
        Some(t) => t.clone(),
        None => {
            let name = config
                .name
                .clone()
                .unwrap_or_else(|| default_name(&config.player));
            let seated = server
                .join(&config.game, &JoinGame { name: Some(name) })
                .await
                .map_err(|e| match e.status() {
                    Some(409) => BotError::SeatsTaken(config.game.clone()),
                    _ => BotError::Online(e),
                })?;
            on_event(&BotEvent::Joined {
                id: seated.id.clone(),
                role: seated.role,
            });
            seated.token
        }
    };
    let mut id = config.game.clone();
    let mut results = Vec::new();
    let mut rematches = config.rematch;
    loop {
        let (result, next) =
            play_one(&server, &id, &token, &mut mover, rematches > 0, on_event).await?;
        results.push(result);
        match next {
            Some(next) if rematches > 0 => {
                rematches -= 1;
                on_event(&BotEvent::Rematch { id: next.clone() });
                id = next;
            }
            _ => break,
        }
    }
    if let Some(Mover::Brain { mut client }) = mover {
        // The brain is done: let it exit (killed if it does not).
        tokio::task::spawn_blocking(move || client.end(Duration::from_secs(1)).ok())
            .await
            .ok();
    }
    Ok(results)
}

fn default_name(player: &Player) -> String {
    let name = match player {
        Player::Engine(level) => format!("Tengen ({level})"),
        Player::Brain(command) => {
            let program = command.split_whitespace().next().unwrap_or("brain");
            let file = std::path::Path::new(program)
                .file_name()
                .map_or(program.to_string(), |f| f.to_string_lossy().into_owned());
            format!("{file} (bot)")
        }
    };
    // The server takes names of at most 40 characters.
    name.chars().take(40).collect()
}

fn clock_seed() -> u64 {
    // Any varying value will do: the seed only varies the lower levels' human-like choices.
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Plays game `id` to its end; the result and, when a rematch was agreed, the new game's id.
async fn play_one(
    server: &OnlineClient,
    id: &str,
    token: &str,
    mover: &mut Option<Mover>,
    want_rematch: bool,
    on_event: &mut dyn FnMut(&BotEvent),
) -> Result<(GameResult, Option<String>), BotError> {
    let mut ws = server.connect(id).await?;
    ws.send(&ClientMsg::Hello {
        token: Some(token.to_string()),
        name: None,
    })
    .await?;
    let role = loop {
        match ws.recv().await? {
            Some(ServerMsg::Welcome { role, .. }) => break role,
            Some(ServerMsg::Error { message }) => {
                ws.close().await;
                return Err(BotError::Refused {
                    id: id.to_string(),
                    message,
                });
            }
            // Nothing else is due before the welcome; tolerate it.
            Some(_) => {}
            None => return Err(BotError::Closed(id.to_string())),
        }
    };
    if role == Role::Spectator {
        ws.close().await;
        return Err(BotError::NotSeated(id.to_string()));
    }
    on_event(&BotEvent::Connected {
        id: id.to_string(),
        role,
    });
    let mut seat = BotSeat {
        id: id.to_string(),
        role,
        want_rematch,
        state: None,
        thinking: None,
        acted: None,
        last_sent: None,
        declined: None,
        result: None,
        rematch: RematchTalk::default(),
        claim: ClaimWatch::default(),
    };
    let out = seat.run(&mut ws, mover, on_event).await;
    if let Some(t) = seat.thinking.take() {
        // Stop the search; the mover comes back when it does.
        t.stop.store(true, Ordering::Relaxed);
        if let Ok((m, _)) = t.handle.await {
            *mover = Some(m);
        }
    }
    if let (Err(BotError::Brain(_) | BotError::BrainMove(_)), Some(s)) = (&out, &seat.state) {
        // A player that cannot go on resigns rather than let the opponent wait for the clock.
        if s.outcome.is_none() {
            ws.send(&ClientMsg::Resign).await.ok();
        }
    }
    ws.close().await;
    out
}

/// What the bot acts on: a stone, a decision or the answer to a draw offer, at a number of
/// stones on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TurnKind {
    Move,
    Choice,
    DrawOffer,
}

/// The last frame the bot sent that the server may refuse.
#[derive(Clone, Debug)]
enum Sent {
    Action(String),
    Claim,
    Other,
}

#[derive(Debug, Default)]
struct RematchTalk {
    asked: bool,
    accepted: bool,
    // Whether a state showed the bot's own request (so a later state without it means it was
    // declined or lapsed).
    saw_own: bool,
    deadline: Option<Instant>,
}

#[derive(Debug)]
struct Thinking {
    handle: JoinHandle<(Mover, Result<BotDecision, BotError>)>,
    stop: Arc<AtomicBool>,
    key: (usize, TurnKind),
}

/// One connection to one game, as a player.
#[derive(Debug)]
struct BotSeat {
    id: String,
    role: Role,
    want_rematch: bool,
    state: Option<GameState>,
    thinking: Option<Thinking>,
    acted: Option<(usize, TurnKind)>,
    last_sent: Option<Sent>,
    declined: Option<(RequestKind, Role)>,
    result: Option<GameResult>,
    rematch: RematchTalk,
    claim: ClaimWatch,
}

/// Watches a gone opponent, to claim the win once the grace period is over: a bot never waits
/// for ever for someone who left.
#[derive(Debug, Default)]
struct ClaimWatch {
    at: Option<Instant>,
    sent: bool,
}

impl ClaimWatch {
    /// Arms the claim while the opponent of `role` is gone, for when the grace period ends.
    fn watch(&mut self, role: Role, state: &GameState) {
        let other = &state.seats[seat_index(role) ^ 1];
        match other.gone_ms {
            Some(gone) if other.taken && !other.connected => {
                if !self.sent {
                    let left = if other.claimable {
                        0
                    } else {
                        (state.grace_secs * 1000).saturating_sub(gone)
                    };
                    self.at = Some(Instant::now() + Duration::from_millis(left) + CLAIM_SLACK);
                }
            }
            _ => *self = ClaimWatch::default(),
        }
    }
}

/// What woke the loop (a frame is boxed: states are large).
enum Wake {
    Frame(Result<Option<Box<ServerMsg>>, OnlineError>),
    Thought(Result<(Mover, Result<BotDecision, BotError>), tokio::task::JoinError>),
    RematchTimeout,
    ClaimDue,
}

/// The search's end, or never when there is none.
async fn thought(
    thinking: Option<&mut Thinking>,
) -> Result<(Mover, Result<BotDecision, BotError>), tokio::task::JoinError> {
    match thinking {
        Some(t) => (&mut t.handle).await,
        None => std::future::pending().await,
    }
}

/// `at`, or never.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// What a state asks of the loop.
enum Next {
    Go,
    Done(Option<String>),
}

impl BotSeat {
    async fn run(
        &mut self,
        ws: &mut Socket,
        mover: &mut Option<Mover>,
        on_event: &mut dyn FnMut(&BotEvent),
    ) -> Result<(GameResult, Option<String>), BotError> {
        loop {
            let (rematch_at, claim_at) = (self.rematch.deadline, self.claim.at);
            let wake = tokio::select! {
                f = ws.recv() => Wake::Frame(f.map(|m| m.map(Box::new))),
                j = thought(self.thinking.as_mut()) => Wake::Thought(j),
                () = sleep_until(rematch_at) => Wake::RematchTimeout,
                () = sleep_until(claim_at) => Wake::ClaimDue,
            };
            let next = match wake {
                // After the game, a broken connection only ends the rematch talk.
                Wake::Frame(Err(e)) if self.result.is_some() => {
                    on_event(&BotEvent::Note(format!(
                        "connection lost: {}",
                        e.full_text()
                    )));
                    Next::Done(None)
                }
                Wake::Frame(frame) => match frame? {
                    Some(msg) => self.on_message(*msg, ws, mover, on_event).await?,
                    None => match &self.result {
                        // The game is over: a closed connection only ends the rematch talk.
                        Some(_) => Next::Done(None),
                        None => return Err(BotError::Closed(self.id.clone())),
                    },
                },
                Wake::Thought(joined) => {
                    let (m, decision) =
                        joined.map_err(|e| BotError::Internal(format!("thinking failed: {e}")))?;
                    *mover = Some(m);
                    let thinking = self.thinking.take();
                    let decision = decision?;
                    if let Some(t) = thinking {
                        if !t.stop.load(Ordering::Relaxed) && self.due_key() == Some(t.key) {
                            self.send_decision(t.key, decision, ws, on_event).await?;
                        }
                    }
                    // The position may have moved on while the search ran.
                    self.maybe_act(mover)?;
                    Next::Go
                }
                Wake::ClaimDue => {
                    self.claim.at = None;
                    if self.result.is_none() && !self.claim.sent {
                        self.claim.sent = true;
                        self.last_sent = Some(Sent::Claim);
                        ws.send(&ClientMsg::Claim).await?;
                        on_event(&BotEvent::Note(
                            "the opponent is gone past the grace period: claims the win".into(),
                        ));
                    }
                    Next::Go
                }
                Wake::RematchTimeout => {
                    on_event(&BotEvent::Note(format!(
                        "no rematch within {} s",
                        REMATCH_WAIT.as_secs()
                    )));
                    Next::Done(None)
                }
            };
            if let Next::Done(rematch) = next {
                let result = self.result.clone().ok_or_else(|| BotError::Protocol {
                    id: self.id.clone(),
                    message: "the game ended without an outcome".into(),
                })?;
                return Ok((result, rematch));
            }
        }
    }

    /// The turn the bot has now: a stone or a decision at this many stones.
    fn current_key(&self) -> Option<(usize, TurnKind)> {
        let s = self.state.as_ref()?;
        if s.outcome.is_some() || s.pending.seat != Some(self.role) {
            return None;
        }
        let act = match s.pending.kind.as_str() {
            "move" => TurnKind::Move,
            "choice" => TurnKind::Choice,
            _ => return None,
        };
        Some((s.points.len(), act))
    }

    /// The opponent's draw offer the bot is to answer. On its own turn the bot answers with its
    /// move, which lapses the offer (the server's rule for any move).
    fn draw_key(&self) -> Option<(usize, TurnKind)> {
        let s = self.state.as_ref()?;
        let r = s.request.as_ref()?;
        let open = s.outcome.is_none() && r.kind == RequestKind::Draw && r.by != self.role;
        (open && self.current_key().is_none()).then_some((s.points.len(), TurnKind::DrawOffer))
    }

    /// What the bot is to think about now: its turn, else an offer to answer.
    fn due_key(&self) -> Option<(usize, TurnKind)> {
        self.current_key().or_else(|| self.draw_key())
    }

    async fn on_message(
        &mut self,
        msg: ServerMsg,
        ws: &mut Socket,
        mover: &mut Option<Mover>,
        on_event: &mut dyn FnMut(&BotEvent),
    ) -> Result<Next, BotError> {
        match msg {
            ServerMsg::State(state) => self.on_state(state, ws, mover, on_event).await,
            ServerMsg::Notice { text } => {
                on_event(&BotEvent::Note(format!("server: {text}")));
                Ok(Next::Go)
            }
            ServerMsg::Error { message } => match self.last_sent.take() {
                Some(Sent::Action(what)) => Err(BotError::ActionRefused {
                    id: self.id.clone(),
                    what,
                    message,
                }),
                Some(Sent::Claim) => {
                    // Too early after all (clocks differ): try again a little later.
                    self.claim.sent = false;
                    self.claim.at = Some(Instant::now() + CLAIM_RETRY);
                    on_event(&BotEvent::Note(format!(
                        "server refused the claim: {message}"
                    )));
                    Ok(Next::Go)
                }
                _ => {
                    on_event(&BotEvent::Note(format!("server refused: {message}")));
                    Ok(Next::Go)
                }
            },
            ServerMsg::Welcome { .. } | ServerMsg::Chat(_) => Ok(Next::Go),
        }
    }

    async fn on_state(
        &mut self,
        state: GameState,
        ws: &mut Socket,
        mover: &mut Option<Mover>,
        on_event: &mut dyn FnMut(&BotEvent),
    ) -> Result<Next, BotError> {
        if state.id != self.id {
            return Err(BotError::Protocol {
                id: self.id.clone(),
                message: format!("a state of another game ({}) on its connection", state.id),
            });
        }
        let before = self.current_key();
        self.state = Some(state);
        let now = self.current_key();
        let due = self.due_key();
        if before != now {
            // The action in flight, if any, was taken: the turn moved on.
            if matches!(self.last_sent, Some(Sent::Action(_))) {
                self.last_sent = None;
            }
        }
        if let Some(t) = &self.thinking {
            if due != Some(t.key) {
                t.stop.store(true, Ordering::Relaxed);
            }
        }
        let Some(state) = &self.state else {
            return Ok(Next::Go);
        };
        if let Some(outcome) = &state.outcome {
            if self.result.is_none() {
                let result = GameResult {
                    id: self.id.clone(),
                    role: self.role,
                    color: state.seats[seat_index(self.role)].color.clone(),
                    outcome: outcome.clone(),
                };
                on_event(&BotEvent::Finished(result.clone()));
                self.result = Some(result);
            }
            return self.talk_rematch(ws, on_event).await;
        }
        self.claim.watch(self.role, state);
        // Takebacks are declined, each request once; draw offers are thought about
        // (`maybe_act`).
        match state.request.as_ref().map(|r| (r.kind, r.by)) {
            Some((kind @ RequestKind::Takeback, by)) if by != self.role => {
                if self.declined != Some((kind, by)) {
                    self.declined = Some((kind, by));
                    on_event(&BotEvent::Declined { kind });
                    self.last_sent = Some(Sent::Other);
                    ws.send(&ClientMsg::Decline { kind: Some(kind) }).await?;
                }
            }
            Some(_) => {}
            None => {
                self.declined = None;
                // An offer answered is gone: a new one at the same point is answered anew.
                if matches!(self.acted, Some((_, TurnKind::DrawOffer))) {
                    self.acted = None;
                }
            }
        }
        self.maybe_act(mover)?;
        Ok(Next::Go)
    }

    /// After the game: asks for a rematch, or accepts the opponent's, and follows it.
    async fn talk_rematch(
        &mut self,
        ws: &mut Socket,
        on_event: &mut dyn FnMut(&BotEvent),
    ) -> Result<Next, BotError> {
        let Some(state) = &self.state else {
            return Ok(Next::Go);
        };
        if !self.want_rematch {
            return Ok(Next::Done(None));
        }
        if let Some(next) = &state.rematch {
            return Ok(Next::Done(Some(next.clone())));
        }
        let talk = &mut self.rematch;
        if talk.deadline.is_none() {
            talk.deadline = Some(Instant::now() + REMATCH_WAIT);
        }
        match &state.request {
            Some(r) if r.kind == RequestKind::Rematch && r.by != self.role && !talk.accepted => {
                talk.accepted = true;
                self.last_sent = Some(Sent::Other);
                ws.send(&ClientMsg::Accept {
                    kind: Some(RequestKind::Rematch),
                })
                .await?;
            }
            Some(r) if r.kind == RequestKind::Rematch && r.by != self.role => {}
            Some(r) if r.kind == RequestKind::Rematch => talk.saw_own = true,
            Some(_) => {}
            None if !talk.asked => {
                talk.asked = true;
                self.last_sent = Some(Sent::Other);
                ws.send(&ClientMsg::Request {
                    kind: RequestKind::Rematch,
                })
                .await?;
            }
            None if talk.saw_own => {
                on_event(&BotEvent::Note("the opponent declined the rematch".into()));
                return Ok(Next::Done(None));
            }
            None => {}
        }
        Ok(Next::Go)
    }

    /// Starts thinking when it is the bot's turn and it has not acted on this turn yet.
    fn maybe_act(&mut self, mover: &mut Option<Mover>) -> Result<(), BotError> {
        if self.thinking.is_some() {
            return Ok(());
        }
        let Some(key) = self.due_key() else {
            return Ok(());
        };
        if self.acted == Some(key) {
            return Ok(());
        }
        let Some(state) = &self.state else {
            return Ok(());
        };
        let Some(mut m) = mover.take() else {
            return Err(BotError::Internal("no player to think".into()));
        };
        let pos = SeenPosition::of(state).map_err(|message| BotError::Protocol {
            id: self.id.clone(),
            message,
        })?;
        // Before a swap decision settles the colours, the first player's are black's.
        let own = state.seats[seat_index(self.role)]
            .color
            .as_deref()
            .and_then(|c| c.parse().ok())
            .unwrap_or(if self.role == Role::First {
                Color::Black
            } else {
                Color::White
            });
        let job = Job {
            pos,
            act: key.1,
            options: state.pending.options.clone(),
            tc: time_control(state, self.role),
            own,
            id: self.id.clone(),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = tokio::task::spawn_blocking(move || {
            let d = decide(&mut m, &job, &flag);
            (m, d)
        });
        self.thinking = Some(Thinking { handle, stop, key });
        Ok(())
    }

    async fn send_decision(
        &mut self,
        key: (usize, TurnKind),
        decision: BotDecision,
        ws: &mut Socket,
        on_event: &mut dyn FnMut(&BotEvent),
    ) -> Result<(), BotError> {
        let size = self
            .state
            .as_ref()
            .and_then(|s| s.size.parse::<BoardSize>().ok())
            .unwrap_or_default();
        self.acted = Some(key);
        // The stones the decision was made on: the server refuses a stone or a swap decision
        // that crossed a change of position (a takeback accepted meanwhile).
        let seen = u32::try_from(key.0).ok();
        match decision {
            BotDecision::Move(p) => {
                let at = point_name(size, p);
                self.last_sent = Some(Sent::Action(format!("move {at}")));
                // Gomocup `x,y` reads the same on every board, the unbounded one included.
                ws.send(&ClientMsg::Move {
                    at: format!("{},{}", p.x, p.y),
                    moves: seen,
                })
                .await?;
                on_event(&BotEvent::Moved {
                    id: self.id.clone(),
                    number: key.0 + 1,
                    at,
                });
            }
            BotDecision::AnswerDraw(accepts) => {
                self.last_sent = Some(Sent::Other);
                let kind = RequestKind::Draw;
                if accepts {
                    ws.send(&ClientMsg::Accept { kind: Some(kind) }).await?;
                    on_event(&BotEvent::Accepted { kind });
                } else {
                    ws.send(&ClientMsg::Decline { kind: Some(kind) }).await?;
                    on_event(&BotEvent::Declined { kind });
                }
            }
            BotDecision::Resign => {
                self.last_sent = Some(Sent::Other);
                ws.send(&ClientMsg::Resign).await?;
                on_event(&BotEvent::Resigned {
                    id: self.id.clone(),
                });
            }
            BotDecision::Choose(c) => {
                self.last_sent = Some(Sent::Action(format!("decision {}", c.name())));
                ws.send(&ClientMsg::Choose {
                    choice: c.name().to_string(),
                    moves: seen,
                })
                .await?;
                on_event(&BotEvent::Chose {
                    id: self.id.clone(),
                    choice: c.name(),
                });
            }
        }
        Ok(())
    }
}

fn seat_index(role: Role) -> usize {
    usize::from(role == Role::Second)
}

/// The clock as the engine's time manager reads it, from the bot's seat in `state`.
fn time_control(state: &GameState, role: Role) -> TimeControl {
    let left = state.seats[seat_index(role)].clock_ms;
    match state.clock {
        ClockSpec::None => TimeControl::default(),
        ClockSpec::PerMove { ms } => TimeControl {
            // What is left of this turn: the state was read when it was sent.
            per_move: Some(left.unwrap_or(ms).min(ms)),
            left: None,
            increment: 0,
        },
        ClockSpec::Total { ms, increment_ms } => TimeControl {
            per_move: None,
            left: Some(left.unwrap_or(ms)),
            increment: increment_ms,
        },
    }
}

/// The position as the bot sees it, from a state.
#[derive(Clone, Debug)]
struct SeenPosition {
    size: BoardSize,
    rule: Rule,
    opening: OpeningRule,
    points: Vec<Point>,
    to_move: Color,
}

impl SeenPosition {
    fn of(state: &GameState) -> Result<SeenPosition, String> {
        let size = state
            .size
            .parse::<BoardSize>()
            .map_err(|e| format!("board size {:?}: {e}", state.size))?;
        let rule = state
            .rule
            .parse::<Rule>()
            .map_err(|e| format!("rule {:?}: {e}", state.rule))?;
        let opening = state
            .opening
            .parse::<OpeningRule>()
            .map_err(|e| format!("opening {:?}: {e}", state.opening))?;
        let points: Vec<Point> = state
            .points
            .iter()
            .map(|&[x, y]| Point::new(x, y))
            .collect();
        // Stones alternate from black under every opening rule; the state names the next one.
        let to_move = state
            .pending
            .color
            .as_deref()
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| Color::of_ply(points.len()));
        Ok(SeenPosition {
            size,
            rule,
            opening,
            points,
            to_move,
        })
    }

    fn board(&self) -> Result<Board, String> {
        let mut board = Board::new(self.size);
        for (k, &p) in self.points.iter().enumerate() {
            board
                .place(p, Color::of_ply(k))
                .map_err(|e| format!("move {}: {e}", k + 1))?;
        }
        Ok(board)
    }

    fn game(&self) -> Result<Game, String> {
        Ok(Game::from_position(self.board()?, self.rule, self.to_move))
    }

    /// Whether the next stone is one of the opening's first three, placed by rule of thumb.
    fn opening_stone(&self) -> bool {
        self.points.len() < 3 && self.opening != OpeningRule::Free
    }
}

/// Who thinks: the engine or the brain, moved to a blocking thread for each decision.
#[derive(Debug)]
enum Mover {
    Engine {
        engine: Box<Engine>,
        level: Level,
        seed: u64,
    },
    Brain {
        client: Box<Client>,
    },
}

#[derive(Debug)]
struct Job {
    id: String,
    pos: SeenPosition,
    act: TurnKind,
    options: Vec<String>,
    tc: TimeControl,
    // The bot's colour, for a draw offer.
    own: Color,
}

#[derive(Clone, Copy, Debug)]
enum BotDecision {
    Move(Point),
    Choose(Choice),
    AnswerDraw(bool),
    Resign,
}

/// Decides, on a blocking thread.
fn decide(mover: &mut Mover, job: &Job, stop: &AtomicBool) -> Result<BotDecision, BotError> {
    let protocol = |message: String| BotError::Protocol {
        id: job.id.clone(),
        message,
    };
    let pos = &job.pos;
    let board = pos.board().map_err(protocol)?;
    if job.act == TurnKind::DrawOffer {
        let accepts = match mover {
            Mover::Engine { engine, level, .. } => {
                decide::answer_draw(engine, &board, pos.rule, pos.to_move, job.own, *level, stop)
                    .accepts
            }
            // The Gomocup protocol asks a brain nothing of draws.
            Mover::Brain { .. } => false,
        };
        return Ok(BotDecision::AnswerDraw(accepts));
    }
    if job.act == TurnKind::Choice {
        let prefer = match mover {
            Mover::Engine { engine, level, .. } => {
                let limits = decide::judgement_limits(*level);
                let judged = decide::judge(engine, &board, pos.rule, pos.to_move, &limits, stop);
                // The bot never places two more stones (see the module's notes).
                decide::choice(judged.black_value, false)
            }
            Mover::Brain { .. } => Choice::Black,
        };
        let open = |c: Choice| job.options.iter().any(|o| o == c.name());
        let choice = [prefer, Choice::Black, Choice::White]
            .into_iter()
            .find(|&c| open(c))
            .ok_or_else(|| protocol(format!("no colour among the options {:?}", job.options)))?;
        return Ok(BotDecision::Choose(choice));
    }
    let seed = match mover {
        Mover::Engine { seed, .. } => seed.wrapping_add(pos.points.len() as u64),
        Mover::Brain { .. } => clock_seed(),
    };
    if pos.opening_stone() {
        if let Some(p) = decide::opening_stone(&board, seed) {
            return Ok(BotDecision::Move(p));
        }
    }
    let p = match mover {
        Mover::Engine { engine, level, .. } => {
            let game = pos.game().map_err(protocol)?;
            let played = engine
                .play_scored(&game, *level, &job.tc, seed, stop)
                .ok_or_else(|| BotError::NoMove(job.id.clone()))?;
            if played
                .score
                .is_some_and(|score| decide::resigns(*level, score))
            {
                return Ok(BotDecision::Resign);
            }
            played.at
        }
        Mover::Brain { client } => {
            let p = brain_move(client, pos, &job.tc)?;
            if !board.contains(p) || !board.is_empty_at(p) {
                return Err(BotError::BrainMove(format!("{},{}", p.x, p.y)));
            }
            p
        }
    };
    Ok(BotDecision::Move(p))
}

/// `START` and the game's settings, once.
fn brain_start(
    client: &mut Client,
    size: BoardSize,
    rule: Rule,
    clock: ClockSpec,
) -> Result<(), ClientError> {
    client.start(size, BRAIN_START)?;
    client.info(&Info::GameType(0))?;
    client.info(&Info::Rule(rule.gomocup_bits()))?;
    let game_ms = match clock {
        ClockSpec::Total { ms, .. } => ms,
        _ => 0,
    };
    client.info(&Info::TimeoutMatch(game_ms))
}

/// The brain's move: the clock, then the whole position with `BOARD` (or `BEGIN` on an empty
/// board), so the brain never depends on what it was told before.
fn brain_move(
    client: &mut Client,
    pos: &SeenPosition,
    tc: &TimeControl,
) -> Result<Point, BotError> {
    /// The protocol's "no limit" for `time_left`.
    const UNLIMITED: i64 = 2_147_483_647;
    let (turn_ms, left_ms, wait_ms) = match (tc.per_move, tc.left) {
        (_, Some(left)) => {
            // Keep a margin for the move's way to the server.
            let left = left.saturating_sub(200);
            (left, left as i64, left)
        }
        (Some(turn), None) => {
            let budget = tc.budget().as_millis() as u64;
            (budget, UNLIMITED, turn)
        }
        (None, None) => (BRAIN_DEFAULT_TURN_MS, UNLIMITED, BRAIN_DEFAULT_TURN_MS),
    };
    client.info(&Info::TimeoutTurn(turn_ms))?;
    client.info(&Info::TimeLeft(left_ms))?;
    let stones: Vec<Stone> = pos
        .points
        .iter()
        .enumerate()
        .map(|(k, &p)| {
            let field = if Color::of_ply(k) == pos.to_move {
                Field::Own
            } else {
                Field::Opponent
            };
            Stone::new(p, field)
        })
        .collect();
    let wait = Duration::from_millis(wait_ms) + BRAIN_GRACE;
    client.clear_messages();
    let p = if stones.is_empty() {
        client.begin(wait)?
    } else {
        client.board(&stones, wait)?
    };
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beginner() -> Mover {
        Mover::Engine {
            engine: Box::new(Engine::new(4)),
            level: Level::Beginner,
            seed: 1,
        }
    }

    #[test]
    fn the_engine_takes_a_colour_and_plays_a_move() {
        let pos = SeenPosition {
            size: BoardSize::STANDARD,
            rule: Rule::Freestyle,
            opening: OpeningRule::Swap,
            points: vec![Point::new(7, 7), Point::new(8, 7), Point::new(7, 6)],
            to_move: Color::White,
        };
        let mut mover = beginner();
        let stop = AtomicBool::new(false);
        let mut job = Job {
            id: "t".into(),
            pos,
            act: TurnKind::Choice,
            options: vec!["black".into(), "white".into()],
            tc: TimeControl::default(),
            own: Color::Black,
        };
        assert!(matches!(
            decide(&mut mover, &job, &stop),
            Ok(BotDecision::Choose(Choice::Black | Choice::White))
        ));
        job.act = TurnKind::Move;
        let Ok(BotDecision::Move(p)) = decide(&mut mover, &job, &stop) else {
            panic!("a move");
        };
        assert!(!job.pos.points.contains(&p));
    }

    #[test]
    fn a_draw_offer_is_answered_by_the_engine_and_declined_by_a_brain() {
        // The empty board, black to move: white stands no better and takes the draw.
        let pos = SeenPosition {
            size: BoardSize::STANDARD,
            rule: Rule::Freestyle,
            opening: OpeningRule::Free,
            points: Vec::new(),
            to_move: Color::Black,
        };
        let job = Job {
            id: "t".into(),
            pos,
            act: TurnKind::DrawOffer,
            options: Vec::new(),
            tc: TimeControl::default(),
            own: Color::White,
        };
        let mut mover = beginner();
        let stop = AtomicBool::new(false);
        assert!(matches!(
            decide(&mut mover, &job, &stop),
            Ok(BotDecision::AnswerDraw(true))
        ));
    }

    #[test]
    fn names_fit_the_server() {
        let long = Player::Brain(format!("/x/{} --fast", "b".repeat(80)));
        assert!(default_name(&long).chars().count() <= 40);
        assert_eq!(
            default_name(&Player::Engine(Level::Expert)),
            "Tengen (expert)"
        );
    }
}
