//! One task per online game. It alone changes its [`Table`], one command at a time, so no two
//! actions on a game race; it stores each change before it broadcasts the new state, and it
//! keeps the game's timers (a falling flag, a grace period running out, nobody joining in
//! time). A command or timer that fails (panics) does not take the game down: the asker is told,
//! the failure is logged with the game's id, and the game is rebuilt from its stored events, its
//! connections kept.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::FutureExt as _;
use tengen_rules::Seat;
use tokio::sync::{broadcast, mpsc, oneshot};

use super::persist::Write;
use super::table::{Action, Event, Stored, Table, role, seat};
use super::{Inner, Summary, hash_token, unix_ms};
use tengen_wire::{ChatLine, GameState, LobbyGame, Role, ServerMsg};

/// How long a finished game nobody watches stays in memory (it is reloaded from the store if
/// asked for again).
const IDLE_AFTER_END: Duration = Duration::from_secs(60);
/// How many messages a slow connection may fall behind before it is sent a fresh state.
const BROADCAST_BUFFER: usize = 16;
/// Failures in a row (with nothing done right between them) after which a game leaves memory
/// instead of being rebuilt again: a timer that fails at once after every rebuild must not spin.
const MAX_FAILURES_IN_ROW: u32 = 3;

/// The game failed while handling the command; it was rebuilt from its stored events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failed;

type ReplySlot<T> = Arc<Mutex<Option<oneshot::Sender<Result<T, Failed>>>>>;

/// Where a command's answer goes. The game keeps a second handle while it handles the command,
/// so that if handling it fails the asker hears [`Failed`] rather than nothing.
#[derive(Debug)]
pub struct Reply<T>(ReplySlot<T>);

impl<T: Send + 'static> Reply<T> {
    /// A reply and where its answer arrives.
    pub fn new() -> (Reply<T>, oneshot::Receiver<Result<T, Failed>>) {
        let (tx, rx) = oneshot::channel();
        (Reply(Arc::new(Mutex::new(Some(tx)))), rx)
    }

    /// Answers; false when the asker has gone.
    pub fn send(self, value: T) -> bool {
        take(&self.0).is_some_and(|tx| tx.send(Ok(value)).is_ok())
    }

    /// Tells the asker the command failed; false when the asker has gone.
    pub fn fail(self) -> bool {
        take(&self.0).is_some_and(|tx| tx.send(Err(Failed)).is_ok())
    }

    fn failer(&self) -> Box<dyn FnOnce() + Send> {
        let slot = self.0.clone();
        Box::new(move || {
            if let Some(tx) = take(&slot) {
                let _ = tx.send(Err(Failed));
            }
        })
    }
}

/// The sender, unless the command was answered already: whoever takes it answers.
fn take<T>(slot: &ReplySlot<T>) -> Option<oneshot::Sender<Result<T, Failed>>> {
    // Only a whole `take` happens under the lock: a poisoned one still holds a valid slot.
    slot.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
}

/// What a connection or a handler asks of a game.
#[derive(Debug)]
pub enum Cmd {
    /// A WebSocket says hello.
    Connect {
        /// A seat token, or none to watch.
        token: Option<String>,
        /// A spectator's name.
        name: Option<String>,
        /// The answer.
        reply: Reply<Result<Connected, String>>,
    },
    /// A WebSocket closed.
    Disconnect {
        /// Its role.
        role: Role,
    },
    /// A player acts.
    Act {
        /// Who.
        role: Role,
        /// What.
        action: Action,
        /// Refused, or done.
        reply: Reply<Result<(), String>>,
    },
    /// A chat line, already checked for length.
    Chat {
        /// The line.
        line: ChatLine,
        /// Refused (the game's chat is full), or stored and sent.
        reply: Reply<Result<(), String>>,
    },
    /// Take the free seat (HTTP join).
    Join {
        /// The player's name.
        name: String,
        /// SHA-256 of the new seat's token.
        token_hash: String,
        /// The seat taken.
        reply: Reply<Result<Role, JoinError>>,
    },
    /// The state now.
    State {
        /// The answer.
        reply: Reply<GameState>,
    },
    /// The game and the players' names, for a record.
    Record {
        /// The answer.
        reply: Reply<(tengen_rules::Game, [Option<String>; 2])>,
    },
    /// Leave memory at once: another node runs the game now (`cluster`). The connections
    /// close, and reconnect to wherever it runs.
    Leave,
    /// The server stops: store the running clock's time left (or its fallen flag). Answers
    /// whether something was stored.
    Pause {
        /// The answer.
        reply: Reply<bool>,
    },
}

