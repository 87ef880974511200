//! Online play: games between people on different machines, over HTTP and WebSocket
//! (`docs/api.md`). Each game is a task of its own ([`actor`]) owning a [`table::Table`]; every
//! change is stored ([`persist`]) before it is broadcast; at start-up every live game is replayed
//! from the store.

mod actor;
pub mod cluster;
mod http;
mod persist;
pub mod table;

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::mpsc;

pub use http::router;
pub(crate) use http::same_origin;

use crate::error::ApiError;
use actor::{Actor, Cmd, Connected, Failed, JoinError, Reply};
use persist::{Found, Loaded, Saved, Write, Writer};
use table::{Player, Table, TableSettings};
use tengen_wire::{self as wire, GameState, Lobby, LobbyGame, Role, Stats};

/// How many commands may wait for one game.
pub(crate) const GAME_QUEUE: usize = 64;
/// How many games the lobby lists in each section.
const LOBBY_SIZE: usize = 50;

/// The online games of one server.
#[derive(Clone, Debug)]
pub struct Online {
    inner: Arc<Inner>,
}

/// The online games' timers.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// How long a player may be gone before the opponent may claim the win, in milliseconds.
    pub grace_ms: u64,
    /// How long a game nobody joined stays open.
    pub unjoined_expiry: Duration,
}

/// What the lobby and the statistics read of a game, kept up to date by its actor.
#[derive(Clone, Debug)]
pub(crate) struct Summary {
    /// The game as the lobby shows it.
    pub(crate) game: LobbyGame,
    /// Whether its creator listed it in the lobby.
    pub(crate) listed: bool,
    /// Whether it has ended.
    pub(crate) over: bool,
    /// Whether a seated player is connected: a game both players have left shows in no
    /// lobby (nobody could watch anything happen there).
    pub(crate) attended: bool,
}

pub(crate) struct Entry {
    pub(crate) cmds: mpsc::Sender<Cmd>,
    pub(crate) summary: Option<Summary>,
    /// When the game was made (ms since the epoch), and its rank among the games loaded here,
    /// for the lobby's order.
    pub(crate) created: (u64, u64),
    /// The node running the game when this is a proxy for it (`cluster`); `None` when the
    /// game runs here.
    pub(crate) owner: Option<String>,
}

pub(crate) struct Inner {
    games: Mutex<HashMap<String, Entry>>,
    db: crate::store::Db,
    writer: Writer,
    /// This node's part in a site of several (`None`: the server runs alone).
    cluster: Option<Arc<cluster::Cluster>>,
    grace_ms: u64,
    unjoined_expiry: Duration,
    pub(crate) connections: AtomicU64,
    moves: AtomicU64,
    ids: AtomicU64,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner")
            .field("grace_ms", &self.grace_ms)
            .finish_non_exhaustive()
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// SHA-256 of a seat token, in hex: what the store keeps instead of the token.
pub(crate) fn hash_token(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A new node name: the host's name and random hex, so logs say which machine it is.
pub(crate) fn node_name() -> String {
    let host: String = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| {
            h.trim()
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .take(20)
                .collect()
        })
        .unwrap_or_default();
    let suffix = random_hex(4).unwrap_or_else(|_| format!("{:08x}", std::process::id()));
    if host.is_empty() {
        suffix
    } else {
        format!("{host}-{suffix}")
    }
}

/// `n` random bytes from the operating system, in hex.
pub(crate) fn random_hex(n: usize) -> Result<String, ApiError> {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf)
        .map_err(|e| ApiError::Engine(format!("no randomness from the system: {e}")))?;
    Ok(hex(&buf))
}

