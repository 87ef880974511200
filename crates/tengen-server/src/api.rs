//! The HTTP API of games in one browser (against the computer, between friends on one screen,
//! computer against computer): routes, request and response bodies, and the game service behind
//! them. Every change is an event stored in SQLite before anyone hears of it (the answer, the
//! game's WebSockets); a game not in memory is replayed from its events. The computer's turn is
//! played by a task of its own, whether or not anyone waits for it, its search on the engine
//! pool's threads.

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Extension;
use axum::extract::rejection::{BytesRejection, JsonRejection};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State as AxState};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tengen_engine::{Level, Limits, Score, decide};
use tengen_rules::{
    BoardSize, Choice, Color, ForbiddenPolicy, Game, OpeningRule, Pending, Point, Record,
    RecordFormat, Rule, parse_point, point_name,
};
use tengen_wire::ClockSpec;
use tokio::task::JoinHandle;

use crate::engine_pool::{EnginePool, Priority};
use crate::error::ApiError;
use crate::limits::{Client, ClientLimits};
use crate::session::{
    Event, Opponent, Session, Setup, State, StoredSetup, parse_choice, parse_color, score_text,
};
use crate::store::{LocalChange, ResultRow, Store};

/// How many games the server keeps in memory; the least recently used goes first (it stays
/// stored, and is replayed from the store when asked for again).
const MAX_GAMES: usize = 500;
/// The longest analysis or hint a page may ask for.
const MAX_THINK_MS: u64 = 10_000;
/// Engine time a draw offer's look is charged, up front (its node budget usually ends it
/// sooner; `decide::judgement_limits`).
const DRAW_LOOK_MS: u64 = 500;
/// How often a game's WebSocket is pinged.
const PING_EVERY: Duration = Duration::from_secs(30);

// A game's lock is held across the store's write of each change, so that changes are stored in
// the order they are made; never across a search.
type Shared = Arc<tokio::sync::Mutex<Session>>;

/// What every handler shares.
#[derive(Clone, Debug)]
pub struct AppState {
    games: Arc<Mutex<HashMap<String, Shared>>>,
    store: Store,
    pool: EnginePool,
    ids: Arc<AtomicU64>,
    random: RandomState,
}

impl AppState {
    /// The service over `store` and `pool`.
    pub fn new(store: Store, pool: EnginePool) -> AppState {
        AppState {
            games: Arc::new(Mutex::new(HashMap::new())),
            store,
            pool,
            ids: Arc::new(AtomicU64::new(1)),
            random: RandomState::new(),
        }
    }

    fn random(&self) -> u64 {
        let mut h = self.random.build_hasher();
        h.write_u64(self.ids.fetch_add(1, Ordering::Relaxed));
        h.write_u128(Instant::now().elapsed().as_nanos());
        h.finish()
    }

    fn games(&self) -> MutexGuard<'_, HashMap<String, Shared>> {
        // The map is changed by single inserts and removes: a poisoned lock left it whole.
        self.games
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The game `id`: in memory, else replayed from the store.
    async fn get(&self, id: &str) -> Result<Shared, ApiError> {
        if let Some(s) = self.games().get(id).cloned() {
            return Ok(s);
        }
        // Boxed: loading is rare, and would otherwise enlarge every handler's future.
        let session = Box::pin(self.load(id)).await?;
        // Another request may have loaded it meanwhile: `insert` keeps the first.
        Ok(self.insert(session))
    }

    /// Replays game `id` from its stored events.
    async fn load(&self, id: &str) -> Result<Session, ApiError> {
        let valid = !id.is_empty() && id.len() <= 32 && id.bytes().all(|b| b.is_ascii_hexdigit());
        if !valid {
            return Err(ApiError::NotFound(id.to_string()));
        }
        let stored = self
            .store
            .local_game(id)
            .await?
            .ok_or_else(|| ApiError::NotFound(id.to_string()))?;
        let replay = || -> Result<Session, String> {
            let setup: StoredSetup =
                serde_json::from_str(&stored.settings).map_err(|e| format!("bad settings: {e}"))?;
            let (setup, seed) = setup.setup()?;
            let mut s = Session::new(id.to_string(), setup, seed);
            let age = crate::online::unix_ms().saturating_sub(stored.created_ms);
            s.started = Instant::now()
                .checked_sub(Duration::from_millis(age))
                .unwrap_or_else(Instant::now);
            for (i, (text, clocks)) in stored.events.iter().enumerate() {
                let ev: Event =
                    serde_json::from_str(text).map_err(|e| format!("event {}: {e}", i + 1))?;
                s.replay(&ev, *clocks)
                    .map_err(|e| format!("event {}: {e}", i + 1))?;
            }
            // A finished game ended with its last stored event.
            if s.game.outcome().is_some() {
                s.ended = Some(Duration::from_millis(
                    stored.last_ms.saturating_sub(stored.created_ms),
                ));
            }
            Ok(s)
        };
        // A bug the stored events run into must not take the server down with it.
        let replayed = std::panic::catch_unwind(AssertUnwindSafe(replay)).unwrap_or_else(|p| {
            Err(format!(
                "replaying it failed inside the server: {}",
                crate::engine_pool::panic_text(p.as_ref())
            ))
        });
        replayed.map_err(|why| {
            tracing::warn!(game = %id, %why, "a stored game cannot be replayed");
            ApiError::Internal(format!(
                "game {id} cannot be replayed from the store: {why}"
            ))
        })
    }

    fn insert(&self, session: Session) -> Shared {
        let id = session.id.clone();
        let mut games = self.games();
        // Checked under the same lock as the insertion: two loads of one game at once keep
        // one copy, so no two copies ever store changes side by side.
        if let Some(first) = games.get(&id) {
            return first.clone();
        }
        let shared = Arc::new(tokio::sync::Mutex::new(session));
        if games.len() >= MAX_GAMES {
            // Games in use (locked, the computer thinking, a page listening) stay.
            let idle =
                |s: &Session| !s.driving.load(Ordering::Relaxed) && s.notify.receiver_count() == 0;
            let mut candidates: Vec<(String, Instant)> = games
                .iter()
                .filter_map(|(k, s)| {
                    let s = s.try_lock().ok()?;
                    idle(&s).then(|| (k.clone(), s.touched))
                })
                .collect();
            candidates.sort_by_key(|(_, touched)| *touched);
            // The oldest still idle when marked (a request may have taken one meanwhile) is
            // marked left under its lock, so nothing stores on it any more, and goes.
            let left = candidates.into_iter().find_map(|(k, _)| {
                let old = games.get(&k)?.clone();
                let mut s = old.try_lock().ok()?;
                if !idle(&s) {
                    return None;
                }
                s.left = true;
                Some(k)
            });
            if let Some(k) = left {
                games.remove(&k);
            }
        }
        games.insert(id, shared.clone());
        shared
    }

