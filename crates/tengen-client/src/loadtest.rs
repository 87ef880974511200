//! `tengen loadtest`: N simulated games at once against a server's online play, over loopback,
//! measuring each move's round trip and the server's memory.
//!
//! For each game one simulated player creates it (unlisted), another joins, both open their
//! WebSocket and play random legal moves (an empty point near the stones, tracked from the state
//! frames) after a think time of `think_ms` ± 50%. A game that ends is replaced by a fresh one,
//! so N stay in play until the duration is over. Every player is a task on one multi-threaded
//! runtime.
//!
//! A move's round trip runs from sending its frame to receiving the first state frame that
//! holds it. The server's `/api/online/stats` is read before the first game and twice a second
//! after; the peak is the sample with the most open connections (all games in play; the larger
//! rss among equals), and the memory per game is (rss at the peak − rss before the games) / the
//! live games the server added (N, unless other generators play against the same server).
//! The largest rss seen is reported too: the allocator seldom gives memory back, so it may come
//! later, as games are replaced.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;
use tengen_wire::{ClientMsg, CreateGame, GameState, JoinGame, Role, ServerMsg, Stats};
use tokio::time::Instant;

use crate::online::{OnlineClient, OnlineError, Socket};

/// How long after the end a player still waits for the answer to a move in flight.
const DRAIN: Duration = Duration::from_secs(5);
/// A move with no answer after this long counts as an error, and its game is given up.
const MOVE_TIMEOUT: Duration = Duration::from_secs(30);
/// How often the server's stats are read.
const SAMPLE_EVERY: Duration = Duration::from_millis(500);
/// Pause after a failure before a game slot tries again, so a failing server is not hammered.
const RETRY_PAUSE: Duration = Duration::from_secs(1);
/// How many error messages the report keeps.
const KEEP_ERRORS: usize = 10;
/// The open-files soft limit most systems give a process.
const USUAL_SOFT_LIMIT: u64 = 1024;
/// Files the load test needs besides its WebSockets (HTTP connections, standard streams...).
const SPARE_FILES: u64 = 64;

/// What `tengen loadtest` is asked to do.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// The server: `http://host:port`; with several (nodes serving one site), each game is
    /// made on one and joined through the next, so its players sit on different nodes.
    pub servers: Vec<String>,
    /// Games kept in play at once.
    pub games: usize,
    /// Mean think time before each move, in milliseconds (each is drawn from ±50% of it).
    pub think_ms: u64,
    /// How long to play, from the first game's start.
    pub duration: Duration,
    /// Over how long the games start, evenly spread (at most half the duration).
    pub ramp: Duration,
    /// The board size: `15`, `19`, `16x14`, `unbounded`...
    pub size: String,
}

/// Why the load test could not run.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The server could not be asked for its stats before the games.
    #[error(transparent)]
    Online(#[from] OnlineError),
    /// The settings make no sense.
    #[error("{0}")]
    Config(String),
    /// The runtime could not start, or a task died.
    #[error("internal: {0}")]
    Internal(String),
}

