//! Several nodes serving one site: the same PostgreSQL database and a Redis server for messages
//! between the nodes (pub/sub).
//!
//! Each live game runs on one node at a time, its owner, which holds the game's lease in the
//! database (`online_leases`). Each node renews its heartbeat (`online_nodes`) every second; the
//! leases of a node whose heartbeat is older than [`LEASE_MS`] may be taken by any node. A node
//! asked about a game it does not own runs a proxy for it: a task with the same command queue
//! as a game's own, which forwards each command to the owner over the bus and answers with the
//! owner's reply, and which relays the owner's broadcasts (published on the game's channel) to
//! the connections on its node. So a player on node A and one on node B play the same game,
//! spectators anywhere.
//!
//! When the owner dies, its heartbeat runs out; every node looks for live games no live node
//! runs every [`SWEEP_EVERY`] and takes them over, replaying them from the event log (every
//! acknowledged move is in it: a move is stored before anyone hears of it), and tells the other
//! nodes, whose proxies for the game then end, closing their connections, which reconnect and
//! find the new owner. A node stores a game's events (and closes it unjoined) only while it
//! holds the game's lease, checked in the same transaction (`persist`): a node that lost a game
//! stores nothing more of it, and the game leaves it.
//!
//! The lobby and the statistics span the nodes: each node publishes what it runs every
//! [`REPORT_EVERY`], and each merges the others' latest reports with its own.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc, oneshot};

use super::actor::{Cmd, Connected, Failed, JoinError, Reply};
use super::table::Action;
use super::{Entry, GAME_QUEUE, Inner, persist, unix_ms};
use tengen_wire::{ChatLine, GameState, LobbyGame, Role, Stats};

/// How long a lease lasts unless renewed, in milliseconds: how soon, at most, after its owner
/// dies a game is taken over (plus up to one sweep).
pub(crate) const LEASE_MS: u64 = 5_000;
/// How often a node renews its leases.
const RENEW_EVERY: Duration = Duration::from_secs(1);
/// How often a node looks for live games no node runs.
const SWEEP_EVERY: Duration = Duration::from_secs(2);
/// How long the sweep remembers taking a game over once it may take it again.
const TAKEN_FORGOTTEN: Duration = Duration::from_secs(600);
/// How often a node tells the others what it runs.
const REPORT_EVERY: Duration = Duration::from_secs(1);
/// How long a node's report counts when no newer one comes: a dead node's games leave the
/// lobby after this.
const REPORT_FRESH: Duration = Duration::from_millis(3_500);
/// How long a proxy waits for the owner's answer before it looks whether the owner still holds
/// the game's lease: a busy owner is waited for (up to [`ASK_LIMIT`]), a dead one is not.
const ASK_TIMEOUT: Duration = Duration::from_secs(3);
/// The longest a proxy waits for an answer from an owner that keeps its lease.
const ASK_LIMIT: Duration = Duration::from_secs(30);
/// How long a proxy with no connection and no command stays.
const PROXY_IDLE: Duration = Duration::from_secs(30);
/// How many relayed messages a slow connection on a proxy may fall behind.
const RELAY_BUFFER: usize = 64;

/// A game being loaded (or made) on this node; see [`Cluster::loading`].
pub(crate) struct LoadingGuard {
    cluster: Arc<Cluster>,
    id: String,
}

impl Drop for LoadingGuard {
    fn drop(&mut self) {
        lock(&self.cluster.loading).remove(&self.id);
    }
}

/// Why the bus could not be used.
#[derive(Debug, thiserror::Error)]
#[error("message bus {url}: {source}")]
pub struct BusError {
    url: String,
    source: redis::RedisError,
}

/// A command forwarded to a game's owner.
#[derive(Debug, Serialize, Deserialize)]
enum Ask {
    Connect {
        token: Option<String>,
        name: Option<String>,
    },
    Disconnect {
        role: Role,
    },
    Act {
        role: Role,
        action: Action,
    },
    Chat {
        line: ChatLine,
    },
    Join {
        name: String,
        token_hash: String,
    },
    State,
}

/// Why a forwarded join failed.
#[derive(Debug, Serialize, Deserialize)]
enum JoinRefused {
    Full,
    Store(String),
}