    /// At a graceful stop: stores, for each game in memory whose clock runs, the time that
    /// clock has left (or its fallen flag), so that the turn goes on from there after the
    /// restart: clocks do not run while the server is down. Returns how many were noted.
    pub async fn pause_all(&self) -> usize {
        let games: Vec<Shared> = self.games().values().cloned().collect();
        let mut paused = 0;
        for shared in games {
            // A game's lock is held only across a store write: a game that stays locked is
            // left as a crash would leave it.
            let Ok(mut s) = tokio::time::timeout(Duration::from_secs(2), shared.lock()).await
            else {
                continue;
            };
            let ev = match s.flag_event().or_else(|| s.pause_event()) {
                Some(ev) => ev,
                None => continue,
            };
            match commit(self, &mut s, ev).await {
                Ok(()) => paused += 1,
                Err(e) => {
                    tracing::warn!(game = %s.id, error = %e, "could not store a game's clock at shutdown");
                }
            }
        }
        paused
    }

    /// Resumes the computer's turn in every stored game where it was thinking when the server
    /// stopped.
    pub async fn resume(&self) {
        let ids = match self.store.local_games_waiting().await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(error = %e, "cannot list the games where the computer is to move");
                return;
            }
        };
        let n = ids.len();
        for id in ids {
            match self.get(&id).await {
                Ok(shared) => {
                    kick(self, &shared).await;
                }
                Err(e) => {
                    tracing::warn!(game = %id, error = %e, "cannot resume the computer's turn")
                }
            }
        }
        if n > 0 {
            tracing::info!(games = n, "the computer's turn resumed");
        }
    }
}

/// The routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/api/games", post(create))
        .route("/api/games/import", post(import))
        .route("/api/games/{id}", get(get_state).delete(leave))
        .route("/api/games/{id}/ws", get(websocket))
        .route("/api/games/{id}/leave", post(leave))
        .route("/api/games/{id}/moves", post(play))
        .route("/api/games/{id}/step", post(step))
        .route("/api/games/{id}/choose", post(choose))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/redo", post(redo))
        .route("/api/games/{id}/continue", post(continue_from))
        .route("/api/games/{id}/hint", post(hint))
        .route("/api/games/{id}/analysis", post(analysis))
        .route("/api/games/{id}/analysis/live", get(live_analysis))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/draw", post(draw))
        .route("/api/games/{id}/record", get(record))
        .route("/api/results", get(results))
        .route("/api/heroes", get(heroes))
        .route("/api/engine", get(engine_stats))
        .fallback(static_file)
        .with_state(state)
}

async fn static_file(method: Method, uri: Uri) -> Response {
    let path = uri.path();
    let path = if path == "/index.html" || path == "/results" {
        "/"
    } else {
        path
    };
    let Some(page) = crate::assets::serve(path) else {
        return ApiError::NoPage(uri.path().to_string()).into_response();
    };
    // The page's files are only read; anything else is a client's mistake or a probe.
    if method != Method::GET && method != Method::HEAD {
        let body = serde_json::json!({
            "error": format!("{method} is not allowed on {path} (GET or HEAD)"),
            "kind": "method_not_allowed",
        });
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "GET, HEAD")],
            Json(body),
        )
            .into_response();
    }
    page
}

/// Puts every error answer in the API's form, JSON with a `kind` (docs/api.md): axum's own
/// refusals (an address that cannot be read, a method a route does not take, a query string
/// that cannot be read, a request for a WebSocket that is not one) come as plain text or with
/// no body at all, in axum's words.
pub(crate) async fn error_bodies(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let res = next.run(req).await;
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return res;
    }
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return res;
    }
    let (parts, body) = res.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let allow = parts.headers.get(header::ALLOW).cloned();
    let (kind, message) = match status {
        StatusCode::METHOD_NOT_ALLOWED => {
            let allowed = allow
                .as_ref()
                .and_then(|v| v.to_str().ok())
                .filter(|v| !v.is_empty())
                .map(|v| format!(" ({v})"))
                .unwrap_or_default();
            (
                "method_not_allowed",
                format!("{method} is not allowed on {path}{allowed}"),
            )
        }
        StatusCode::NOT_FOUND => ("not_found", ApiError::NoPage(path.clone()).to_string()),
        StatusCode::REQUEST_TIMEOUT => ("timeout", ApiError::Timeout.to_string()),
        StatusCode::PAYLOAD_TOO_LARGE => ("too_large", ApiError::TooLarge.to_string()),
        s if s.is_server_error() => (
            "internal",
            "the server failed on this request; nothing was changed".to_string(),
        ),
        _ if text.starts_with("Invalid URL") => (
            "bad_request",
            format!(
                "the address {path} cannot be read: each part must be UTF-8 text (percent-encoded)"
            ),
        ),
        _ => match text.strip_prefix("Failed to deserialize query string") {
            Some(rest) => (
                "bad_request",
                format!(
                    "the query string is not valid: {}",
                    crate::error::plain_serde_message(rest.trim_start_matches(':').trim())
                ),
            ),
            None if text.is_empty() => (
                "bad_request",
                status
                    .canonical_reason()
                    .unwrap_or("the request was refused")
                    .to_lowercase(),
            ),
            // Axum's other refusals (a WebSocket request that is not one) are plain sentences.
            None => ("bad_request", text),
        },
    };
    let mut answer = (
        status,
        Json(serde_json::json!({ "error": message, "kind": kind })),
    )
        .into_response();
    if let Some(allow) = allow {
        answer.headers_mut().insert(header::ALLOW, allow);
    }
    answer
}

/// The answer when a handler panicked: a 500 with the usual error body, logged at warn, rather
/// than a connection closed without a word.
pub(crate) fn panic_answer(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let why = crate::engine_pool::panic_text(panic.as_ref());
    tracing::warn!(panic = %why, "a request failed inside the server");
    // What failed, and where, is for the log, not for whoever sent the request.
    ApiError::Internal(
        "the server failed on this request; nothing was changed (the failure is in its log)".into(),
    )
    .into_response()
}

async fn engine_stats(AxState(app): AxState<AppState>) -> Json<crate::engine_pool::PoolStats> {
    Json(app.pool.stats())
}

fn bad<E: std::fmt::Display>(e: E) -> ApiError {
    ApiError::BadRequest(e.to_string())
}

/// The settings of a new game; every field has a default.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRequest {
    opponent: Option<Opponent>,
    level: Option<String>,
    human: Option<String>,
    rule: Option<String>,
    opening: Option<String>,
    size: Option<String>,
    clock: Option<ClockSpec>,
    forbidden: Option<String>,
    player: Option<String>,
    /// Whether the answer waits for the computer's reply (default true); the page does not
    /// wait, it hears the reply over the game's WebSocket.
    wait: Option<bool>,
}