impl Inner {
    fn games(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        // The map is changed by single inserts and removes: a poisoned lock left it whole.
        self.games
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn set_summary(&self, summary: Summary) {
        if let Some(e) = self.games().get_mut(&summary.game.id) {
            e.summary = Some(summary);
        }
    }

    /// A game's task has ended: with other nodes, its lease is given up first (so that no
    /// reload here races the release) and the proxies pointing here are told; then it leaves
    /// the map.
    pub(crate) async fn forget(&self, id: &str) {
        if let Some(cluster) = &self.cluster {
            if let Err(e) = persist::release_lease(&self.db, id, &cluster.node).await {
                tracing::warn!(game = %id, error = %e, "could not give up a game's lease");
            }
            cluster.announce_gone(id).await;
        }
        let mut games = self.games();
        // Only the game's own entry: a proxy may have taken its place meanwhile.
        if games.get(id).is_some_and(|e| e.owner.is_none()) {
            games.remove(id);
        }
    }

    /// The command queue of game `id` when it runs on this node (not a proxy), with the number
    /// of its run here.
    pub(crate) fn local_actor_run(&self, id: &str) -> Option<(mpsc::Sender<Cmd>, u64)> {
        self.games()
            .get(id)
            .filter(|e| e.owner.is_none())
            .map(|e| (e.cmds.clone(), e.created.1))
    }

    /// The command queue of game `id` when it runs on this node (not a proxy).
    pub(crate) fn local_actor(&self, id: &str) -> Option<mpsc::Sender<Cmd>> {
        self.local_actor_run(id).map(|(cmds, _)| cmds)
    }

    /// The games running on this node, with their command queues.
    pub(crate) fn local_actors(&self) -> Vec<(String, mpsc::Sender<Cmd>)> {
        self.games()
            .iter()
            .filter(|(_, e)| e.owner.is_none())
            .map(|(id, e)| (id.clone(), e.cmds.clone()))
            .collect()
    }

    /// Forgets this node's proxy for game `id` if the node it forwards to meets `drop` (a
    /// notice says another node runs the game now, or its node no longer does).
    pub(crate) fn drop_proxy_if(&self, id: &str, drop: impl Fn(&str) -> bool) {
        let mut games = self.games();
        if games
            .get(id)
            .and_then(|e| e.owner.as_deref())
            .is_some_and(drop)
        {
            games.remove(id);
        }
    }

    /// Forgets every proxy on this node: their connections reconnect to wherever each game
    /// runs now.
    pub(crate) fn drop_all_proxies(&self) {
        self.games().retain(|_, e| e.owner.is_none());
    }

    /// The games running on this node that the lobby shows: the open ones listed, with when
    /// each was made, and the ones under way with a player there.
    pub(crate) fn local_lobby(&self) -> (Vec<(LobbyGame, u64)>, Vec<LobbyGame>) {
        let games = self.games();
        let mut open = Vec::new();
        let mut live = Vec::new();
        for e in games.values() {
            let Some(Summary {
                game: g,
                listed,
                over,
                attended,
            }) = &e.summary
            else {
                continue;
            };
            if *over {
                continue;
            }
            if g.free.is_some() {
                if *listed {
                    open.push((g.clone(), e.created.0));
                }
            } else if *attended {
                live.push(g.clone());
            }
        }
        (open, live)
    }

    /// What this node holds.
    pub(crate) fn local_stats(&self) -> Stats {
        let games = self.games();
        let local = || games.values().filter(|e| e.owner.is_none());
        Stats {
            games: local().count() as u64,
            live: local()
                .filter(|e| e.summary.as_ref().is_some_and(|s| !s.over))
                .count() as u64,
            connections: self.connections.load(Ordering::Relaxed),
            moves: self.moves.load(Ordering::Relaxed),
            rss_bytes: rss_bytes(),
        }
    }

    fn spawn(self: &Arc<Self>, table: Table, created_ms: u64) -> mpsc::Sender<Cmd> {
        let (cmds, rx) = mpsc::channel(GAME_QUEUE);
        let created = (created_ms, self.ids.fetch_add(1, Ordering::Relaxed));
        let id = table.id.clone();
        let actor = Actor::new(table, self.clone(), self.expiry_of(created_ms));
        // The lobby knows the game before its creator hears of it, not once its task first
        // runs: a lobby read right after the create could miss it (seen under load). Looked up
        // and inserted under one lock, so two loads at once start one game, not two.
        {
            let mut games = self.games();
            if let Some(e) = games.get(&id).filter(|e| e.owner.is_none()) {
                return e.cmds.clone();
            }
            games.insert(
                id,
                Entry {
                    cmds: cmds.clone(),
                    summary: Some(actor.summary()),
                    created,
                    owner: None,
                },
            );
        }
        tokio::spawn(actor.run(rx));
        cmds
    }

    /// When a game made at `created_ms` expires if nobody has joined it, in milliseconds since
    /// the Unix epoch.
    fn expiry_ms(&self, created_ms: u64) -> u64 {
        let ttl = u64::try_from(self.unjoined_expiry.as_millis()).unwrap_or(u64::MAX);
        created_ms.saturating_add(ttl)
    }

    /// Whether a game made at `created_ms` has expired, if nobody has joined it.
    fn expired(&self, created_ms: u64) -> bool {
        self.expiry_ms(created_ms) <= unix_ms()
    }

    /// When a game made at `created_ms` expires if nobody has joined it.
    fn expiry_of(&self, created_ms: u64) -> Instant {
        let at_ms = self.expiry_ms(created_ms);
        let now = Instant::now();
        // A setting of centuries means never; it must not overflow the clock.
        now.checked_add(Duration::from_millis(at_ms.saturating_sub(unix_ms())))
            .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 86_400))
    }

    /// Rebuilds a game from its stored events; a panic on the way (a bug the stored moves run
    /// into) is a failure like any other, so that one game cannot stop the others.
    fn rebuild_guarded(&self, saved: &Saved, now: Instant) -> Result<Table, String> {
        std::panic::catch_unwind(AssertUnwindSafe(|| self.rebuild(saved, now))).unwrap_or_else(
            |panic| {
                Err(format!(
                    "replaying it failed inside the server: {}",
                    crate::engine_pool::panic_text(panic.as_ref())
                ))
            },
        )
    }

    /// Reads a game from the store and rebuilds it, setting it aside when it cannot be.
    pub(crate) async fn reload(&self, id: &str) -> Result<(Table, u64), ApiError> {
        let found = persist::load_one(&self.db, id)
            .await?
            .ok_or_else(|| ApiError::NotFound(id.to_string()))?;
        let saved = match found {
            Found::Expired => return Err(ApiError::Expired(id.to_string())),
            Found::Quarantined(why) => return Err(ApiError::Quarantined(id.to_string(), why)),
            Found::Game(Loaded::Bad { reason, .. }) => {
                self.set_aside(id, &reason).await;
                return Err(ApiError::Quarantined(id.to_string(), reason));
            }
            Found::Game(Loaded::Good(saved)) => saved,
        };
        match self.rebuild_guarded(&saved, Instant::now()) {
            Ok(table) => Ok((table, saved.created_ms)),
            Err(reason) => {
                self.set_aside(id, &reason).await;
                Err(ApiError::Quarantined(id.to_string(), reason))
            }
        }
    }

    /// Quarantines a game, saying so in the log.
    async fn set_aside(&self, id: &str, reason: &str) {
        // With other nodes, only the node running the game may close it.
        if let Some(cluster) = &self.cluster {
            let holder = persist::lease_holder(&self.db, id, unix_ms()).await;
            if !matches!(&holder, Ok(Some(h)) if *h == cluster.node) {
                tracing::warn!(game = %id, %reason, "online game not replayable here, and run by another node: not set aside");
                return;
            }
        }
        tracing::warn!(game = %id, %reason, "online game set aside: its stored record cannot be replayed");
        if let Err(e) = persist::quarantine(&self.db, id, reason).await {
            tracing::warn!(game = %id, error = %e, "could not mark the game as set aside");
        }
    }

    fn rebuild(&self, saved: &Saved, now: Instant) -> Result<Table, String> {
        let settings: TableSettings =
            serde_json::from_str(&saved.settings).map_err(|e| format!("bad settings: {e}"))?;
        let mut table = Table::new(saved.id.clone(), settings, self.grace_ms)?;
        for (i, s) in saved.events.iter().enumerate() {
            table
                .restore(s, now)
                .map_err(|e| format!("event {}: {e}", i + 1))?;
        }
        // Nobody is connected after a restart: the grace periods start now.
        for seat in [tengen_rules::Seat::First, tengen_rules::Seat::Second] {
            table.set_present(seat, false, now);
        }
        Ok(table)
    }

    /// Stores a new game with its players seated, and starts it.
    async fn start_game(
        self: &Arc<Self>,
        settings: TableSettings,
        players: [Option<Player>; 2],
    ) -> Result<String, ApiError> {
        let id = random_hex(8)?;
        let now = Instant::now();
        let mut table = Table::new(id.clone(), settings.clone(), self.grace_ms)
            .map_err(ApiError::BadRequest)?;
        let mut writes = vec![Write::Game {
            id: id.clone(),
            settings: serde_json::to_string(&settings)
                .map_err(|e| ApiError::BadRequest(e.to_string()))?,
            created_ms: unix_ms(),
        }];
        for (i, p) in players.into_iter().enumerate() {
            let Some(p) = p else { continue };
            let want = if i == 0 {
                tengen_rules::Seat::First
            } else {
                tengen_rules::Seat::Second
            };
            let (seat, stored) = table
                .join(p.name, p.token_hash, Some(want), now)
                .map_err(|e| ApiError::Conflict(e.0))?;
            table.set_present(seat, false, now);
            writes.push(Write::Event {
                game_id: id.clone(),
                seq: table.seq(),
                stored,
                at_ms: unix_ms(),
            });
        }
        // Renewal keeps the lease of a game being made until it runs.
        let _loading = self.cluster.as_ref().map(|c| c.loading(&id));
        if let Some(cluster) = &self.cluster {
            // A new game runs where it is made, its lease taken before it is stored: from its
            // first row on, no other node may take it for a game nobody runs.
            let now = unix_ms();
            let holder = persist::acquire_lease(&self.db, &id, &cluster.node, now).await?;
            if holder != cluster.node {
                return Err(ApiError::Conflict(format!(
                    "game id {id} is taken; try again"
                )));
            }
        }
        let stored = self
            .writer
            .write(writes)
            .await
            .map_err(|e| ApiError::Engine(format!("the game could not be stored: {e}")));
        if stored.is_ok() {
            self.spawn(table, unix_ms());
        }
        stored.map(|()| id)
    }

    /// A rematch of `table`: the same settings, the seats swapped.
    pub(crate) async fn create_rematch(self: &Arc<Self>, table: &Table) -> Result<String, String> {
        self.start_game(table.settings.clone(), table.rematch_players())
            .await
            .map_err(|e| e.to_string())
    }

    /// The game's command queue, loading it from the store when it is not in memory.
    async fn handle(self: &Arc<Self>, id: &str) -> Result<mpsc::Sender<Cmd>, ApiError> {
        if let Some(e) = self.games().get(id) {
            return Ok(e.cmds.clone());
        }
        let valid = !id.is_empty() && id.len() <= 32 && id.bytes().all(|b| b.is_ascii_hexdigit());
        let not_found = || ApiError::NotFound(id.to_string());
        if !valid {
            return Err(not_found());
        }
        // Boxed: loading is rare, and its future (store queries, quarantine) would otherwise
        // make every future that may load a game larger for its whole life: each WebSocket's
        // task, through `connect`, by a kilobyte and a half.
        Box::pin(self.load(id)).await
    }

    /// Loads game `id` from the store and starts it here; with other nodes, only when no other
    /// node runs it (else this node proxies for the one that does).
    async fn load(self: &Arc<Self>, id: &str) -> Result<mpsc::Sender<Cmd>, ApiError> {
        // Marked before the lease is taken and until the game runs (or the lease is given up):
        // renewal keeps the lease of a game being loaded.
        let _loading = self.cluster.as_ref().map(|c| c.loading(id));
        if let Some(cluster) = &self.cluster {
            let now = unix_ms();
            let owner = persist::acquire_lease(&self.db, id, &cluster.node, now).await?;
            if owner != cluster.node {
                if let Some(e) = self.games().get(id) {
                    return Ok(e.cmds.clone());
                }
                return Ok(cluster::spawn_proxy(cluster, self, id, owner));
            }
            // The game is this node's now: a proxy left from when it ran elsewhere goes.
            self.drop_proxy_if(id, |_| true);
        }
        match self.reload(id).await {
            // Another request may have loaded it meanwhile: `spawn` keeps the first.
            Ok((table, created_ms)) => {
                let cmds = self.spawn(table, created_ms);
                if let Some(cluster) = &self.cluster {
                    cluster.announce_owner(id);
                }
                Ok(cmds)
            }
            Err(e) => {
                if let Some(cluster) = &self.cluster {
                    persist::release_lease(&self.db, id, &cluster.node).await?;
                }
                Err(e)
            }
        }
    }

    /// Sends a command made by `make` and waits for its answer, loading the game again if it
    /// left memory in between.
    async fn ask<T: Send + 'static>(
        self: &Arc<Self>,
        id: &str,
        make: impl Fn(Reply<T>) -> Cmd,
    ) -> Result<T, ApiError> {
        for _ in 0..3 {
            let cmds = self.handle(id).await?;
            let (reply, answer) = Reply::new();
            if cmds.send(make(reply)).await.is_err() {
                continue;
            }
            match answer.await {
                Ok(Ok(v)) => return Ok(v),
                // Sending it again would fail the game again.
                Ok(Err(Failed)) => return Err(failed(id)),
                // The game left memory meanwhile: load it again.
                Err(_) => continue,
            }
        }
        Err(ApiError::Conflict(format!("game {id} is busy; try again")))
    }
}