/// What the load test measured.
#[derive(Clone, Debug, Serialize)]
pub struct LoadReport {
    /// The server.
    pub server: String,
    /// Games kept in play at once.
    pub games: usize,
    /// Mean think time, milliseconds.
    pub think_ms: u64,
    /// Seconds from the first game's start to the end of play.
    pub duration_secs: f64,
    /// Seconds over which the games started.
    pub ramp_secs: f64,
    /// Moves whose round trip completed.
    pub moves: u64,
    /// Moves a second over the duration.
    pub moves_per_sec: f64,
    /// Median round trip, milliseconds (none without moves).
    pub p50_ms: Option<f64>,
    /// 90th percentile round trip, milliseconds.
    pub p90_ms: Option<f64>,
    /// 99th percentile round trip, milliseconds.
    pub p99_ms: Option<f64>,
    /// Slowest round trip, milliseconds.
    pub max_ms: Option<f64>,
    /// Frames the server refused with an `error` frame.
    pub refused: u64,
    /// Everything else that went wrong: error statuses, connections closed during a game,
    /// moves never answered, frames that could not be read.
    pub errors: u64,
    /// HTTP calls and WebSockets that could not connect.
    pub failed_connections: u64,
    /// Games created and joined.
    pub games_started: u64,
    /// Games played to their end.
    pub games_finished: u64,
    /// The server's stats before the first game.
    pub stats_start: Stats,
    /// The server's stats at the peak: the most open connections.
    pub stats_peak: Stats,
    /// The largest rss the server reported during the run, in bytes.
    pub rss_max_bytes: u64,
    /// (rss at the peak − rss before the games) / games, in bytes.
    pub memory_per_game_bytes: Option<i64>,
    /// The open-files limit of this process after raising it (none where unknown).
    pub open_files_limit: Option<u64>,
    /// Open files this run needs: two WebSockets a game and some spare.
    pub open_files_needed: u64,
    /// The first few error messages.
    pub error_samples: Vec<String>,
    /// Things to know when reading the numbers (limits that bound the run).
    pub notes: Vec<String>,
}

impl LoadReport {
    /// The report as lines for people.
    pub fn to_text(&self) -> String {
        let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2} ms"));
        let mib = |b: u64| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0));
        let stats = |s: &Stats| {
            format!(
                "{} games ({} live), {} connections, rss {}",
                s.games,
                s.live,
                s.connections,
                mib(s.rss_bytes)
            )
        };
        let mut out = format!(
            "Load test of {}: {} games for {:.1} s (started over {:.1} s), think {} ms ± 50%\n",
            self.server, self.games, self.duration_secs, self.ramp_secs, self.think_ms
        );
        out += &format!(
            "moves            {} ({:.1}/s)\n",
            self.moves, self.moves_per_sec
        );
        out += &format!(
            "round trip       p50 {}, p90 {}, p99 {}, max {}\n",
            ms(self.p50_ms),
            ms(self.p90_ms),
            ms(self.p99_ms),
            ms(self.max_ms)
        );
        out += &format!(
            "games            {} started, {} finished\n",
            self.games_started, self.games_finished
        );
        out += &format!(
            "problems         {} refused, {} errors, {} failed connections\n",
            self.refused, self.errors, self.failed_connections
        );
        out += &format!("server before    {}\n", stats(&self.stats_start));
        out += &format!("server at peak   {}\n", stats(&self.stats_peak));
        out += &format!("largest rss      {}\n", mib(self.rss_max_bytes));
        if let Some(b) = self.memory_per_game_bytes {
            out += &format!(
                "memory per game  {:.1} KiB (rss at peak − rss before, over the {} games the server added)\n",
                b as f64 / 1024.0,
                self.stats_peak.live.saturating_sub(self.stats_start.live)
            );
        }
        out += &format!(
            "open files       limit {}, needed about {}\n",
            self.open_files_limit
                .map_or("unknown".to_string(), |l| l.to_string()),
            self.open_files_needed
        );
        for e in &self.error_samples {
            out += &format!("error: {e}\n");
        }
        for n in &self.notes {
            out += &format!("note: {n}\n");
        }
        out
    }
}

/// Runs the load test on its own multi-threaded runtime.
pub fn run(config: &LoadConfig) -> Result<LoadReport, LoadError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| LoadError::Internal(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(run_async(config))
}

/// Counts shared by every task.
#[derive(Debug, Default)]
struct Counters {
    refused: AtomicU64,
    errors: AtomicU64,
    failed_connections: AtomicU64,
    games_started: AtomicU64,
    games_finished: AtomicU64,
    samples: Mutex<Vec<String>>,
}

impl Counters {
    fn note(&self, text: String) {
        let mut s = self.samples.lock().unwrap_or_else(|e| e.into_inner());
        if s.len() < KEEP_ERRORS {
            s.push(text);
        }
    }