impl CreateRequest {
    fn setup(&self) -> Result<Setup, ApiError> {
        let opening: OpeningRule = self
            .opening
            .as_deref()
            .unwrap_or("free")
            .parse()
            .map_err(bad)?;
        let clock = self.clock.unwrap_or_default();
        crate::clock::check_clock(clock)?;
        let player = crate::text::clean(self.player.as_deref().unwrap_or(""));
        if player.chars().count() > 40 {
            return Err(ApiError::BadRequest(
                "player name too long (at most 40 characters)".into(),
            ));
        }
        Ok(Setup {
            opponent: self.opponent.unwrap_or(Opponent::Computer),
            level: self
                .level
                .as_deref()
                .unwrap_or("beginner")
                .parse::<Level>()
                .map_err(bad)?,
            human: parse_color(self.human.as_deref().unwrap_or("black"))?,
            rule: self
                .rule
                .as_deref()
                .unwrap_or("freestyle")
                .parse::<Rule>()
                .map_err(bad)?,
            opening,
            size: self
                .size
                .as_deref()
                .unwrap_or("15")
                .parse::<BoardSize>()
                .map_err(bad)?,
            clock,
            policy: match self.forbidden.as_deref().unwrap_or("refuse") {
                "refuse" => ForbiddenPolicy::Refuse,
                "lose" => ForbiddenPolicy::Lose,
                other => {
                    return Err(ApiError::BadRequest(format!(
                        "unknown forbidden-move policy {other:?} (refuse or lose)"
                    )));
                }
            },
            player: if player.is_empty() {
                "Anonymous".into()
            } else {
                player
            },
        })
    }
}

/// A state, with the computer's reply when one was just played.
#[derive(Debug, Serialize)]
struct Reply {
    #[serde(flatten)]
    state: State,
    /// The computer's move just played, in notation (its last stone, when it placed several).
    computer_move: Option<String>,
    /// Every stone the computer just placed, in order: one move, or in a swap opening its
    /// opening stones.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    computer_moves: Vec<String>,
    /// The computer's swap decisions just taken (`black`, `white`, `place_two`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    computer_choices: Vec<&'static str>,
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        Json(self).into_response()
    }
}

fn new_id(app: &AppState) -> String {
    format!("{:016x}", app.random())
}

fn internal<E: std::fmt::Display>(e: E) -> ApiError {
    ApiError::Internal(format!("the change could not be written: {e}"))
}

/// Plays `ev` in the game and stores it before anyone hears of it; when storing fails, the
/// game is put back as it was.
async fn commit(app: &AppState, s: &mut Session, ev: Event) -> Result<(), ApiError> {
    if s.left {
        // A copy loaded afresh may have stored changes since: this one is out of date.
        return Err(ApiError::Conflict(
            "the game left memory while this was under way: ask again".into(),
        ));
    }
    let snapshot = s.snapshot();
    s.apply_live(&ev)?;
    let stored = match serde_json::to_string(&ev) {
        Ok(json) => {
            app.store
                .add_local_change(&LocalChange {
                    id: &s.id,
                    seq: s.seq + 1,
                    event: &json,
                    clocks: s.clocks(),
                    over: s.game.outcome().is_some(),
                    computer_turn: s.computer_should_act(),
                })
                .await
        }
        Err(e) => Err(sqlx::Error::Encode(Box::new(e))),
    };
    if let Err(e) = stored {
        s.restore(snapshot);
        return Err(e.into());
    }
    s.seq += 1;
    if ev.is_note() {
        // An analysis asked for while the computer thinks must not stop its move.
        s.noted();
    } else {
        s.changed();
    }
    Ok(())
}

/// Ends the game on time if the side to move's flag has fallen; whether it did.
async fn flag(app: &AppState, s: &mut Session) -> Result<bool, ApiError> {
    match s.flag_event() {
        Some(ev) => commit(app, s, ev).await.map(|()| true),
        None => Ok(false),
    }
}

/// The refusal of an action that came after the flag fell (the fall is stored already, and the
/// game's WebSockets told): 409, as for any action after the end, with the result stored.
async fn too_late(app: &AppState, shared: &Shared) -> ApiError {
    if let Err(e) = record_result(app, shared).await {
        return e;
    }
    let status = shared.lock().await.status();
    ApiError::Conflict(format!("the game is over: {status}"))
}

/// Stores a new game, with the event that sets up its position if any, and keeps it in memory.
async fn start(app: &AppState, mut s: Session, first: Option<Event>) -> Result<Shared, ApiError> {
    let settings = serde_json::to_string(&StoredSetup::of(&s)).map_err(internal)?;
    match first {
        Some(ev) => {
            s.apply_live(&ev)?;
            let json = serde_json::to_string(&ev).map_err(internal)?;
            s.seq = 1;
            let change = LocalChange {
                id: &s.id,
                seq: 1,
                event: &json,
                clocks: s.clocks(),
                over: s.game.outcome().is_some(),
                computer_turn: s.computer_should_act(),
            };
            app.store
                .add_local_game(&s.id, &settings, Some(change))
                .await?;
        }
        None => app.store.add_local_game(&s.id, &settings, None).await?,
    }
    Ok(app.insert(s))
}

/// What the computer did in one turn (several actions in a swap opening).
#[derive(Debug, Default)]
struct Acts {
    computer_moves: Vec<String>,
    computer_choices: Vec<&'static str>,
}

impl Acts {
    fn add(&mut self, act: ComputerAct) {
        match act {
            ComputerAct::Move(m) => self.computer_moves.push(m),
            ComputerAct::Choice(c) => self.computer_choices.push(c),
            ComputerAct::Resigned => {}
        }
    }

    /// What `more` did after these.
    fn extend(&mut self, more: Acts) {
        self.computer_moves.extend(more.computer_moves);
        self.computer_choices.extend(more.computer_choices);
    }
}

/// Clears a game's "computer thinking" mark if its task fails inside the server (panics);
/// otherwise the task clears it itself, under the game's lock.
struct Driving(Option<Arc<AtomicBool>>);