/// The answer to a request the game failed on.
pub(crate) fn failed(id: &str) -> ApiError {
    ApiError::Internal(format!(
        "game {id} failed on this request and was restarted from its stored record; the \
         request was not carried out"
    ))
}

/// The longest name a player or watcher may take, in characters (after `text::clean`).
const MAX_NAME_CHARS: usize = 40;

/// Why a name is refused: the same words over HTTP and the WebSocket.
fn name_too_long() -> String {
    format!("name too long (at most {MAX_NAME_CHARS} characters)")
}

/// A player's name: cleaned (`text::clean`), at most [`MAX_NAME_CHARS`] characters,
/// "Anonymous" when empty.
fn player_name(name: Option<&str>) -> Result<String, ApiError> {
    let name = crate::text::clean(name.unwrap_or(""));
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::BadRequest(name_too_long()));
    }
    Ok(if name.is_empty() {
        "Anonymous".into()
    } else {
        name
    })
}

impl Online {
    /// Opens the online games in `db`, replaying every live one. A game whose rows cannot be
    /// read or replayed is set aside (logged, and kept in the store for a person to look at);
    /// a game nobody joined in time is closed.
    ///
    /// With `bus` (this node's connection to the others, `cluster`), the games are not loaded
    /// here: each node takes over the live games no node runs, within seconds.
    pub(crate) async fn start(
        db: crate::store::Db,
        timing: Timing,
        bus: Option<(cluster::Cluster, redis::aio::PubSubStream)>,
    ) -> Result<Online, sqlx::Error> {
        let (cluster, stream) = match bus {
            Some((c, s)) => (Some(Arc::new(c)), Some(s)),
            None => (None, None),
        };
        let inner = Arc::new(Inner {
            games: Mutex::new(HashMap::new()),
            writer: Writer::start(db.clone(), cluster.as_ref().map(|c| c.node.clone())),
            cluster: cluster.clone(),
            db,
            grace_ms: timing.grace_ms,
            unjoined_expiry: timing.unjoined_expiry,
            connections: AtomicU64::new(0),
            moves: AtomicU64::new(0),
            ids: AtomicU64::new(0),
        });
        if let (Some(cluster), Some(stream)) = (cluster, stream) {
            tracing::info!(node = %cluster.node, "online games shared with the other nodes");
            // Alive before anything is leased.
            persist::heartbeat(&inner.db, &cluster.node, unix_ms() + cluster::LEASE_MS).await?;
            cluster::start(&cluster, &inner, stream);
            return Ok(Online { inner });
        }
        let now = Instant::now();
        let (mut loaded, mut expired, mut set_aside) = (0, 0, 0);
        for found in persist::load_live(&inner.db).await? {
            let saved = match found {
                Loaded::Good(saved) => saved,
                Loaded::Bad { id, reason } => {
                    inner.set_aside(&id, &reason).await;
                    set_aside += 1;
                    continue;
                }
            };
            let table = match inner.rebuild_guarded(&saved, now) {
                Ok(table) => table,
                Err(reason) => {
                    inner.set_aside(&saved.id, &reason).await;
                    set_aside += 1;
                    continue;
                }
            };
            if table.unjoined() && inner.expired(saved.created_ms) {
                persist::expire(&inner.db, &saved.id).await?;
                expired += 1;
                continue;
            }
            inner.spawn(table, saved.created_ms);
            loaded += 1;
        }
        tracing::info!(loaded, expired, set_aside, "online games restored");
        Ok(Online { inner })
    }