/// The owner's answer.
#[derive(Debug, Serialize, Deserialize)]
enum Answer {
    /// Role, name and first frames; or why not.
    Connected(Result<(Role, String, Vec<String>), String>),
    Done(Result<(), String>),
    Joined(Result<Role, JoinRefused>),
    State(Box<GameState>),
    /// No answer is due (a leaving).
    Noted,
    /// The game failed on the command and was rebuilt from its record.
    Failed,
    /// The node does not run the game (any more).
    NotOwner,
}

#[derive(Debug, Serialize, Deserialize)]
enum Envelope {
    Ask {
        req: u64,
        from: String,
        game: String,
        ask: Ask,
    },
    Answer {
        req: u64,
        answer: Answer,
    },
}

/// What a node runs, for the others' lobbies and statistics.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Report {
    node: String,
    /// Open games listed in the lobby, with when each was made (ms since the epoch).
    open: Vec<(LobbyGame, u64)>,
    live: Vec<LobbyGame>,
    stats: Stats,
}

/// This node's part in the site.
pub(crate) struct Cluster {
    /// This node's name in the leases, and the channel other nodes send it commands on.
    pub(crate) node: String,
    /// This process's own name on the bus: the node's name and random digits, new at every
    /// start, for answers and reports (a node restarted under the same name is another
    /// process: the connections the old one relayed are gone).
    bus_id: String,
    url: String,
    client: redis::Client,
    publisher: redis::aio::ConnectionManager,
    /// Subscribes and unsubscribes, one at a time (a proxy's subscription must not be undone
    /// by an older proxy's unsubscription); replaced when the bus reconnects.
    sink: tokio::sync::Mutex<redis::aio::PubSubSink>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Answer>>>,
    next_req: AtomicU64,
    /// Games this node runs proxies for: where their relayed broadcasts go.
    relays_in: Mutex<HashMap<String, broadcast::Sender<Arc<str>>>>,
    /// Games this node runs whose broadcasts it publishes.
    /// (By game, the run of the game there: a game that leaves memory and comes back is a new
    /// run with a new broadcast.)
    relays_out: Mutex<HashMap<String, u64>>,
    peers: Mutex<HashMap<String, (Instant, Report)>>,
    /// Games this node holds the lease of and is loading: renewal keeps their leases.
    loading: Mutex<HashSet<String>>,
    /// Connections other nodes' proxies opened to the games this node runs: by node, the game,
    /// the role and when. A node that stops reporting loses them (its players are gone).
    remote: Mutex<Vec<(String, String, Role, Instant)>>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("node", &self.node)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change under these locks is a single insert, remove or replace.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn node_channel(node: &str) -> String {
    format!("tengen:node:{node}")
}

fn game_channel(game: &str) -> String {
    format!("tengen:game:{game}")
}

const NODES_CHANNEL: &str = "tengen:nodes";

/// The start of a notice on a game's channel that a node runs the game now (the broadcasts
/// there are JSON, which never starts so).
const OWNER_NOTICE: &str = "\u{1}owner ";
/// The start of a notice on a game's channel that a node no longer runs the game.
const GONE_NOTICE: &str = "\u{1}gone ";

impl Cluster {
    /// Connects to the bus at `url` as node `node`, subscribed to its own channel and the
    /// nodes' reports; the messages arrive on the stream returned, for [`Cluster::run`].
    pub(crate) async fn connect(
        url: &str,
        node: String,
    ) -> Result<(Cluster, redis::aio::PubSubStream), BusError> {
        let err = |source| BusError {
            url: crate::store::redacted_url(url),
            source,
        };
        let client = redis::Client::open(url).map_err(err)?;
        let publisher = redis::aio::ConnectionManager::new(client.clone())
            .await
            .map_err(err)?;
        let salt = super::random_hex(4).map_err(|e| {
            err(redis::RedisError::from(std::io::Error::other(
                e.to_string(),
            )))
        })?;
        let bus_id = format!("{node}.{salt}");
        let (sink, stream) = subscribe_base(&client, &node, &bus_id).await.map_err(err)?;
        Ok((
            Cluster {
                node,
                bus_id,
                url: url.to_string(),
                client,
                publisher,
                sink: tokio::sync::Mutex::new(sink),
                pending: Mutex::new(HashMap::new()),
                next_req: AtomicU64::new(1),
                relays_in: Mutex::new(HashMap::new()),
                relays_out: Mutex::new(HashMap::new()),
                peers: Mutex::new(HashMap::new()),
                loading: Mutex::new(HashSet::new()),
                remote: Mutex::new(Vec::new()),
            },
            stream,
        ))
    }