impl Driving {
    /// The task clears the mark itself.
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for Driving {
    fn drop(&mut self) {
        if let Some(flag) = self.0.take() {
            flag.store(false, Ordering::Relaxed);
        }
    }
}

/// Starts the computer's turn in a task of its own when it is the computer's to play and no
/// task plays it yet, so it is played whether or not the page that asked stays.
async fn kick(app: &AppState, shared: &Shared) -> Option<JoinHandle<Result<Acts, ApiError>>> {
    let s = shared.lock().await;
    if !s.computer_should_act() || s.driving.swap(true, Ordering::Relaxed) {
        return None;
    }
    let mut driving = Driving(Some(s.driving.clone()));
    let id = s.id.clone();
    drop(s);
    let (app, shared) = (app.clone(), shared.clone());
    Some(tokio::spawn(async move {
        let mut first = None;
        for round in 0.. {
            let r = drive(&app, &shared).await;
            match &r {
                // Superseded: the game changed or was left while the computer thought.
                Err(ApiError::Conflict(why)) => {
                    tracing::debug!(game = %id, %why, "computer's turn stopped");
                }
                Err(e) => tracing::warn!(game = %id, error = %e, "the computer's turn failed"),
                Ok(_) => {}
            }
            let goes_on = matches!(r, Ok(_) | Err(ApiError::Conflict(_)));
            first.get_or_insert(r);
            // The mark is cleared under the game's lock, after a last look: a change made while
            // this turn was ending (an undo and a new move) found the mark still set and
            // started nothing, so its turn is played here. A bounded number of rounds, so a
            // game that keeps failing does not spin.
            let s = shared.lock().await;
            if !(goes_on && round < 64 && s.computer_should_act()) {
                driving.disarm();
                s.driving.store(false, Ordering::Relaxed);
                break;
            }
        }
        first.unwrap_or_else(|| Ok(Acts::default()))
    }))
}

/// Plays the computer's turn: a move, or in a swap opening the run of stones and decisions up
/// to the human's turn.
async fn drive(app: &AppState, shared: &Shared) -> Result<Acts, ApiError> {
    let mut acts = Acts::default();
    let mut played = Ok(());
    for _ in 0..8 {
        if !shared.lock().await.computer_should_act() {
            break;
        }
        match computer_act(app, shared).await {
            Ok(act) => acts.add(act),
            Err(e) => {
                played = Err(e);
                break;
            }
        }
    }
    // Also when the turn ended otherwise (the computer lost on time while it thought): the
    // result is stored whether or not anyone asks about the game again. The turn's own error,
    // if any, is the one reported.
    let recorded = record_result(app, shared).await;
    played?;
    recorded.map(|_| acts)
}

/// Starts the computer's turn if it is due; with `wait`, waits for it (it goes on if the
/// waiting request goes away).
async fn computer_turn(app: &AppState, shared: &Shared, wait: bool) -> Result<Acts, ApiError> {
    let Some(task) = kick(app, shared).await else {
        return Ok(Acts::default());
    };
    if !wait {
        return Ok(Acts::default());
    }
    match task.await {
        Ok(Ok(acts)) => Ok(acts),
        // The game changed meanwhile: the answer shows it as it is.
        Ok(Err(ApiError::Conflict(_))) => Ok(Acts::default()),
        Ok(Err(e)) => Err(e),
        Err(e) => Err(ApiError::Internal(format!(
            "the computer's turn failed inside the server: {e}"
        ))),
    }
}

async fn create(
    AxState(app): AxState<AppState>,
    Client(client): Client,
    Extension(limits): Extension<Arc<ClientLimits>>,
    req: Result<Json<CreateRequest>, JsonRejection>,
) -> Result<(StatusCode, Reply), ApiError> {
    let req = ApiError::json_body(req)?;
    let setup = req.setup()?;
    limits.games.take(client, 1)?;
    let seed = app.random();
    let shared = start(&app, Session::new(new_id(&app), setup, seed), None).await?;
    let acts = computer_turn(&app, &shared, req.wait.unwrap_or(true)).await?;
    Ok((StatusCode::CREATED, answer(&app, &shared, acts).await?))
}

/// A record to play on from.
#[derive(Debug, Deserialize)]
struct ImportRequest {
    /// The record's text (plain list, psq or SGF).
    text: String,
    /// `plain` (or `txt`), `psq` or `sgf`; detected when absent.
    format: Option<String>,
    /// Stop after this many moves (the rest can be replayed with redo).
    at: Option<usize>,
    #[serde(flatten)]
    game: CreateRequest,
}

pub(crate) fn parse_format(s: &str) -> Result<RecordFormat, ApiError> {
    match s {
        "txt" | "plain" => Ok(RecordFormat::Plain),
        "psq" => Ok(RecordFormat::Psq),
        "sgf" => Ok(RecordFormat::Sgf),
        other => Err(ApiError::BadRequest(format!(
            "unknown record format {other:?} (txt, psq or sgf)"
        ))),
    }
}

async fn import(
    AxState(app): AxState<AppState>,
    Client(client): Client,
    Extension(limits): Extension<Arc<ClientLimits>>,
    req: Result<Json<ImportRequest>, JsonRejection>,
) -> Result<(StatusCode, Reply), ApiError> {
    let req = ApiError::json_body(req)?;
    if req.text.len() > 1_000_000 {
        return Err(ApiError::BadRequest("record too long".into()));
    }
    let mut setup = req.game.setup()?;
    let format = match req.format.as_deref() {
        Some(f) => parse_format(f)?,
        None => RecordFormat::detect(&req.text),
    };
    let record = Record::parse(&req.text, format, setup.size)
        .map_err(|e| ApiError::BadRequest(format!("cannot read the record: {e}")))?;
    setup.size = record.size;
    if req.game.rule.is_none() {
        if let Some(rule) = record.rule {
            setup.rule = rule;
        }
    }
    // Replay as a referee would (a forbidden move loses), then play on under the chosen policy.
    let game = record
        .replay(setup.rule, ForbiddenPolicy::Lose)
        .map_err(|e| ApiError::BadRequest(format!("the record holds an illegal move: {e}")))?;
    let mut reading = Session::new(String::new(), setup.clone(), 0);
    reading.game = game;
    if let Some(at) = req.at {
        reading.rewind(at)?;
    }
    let first = Session::position_event(&reading.game, &reading.redo);
    limits.games.take(client, 1)?;
    let session = Session::new(new_id(&app), setup, app.random());
    // An imported position is looked at first: the computer waits for `step`.
    let shared = start(&app, session, Some(first)).await?;
    Ok((
        StatusCode::CREATED,
        answer(&app, &shared, Acts::default()).await?,
    ))
}

/// Stores the result of a finished game against the computer, once; a game begun from a set-up
/// position is not stored (see [`Session::set_up`]).
async fn record_result(app: &AppState, shared: &Shared) -> Result<(), ApiError> {
    let mut s = shared.lock().await;
    let Some(outcome) = s.game.outcome().cloned() else {
        return Ok(());
    };
    if s.recorded || s.set_up || s.setup.opponent != Opponent::Computer {
        return Ok(());
    }
    let human = s.human_color();
    let size = s.game.board().size();
    let row = ResultRow {
        game_id: s.id.clone(),
        player: s.setup.player.clone(),
        level: s.setup.level.name().into(),
        rule: s.game.rule().name().into(),
        size: match (size.width(), size.height()) {
            (Some(w), Some(h)) => format!("{w}x{h}"),
            _ => "unbounded".into(),
        },
        human_color: human.name().into(),
        outcome: match outcome.winner {
            Some(c) if c == human => "win",
            Some(_) => "loss",
            None => "draw",
        }
        .into(),
        reason: outcome.reason.key().into(),
        human_moves: s
            .game
            .moves()
            .iter()
            .enumerate()
            .filter(|(i, _)| Color::of_ply(*i) == human)
            .count() as i64,
        duration_ms: s.duration().as_millis() as i64,
        assisted: s.assisted,
    };
    // A second row for the same game (after a restart) is ignored by the store.
    app.store.add_result(&row).await?;
    s.recorded = true;
    Ok(())
}

/// The answer after a change: stores a finished game's result, and gives the state with what
/// the computer just did.
async fn answer(app: &AppState, shared: &Shared, acts: Acts) -> Result<Reply, ApiError> {
    // A flag that fell ends the game first, so that its result is stored too.
    flag(app, &mut *shared.lock().await).await?;
    record_result(app, shared).await?;
    let mut s = shared.lock().await;
    s.touched = Instant::now();
    s.ready_marks().await;
    Ok(Reply {
        state: s.state(),
        computer_move: acts.computer_moves.last().cloned(),
        computer_moves: acts.computer_moves,
        computer_choices: acts.computer_choices,
    })
}

/// Starts a search for the computer's move in `s`'s game, stopping any search running for it.
fn start_search(s: &mut Session) -> Arc<AtomicBool> {
    s.cancel_search();
    let stop = Arc::new(AtomicBool::new(false));
    s.search = Some(stop.clone());
    stop
}

/// Starts a hint's or analysis's search, stopping an earlier one (not the computer's move).
fn start_analysis(s: &mut Session) -> Arc<AtomicBool> {
    if let Some(old) = s.analysis.take() {
        old.store(true, Ordering::Relaxed);
    }
    let stop = Arc::new(AtomicBool::new(false));
    s.analysis = Some(stop.clone());
    stop
}

/// What the computer did.
#[derive(Debug)]
enum ComputerAct {
    /// A stone, in notation.
    Move(String),
    /// A swap decision.
    Choice(&'static str),
    /// It resigned (`decide::resigns`): the state's outcome says so.
    Resigned,
}

/// The computer acts once in `shared`'s game: a stone or, in a swap opening, a decision.
async fn computer_act(app: &AppState, shared: &Shared) -> Result<ComputerAct, ApiError> {
    let (game, level, tc, seed, version, stop) = {
        let mut s = shared.lock().await;
        flag(app, &mut s).await?;
        if !s.computer_to_move() {
            return Err(ApiError::Conflict("it is not the computer's turn".into()));
        }
        let stop = start_search(&mut s);
        (
            s.game.clone(),
            s.setup.level,
            s.time_control(),
            s.seed(),
            s.version,
            stop,
        )
    };
    let size = game.board().size();
    let decision = app
        .pool
        .run(Priority::Move, stop.clone(), move |engine, stop| {
            decide::act(engine, &game, level, &tc, seed, stop).unwrap_or(decide::Act::Stone(None))
        })
        .await?;
    let mut s = shared.lock().await;
    if s.version != version {
        return Err(ApiError::Conflict(
            "the position changed while the computer was thinking".into(),
        ));
    }
    // A search that was cancelled (the game left, another request) is no longer the game's.
    if !s.search.as_ref().is_some_and(|cur| Arc::ptr_eq(cur, &stop)) {
        return Err(ApiError::Conflict(
            "the computer's search was stopped (the game was left)".into(),
        ));
    }
    s.search = None;
    if flag(app, &mut s).await? {
        return Err(ApiError::Conflict("the computer lost on time".into()));
    }
    match decision {
        decide::Act::Choose(c) => {
            commit(
                app,
                &mut s,
                Event::Choose {
                    choice: c.name().into(),
                },
            )
            .await?;
            Ok(ComputerAct::Choice(c.name()))
        }
        decide::Act::Stone(mv) => {
            let mv = mv.ok_or_else(|| ApiError::Engine("the engine found no move".into()))?;
            commit(app, &mut s, Event::Move { at: [mv.x, mv.y] }).await?;
            Ok(ComputerAct::Move(point_name(size, mv)))
        }
        decide::Act::Resign => {
            let color = s
                .game
                .to_move()
                .ok_or_else(|| ApiError::Conflict("the game is over".into()))?;
            commit(
                app,
                &mut s,
                Event::Resign {
                    color: color.name().into(),
                },
            )
            .await?;
            Ok(ComputerAct::Resigned)
        }
    }
}

async fn get_state(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
) -> Result<Reply, ApiError> {
    let shared = app.get(&id).await?;
    // A turn the computer should be thinking about (after a restart, or one that failed) starts.
    kick(&app, &shared).await;
    answer(&app, &shared, Acts::default()).await
}

async fn leave(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let shared = app
        .games()
        .get(&id)
        .cloned()
        .ok_or_else(|| ApiError::NotFound(id.clone()))?;
    // Marked under the game's lock before it leaves the map: whatever holds it still (the
    // computer's turn, a request under way) stores nothing more on it once a copy can be
    // loaded afresh, and its WebSockets close (their pages connect again, to the copy).
    let mut s = shared.lock().await;
    s.left = true;
    s.cancel_search();
    s.notify = tokio::sync::watch::channel(s.version).0;
    {
        let mut games = app.games();
        if games.get(&id).is_some_and(|g| Arc::ptr_eq(g, &shared)) {
            games.remove(&id);
        }
    }
    drop(s);
    Ok(StatusCode::NO_CONTENT)
}

/// A frame of a game's WebSocket: the state after each stored change.
#[derive(Serialize)]
struct Push<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    state: &'a State,
}

async fn websocket(
    ws: WebSocketUpgrade,
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if !crate::online::same_origin(&headers) {
        return Err(ApiError::Forbidden(
            "this game's WebSocket is open to this server's own page only".into(),
        ));
    }
    // An unknown game is a 404 before the upgrade, not a socket that closes at once. A game
    // that left memory meanwhile is asked for again (it is loaded afresh); one that keeps
    // leaving is a conflict, which the page answers by connecting again.
    let mut tries = 0;
    let (shared, changes) = loop {
        let shared = app.get(&id).await?;
        let s = shared.lock().await;
        if !s.left {
            let changes = s.notify.subscribe();
            drop(s);
            break (shared, changes);
        }
        tries += 1;
        if tries == 3 {
            return Err(ApiError::Conflict(
                "the game keeps leaving memory: connect again".into(),
            ));
        }
    };
    // A page that reconnects after the game left memory may be the only one watching: the
    // computer's turn, stopped when its old copy left, starts again on this one.
    kick(&app, &shared).await;
    Ok(ws
        .max_message_size(1024)
        .max_frame_size(1024)
        .on_upgrade(move |socket| push(socket, app, shared, changes)))
}

/// Sends the game's state now and after every stored change, until the page goes.
async fn push(
    mut socket: WebSocket,
    app: AppState,
    shared: Shared,
    mut changes: tokio::sync::watch::Receiver<u64>,
) {
    let mut ping = tokio::time::interval(PING_EVERY);
    loop {
        let text = {
            let mut s = shared.lock().await;
            // A flag that fell is a change too; if storing it fails, the state says so later.
            let _ = flag(&app, &mut s).await;
            changes.mark_unchanged();
            s.ready_marks().await;
            serde_json::to_string(&Push {
                kind: "state",
                state: &s.state(),
            })
            .unwrap_or_default()
        };
        if socket.send(Message::text(text)).await.is_err() {
            return;
        }
        loop {
            tokio::select! {
                changed = changes.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    break;
                }
                msg = socket.recv() => match msg {
                    // The page sends nothing but pongs; anything else is ignored.
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                    Some(Ok(_)) => {}
                },
                _ = ping.tick() => {
                    if socket.send(Message::Ping(Vec::new().into())).await.is_err() {
                        return;
                    }
                }
            }
        }
    }
}