    /// At a graceful stop: each game running here whose clock runs stores the time that
    /// clock has left (or its fallen flag), so that after the restart the turn goes on from
    /// there. Returns how many did.
    pub(crate) async fn pause_all(&self) -> usize {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let mut answers = Vec::new();
        // Every game is asked first, so that their writes share commits.
        for (_, cmds) in self.inner.local_actors() {
            let (reply, answer) = actor::Reply::new();
            let sent = tokio::time::timeout_at(deadline, cmds.send(Cmd::Pause { reply })).await;
            if matches!(sent, Ok(Ok(()))) {
                answers.push(answer);
            }
        }
        let mut paused = 0;
        for answer in answers {
            if let Ok(Ok(Ok(true))) = tokio::time::timeout_at(deadline, answer).await {
                paused += 1;
            }
        }
        paused
    }

    /// Creates a game and seats its creator.
    pub async fn create(&self, req: wire::CreateGame) -> Result<wire::Seated, ApiError> {
        let bad = |e: String| ApiError::BadRequest(e);
        let clock = req.clock.unwrap_or_default();
        crate::clock::check_clock(clock)?;
        let forbidden_loses = match req.forbidden.as_deref().unwrap_or("lose") {
            "lose" => true,
            "refuse" => false,
            other => {
                return Err(bad(format!(
                    "unknown forbidden-move policy {other:?} (lose or refuse)"
                )));
            }
        };
        let parse_name = |s: Option<&str>, default: &str| s.unwrap_or(default).to_string();
        let settings = TableSettings {
            rule: parse_name(req.rule.as_deref(), "freestyle"),
            size: parse_name(req.size.as_deref(), "15"),
            opening: parse_name(req.opening.as_deref(), "free"),
            clock,
            forbidden_loses,
            listed: req.listed.unwrap_or(true),
        };
        // Check the settings, and write them in their canonical form.
        let game = settings.new_game().map_err(bad)?;
        let size = game.board().size();
        let settings = TableSettings {
            rule: game.rule().name().to_string(),
            size: size.to_string(),
            opening: game.opening().to_string(),
            ..settings
        };
        let first = match req.color.as_deref().unwrap_or("black") {
            "black" | "first" => true,
            "white" | "second" => false,
            "random" => {
                let mut b = [0u8; 1];
                getrandom::fill(&mut b)
                    .map_err(|e| ApiError::Engine(format!("no randomness: {e}")))?;
                b[0] & 1 == 0
            }
            other => {
                return Err(bad(format!(
                    "unknown colour {other:?} (black, white or random)"
                )));
            }
        };
        let token = random_hex(16)?;
        let player = Player {
            name: player_name(req.name.as_deref())?,
            token_hash: hash_token(&token),
        };
        let players = if first {
            [Some(player), None]
        } else {
            [None, Some(player)]
        };
        let id = self.inner.start_game(settings, players).await?;
        Ok(seated(
            id,
            if first { Role::First } else { Role::Second },
            token,
        ))
    }