    fn error(&self, text: String) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        self.note(text);
    }

    fn refused(&self, text: String) {
        self.refused.fetch_add(1, Ordering::Relaxed);
        self.note(text);
    }

    /// A failed call: no connection at all, or an answer that is not the API's.
    fn online(&self, what: &str, e: &OnlineError) {
        let text = format!("{what}: {}", e.full_text());
        match e {
            OnlineError::Http { .. } | OnlineError::WebSocket { .. } => {
                self.failed_connections.fetch_add(1, Ordering::Relaxed);
                self.note(text);
            }
            _ => self.error(text),
        }
    }
}

#[derive(Debug)]
struct Ctx {
    servers: Vec<OnlineClient>,
    size: String,
    think_ms: u64,
    deadline: Instant,
    counters: Counters,
}

/// [`run`] on the caller's runtime (which must be multi-threaded to load the server fully).
pub async fn run_async(config: &LoadConfig) -> Result<LoadReport, LoadError> {
    if config.games == 0 {
        return Err(LoadError::Config("--games must be at least 1".into()));
    }
    let servers = config
        .servers
        .iter()
        .map(|s| OnlineClient::new(s))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(server) = servers.first().cloned() else {
        return Err(LoadError::Config("no server given".into()));
    };
    for s in &servers {
        if !is_loopback(s.base()) {
            // A load generator aimed at another machine is an attack on it; this one stays home.
            return Err(LoadError::Config(format!(
                "{} is not on this machine: tengen loadtest only targets loopback addresses \
                 (127.0.0.1, localhost, [::1])",
                s.base()
            )));
        }
    }
    let needed = 2 * config.games as u64 + SPARE_FILES;
    let (limit, mut notes) = raise_open_files(needed);
    let stats_start = server.stats().await?;
    let ramp = config.ramp.min(config.duration / 2);
    let t0 = Instant::now();
    let ctx = Arc::new(Ctx {
        servers: servers.clone(),
        size: config.size.clone(),
        think_ms: config.think_ms,
        deadline: t0 + config.duration,
        counters: Counters::default(),
    });

    let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
    let sampler = tokio::spawn(sample_stats(server.clone(), stats_start.clone(), done_rx));

    let mut slots = Vec::with_capacity(config.games);
    for i in 0..config.games {
        let start = t0 + ramp.mul_f64(i as f64 / config.games as f64);
        slots.push(tokio::spawn(game_slot(ctx.clone(), i, start)));
    }
    let mut latencies: Vec<u32> = Vec::new();
    for slot in slots {
        match slot.await {
            Ok(l) => latencies.extend(l),
            Err(e) => ctx.counters.error(format!("a game task failed: {e}")),
        }
    }
    let _ = done_tx.send(());
    let (stats_peak, rss_max_bytes) = sampler
        .await
        .map_err(|e| LoadError::Internal(format!("the stats task failed: {e}")))?;

    latencies.sort_unstable();
    let pct = |q: f64| -> Option<f64> {
        if latencies.is_empty() {
            return None;
        }
        // Nearest rank.
        let rank = ((q * latencies.len() as f64).ceil() as usize).clamp(1, latencies.len());
        Some(ms(latencies[rank - 1]))
    };
    let duration = config.duration.as_secs_f64();
    let c = &ctx.counters;
    let errors = c.errors.load(Ordering::Relaxed);
    // The server's own count, so that several generators against one server each report the
    // memory of every game it holds, not only of their own.
    let live_added = stats_peak.live.saturating_sub(stats_start.live);
    if stats_peak.rss_bytes == 0 {
        notes.push("the server reports no resident memory (not Linux?)".into());
    }
    Ok(LoadReport {
        server: servers
            .iter()
            .map(|s| s.base().to_string())
            .collect::<Vec<_>>()
            .join(" "),
        games: config.games,
        think_ms: config.think_ms,
        duration_secs: duration,
        ramp_secs: ramp.as_secs_f64(),
        moves: latencies.len() as u64,
        moves_per_sec: if duration > 0.0 {
            latencies.len() as f64 / duration
        } else {
            0.0
        },
        p50_ms: pct(0.50),
        p90_ms: pct(0.90),
        p99_ms: pct(0.99),
        max_ms: latencies.last().map(|&v| ms(v)),
        refused: c.refused.load(Ordering::Relaxed),
        errors,
        failed_connections: c.failed_connections.load(Ordering::Relaxed),
        games_started: c.games_started.load(Ordering::Relaxed),
        games_finished: c.games_finished.load(Ordering::Relaxed),
        memory_per_game_bytes: (stats_peak.rss_bytes > 0 && stats_start.rss_bytes > 0).then(|| {
            (stats_peak.rss_bytes as i64 - stats_start.rss_bytes as i64) / live_added.max(1) as i64
        }),
        stats_start,
        stats_peak,
        rss_max_bytes,
        open_files_limit: limit,
        open_files_needed: needed,
        error_samples: c.samples.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        notes,
    })
}