impl Cmd {
    /// Tells the asker, if any, that the command failed.
    fn failer(&self) -> Option<Box<dyn FnOnce() + Send>> {
        match self {
            Cmd::Connect { reply, .. } => Some(reply.failer()),
            Cmd::Act { reply, .. } => Some(reply.failer()),
            Cmd::Join { reply, .. } => Some(reply.failer()),
            Cmd::State { reply } => Some(reply.failer()),
            Cmd::Record { reply } => Some(reply.failer()),
            Cmd::Pause { reply } => Some(reply.failer()),
            Cmd::Chat { reply, .. } => Some(reply.failer()),
            Cmd::Disconnect { .. } | Cmd::Leave => None,
        }
    }
}

/// Why a join failed.
#[derive(Debug)]
pub enum JoinError {
    /// Both seats are taken.
    Full,
    /// The store failed.
    Store(String),
}

/// What a connection gets on hello.
#[derive(Debug)]
pub struct Connected {
    /// Its role.
    pub role: Role,
    /// Its name (the player's, or the spectator's).
    pub name: String,
    /// The first frames to send: welcome, state, chat history.
    pub first: Vec<Arc<str>>,
    /// Every later broadcast.
    pub updates: broadcast::Receiver<Arc<str>>,
}

pub(crate) struct Actor {
    table: Table,
    inner: Arc<Inner>,
    updates: broadcast::Sender<Arc<str>>,
    // Open connections per seat, and spectators.
    seated: [u32; 2],
    spectators: u32,
    // Whether the state was sent after a seat's grace period ran out.
    announced: [bool; 2],
    idle_since: Option<Instant>,
    // When the game closes if nobody has joined by then.
    expires: Instant,
    // What a refused store asks of the game once the step that met it is done.
    after_refusal: Option<AfterRefusal>,
}

/// What a node serving a site with others does with a game whose change the store refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AfterRefusal {
    /// Another node holds the game's lease: the game leaves this node.
    Leave,
    /// Read the game back from the store: another node may have stored events this one has
    /// not seen.
    Reload,
}

fn frame(msg: &ServerMsg) -> Arc<str> {
    // Our own types always serialise.
    serde_json::to_string(msg).unwrap_or_default().into()
}

impl Actor {
    pub(crate) fn new(table: Table, inner: Arc<Inner>, expires: Instant) -> Actor {
        let (updates, _) = broadcast::channel(BROADCAST_BUFFER);
        Actor {
            table,
            inner,
            updates,
            seated: [0, 0],
            spectators: 0,
            announced: [false, false],
            idle_since: Some(Instant::now()),
            expires,
            after_refusal: None,
        }
    }

    pub(crate) fn summary(&self) -> Summary {
        let g = self.table.game();
        let players = self.table.players();
        let size = g.board().size();
        Summary {
            game: LobbyGame {
                id: self.table.id.clone(),
                rule: g.rule().name().to_string(),
                size: match (size.width(), size.height()) {
                    (Some(w), Some(h)) => format!("{w}x{h}"),
                    _ => "unbounded".into(),
                },
                opening: g.opening().to_string(),
                clock: self.table.settings.clock,
                players: [
                    players[0].as_ref().map(|p| p.name.clone()),
                    players[1].as_ref().map(|p| p.name.clone()),
                ],
                free: self.table.free_seat().map(role),
                moves: u32::try_from(g.moves().len()).unwrap_or(u32::MAX),
                spectators: self.spectators,
            },
            listed: self.table.settings.listed,
            over: self.table.over(),
            attended: self.seated.iter().any(|&n| n > 0),
        }
    }

    async fn state(&self, now: Instant) -> GameState {
        self.table.ready_marks().await;
        self.table.state(
            now,
            [self.seated[0] > 0, self.seated[1] > 0],
            self.spectators,
        )
    }

    async fn broadcast_state(&self) {
        let now = Instant::now();
        let state = self.state(now).await;
        // Nobody listening is fine.
        let _ = self.updates.send(frame(&ServerMsg::State(state)));
        self.inner.set_summary(self.summary());
    }