/// A move.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    /// `h8`, or `x,y` (0-based, y from the top; the only form on the unbounded board).
    #[serde(rename = "move")]
    point: String,
    /// Whether the answer waits for the computer's reply (default true).
    wait: Option<bool>,
}

async fn play(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    req: Result<Json<MoveRequest>, JsonRejection>,
) -> Result<Reply, ApiError> {
    let shared = app.get(&id).await?;
    let req = ApiError::json_body(req)?;
    crate::fault::check(&req.point);
    {
        let mut s = shared.lock().await;
        let size = s.game.board().size();
        let p: Point =
            parse_point(size, &req.point).map_err(|e| match (e, size.width(), size.height()) {
                // A bad request, as docs/api.md says: there is no such point to play.
                (tengen_rules::CoordError::OffBoard(text, _), Some(w), Some(h)) => {
                    ApiError::BadRequest(format!("{text} is off the {w}x{h} board"))
                }
                (e, ..) => bad(e),
            })?;
        if flag(&app, &mut s).await? {
            // The flag fell before the move arrived: the loss on time is stored, the move is
            // refused.
            drop(s);
            return Err(too_late(&app, &shared).await);
        }
        if s.game.outcome().is_some() {
            return Err(ApiError::Conflict("the game is over".into()));
        }
        if s.computer_to_move() {
            return Err(ApiError::Conflict("it is the computer's turn".into()));
        }
        if matches!(s.game.pending(), Pending::Choice { .. }) {
            return Err(ApiError::Conflict(
                "a swap decision is pending: choose a colour first".into(),
            ));
        }
        commit(&app, &mut s, Event::Move { at: [p.x, p.y] }).await?;
    }
    let acts = computer_turn(&app, &shared, req.wait.unwrap_or(true)).await?;
    answer(&app, &shared, acts).await
}