    async fn publish(&self, channel: String, payload: &str) {
        let mut conn = self.publisher.clone();
        let sent: redis::RedisResult<usize> = redis::cmd("PUBLISH")
            .arg(&channel)
            .arg(payload)
            .query_async(&mut conn)
            .await;
        if let Err(e) = sent {
            tracing::warn!(%channel, error = %e, "could not publish on the bus");
        }
    }

    async fn send(&self, node: &str, envelope: &Envelope) {
        // Our own types always serialise.
        let text = serde_json::to_string(envelope).unwrap_or_default();
        self.publish(node_channel(node), &text).await;
    }

    /// Forwards `ask` about `game` to `owner`; `None` when no answer came while the owner held
    /// the game's lease (or within [`ASK_LIMIT`]).
    async fn ask(
        &self,
        db: &crate::store::Db,
        owner: &str,
        game: &str,
        ask: Ask,
    ) -> Option<Answer> {
        let req = self.next_req.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(req, tx);
        let envelope = Envelope::Ask {
            req,
            from: self.bus_id.clone(),
            game: game.to_string(),
            ask,
        };
        self.send(owner, &envelope).await;
        let started = Instant::now();
        let mut rx = rx;
        let answer = loop {
            match tokio::time::timeout(ASK_TIMEOUT, &mut rx).await {
                Ok(answer) => break answer.ok(),
                Err(_) if started.elapsed() < ASK_LIMIT => {
                    let holder = persist::lease_holder(db, game, unix_ms()).await;
                    if !matches!(holder, Ok(Some(h)) if h == owner) {
                        break None;
                    }
                }
                Err(_) => break None,
            }
        };
        lock(&self.pending).remove(&req);
        answer
    }

    async fn subscribe(&self, channel: String) -> bool {
        self.sink.lock().await.subscribe(&channel).await.is_ok()
    }

    /// Sends `ask` to `owner` without waiting for the answer.
    async fn tell(&self, owner: &str, game: &str, ask: Ask) {
        let envelope = Envelope::Ask {
            // No answer is waited for under number 0.
            req: 0,
            from: self.bus_id.clone(),
            game: game.to_string(),
            ask,
        };
        self.send(owner, &envelope).await;
    }

    /// Tells the nodes with proxies for game `id` that this node runs it now: they drop them,
    /// and their connections reconnect to it.
    pub(crate) fn announce_owner(self: &Arc<Self>, id: &str) {
        let (cluster, id) = (self.clone(), id.to_string());
        tokio::spawn(async move {
            let notice = format!("{OWNER_NOTICE}{}", cluster.node);
            cluster.publish(game_channel(&id), &notice).await;
        });
    }

    /// Marks game `id` as being loaded (or made) here until the guard drops: renewal keeps
    /// its lease meanwhile. Taken before the lease, so that renewal never sees the lease
    /// without the mark.
    pub(crate) fn loading(self: &Arc<Self>, id: &str) -> LoadingGuard {
        lock(&self.loading).insert(id.to_string());
        LoadingGuard {
            cluster: self.clone(),
            id: id.to_string(),
        }
    }

    /// Tells the nodes with proxies for game `id` that point here that it no longer runs here:
    /// they drop them, and their connections reconnect to wherever it runs next.
    pub(crate) async fn announce_gone(&self, id: &str) {
        let notice = format!("{GONE_NOTICE}{}", self.node);
        self.publish(game_channel(id), &notice).await;
    }

    /// The other nodes' reports still fresh.
    fn fresh_reports(&self) -> Vec<Report> {
        let mut peers = lock(&self.peers);
        peers.retain(|_, (at, _)| at.elapsed() < REPORT_FRESH);
        peers.values().map(|(_, r)| r.clone()).collect()
    }