    fn notice(&self, text: String) {
        let _ = self.updates.send(frame(&ServerMsg::Notice { text }));
    }

    /// Stores events the table just made; on failure puts the table back as it was.
    async fn store(&mut self, stored: &[Stored], backup: Table) -> Result<(), String> {
        if stored.is_empty() {
            return Ok(());
        }
        let at_ms = unix_ms();
        let first_seq = self.table.seq() + 1 - stored.len() as u64;
        let mut writes: Vec<Write> = stored
            .iter()
            .enumerate()
            .map(|(i, s)| Write::Event {
                game_id: self.table.id.clone(),
                seq: first_seq + i as u64,
                stored: s.clone(),
                at_ms,
            })
            .collect();
        if self.table.over() && !backup.over() {
            writes.push(Write::Over {
                id: self.table.id.clone(),
            });
        }
        match self.inner.writer.write(writes).await {
            Ok(()) => {
                let moves = stored
                    .iter()
                    .filter(|s| matches!(s.event, Event::Move { .. }))
                    .count();
                self.inner.moves.fetch_add(moves as u64, Ordering::Relaxed);
                Ok(())
            }
            Err(e) => {
                self.table = backup;
                if e == super::persist::LEASE_LOST {
                    self.after_refusal = Some(AfterRefusal::Leave);
                } else if self.inner.cluster.is_some() {
                    self.after_refusal = Some(AfterRefusal::Reload);
                }
                Err(format!(
                    "the move could not be saved, so nothing changed: {e}"
                ))
            }
        }
    }

    async fn handle(&mut self, cmd: Cmd) {
        let now = Instant::now();
        match cmd {
            Cmd::Connect { token, name, reply } => {
                let (role, name) = match token {
                    Some(t) => match self.table.seat_of(&hash_token(&t)) {
                        Some(s) => {
                            let name = self.table.players()[idx(s)]
                                .as_ref()
                                .map_or_else(String::new, |p| p.name.clone());
                            (role(s), name)
                        }
                        None => {
                            let _ = reply
                                .send(Err("this token holds no seat in this game".to_string()));
                            return;
                        }
                    },
                    None => (
                        Role::Spectator,
                        name.filter(|n| !n.trim().is_empty())
                            .map_or_else(|| "Spectator".to_string(), |n| n.trim().to_string()),
                    ),
                };
                match seat(role) {
                    Some(s) => {
                        self.seated[idx(s)] += 1;
                        self.table.set_present(s, true, now);
                        self.announced[idx(s)] = false;
                    }
                    None => self.spectators += 1,
                }
                self.idle_since = None;
                // The others hear of the newcomer first; the newcomer subscribes after that
                // broadcast, so it gets the state once, in its first frames.
                self.broadcast_state().await;
                let updates = self.updates.subscribe();
                let mut first = vec![
                    frame(&ServerMsg::Welcome {
                        id: self.table.id.clone(),
                        role,
                    }),
                    frame(&ServerMsg::State(self.state(now).await)),
                ];
                first.extend(
                    self.table
                        .chat()
                        .map(|l| frame(&ServerMsg::Chat(l.clone()))),
                );
                if !reply.send(Ok(Connected {
                    role,
                    name,
                    first,
                    updates,
                })) {
                    // The connection went away before it heard back: undo the count.
                    self.disconnect(role, now);
                    self.broadcast_state().await;
                }
            }
            Cmd::Disconnect { role } => {
                self.disconnect(role, now);
                self.broadcast_state().await;
            }
            Cmd::Act {
                role,
                action,
                reply,
            } => {
                let Some(s) = seat(role) else {
                    let _ = reply.send(Err("spectators cannot play".into()));
                    return;
                };
                if let Action::Move { at, .. } = &action {
                    crate::fault::check(at);
                }
                let backup = self.table.clone();
                let done = match self.table.act(s, action, now) {
                    Ok(done) => done,
                    Err(refused) => {
                        let _ = reply.send(Err(refused.0));
                        return;
                    }
                };
                let mut stored = done.stored;
                if done.rematch {
                    match Box::pin(self.inner.create_rematch(&self.table)).await {
                        Ok(id) => stored.push(self.table.set_rematch(id, now)),
                        Err(e) => {
                            self.table = backup;
                            let _ = reply.send(Err(format!("the rematch could not be made: {e}")));
                            return;
                        }
                    }
                }
                if let Err(e) = self.store(&stored, backup).await {
                    let _ = reply.send(Err(e));
                    return;
                }
                let _ = reply.send(Ok(()));
                self.broadcast_state().await;
                if let Some(text) = done.notice {
                    self.notice(text);
                }
            }
            Cmd::Chat { line, reply } => {
                let backup = self.table.clone();
                let stored = match self.table.chat_line(line.clone(), now) {
                    Ok(stored) => stored,
                    Err(refused) => {
                        let _ = reply.send(Err(refused.0));
                        return;
                    }
                };
                match self.store(&[stored], backup).await {
                    Ok(()) => {
                        let _ = self.updates.send(frame(&ServerMsg::Chat(line)));
                        let _ = reply.send(Ok(()));
                    }
                    Err(e) => {
                        let _ = reply.send(Err(e));
                    }
                }
            }
            Cmd::Join {
                name,
                token_hash,
                reply,
            } => {
                let backup = self.table.clone();
                let (s, stored) = match self.table.join(name, token_hash, None, now) {
                    Ok(v) => v,
                    Err(_) => {
                        let _ = reply.send(Err(JoinError::Full));
                        return;
                    }
                };
                // Nobody is connected for the new seat yet: the grace period starts now.
                self.table.set_present(s, false, now);
                if let Err(e) = self.store(&[stored], backup).await {
                    let _ = reply.send(Err(JoinError::Store(e)));
                    return;
                }
                // The lobby's summary changes before the joiner hears back, so whoever reads
                // the lobby after a join already sees the game as live.
                self.broadcast_state().await;
                let _ = reply.send(Ok(role(s)));
            }
            Cmd::State { reply } => {
                let _ = reply.send(self.state(now).await);
            }
            Cmd::Record { reply } => {
                let _ = reply.send(record_of(&self.table));
            }
            Cmd::Pause { reply } => {
                let backup = self.table.clone();
                let Some(stored) = self.table.pause(now) else {
                    let _ = reply.send(false);
                    return;
                };
                let ok = self.store(&[stored], backup).await.is_ok();
                let _ = reply.send(ok);
                if ok {
                    self.broadcast_state().await;
                }
            }
            // The run loop leaves on it before any handling.
            Cmd::Leave => {}
        }
    }