async fn step(AxState(app): AxState<AppState>, Path(id): Path<String>) -> Result<Reply, ApiError> {
    let shared = app.get(&id).await?;
    if shared.lock().await.driving.load(Ordering::Relaxed) {
        return Err(ApiError::Conflict(
            "the computer is thinking already".into(),
        ));
    }
    let mut acts = Acts::default();
    acts.add(computer_act(&app, &shared).await?);
    // Against the computer, the rest of its turn (a swap opening's run) follows.
    acts.extend(computer_turn(&app, &shared, true).await?);
    answer(&app, &shared, acts).await
}

/// A swap decision.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChooseRequest {
    /// `black`, `white` or `place_two`.
    choice: String,
    /// Whether the answer waits for the computer's reply (default true).
    wait: Option<bool>,
}

async fn choose(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    req: Result<Json<ChooseRequest>, JsonRejection>,
) -> Result<Reply, ApiError> {
    let shared = app.get(&id).await?;
    let req = ApiError::json_body(req)?;
    let choice: Choice = parse_choice(&req.choice)?;
    {
        let mut s = shared.lock().await;
        flag(&app, &mut s).await?;
        if s.game.outcome().is_some() {
            return Err(ApiError::Conflict("the game is over".into()));
        }
        if !matches!(s.game.pending(), Pending::Choice { .. }) {
            return Err(ApiError::Conflict(
                "there is no swap decision to take now".into(),
            ));
        }
        if s.computer_to_move() {
            return Err(ApiError::Conflict(
                "the computer takes this decision, not you".into(),
            ));
        }
        commit(
            &app,
            &mut s,
            Event::Choose {
                choice: choice.name().into(),
            },
        )
        .await?;
    }
    let acts = computer_turn(&app, &shared, req.wait.unwrap_or(true)).await?;
    answer(&app, &shared, acts).await
}

/// Stores `ev` (undo, redo) after checking the clock, and answers with the state.
async fn change(app: &AppState, shared: &Shared, ev: Event) -> Result<Reply, ApiError> {
    {
        let mut s = shared.lock().await;
        if flag(app, &mut s).await? {
            drop(s);
            return Err(too_late(app, shared).await);
        }
        commit(app, &mut s, ev).await?;
    }
    // Redo can stop where the computer is to move: it plays on.
    computer_turn(app, shared, false).await?;
    answer(app, shared, Acts::default()).await
}

async fn undo(AxState(app): AxState<AppState>, Path(id): Path<String>) -> Result<Reply, ApiError> {
    let shared = app.get(&id).await?;
    change(&app, &shared, Event::Undo).await
}

async fn redo(AxState(app): AxState<AppState>, Path(id): Path<String>) -> Result<Reply, ApiError> {
    let shared = app.get(&id).await?;
    change(&app, &shared, Event::Redo).await
}

/// Where to start a new game from.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ContinueRequest {
    /// The number of moves of the game (played and taken back) to keep.
    ply: usize,
}

/// A new game with the same settings from the position after `ply` moves of this one; this
/// game is not changed.
async fn continue_from(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    Client(client): Client,
    Extension(limits): Extension<Arc<ClientLimits>>,
    req: Result<Json<ContinueRequest>, JsonRejection>,
) -> Result<(StatusCode, Reply), ApiError> {
    let shared = app.get(&id).await?;
    let req = ApiError::json_body(req)?;
    let (first, setup) = {
        let s = shared.lock().await;
        (s.continue_event(req.ply)?, s.setup.clone())
    };
    limits.games.take(client, 1)?;
    let session = Session::new(new_id(&app), setup, app.random());
    // Like an import, the position is looked at first: the computer waits for `step`.
    let new = start(&app, session, Some(first)).await?;
    Ok((
        StatusCode::CREATED,
        answer(&app, &new, Acts::default()).await?,
    ))
}

/// How long and how wide to think.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThinkRequest {
    /// Milliseconds (default 1000 for a hint, 1500 for analysis; at most 10000).
    time_ms: Option<u64>,
    /// How many best moves (1 to 10; default 3 for analysis).
    multipv: Option<usize>,
}

/// One line of analysis.
#[derive(Debug, Serialize)]
struct LineOut {
    /// The moves, first the one to play.
    moves: Vec<String>,
    /// The moves as points.
    points: Vec<[i32; 2]>,
    /// "+35", "forced win in 3", "forced loss in 2" for the side to move.
    score: String,
    /// The score as a number for the side to move (proven results near +-30000).
    value: i32,
    /// The score as a number from black's point of view.
    black_value: i32,
    /// Moves (of the winner) to a forced five, when proven.
    forced_win_in: Option<u32>,
    /// Who wins by force, when proven.
    forced_winner: Option<&'static str>,
}

/// A finished analysis.
#[derive(Debug, Serialize)]
struct Analysis {
    /// The number of moves on the board when analysed.
    ply: usize,
    /// Whose move it is.
    to_move: &'static str,
    /// The best lines, best first.
    lines: Vec<LineOut>,
    /// Depth completed.
    depth: u32,
    /// Nodes searched.
    nodes: u64,
    /// Time taken.
    time_ms: u64,
}

async fn think(
    app: &AppState,
    shared: &Shared,
    // Who asks, charged for the search's time.
    client: std::net::IpAddr,
    limits: &ClientLimits,
    req: ThinkRequest,
    default_ms: u64,
    default_pv: usize,
) -> Result<Analysis, ApiError> {
    let time = req.time_ms.unwrap_or(default_ms);
    if !(10..=MAX_THINK_MS).contains(&time) {
        return Err(ApiError::BadRequest(format!(
            "time_ms must be between 10 and {MAX_THINK_MS}"
        )));
    }
    let multipv = checked_multipv(req.multipv.unwrap_or(default_pv))?;
    // The time asked for is charged up front: a search is stopped early only by a newer one.
    limits.analysis_ms.take(client, time)?;
    let (game, stop, limits, _) = begin_analysis(shared, time, multipv).await?;
    app.pool
        .run(Priority::Analysis, stop, move |engine, stop| {
            let r = engine.search_game(&game, &limits, stop, &mut |_| {});
            analysis_out(&game, &r.lines, r.depth, r.nodes, r.elapsed)
        })
        .await
}