/// Whether `http://host:port` names this machine.
fn is_loopback(base: &str) -> bool {
    let authority = base.trim_start_matches("http://");
    let host = match authority.strip_prefix('[') {
        // [::1]:8080
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Microseconds to milliseconds, to the hundredth.
fn ms(micros: u32) -> f64 {
    (f64::from(micros) / 10.0).round() / 100.0
}

/// Raises this process's open-files soft limit to its hard limit; the limit now and notes when
/// it bounds the run.
fn raise_open_files(needed: u64) -> (Option<u64>, Vec<String>) {
    let mut notes = Vec::new();
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(l) => Some(l),
        Err(e) => {
            notes.push(format!("could not raise the open-files limit: {e}"));
            rlimit::getrlimit(rlimit::Resource::NOFILE)
                .ok()
                .map(|(soft, _)| soft)
        }
    };
    if let Some(l) = limit {
        if l < needed {
            notes.push(format!(
                "the open-files hard limit ({l}) bounds this run to about {} games; raise it \
                 (ulimit -Hn, as root) for more",
                l.saturating_sub(SPARE_FILES) / 2
            ));
        }
    }
    if needed > USUAL_SOFT_LIMIT {
        notes.push(format!(
            "the server needs two open files a game as well: started with the usual soft limit \
             ({USUAL_SOFT_LIMIT}) it holds about {} games (ulimit -n before starting it)",
            (USUAL_SOFT_LIMIT - SPARE_FILES) / 2
        ));
    }
    (limit, notes)
}

/// Reads the server's stats until told to stop; the sample with the most connections and the
/// largest rss seen.
async fn sample_stats(
    server: OnlineClient,
    start: Stats,
    mut done: tokio::sync::oneshot::Receiver<()>,
) -> (Stats, u64) {
    let mut rss_max = start.rss_bytes;
    let mut peak = start;
    let mut tick = tokio::time::interval(SAMPLE_EVERY);
    loop {
        tokio::select! {
            _ = &mut done => return (peak, rss_max),
            _ = tick.tick() => {
                // A missed sample is no error of the server's play: the next one will do.
                if let Ok(s) = server.stats().await {
                    rss_max = rss_max.max(s.rss_bytes);
                    if (s.connections, s.rss_bytes) > (peak.connections, peak.rss_bytes) {
                        peak = s;
                    }
                }
            }
        }
    }
}

/// One game slot: starts at `start`, then creates and plays games one after another until the
/// deadline; the round trips measured.
async fn game_slot(ctx: Arc<Ctx>, slot: usize, start: Instant) -> Vec<u32> {
    tokio::time::sleep_until(start).await;
    let mut latencies = Vec::new();
    let mut round = 0_u64;
    // With several nodes, each game's players sit on two of them.
    let n = ctx.servers.len();
    let (here, there) = (&ctx.servers[slot % n], &ctx.servers[(slot + 1) % n]);
    while Instant::now() < ctx.deadline {
        round += 1;
        let create = CreateGame {
            size: Some(ctx.size.clone()),
            listed: Some(false),
            name: Some(format!("load {slot} a")),
            ..CreateGame::default()
        };
        let first = match here.create(&create).await {
            Ok(s) => s,
            Err(e) => {
                ctx.counters.online("create a game", &e);
                tokio::time::sleep(RETRY_PAUSE).await;
                continue;
            }
        };
        let join = JoinGame {
            name: Some(format!("load {slot} b")),
        };
        let second = match there.join(&first.id, &join).await {
            Ok(s) => s,
            Err(e) => {
                ctx.counters.online("join a game", &e);
                tokio::time::sleep(RETRY_PAUSE).await;
                continue;
            }
        };
        ctx.counters.games_started.fetch_add(1, Ordering::Relaxed);
        let seed = (slot as u64) << 32 ^ round;
        let a = tokio::spawn(player(
            ctx.clone(),
            here.clone(),
            first.id.clone(),
            first.token,
            first.role,
            seed,
        ));
        let b = tokio::spawn(player(
            ctx.clone(),
            there.clone(),
            second.id,
            second.token,
            second.role,
            seed ^ 0x9e37_79b9_7f4a_7c15,
        ));
        let mut finished = false;
        let mut failed = false;
        let mut sockets = Vec::new();
        for h in [a, b] {
            match h.await {
                Ok(out) => {
                    latencies.extend(out.latencies);
                    finished |= out.finished;
                    failed |= out.failed;
                    sockets.extend(out.ws);
                }
                Err(e) => {
                    ctx.counters.error(format!("a player task failed: {e}"));
                    failed = true;
                }
            }
        }
        if finished {
            ctx.counters.games_finished.fetch_add(1, Ordering::Relaxed);
        } else if let Some(first) = sockets.first_mut().filter(|_| !failed) {
            // Time is up and neither player has a move in flight: end the game rather than
            // leave it live on the server until its players are given up for gone.
            first.send(&ClientMsg::Resign).await.ok();
        }
        for ws in sockets {
            ws.close().await;
        }
        if failed {
            tokio::time::sleep(RETRY_PAUSE).await;
        }
    }
    latencies
}

#[derive(Debug, Default)]
struct PlayerOut {
    latencies: Vec<u32>,
    finished: bool,
    failed: bool,
    // The connection, still open when the player stopped in order.
    ws: Option<Socket>,
}

/// A move sent and not yet seen in a state: its index in the move list, its point, when sent.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    index: usize,
    point: [i32; 2],
    sent: Instant,
}