    fn disconnect(&mut self, role: Role, now: Instant) {
        match seat(role) {
            Some(s) => {
                let n = &mut self.seated[idx(s)];
                *n = n.saturating_sub(1);
                if *n == 0 {
                    self.table.set_present(s, false, now);
                }
            }
            None => self.spectators = self.spectators.saturating_sub(1),
        }
        if self.seated == [0, 0] && self.spectators == 0 {
            self.idle_since = Some(now);
        }
    }

    /// The next moment something must happen without a command: a flag, a grace period, or
    /// leaving memory.
    fn next_wake(&self) -> Option<Instant> {
        let grace = [Seat::First, Seat::Second]
            .into_iter()
            .filter(|&s| !self.announced[idx(s)])
            .filter_map(|s| self.table.grace_deadline_of(s));
        let idle = self
            .idle_since
            .filter(|_| self.table.over())
            .map(|t| t + IDLE_AFTER_END);
        self.table
            .deadline()
            .into_iter()
            .chain(grace)
            .chain(idle)
            .chain(self.table.unjoined().then_some(self.expires))
            .min()
    }

    /// Handles the timers; false when the game should leave memory.
    async fn wake(&mut self) -> bool {
        let now = Instant::now();
        if self.table.unjoined() && now >= self.expires {
            let id = self.table.id.clone();
            match self.inner.writer.write(vec![Write::Expire { id }]).await {
                Ok(()) => {}
                // Another node runs the game now: it decides.
                Err(e) if e == super::persist::LEASE_LOST => {
                    self.after_refusal = Some(AfterRefusal::Leave);
                    return true;
                }
                Err(_) => {
                    // Try again shortly rather than spin.
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    return true;
                }
            }
            tracing::debug!(game = %self.table.id, "online game expired: nobody joined");
            self.notice("Nobody joined in time: the game has closed.".into());
            return false;
        }
        let backup = self.table.clone();
        if let Some(timeout) = self.table.check_time(now) {
            if self.store(&[timeout], backup).await.is_err() {
                // Try again shortly rather than spin.
                tokio::time::sleep(Duration::from_millis(200)).await;
                return true;
            }
            self.broadcast_state().await;
        }
        for s in [Seat::First, Seat::Second] {
            if !self.announced[idx(s)] && self.table.grace_deadline_of(s).is_some_and(|t| t <= now)
            {
                self.announced[idx(s)] = true;
                self.broadcast_state().await;
            }
        }
        !(self.table.over() && self.idle_since.is_some_and(|t| now >= t + IDLE_AFTER_END))
    }