    /// The other nodes' open and live games, for the lobby.
    pub(crate) fn peer_games(&self) -> (Vec<(LobbyGame, u64)>, Vec<LobbyGame>) {
        let mut open = Vec::new();
        let mut live = Vec::new();
        for r in self.fresh_reports() {
            open.extend(r.open);
            live.extend(r.live);
        }
        (open, live)
    }

    /// Adds the other nodes' statistics to `stats`.
    pub(crate) fn add_peer_stats(&self, stats: &mut Stats) {
        for r in self.fresh_reports() {
            stats.games += r.stats.games;
            stats.live += r.stats.live;
            stats.connections += r.stats.connections;
            stats.moves += r.stats.moves;
            stats.rss_bytes += r.stats.rss_bytes;
        }
    }
}

/// A new subscription to the bus: this node's channel and the nodes' reports.
async fn subscribe_base(
    client: &redis::Client,
    node: &str,
    bus_id: &str,
) -> redis::RedisResult<(redis::aio::PubSubSink, redis::aio::PubSubStream)> {
    let (mut sink, stream) = client.get_async_pubsub().await?.split();
    sink.subscribe(node_channel(node)).await?;
    sink.subscribe(node_channel(bus_id)).await?;
    sink.subscribe(NODES_CHANNEL).await?;
    Ok((sink, stream))
}

/// Starts this node's part: the bus's reader, lease renewal, the sweep for games no node runs,
/// and the reports.
pub(crate) fn start(cluster: &Arc<Cluster>, inner: &Arc<Inner>, stream: redis::aio::PubSubStream) {
    tokio::spawn(read_bus(cluster.clone(), Arc::downgrade(inner), stream));
    tokio::spawn(renew(cluster.clone(), Arc::downgrade(inner)));
    tokio::spawn(sweep(Arc::downgrade(inner)));
    tokio::spawn(report(cluster.clone(), Arc::downgrade(inner)));
}

/// Reads the bus until the node stops, reconnecting when the bus connection drops.
async fn read_bus(cluster: Arc<Cluster>, inner: Weak<Inner>, mut stream: redis::aio::PubSubStream) {
    loop {
        while let Some(msg) = stream.next().await {
            let Some(inner) = inner.upgrade() else { return };
            dispatch(
                &cluster,
                &inner,
                msg.get_channel_name(),
                msg.get_payload_bytes(),
            );
        }
        tracing::warn!(bus = %crate::store::redacted_url(&cluster.url), "the message bus connection dropped; reconnecting");
        loop {
            if inner.strong_count() == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
            // Under the sink's lock, so that no proxy subscribes on the old connection between
            // the copy of the games and the swap.
            let mut current = cluster.sink.lock().await;
            let Ok((mut sink, s)) =
                subscribe_base(&cluster.client, &cluster.node, &cluster.bus_id).await
            else {
                continue;
            };
            let games: Vec<String> = lock(&cluster.relays_in).keys().cloned().collect();
            let mut ok = true;
            for g in games {
                ok &= sink.subscribe(game_channel(&g)).await.is_ok();
            }
            if ok {
                *current = sink;
                stream = s;
                tracing::info!("the message bus is back");
                // Notices and broadcasts sent meanwhile are lost: the proxies start afresh.
                if let Some(inner) = inner.upgrade() {
                    inner.drop_all_proxies();
                }
                break;
            }
        }
    }
}

fn dispatch(cluster: &Arc<Cluster>, inner: &Arc<Inner>, channel: &str, payload: &[u8]) {
    if let Some(game) = channel.strip_prefix("tengen:game:") {
        if let Some(owner) = payload.strip_prefix(OWNER_NOTICE.as_bytes()) {
            let owner = String::from_utf8_lossy(owner);
            if owner != cluster.node {
                inner.drop_proxy_if(game, |o| o != owner);
            }
            return;
        }
        if let Some(gone) = payload.strip_prefix(GONE_NOTICE.as_bytes()) {
            let gone = String::from_utf8_lossy(gone);
            inner.drop_proxy_if(game, |o| o == gone);
            return;
        }
        if let Some(tx) = lock(&cluster.relays_in).get(game) {
            let text = String::from_utf8_lossy(payload);
            // No connection listening is fine.
            let _ = tx.send(Arc::from(text.as_ref()));
        }
        return;
    }
    if channel == NODES_CHANNEL {
        if let Ok(report) = serde_json::from_slice::<Report>(payload)
            && report.node != cluster.bus_id
        {
            lock(&cluster.peers).insert(report.node.clone(), (Instant::now(), report));
        }
        return;
    }
    match serde_json::from_slice::<Envelope>(payload) {
        Ok(Envelope::Answer { req, answer }) => {
            if let Some(tx) = lock(&cluster.pending).remove(&req) {
                let _ = tx.send(answer);
            }
        }
        Ok(Envelope::Ask {
            req,
            from,
            game,
            ask,
        }) => {
            let (cluster, inner) = (cluster.clone(), inner.clone());
            tokio::spawn(async move {
                let answer = serve_ask(&cluster, &inner, &from, &game, ask).await;
                if req != 0 {
                    cluster.send(&from, &Envelope::Answer { req, answer }).await;
                }
            });
        }
        Err(e) => tracing::warn!(error = %e, "a message on the bus could not be read"),
    }
}

/// Carries out a command forwarded by another node on a game this node runs.
async fn serve_ask(
    cluster: &Arc<Cluster>,
    inner: &Arc<Inner>,
    from: &str,
    game: &str,
    ask: Ask,
) -> Answer {
    // A leaving is no longer counted against the sender's node, whatever runs the game now.
    if let Ask::Disconnect { role } = &ask {
        let mut remote = lock(&cluster.remote);
        if let Some(i) = remote
            .iter()
            .position(|(n, g, r, _)| n == from && g == game && r == role)
        {
            remote.swap_remove(i);
        }
    }
    let (cmds, run) = match inner.local_actor_run(game) {
        Some(found) => found,
        // The lease may be this node's with the game not loaded (a restart under the same
        // name): loading it here answers; otherwise the asker finds the owner again.
        // A leaving needs no game loaded for it.
        None if matches!(ask, Ask::Disconnect { .. }) => return Answer::Noted,
        None => match persist::lease_holder(&inner.db, game, unix_ms()).await {
            Ok(Some(holder)) if holder == cluster.node => match inner.handle(game).await {
                Ok(_) => match inner.local_actor_run(game) {
                    Some(found) => found,
                    None => return Answer::NotOwner,
                },
                Err(_) => return Answer::NotOwner,
            },
            _ => return Answer::NotOwner,
        },
    };
    macro_rules! asked {
        ($variant:ident { $($field:ident),* }) => {{
            let (reply, answer) = Reply::new();
            if cmds.send(Cmd::$variant { $($field,)* reply }).await.is_err() {
                return Answer::NotOwner;
            }
            match answer.await {
                Ok(Ok(v)) => v,
                Ok(Err(Failed)) => return Answer::Failed,
                Err(_) => return Answer::NotOwner,
            }
        }};
    }
    match ask {
        Ask::Connect { token, name } => match asked!(Connect { token, name }) {
            Ok(c) => {
                lock(&cluster.remote).push((
                    from.to_string(),
                    game.to_string(),
                    c.role,
                    Instant::now(),
                ));
                relay_out(cluster, game, run, c.updates);
                Answer::Connected(Ok((
                    c.role,
                    c.name,
                    c.first.iter().map(|f| f.to_string()).collect(),
                )))
            }
            Err(e) => Answer::Connected(Err(e)),
        },
        Ask::Act { role, action } => Answer::Done(asked!(Act { role, action })),
        Ask::Join { name, token_hash } => {
            Answer::Joined(asked!(Join { name, token_hash }).map_err(|e| match e {
                JoinError::Full => JoinRefused::Full,
                JoinError::Store(e) => JoinRefused::Store(e),
            }))
        }
        Ask::State => Answer::State(Box::new(asked!(State {}))),
        Ask::Disconnect { role } => {
            let _ = cmds.send(Cmd::Disconnect { role }).await;
            Answer::Noted
        }
        Ask::Chat { line } => Answer::Done(asked!(Chat { line })),
    }
}

/// Publishes a game's broadcasts for the other nodes' connections, once per game, for as long
/// as the game runs here.
fn relay_out(
    cluster: &Arc<Cluster>,
    game: &str,
    run: u64,
    mut updates: broadcast::Receiver<Arc<str>>,
) {
    if lock(&cluster.relays_out).insert(game.to_string(), run) == Some(run) {
        return;
    }
    let (cluster, game) = (cluster.clone(), game.to_string());
    tokio::spawn(async move {
        let channel = game_channel(&game);
        loop {
            match updates.recv().await {
                Ok(frame) => cluster.publish(channel.clone(), &frame).await,
                // States are whole: the next one puts a lagging relay right.
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            }
        }
        let mut relays = lock(&cluster.relays_out);
        if relays.get(&game) == Some(&run) {
            relays.remove(&game);
        }
    });
}

/// Starts a proxy on this node for `game`, run by `owner`; its command queue.
pub(crate) fn spawn_proxy(
    cluster: &Arc<Cluster>,
    inner: &Arc<Inner>,
    game: &str,
    owner: String,
) -> mpsc::Sender<Cmd> {
    let (cmds, rx) = mpsc::channel(GAME_QUEUE);
    let (updates, _) = broadcast::channel(RELAY_BUFFER);
    lock(&cluster.relays_in).insert(game.to_string(), updates.clone());
    inner.games().insert(
        game.to_string(),
        Entry {
            cmds: cmds.clone(),
            summary: None,
            created: (0, 0),
            owner: Some(owner.clone()),
        },
    );
    tokio::spawn(run_proxy(
        cluster.clone(),
        inner.clone(),
        game.to_string(),
        owner,
        cmds.clone(),
        rx,
        updates,
    ));
    cmds
}

async fn run_proxy(
    cluster: Arc<Cluster>,
    inner: Arc<Inner>,
    game: String,
    owner: String,
    me: mpsc::Sender<Cmd>,
    mut rx: mpsc::Receiver<Cmd>,
    updates: broadcast::Sender<Arc<str>>,
) {
    if !cluster.subscribe(game_channel(&game)).await {
        tracing::warn!(%game, "could not subscribe to a game's channel on the bus");
    }
    let mut last_used = Instant::now();
    let mut check = tokio::time::interval(Duration::from_secs(1));
    // The roles of this node's connections the owner counts.
    let mut connected: Vec<Role> = Vec::new();
    loop {
        let cmd = tokio::select! {
            cmd = rx.recv() => cmd,
            _ = check.tick() => {
                // Replaced (the sweep found the owner dead) or idle: end.
                let ours = inner.games().get(&game).is_some_and(|e| e.cmds.same_channel(&me));
                if !ours || (updates.receiver_count() == 0 && last_used.elapsed() > PROXY_IDLE) {
                    break;
                }
                continue;
            }
        };
        let Some(cmd) = cmd else { break };
        last_used = Instant::now();
        if !forward(
            &cluster,
            &inner,
            &game,
            &owner,
            &updates,
            &mut connected,
            cmd,
        )
        .await
        {
            tracing::info!(%game, %owner, "the owner of a game did not answer; finding it again");
            break;
        }
    }
    // Leave the map first, so that a command retried after this one finds the game anew.
    {
        let mut games = inner.games();
        if games.get(&game).is_some_and(|e| e.cmds.same_channel(&me)) {
            games.remove(&game);
        }
    }
    // The owner still counts this node's connections: they leave with the proxy.
    for role in connected {
        cluster.tell(&owner, &game, Ask::Disconnect { role }).await;
    }
    // Only this proxy's relay, and the subscription only when no newer proxy uses it (decided
    // under the sink's lock, which a newer proxy's subscription also takes).
    {
        let mut relays = lock(&cluster.relays_in);
        if relays
            .get(&game)
            .is_some_and(|tx| tx.same_channel(&updates))
        {
            relays.remove(&game);
        }
    }
    let mut sink = cluster.sink.lock().await;
    if !lock(&cluster.relays_in).contains_key(&game) {
        let _ = sink.unsubscribe(game_channel(&game)).await;
    }
    // Dropping `updates` closes this node's connections to the game: they reconnect.
}

/// Passes the owner's answer to a command that expects "done or refused" on to its asker; false
/// when the owner did not answer (as for [`forward`]).
fn done_to(answer: Option<Answer>, reply: Reply<Result<(), String>>) -> bool {
    match answer {
        Some(Answer::Done(done)) => {
            let _ = reply.send(done);
            true
        }
        Some(Answer::Failed) => {
            let _ = reply.fail();
            true
        }
        _ => false,
    }
}

/// Forwards one command to the owner and answers it; false when the owner did not answer (the
/// command's asker then hears nothing and asks again).
async fn forward(
    cluster: &Cluster,
    inner: &Arc<Inner>,
    game: &str,
    owner: &str,
    updates: &broadcast::Sender<Arc<str>>,
    connected: &mut Vec<Role>,
    cmd: Cmd,
) -> bool {
    match cmd {
        Cmd::Connect { token, name, reply } => {
            // Listening before asking, so no broadcast after the first frames is missed.
            let listening = updates.subscribe();
            match cluster
                .ask(&inner.db, owner, game, Ask::Connect { token, name })
                .await
            {
                Some(Answer::Connected(Ok((role, name, first)))) => {
                    let connection = Connected {
                        role,
                        name,
                        first: first.into_iter().map(Arc::from).collect(),
                        updates: listening,
                    };
                    if reply.send(Ok(connection)) {
                        connected.push(role);
                    } else {
                        // The connection went away before it heard back.
                        cluster.tell(owner, game, Ask::Disconnect { role }).await;
                    }
                    true
                }
                Some(Answer::Connected(Err(e))) => {
                    let _ = reply.send(Err(e));
                    true
                }
                Some(Answer::Failed) => {
                    let _ = reply.fail();
                    true
                }
                _ => false,
            }
        }
        Cmd::Disconnect { role } => {
            if let Some(i) = connected.iter().position(|r| *r == role) {
                connected.swap_remove(i);
            }
            cluster
                .ask(&inner.db, owner, game, Ask::Disconnect { role })
                .await
                .is_some_and(|a| !matches!(a, Answer::NotOwner))
        }
        Cmd::Chat { line, reply } => done_to(
            cluster
                .ask(&inner.db, owner, game, Ask::Chat { line })
                .await,
            reply,
        ),
        Cmd::Act {
            role,
            action,
            reply,
        } => done_to(
            cluster
                .ask(&inner.db, owner, game, Ask::Act { role, action })
                .await,
            reply,
        ),
        Cmd::Join {
            name,
            token_hash,
            reply,
        } => match cluster
            .ask(&inner.db, owner, game, Ask::Join { name, token_hash })
            .await
        {
            Some(Answer::Joined(joined)) => {
                let _ = reply.send(joined.map_err(|e| match e {
                    JoinRefused::Full => JoinError::Full,
                    JoinRefused::Store(e) => JoinError::Store(e),
                }));
                true
            }
            Some(Answer::Failed) => {
                let _ = reply.fail();
                true
            }
            _ => false,
        },
        Cmd::State { reply } => match cluster.ask(&inner.db, owner, game, Ask::State).await {
            Some(Answer::State(state)) => {
                let _ = reply.send(*state);
                true
            }
            Some(Answer::Failed) => {
                let _ = reply.fail();
                true
            }
            _ => false,
        },
        // Only games running here are told to leave; a proxy just ends.
        Cmd::Leave => false,
        // Only games running here are paused; the owner pauses its own.
        Cmd::Pause { reply } => {
            let _ = reply.send(false);
            true
        }
        Cmd::Record { reply } => {
            // Every acknowledged event is in the store: the record is read from there.
            match inner.reload(game).await {
                Ok((table, _)) => {
                    let _ = reply.send(super::actor::record_of(&table));
                }
                Err(e) => {
                    tracing::warn!(%game, error = %e, "a game's record could not be read");
                    reply.fail();
                }
            }
            true
        }
    }
}

/// Renews this node's leases every [`RENEW_EVERY`] while the node lives.
async fn renew(cluster: Arc<Cluster>, inner: Weak<Inner>) {
    let mut every = tokio::time::interval(RENEW_EVERY);
    loop {
        every.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        let until = unix_ms() + LEASE_MS;
        if let Err(e) = persist::heartbeat(&inner.db, &cluster.node, until).await {
            tracing::warn!(error = %e, "could not renew this node's game leases");
            continue;
        }
        // A game whose lease another node took (this one was cut off for longer than a lease)
        // runs there now: it leaves this node. Its moves are safe either way: the event log
        // takes each move number once, so a move this node could still make is refused.
        let held: HashSet<String> = match persist::leases_of(&inner.db, &cluster.node).await {
            Ok(held) => held.into_iter().collect(),
            Err(e) => {
                tracing::warn!(error = %e, "could not read this node's game leases");
                continue;
            }
        };
        // Loading first: a game that finishes loading in between is then in one list or the
        // other.
        let loading = lock(&cluster.loading).clone();
        let local = inner.local_actors();
        for (id, cmds) in &local {
            if !held.contains(id) && persist::lease_taken(&inner.db, id, &cluster.node).await {
                tracing::warn!(game = %id, "another node took this game's lease: it leaves this node");
                // Not awaited here: a full queue must not hold up the renewal of every lease.
                let cmds = cmds.clone();
                tokio::spawn(async move { cmds.send(Cmd::Leave).await });
            }
        }
        // A lease this node holds for a game it does not run (left over from a process of the
        // same name, or a release that failed) would keep the game from every node: it goes.
        let running: HashSet<&String> = local.iter().map(|(id, _)| id).collect();
        for id in held
            .iter()
            .filter(|id| !running.contains(id) && !loading.contains(*id))
        {
            if let Err(e) = persist::release_lease(&inner.db, id, &cluster.node).await {
                tracing::warn!(game = %id, error = %e, "could not give up a game's lease");
            }
        }
    }
}

/// Takes over, every [`SWEEP_EVERY`], the live games no node runs (their owner died).
async fn sweep(inner: Weak<Inner>) {
    let mut every = tokio::time::interval(SWEEP_EVERY);
    // The games this sweep took over, with how often and when it may next: a game that leaves
    // this live node again soon after (it failed again and again) is taken over less and less
    // often, not every sweep.
    let mut taken: HashMap<String, (u32, Instant)> = HashMap::new();
    loop {
        every.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        let orphans = match persist::orphans(&inner.db, unix_ms()).await {
            Ok(o) => o,
            Err(e) => {
                tracing::warn!(error = %e, "could not look for games no node runs");
                continue;
            }
        };
        let now = Instant::now();
        taken.retain(|_, (_, next)| now < *next + TAKEN_FORGOTTEN);
        for id in orphans {
            if taken.get(&id).is_some_and(|(_, next)| now < *next) {
                continue;
            }
            // A proxy for a game whose owner died goes (it sees it is no longer in the map).
            inner.drop_proxy_if(&id, |_| true);
            match inner.handle(&id).await {
                Ok(_) => tracing::info!(game = %id, "took over a game no node ran"),
                Err(e) => tracing::warn!(game = %id, error = %e, "could not take over a game"),
            }
            let (times, next) = taken.entry(id).or_insert((0, now));
            *times += 1;
            *next = now + SWEEP_EVERY * 2u32.pow((*times).min(6));
        }
    }
}

/// Publishes what this node runs every [`REPORT_EVERY`].
async fn report(cluster: Arc<Cluster>, inner: Weak<Inner>) {
    let mut every = tokio::time::interval(REPORT_EVERY);
    loop {
        every.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        let (open, live) = inner.local_lobby();
        let report = Report {
            node: cluster.bus_id.clone(),
            open,
            live,
            stats: inner.local_stats(),
        };
        let text = serde_json::to_string(&report).unwrap_or_default();
        cluster.publish(NODES_CHANNEL.to_string(), &text).await;
        // The connections of nodes that stopped reporting are gone: their players' grace
        // periods start, and a finished game can leave memory.
        let live: HashSet<String> = cluster
            .fresh_reports()
            .into_iter()
            .map(|r| r.node)
            .collect();
        let gone: Vec<(String, String, Role, Instant)> = {
            let mut remote = lock(&cluster.remote);
            let (gone, kept) = std::mem::take(&mut *remote)
                .into_iter()
                .partition(|(node, _, _, at)| !live.contains(node) && at.elapsed() > REPORT_FRESH);
            *remote = kept;
            gone
        };
        for (node, game, role, _) in gone {
            tracing::info!(%game, %node, "a connection through a node that went silent is gone");
            if let Some(cmds) = inner.local_actor(&game) {
                let _ = cmds.send(Cmd::Disconnect { role }).await;
            }
        }
    }
}