    /// Seats a second player.
    pub async fn join(&self, id: &str, req: wire::JoinGame) -> Result<wire::Seated, ApiError> {
        let name = player_name(req.name.as_deref())?;
        let token = random_hex(16)?;
        let token_hash = hash_token(&token);
        let answer = self
            .inner
            .ask(id, |reply| Cmd::Join {
                name: name.clone(),
                token_hash: token_hash.clone(),
                reply,
            })
            .await?;
        match answer {
            Ok(role) => Ok(seated(id.to_string(), role, token)),
            Err(JoinError::Full) => Err(ApiError::Conflict(
                "both seats are taken; you can watch".into(),
            )),
            Err(JoinError::Store(e)) => Err(ApiError::Engine(format!(
                "the seat could not be stored: {e}"
            ))),
        }
    }

    /// The state of a game.
    pub async fn state(&self, id: &str) -> Result<GameState, ApiError> {
        self.inner.ask(id, |reply| Cmd::State { reply }).await
    }

    /// The game and its players' names.
    pub async fn record(
        &self,
        id: &str,
    ) -> Result<(tengen_rules::Game, [Option<String>; 2]), ApiError> {
        self.inner.ask(id, |reply| Cmd::Record { reply }).await
    }

    /// Says hello for a new connection.
    pub(crate) async fn connect(
        &self,
        id: &str,
        token: Option<String>,
        name: Option<String>,
    ) -> Result<(Connected, mpsc::Sender<Cmd>), ApiError> {
        for _ in 0..3 {
            let cmds = self.inner.handle(id).await?;
            let (reply, answer) = Reply::new();
            let cmd = Cmd::Connect {
                token: token.clone(),
                name: name.clone(),
                reply,
            };
            if cmds.send(cmd).await.is_err() {
                continue;
            }
            match answer.await {
                Ok(Ok(Ok(c))) => return Ok((c, cmds)),
                Ok(Ok(Err(e))) => return Err(ApiError::Conflict(e)),
                Ok(Err(Failed)) => return Err(failed(id)),
                Err(_) => continue,
            }
        }
        Err(ApiError::Conflict(format!("game {id} is busy; try again")))
    }