/// One simulated player: plays its seat of game `id` until the game ends or the time is up.
async fn player(
    ctx: Arc<Ctx>,
    server: OnlineClient,
    id: String,
    token: String,
    role: Role,
    seed: u64,
) -> PlayerOut {
    let mut out = PlayerOut::default();
    let c = &ctx.counters;
    let mut ws = match server.connect(&id).await {
        Ok(ws) => ws,
        Err(e) => {
            c.online("open a WebSocket", &e);
            out.failed = true;
            return out;
        }
    };
    let hello = ClientMsg::Hello {
        token: Some(token),
        name: None,
    };
    if let Err(e) = ws.send(&hello).await {
        c.online("send hello", &e);
        out.failed = true;
        return out;
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut state: Option<GameState> = None;
    let mut in_flight: Option<InFlight> = None;
    let mut next_move_at: Option<Instant> = None;
    // The number of stones when this player last sent a move: one move per turn.
    let mut moved_at: Option<usize> = None;
    let drain_until = ctx.deadline + DRAIN;
    loop {
        let now = Instant::now();
        if in_flight.is_none() && now >= ctx.deadline {
            break;
        }
        if let Some(f) = in_flight {
            if now >= drain_until || now >= f.sent + MOVE_TIMEOUT {
                c.error(format!(
                    "game {id}: no state holding the move after {:?}",
                    now - f.sent
                ));
                out.failed = true;
                break;
            }
        }
        let mut wake = match in_flight {
            Some(f) => drain_until.min(f.sent + MOVE_TIMEOUT),
            None => ctx.deadline,
        };
        if let Some(t) = next_move_at {
            wake = wake.min(t);
        }
        let frame = tokio::select! {
            f = ws.recv() => Some(f),
            () = tokio::time::sleep_until(wake) => None,
        };
        let now = Instant::now();
        match frame {
            Some(Err(e)) => {
                // A connection lost during the game: an error, not a failure to connect.
                c.error(format!("game {id}: {}", e.full_text()));
                out.failed = true;
                break;
            }
            Some(Ok(None)) => {
                c.error(format!("game {id}: the server closed the connection"));
                out.failed = true;
                break;
            }
            Some(Ok(Some(msg))) => match msg {
                ServerMsg::Welcome { role: r, .. } if r != role => {
                    c.error(format!(
                        "game {id}: seated as {} instead of {}",
                        r.name(),
                        role.name()
                    ));
                    out.failed = true;
                    break;
                }
                ServerMsg::State(s) => {
                    if let Some(f) = in_flight {
                        if s.points.get(f.index) == Some(&f.point) {
                            let micros = (now - f.sent).as_micros().min(u128::from(u32::MAX));
                            out.latencies.push(micros as u32);
                            in_flight = None;
                        } else if s.points.len() > f.index {
                            c.error(format!(
                                "game {id}: move {} is not the one sent",
                                f.index + 1
                            ));
                            in_flight = None;
                        }
                    }
                    if s.outcome.is_some() {
                        out.finished = true;
                        break;
                    }
                    let my_turn = s.pending.kind == "move" && s.pending.seat == Some(role);
                    if my_turn
                        && in_flight.is_none()
                        && next_move_at.is_none()
                        && moved_at != Some(s.points.len())
                    {
                        next_move_at = Some(now + think_time(ctx.think_ms, &mut rng));
                    }
                    state = Some(s);
                }
                ServerMsg::Error { message } => {
                    c.refused(format!("game {id}: {message}"));
                    if in_flight.take().is_some() {
                        // The move was refused: try another.
                        moved_at = None;
                        next_move_at = Some(now);
                    }
                }
                ServerMsg::Welcome { .. } | ServerMsg::Chat(_) | ServerMsg::Notice { .. } => {}
            },
            None => {
                let due = next_move_at.is_some_and(|t| now >= t);
                if due && now < ctx.deadline {
                    next_move_at = None;
                    let Some(s) = &state else { continue };
                    let my_turn = s.pending.kind == "move" && s.pending.seat == Some(role);
                    if !my_turn || s.outcome.is_some() {
                        continue;
                    }
                    let Some(point) = random_move(s, &mut rng) else {
                        c.error(format!("game {id}: no empty point left to play"));
                        out.failed = true;
                        break;
                    };
                    // On the position seen, as the page sends it.
                    let mv = ClientMsg::Move {
                        at: format!("{},{}", point[0], point[1]),
                        moves: u32::try_from(s.points.len()).ok(),
                    };
                    in_flight = Some(InFlight {
                        index: s.points.len(),
                        point,
                        sent: Instant::now(),
                    });
                    moved_at = Some(s.points.len());
                    if let Err(e) = ws.send(&mv).await {
                        c.error(format!("game {id}: send a move: {}", e.full_text()));
                        out.failed = true;
                        break;
                    }
                }
            }
        }
    }
    // The game slot closes it, once both players are done.
    out.ws = Some(ws);
    out
}

/// `think_ms` ± 50%, uniformly.
fn think_time(think_ms: u64, rng: &mut fastrand::Rng) -> Duration {
    let half = think_ms / 2;
    Duration::from_millis(rng.u64(think_ms - half..=think_ms + half))
}

/// A random empty point near the stones (within two points of one), black's forbidden points
/// left out; the centre's neighbourhood on an empty board; any empty point if none is near.
fn random_move(s: &GameState, rng: &mut fastrand::Rng) -> Option<[i32; 2]> {
    let bounds = s.width.zip(s.height).map(|(w, h)| (w as i32, h as i32));
    let inside = |[x, y]: [i32; 2]| bounds.is_none_or(|(w, h)| x >= 0 && y >= 0 && x < w && y < h);
    let taken: HashSet<[i32; 2]> = s.points.iter().copied().collect();
    let forbidden: HashSet<[i32; 2]> = s.forbidden.iter().map(|f| [f.x, f.y]).collect();
    let free = |p: [i32; 2]| inside(p) && !taken.contains(&p) && !forbidden.contains(&p);
    let (cx, cy) = bounds.map_or((0, 0), |(w, h)| (w / 2, h / 2));
    let mut near: Vec<[i32; 2]> = Vec::new();
    let mut seen = HashSet::new();
    let stones: Vec<[i32; 2]> = if s.points.is_empty() {
        vec![[cx, cy]]
    } else {
        s.points.clone()
    };
    let reach = if s.points.is_empty() { 1 } else { 2 };
    for [x, y] in stones {
        for dy in -reach..=reach {
            for dx in -reach..=reach {
                let p = [x + dx, y + dy];
                if free(p) && seen.insert(p) {
                    near.push(p);
                }
            }
        }
    }
    if near.is_empty() {
        let (w, h) = bounds?;
        near = (0..h)
            .flat_map(|y| (0..w).map(move |x| [x, y]))
            .filter(|&p| free(p))
            .collect();
    }
    if near.is_empty() {
        return None;
    }
    Some(near[rng.usize(..near.len())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_times_stay_within_half_either_way() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..1000 {
            let t = think_time(1000, &mut rng).as_millis();
            assert!((500..=1500).contains(&t), "{t}");
        }
        assert_eq!(think_time(0, &mut rng), Duration::ZERO);
    }

    fn state(points: &[[i32; 2]], forbidden: &[[i32; 2]]) -> GameState {
        let seat = serde_json::json!({"name": "x", "taken": true, "connected": true,
            "color": null, "clock_ms": null, "gone_ms": null, "claimable": false});
        serde_json::from_value(serde_json::json!({
            "id": "g", "seq": 1, "rule": "renju", "size": "15x15", "width": 15, "height": 15,
            "opening": "free", "clock": {"kind": "none"},
            "moves": [], "points": points,
            "pending": {"kind": "move", "seat": "first", "color": "black", "options": []},
            "seats": [seat, seat], "running": null, "request": null, "outcome": null,
            "forbidden": forbidden.iter().map(|[x, y]| serde_json::json!({"x": x, "y": y,
                "kind": "double-three"})).collect::<Vec<_>>(),
            "spectators": 0, "rematch": null, "grace_secs": 120,
        }))
        .expect("a state")
    }

    #[test]
    fn random_moves_are_empty_points_near_the_stones() {
        let mut rng = fastrand::Rng::with_seed(3);
        let empty = state(&[], &[]);
        for _ in 0..100 {
            let [x, y] = random_move(&empty, &mut rng).expect("a move");
            assert!((6..=8).contains(&x) && (6..=8).contains(&y));
        }
        // A corner stone: the points near it on the board, never the stone or the forbidden one.
        let corner = state(&[[0, 0]], &[[1, 1]]);
        let mut seen = HashSet::new();
        for _ in 0..500 {
            let p = random_move(&corner, &mut rng).expect("a move");
            assert!(
                p[0] <= 2 && p[1] <= 2 && p != [0, 0] && p != [1, 1],
                "{p:?}"
            );
            seen.insert(p);
        }
        assert_eq!(seen.len(), 7);
        // A full board has no move.
        let all: Vec<[i32; 2]> = (0..15).flat_map(|y| (0..15).map(move |x| [x, y])).collect();
        assert_eq!(random_move(&state(&all, &[]), &mut rng), None);
    }

    #[test]
    fn only_this_machine_is_a_target() {
        for ok in [
            "http://127.0.0.1:8080",
            "http://127.3.2.1:1",
            "http://localhost:9000",
            "http://[::1]:80",
            "http://localhost",
        ] {
            assert!(is_loopback(ok), "{ok}");
        }
        for no in [
            "http://10.0.0.1:80",
            "http://example.invalid:80",
            "http://[::2]:1",
        ] {
            assert!(!is_loopback(no), "{no}");
        }
    }

    #[test]
    fn milliseconds_round_to_the_hundredth() {
        assert_eq!(ms(1_234), 1.23);
        assert_eq!(ms(999_999), 1000.0);
    }
}