/// The number of best moves asked for, when it is one the server gives (1 to 10).
fn checked_multipv(multipv: usize) -> Result<usize, ApiError> {
    if (1..=10).contains(&multipv) {
        Ok(multipv)
    } else {
        Err(ApiError::BadRequest(
            "multipv must be between 1 and 10".into(),
        ))
    }
}

/// Starts a hint's or analysis's search of `time_ms` on the game as it stands (stopping an
/// earlier one): the game, the search's stop flag, its limits, and the game's version
/// (`Session::version`), which tells whether the game changed before the answer is used.
async fn begin_analysis(
    shared: &Shared,
    time_ms: u64,
    multipv: usize,
) -> Result<(Game, Arc<AtomicBool>, Limits, u64), ApiError> {
    let mut s = shared.lock().await;
    if s.game.outcome().is_some() {
        return Err(ApiError::Conflict("the game is over".into()));
    }
    let stop = start_analysis(&mut s);
    let limits = Limits {
        time: Some(Duration::from_millis(time_ms)),
        nodes: None,
        depth: None,
        multipv,
        ..Limits::default()
    };
    Ok((s.game.clone(), stop, limits, s.version))
}

/// A search of `game`'s position: its lines and figures as the page reads them.
fn analysis_out(
    game: &Game,
    lines: &[tengen_engine::Line],
    depth: u32,
    nodes: u64,
    elapsed: Duration,
) -> Analysis {
    let size = game.board().size();
    let side = game.to_move().unwrap_or(Color::Black);
    let lines = lines
        .iter()
        .map(|l| {
            let value = l.score.value();
            let (forced_win_in, forced_winner) = match l.score {
                Score::Win(n) => (Some(n.div_ceil(2)), Some(side.name())),
                Score::Loss(n) => (Some(n.div_ceil(2)), Some(side.opponent().name())),
                Score::Eval(_) => (None, None),
            };
            LineOut {
                moves: l.moves.iter().map(|&p| point_name(size, p)).collect(),
                points: l.moves.iter().map(|&p| [p.x, p.y]).collect(),
                score: score_text(l.score),
                value,
                black_value: if side == Color::Black { value } else { -value },
                forced_win_in,
                forced_winner,
            }
        })
        .collect();
    Analysis {
        ply: game.moves().len(),
        to_move: side.name(),
        lines,
        depth,
        nodes,
        time_ms: elapsed.as_millis() as u64,
    }
}

/// The longest a live analysis runs; the page starts another when the position changes.
const LIVE_ANALYSIS_MS: u64 = 120_000;

/// How wide a live analysis looks.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LiveRequest {
    /// How many best moves (1 to 10; default 3).
    multipv: Option<usize>,
}

/// One message of a live analysis.
#[derive(Debug)]
enum LiveEvent {
    /// A depth completed.
    Info(Analysis),
    /// The search ended: its time was up, the position was searched out, or a newer analysis
    /// took over.
    Done,
    /// The client's engine time ran out.
    Refused(String),
}

/// Analysis that goes on while the player thinks: a stream of server-sent events, one `info`
/// (an analysis, as `POST .../analysis` answers it) each time a depth completes, then `done`
/// (or `limit` with a message when the client's engine time runs out). The engine time is
/// charged as it is used. The search stops when the client goes away, when another hint or
/// analysis starts, or after two minutes.
async fn live_analysis(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    Client(client): Client,
    Extension(limits): Extension<Arc<ClientLimits>>,
    req: Result<Query<LiveRequest>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let shared = app.get(&id).await?;
    let Query(req) = req.map_err(|e| ApiError::BadRequest(e.body_text()))?;
    let multipv = checked_multipv(req.multipv.unwrap_or(3))?;
    // The first second is charged up front: a client without engine time left is refused at
    // once rather than in the stream.
    const FIRST_CHARGE_MS: u64 = 1_000;
    limits.analysis_ms.take(client, FIRST_CHARGE_MS)?;
    mark_assisted(&app, &shared, true).await?;
    let (game, stop, search_limits, _) = begin_analysis(&shared, LIVE_ANALYSIS_MS, multipv).await?;
    let (tx, rx) = tokio::sync::mpsc::channel::<LiveEvent>(8);
    let pool = app.pool.clone();
    tokio::spawn(async move {
        let done = tx.clone();
        let searched = pool
            .run(Priority::Analysis, stop, move |engine, stop| {
                let mut charged = FIRST_CHARGE_MS;
                engine.search_game(&game, &search_limits, stop, &mut |info| {
                    // Time used past what was charged is charged now; a refusal ends it.
                    let used = info.elapsed.as_millis() as u64;
                    let event = match limits
                        .analysis_ms
                        .take(client, used.saturating_sub(charged))
                    {
                        Ok(()) => {
                            charged = charged.max(used);
                            LiveEvent::Info(analysis_out(
                                &game,
                                &info.lines,
                                info.depth,
                                info.nodes,
                                info.elapsed,
                            ))
                        }
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            LiveEvent::Refused(e.to_string())
                        }
                    };
                    // Nobody listening any more: the page closed the stream.
                    if tx.blocking_send(event).is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                });
            })
            .await;
        if searched.is_ok() {
            done.send(LiveEvent::Done).await.ok();
        }
    });
    let events = futures_util::stream::unfold(rx, |mut rx| async move {
        let event = match rx.recv().await? {
            LiveEvent::Info(a) => {
                let json = serde_json::to_string(&a).unwrap_or_default();
                axum::response::sse::Event::default()
                    .event("info")
                    .data(json)
            }
            LiveEvent::Done => axum::response::sse::Event::default()
                .event("done")
                .data("{}"),
            LiveEvent::Refused(why) => axum::response::sse::Event::default()
                .event("limit")
                .data(serde_json::json!({ "error": why }).to_string()),
        };
        Some((Ok::<_, std::convert::Infallible>(event), rx))
    });
    Ok(axum::response::sse::Sse::new(events)
        .keep_alive(axum::response::sse::KeepAlive::default())
        .into_response())
}

/// Reads an optional JSON body: nothing (or only spaces) means the defaults.
fn optional_body<T: serde::de::DeserializeOwned + Default>(
    bytes: Result<axum::body::Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    let bytes = bytes.map_err(|e| ApiError::from_body(e.status(), &e))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        let syntax = matches!(
            e.classify(),
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof
        );
        ApiError::bad_json(&e.to_string(), syntax)
    })
}

async fn hint(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    Client(client): Client,
    Extension(limits): Extension<Arc<ClientLimits>>,
    req: Result<axum::body::Bytes, BytesRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let shared = app.get(&id).await?;
    let req: ThinkRequest = optional_body(req)?;
    if shared.lock().await.computer_to_move() {
        return Err(ApiError::Conflict("it is the computer's turn".into()));
    }
    let a = think(&app, &shared, client, &limits, req, 1_000, 1).await?;
    let best = a
        .lines
        .first()
        .ok_or_else(|| ApiError::Engine("the engine found no move".into()))?;
    mark_assisted(&app, &shared, false).await?;
    Ok(Json(serde_json::json!({
        "move": best.moves.first(),
        "point": best.points.first(),
        "score": best.score,
        "line": best.moves,
    })))
}