    /// Runs the game until it leaves memory.
    pub(crate) async fn run(mut self, mut cmds: mpsc::Receiver<Cmd>) {
        self.inner.set_summary(self.summary());
        let mut failures = 0;
        loop {
            let wake = self.next_wake();
            // Each step runs guarded: a panic inside is caught here, with the game's id.
            let step = tokio::select! {
                cmd = cmds.recv() => match cmd {
                    Some(Cmd::Leave) => break,
                    Some(cmd) => {
                        let failer = cmd.failer();
                        let step = AssertUnwindSafe(self.handle(cmd)).catch_unwind().await;
                        if step.is_err() {
                            if let Some(fail) = failer {
                                fail();
                            }
                        }
                        step.map(|()| true)
                    }
                    None => break,
                },
                () = sleep_until(wake) => AssertUnwindSafe(self.wake()).catch_unwind().await,
            };
            match self.after_refusal.take() {
                Some(AfterRefusal::Leave) => {
                    tracing::warn!(game = %self.table.id, "another node runs this game now: it leaves this node");
                    break;
                }
                Some(AfterRefusal::Reload)
                    if !Box::pin(self.restart("the store refused a change")).await =>
                {
                    break;
                }
                _ => {}
            }
            match step {
                Ok(true) => failures = 0,
                Ok(false) => break,
                Err(panic) => {
                    failures += 1;
                    let why = crate::engine_pool::panic_text(panic.as_ref());
                    if failures >= MAX_FAILURES_IN_ROW {
                        tracing::warn!(game = %self.table.id, panic = %why, failures,
                            "online game failed again and again: it leaves memory and is loaded afresh when next asked for");
                        break;
                    }
                    // `restart` says why it could not.
                    // Boxed: a rare path, whose future (a reload from the store) would otherwise
                    // make every game's task larger for its whole life.
                    if !Box::pin(self.restart(&why)).await {
                        break;
                    }
                }
            }
        }
        self.inner.forget(&self.table.id).await;
        // Commands that raced with leaving are dropped unanswered: their senders see the reply
        // channel close and load the game afresh.
        drop(cmds);
    }
}

impl Actor {
    /// Rebuilds the table from the stored events after a failure, keeping the connections;
    /// false when it cannot be rebuilt.
    async fn restart(&mut self, why: &str) -> bool {
        let id = self.table.id.clone();
        tracing::warn!(game = %id, panic = %why, "online game failed; restarting it from its stored events");
        let table = match self.inner.reload(&id).await {
            Ok((table, _)) => table,
            Err(e) => {
                tracing::warn!(game = %id, error = %e, "online game could not be restarted: it leaves memory");
                return false;
            }
        };
        self.table = table;
        let now = Instant::now();
        for s in [Seat::First, Seat::Second] {
            if self.seated[idx(s)] > 0 {
                self.table.set_present(s, true, now);
            }
        }
        self.announced = [false, false];
        // Everyone sees the game as stored: a change that failed before it was stored is gone.
        self.broadcast_state().await;
        true
    }
}

/// The game and its players' names, for a record.
pub(crate) fn record_of(table: &Table) -> (tengen_rules::Game, [Option<String>; 2]) {
    let p = table.players();
    let names = [
        p[0].as_ref().map(|p| p.name.clone()),
        p[1].as_ref().map(|p| p.name.clone()),
    ];
    (table.game().clone(), names)
}

async fn sleep_until(t: Option<Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(tokio::time::Instant::from_std(t)).await,
        None => std::future::pending().await,
    }
}

fn idx(s: Seat) -> usize {
    match s {
        Seat::First => 0,
        Seat::Second => 1,
    }
}