    /// The lobby: the games of this node and, with other nodes, theirs.
    pub fn lobby(&self) -> Lobby {
        let (mut open, mut live) = self.inner.local_lobby();
        if let Some(cluster) = &self.inner.cluster {
            let (o, l) = cluster.peer_games();
            open.extend(o);
            live.extend(l);
        }
        open.sort_by_key(|(g, created)| (std::cmp::Reverse(*created), g.id.clone()));
        live.sort_by_key(|g| {
            (
                std::cmp::Reverse(g.spectators),
                std::cmp::Reverse(g.moves),
                g.id.clone(),
            )
        });
        Lobby {
            open: open.into_iter().take(LOBBY_SIZE).map(|(g, _)| g).collect(),
            live: live.into_iter().take(LOBBY_SIZE).collect(),
        }
    }

    /// What the server holds: this node and, with other nodes, all of them.
    pub fn stats(&self) -> Stats {
        let mut stats = self.inner.local_stats();
        if let Some(cluster) = &self.inner.cluster {
            cluster.add_peer_stats(&mut stats);
        }
        stats
    }
}

fn seated(id: String, role: Role, token: String) -> wire::Seated {
    wire::Seated {
        invite: format!("/#online={id}"),
        ws: format!("/api/online/{id}/ws"),
        id,
        role,
        token,
    }
}

/// The process's resident memory (Linux), or 0.
fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}