/// Stores that the human was helped (a hint, or an analysis against the computer during the
/// game): such wins stay off the hero board.
async fn mark_assisted(
    app: &AppState,
    shared: &Shared,
    only_vs_computer: bool,
) -> Result<(), ApiError> {
    let mut s = shared.lock().await;
    let applies =
        !only_vs_computer || (s.setup.opponent == Opponent::Computer && s.game.outcome().is_none());
    if applies && !s.assisted {
        commit(app, &mut s, Event::Assisted).await?;
    }
    Ok(())
}

async fn analysis(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    Client(client): Client,
    Extension(limits): Extension<Arc<ClientLimits>>,
    req: Result<axum::body::Bytes, BytesRejection>,
) -> Result<Json<Analysis>, ApiError> {
    let shared = app.get(&id).await?;
    let req: ThinkRequest = optional_body(req)?;
    mark_assisted(&app, &shared, true).await?;
    Ok(Json(
        think(&app, &shared, client, &limits, req, 1_500, 3).await?,
    ))
}

/// Who resigns.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResignRequest {
    /// The colour resigning (default: the human against the computer, else the side to move).
    color: Option<String>,
}

async fn resign(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    req: Result<axum::body::Bytes, BytesRejection>,
) -> Result<Reply, ApiError> {
    let shared = app.get(&id).await?;
    let req: ResignRequest = optional_body(req)?;
    {
        let mut s = shared.lock().await;
        if flag(&app, &mut s).await? {
            drop(s);
            return Err(too_late(&app, &shared).await);
        }
        let color = match req.color.as_deref() {
            Some(c) => parse_color(c)?,
            None if s.setup.opponent == Opponent::Computer => s.human_color(),
            None => s
                .game
                .to_move()
                .ok_or_else(|| ApiError::Conflict("the game is over".into()))?,
        };
        if s.setup.opponent == Opponent::Computer && color != s.human_color() {
            return Err(ApiError::Conflict(
                "only you can resign for yourself".into(),
            ));
        }
        commit(
            &app,
            &mut s,
            Event::Resign {
                color: color.name().into(),
            },
        )
        .await?;
    }
    answer(&app, &shared, Acts::default()).await
}

/// A draw offer.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawRequest {
    /// For a game between two people: both agreed (the page asked the other player).
    agreed: Option<bool>,
}

async fn draw(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    Client(client): Client,
    Extension(limits): Extension<Arc<ClientLimits>>,
    req: Result<axum::body::Bytes, BytesRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let shared = app.get(&id).await?;
    let req: DrawRequest = optional_body(req)?;
    let (opponent, human, level, over) = {
        let mut s = shared.lock().await;
        flag(&app, &mut s).await?;
        (
            s.setup.opponent,
            s.human_color(),
            s.setup.level,
            s.game.outcome().is_some(),
        )
    };
    if over {
        return Err(ApiError::Conflict("the game is over".into()));
    }
    // The version of the game the computer's look judged (none between friends).
    let mut judged = None;
    let (accepted, reason) = match opponent {
        Opponent::Computers => {
            return Err(ApiError::Conflict(
                "nobody to offer a draw to: the computer plays both sides".into(),
            ));
        }
        Opponent::Friend => {
            if req.agreed != Some(true) {
                return Err(ApiError::BadRequest(
                    "a draw between two people needs \"agreed\": true".into(),
                ));
            }
            (true, "Both players agreed.".to_string())
        }
        Opponent::Computer => {
            // The computer looks at the position and accepts unless it stands better
            // (`tengen_engine::decide`, as the bot does). The look is charged as an analysis.
            limits.analysis_ms.take(client, DRAW_LOOK_MS)?;
            let (game, stop, _, version) = begin_analysis(&shared, DRAW_LOOK_MS, 1).await?;
            judged = Some(version);
            let to_move = game
                .to_move()
                .ok_or_else(|| ApiError::Conflict("the game is over".into()))?;
            let answer = app
                .pool
                .run(Priority::Analysis, stop, move |engine, stop| {
                    decide::answer_draw(
                        engine,
                        game.board(),
                        game.rule(),
                        to_move,
                        human.opponent(),
                        level,
                        stop,
                    )
                })
                .await?;
            if answer.accepts {
                (true, "The computer accepts.".to_string())
            } else {
                (
                    false,
                    format!(
                        "The computer declines: it stands better ({}).",
                        score_text(answer.own_score)
                    ),
                )
            }
        }
    };
    {
        let mut s = shared.lock().await;
        // The answer holds for the position the computer looked at only: a move (its own,
        // played while it looked) or any other change meanwhile lapses the offer, as a move
        // does online. Its look was cut short by the change, so neither answer stands.
        if judged.is_some_and(|v| v != s.version) {
            return Err(ApiError::Conflict(
                "the position changed while the computer considered the draw offer (a move \
                 lapses it): offer it again"
                    .into(),
            ));
        }
        if accepted {
            commit(&app, &mut s, Event::Draw).await?;
        }
    }
    let reply = answer(&app, &shared, Acts::default()).await?;
    Ok(Json(serde_json::json!({
        "accepted": accepted,
        "message": reason,
        "state": reply.state,
    })))
}

/// Which record format.
#[derive(Debug, Deserialize)]
struct RecordQuery {
    /// `txt`, `psq` or `sgf` (default `txt`).
    format: Option<String>,
}

async fn record(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    Query(q): Query<RecordQuery>,
) -> Result<Response, ApiError> {
    let shared = app.get(&id).await?;
    let ext = q.format.as_deref().unwrap_or("txt");
    let format = parse_format(ext)?;
    let text = {
        let s = shared.lock().await;
        let mut r = Record::from_game(&s.game);
        let computer = format!("Tengen ({})", s.setup.level.name());
        let name = |c: Color| match s.setup.opponent {
            Opponent::Computers => computer.clone(),
            Opponent::Friend => format!("{} player", c.name()),
            Opponent::Computer if c == s.human_color() => s.setup.player.clone(),
            Opponent::Computer => computer.clone(),
        };
        r.black = Some(name(Color::Black));
        r.white = Some(name(Color::White));
        r.write(format)
            .map_err(|e| ApiError::Conflict(format!("cannot write this game as {ext}: {e}")))?
    };
    let ext = if format == RecordFormat::Plain {
        "txt"
    } else {
        ext
    };
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"tengen-{id}.{ext}\""),
            ),
        ],
        text,
    )
        .into_response())
}

/// Whose results.
#[derive(Debug, Deserialize)]
struct ResultsQuery {
    /// One player's name (default: everyone).
    player: Option<String>,
}

async fn results(
    AxState(app): AxState<AppState>,
    Query(q): Query<ResultsQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    // Names are stored cleaned (`text::clean`): look them up the same way.
    let player = q
        .player
        .as_deref()
        .map(crate::text::clean)
        .filter(|p| !p.is_empty());
    let player = player.as_deref();
    let levels = app.store.tally(player).await?;
    Ok(Json(
        serde_json::json!({ "player": player, "levels": levels }),
    ))
}

async fn heroes(AxState(app): AxState<AppState>) -> Result<Json<serde_json::Value>, ApiError> {
    Ok(Json(
        serde_json::json!({ "levels": app.store.heroes().await? }),
    ))
}
