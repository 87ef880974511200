//! The HTTP API: routes, request and response bodies, and the game service behind them.

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Extension;
use axum::extract::rejection::{BytesRejection, JsonRejection};
use axum::extract::{Path, Query, State as AxState};
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tengen_engine::{Engine, Level, Limits, Score};
use tengen_rules::{
    BoardSize, Choice, Color, ForbiddenPolicy, Game, OpeningRule, Pending, Phase, Point, Record,
    RecordFormat, Rule, parse_point, point_name,
};

use crate::engine_pool::{EnginePool, Priority};
use crate::error::ApiError;
use crate::limits::{Client, ClientLimits};
use crate::session::{ClockSpec, Opponent, Session, Setup, State, parse_color, score_text};
use crate::store::{ResultRow, Store};

/// How many games the server keeps; the least recently used goes first.
const MAX_GAMES: usize = 500;
/// The longest analysis or hint a page may ask for.
const MAX_THINK_MS: u64 = 10_000;

type Shared = Arc<Mutex<Session>>;

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
        // A handler that panicked while holding the map cannot have left it half changed.
        self.games
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn get(&self, id: &str) -> Result<Shared, ApiError> {
        self.games()
            .get(id)
            .cloned()
            .ok_or_else(|| ApiError::NotFound(id.to_string()))
    }

    fn insert(&self, session: Session) -> Shared {
        let id = session.id.clone();
        let shared = Arc::new(Mutex::new(session));
        let mut games = self.games();
        while games.len() >= MAX_GAMES {
            let oldest = games
                .iter()
                .min_by_key(|(_, s)| lock(s).touched)
                .map(|(k, _)| k.clone());
            match oldest.and_then(|k| games.remove(&k)) {
                Some(s) => lock(&s).cancel_search(),
                None => break,
            }
        }
        games.insert(id, shared.clone());
        shared
    }
}

fn lock(s: &Shared) -> MutexGuard<'_, Session> {
    // Sessions are changed by whole-value assignments after checks: a poisoned one is usable.
    s.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/api/games", post(create))
        .route("/api/games/import", post(import))
        .route("/api/games/{id}", get(get_state).delete(leave))
        .route("/api/games/{id}/leave", post(leave))
        .route("/api/games/{id}/moves", post(play))
        .route("/api/games/{id}/step", post(step))
        .route("/api/games/{id}/choose", post(choose))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/redo", post(redo))
        .route("/api/games/{id}/goto", post(goto))
        .route("/api/games/{id}/hint", post(hint))
        .route("/api/games/{id}/analysis", post(analysis))
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
        return ApiError::NotFound(format!("no page {path}")).into_response();
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
        crate::session::check_clock(clock)?;
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
    /// The computer's move just played, in notation.
    computer_move: Option<String>,
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

async fn create(
    AxState(app): AxState<AppState>,
    Client(client): Client,
    Extension(limits): Extension<Arc<ClientLimits>>,
    req: Result<Json<CreateRequest>, JsonRejection>,
) -> Result<(StatusCode, Reply), ApiError> {
    let setup = ApiError::json_body(req)?.setup()?;
    limits.games.take(client, 1)?;
    let seed = app.random();
    let shared = app.insert(Session::new(new_id(&app), setup, seed));
    let reply = after_change(&app, &shared, true).await?;
    Ok((StatusCode::CREATED, reply))
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
    limits.games.take(client, 1)?;
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
    let mut session = Session::new(new_id(&app), setup, app.random());
    session.game = game;
    session.game.set_forbidden_policy(session.setup.policy);
    if let Some(at) = req.at {
        session.goto(at)?;
    }
    let shared = app.insert(session);
    // An imported position is looked at first: the computer waits for `step`.
    let reply = after_change(&app, &shared, false).await?;
    Ok((StatusCode::CREATED, reply))
}

/// Stores the result of a finished game against the computer, once.
async fn record_result(app: &AppState, shared: &Shared) -> Result<(), ApiError> {
    let row = {
        let mut s = lock(shared);
        let Some(outcome) = s.game.outcome().cloned() else {
            return Ok(());
        };
        if s.recorded || s.setup.opponent != Opponent::Computer {
            return Ok(());
        }
        s.recorded = true;
        let human = s.human_color();
        let size = s.game.board().size();
        ResultRow {
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
        }
    };
    app.store.add_result(&row).await?;
    Ok(())
}

/// After a change: lets the computer reply when it is its turn (and `reply` is asked for), stores
/// a finished game's result, and answers with the state.
async fn after_change(app: &AppState, shared: &Shared, reply: bool) -> Result<Reply, ApiError> {
    let mut computer_move = None;
    let mut computer_choices = Vec::new();
    let vs_computer = lock(shared).setup.opponent == Opponent::Computer;
    // The computer may act several times in a row during a swap opening (three stones, or a
    // decision and then a stone).
    let mut acts = 0;
    while reply && vs_computer && acts < 8 && {
        let mut s = lock(shared);
        s.check_flag();
        s.computer_to_move()
    } {
        match computer_act(app, shared).await? {
            Act::Move(m) => computer_move = Some(m),
            Act::Choice(c) => computer_choices.push(c),
        }
        acts += 1;
    }
    record_result(app, shared).await?;
    let state = {
        let mut s = lock(shared);
        s.check_flag();
        s.touched = Instant::now();
        s.state()
    };
    Ok(Reply {
        state,
        computer_move,
        computer_choices,
    })
}

/// Starts a search for `shared`'s game, stopping any search running for it.
fn start_search(s: &mut Session) -> Arc<AtomicBool> {
    s.cancel_search();
    let stop = Arc::new(AtomicBool::new(false));
    s.search = Some(stop.clone());
    stop
}

/// What the computer did.
#[derive(Debug)]
enum Act {
    /// A stone, in notation.
    Move(String),
    /// A swap decision.
    Choice(&'static str),
}

/// What the engine decides in a swap opening.
#[derive(Debug)]
enum Decision {
    Stone(Option<Point>),
    Choose(Choice),
}

/// Nodes for the computer's opening judgements, by level.
fn opening_nodes(level: Level) -> u64 {
    match level {
        Level::Beginner => 50_000,
        Level::Intermediate => 100_000,
        _ => 200_000,
    }
}

/// Under this evaluation (either way), the computer calls a swap2 position balanced.
const BALANCED: i32 = 40;

/// The position's value for black after a short search.
fn black_value(engine: &mut Engine, game: &Game, nodes: u64, stop: &AtomicBool) -> Option<i32> {
    let side = game.to_move()?;
    let limits = Limits {
        time: Some(Duration::from_millis(3_000)),
        nodes: Some(nodes),
        depth: None,
        multipv: 1,
    };
    let r = engine.search_game(game, &limits, stop, &mut |_| {});
    let v = r.lines.first()?.score.value();
    Some(if side == Color::Black { v } else { -v })
}

/// The first three stones of a swap opening: the centre, a white stone beside it and a black
/// stone near both (the shapes of the 26 renju openings), chosen by `seed`.
fn opening_stone(game: &Game, seed: u64) -> Option<Point> {
    let c = game.board().size().center();
    let n = game.moves().len();
    let pick = |options: &[(i32, i32)], k: u64| {
        let start = (seed.wrapping_mul(6364136223846793005).wrapping_add(k) >> 33) as usize;
        (0..options.len())
            .map(|i| options[(start + i) % options.len()])
            .map(|(dx, dy)| Point::new(c.x + dx, c.y + dy))
            .find(|&p| game.board().contains(p) && game.board().is_empty_at(p))
    };
    match n {
        0 => Some(c),
        1 => pick(&[(1, 0), (1, -1)], 1),
        _ => pick(
            &[
                (0, -1),
                (1, -1),
                (2, 0),
                (2, -1),
                (0, -2),
                (1, -2),
                (2, -2),
                (-1, -1),
                (0, 1),
                (1, 1),
                (2, 1),
                (-1, 0),
            ],
            2,
        ),
    }
}

/// The computer's decision or stone in a swap opening, with the engine.
fn opening_decision(
    engine: &mut Engine,
    game: &Game,
    level: Level,
    seed: u64,
    stop: &AtomicBool,
) -> Option<Decision> {
    let nodes = opening_nodes(level);
    match game.pending() {
        Pending::Choice { may_place_two, .. } => {
            let v = black_value(engine, game, nodes, stop).unwrap_or(0);
            Some(Decision::Choose(if may_place_two && v.abs() < BALANCED {
                Choice::PlaceTwo
            } else if v >= 0 {
                Choice::Black
            } else {
                Choice::White
            }))
        }
        Pending::Move { color, .. } => {
            if !matches!(game.phase(), Phase::Placing { .. }) {
                return None;
            }
            if game.moves().len() < 3 {
                return Some(Decision::Stone(opening_stone(game, seed)));
            }
            if color == Color::White {
                // The best white stone.
                let limits = Limits {
                    time: Some(Duration::from_millis(3_000)),
                    nodes: Some(nodes),
                    depth: None,
                    multipv: 1,
                };
                let r = engine.search_game(game, &limits, stop, &mut |_| {});
                return Some(Decision::Stone(
                    r.lines.first().and_then(|l| l.moves.first().copied()),
                ));
            }
            // A black stone among the best that leaves the position closest to even.
            let limits = Limits {
                time: Some(Duration::from_millis(3_000)),
                nodes: Some(nodes),
                depth: None,
                multipv: 5,
            };
            let r = engine.search_game(game, &limits, stop, &mut |_| {});
            let best = r
                .lines
                .iter()
                .filter(|l| matches!(l.score, Score::Eval(_)))
                .min_by_key(|l| l.score.value().abs())
                .or(r.lines.first())
                .and_then(|l| l.moves.first().copied());
            Some(Decision::Stone(best))
        }
        Pending::Over => None,
    }
}

/// The computer acts once in `shared`'s game: a stone or, in a swap opening, a decision.
async fn computer_act(app: &AppState, shared: &Shared) -> Result<Act, ApiError> {
    let (game, level, tc, seed, version, stop) = {
        let mut s = lock(shared);
        s.check_flag();
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
            opening_decision(engine, &game, level, seed, stop)
                .unwrap_or_else(|| Decision::Stone(engine.play(&game, level, &tc, seed, stop)))
        })
        .await?;
    let mut s = lock(shared);
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
    match decision {
        Decision::Choose(c) => {
            s.choose(c)?;
            s.clear_redo();
            Ok(Act::Choice(c.name()))
        }
        Decision::Stone(mv) => {
            let mv = mv.ok_or_else(|| ApiError::Engine("the engine found no move".into()))?;
            s.play(mv)?;
            s.clear_redo();
            Ok(Act::Move(point_name(size, mv)))
        }
    }
}

async fn get_state(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
) -> Result<Reply, ApiError> {
    let shared = app.get(&id)?;
    after_change(&app, &shared, false).await
}

async fn leave(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let shared = app
        .games()
        .remove(&id)
        .ok_or_else(|| ApiError::NotFound(id.clone()))?;
    lock(&shared).cancel_search();
    Ok(StatusCode::NO_CONTENT)
}

/// A move.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    /// `h8`, or `x,y` (0-based, y from the top; the only form on the unbounded board).
    #[serde(rename = "move")]
    point: String,
}

async fn play(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    req: Result<Json<MoveRequest>, JsonRejection>,
) -> Result<Reply, ApiError> {
    let shared = app.get(&id)?;
    let req = ApiError::json_body(req)?;
    crate::fault::check(&req.point);
    {
        let mut s = lock(&shared);
        let size = s.game.board().size();
        let p: Point = parse_point(size, &req.point).map_err(bad)?;
        s.check_flag();
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
        s.play(p)?;
        s.clear_redo();
    }
    after_change(&app, &shared, true).await
}

async fn step(AxState(app): AxState<AppState>, Path(id): Path<String>) -> Result<Reply, ApiError> {
    let shared = app.get(&id)?;
    let act = computer_act(&app, &shared).await?;
    let mut reply = after_change(&app, &shared, false).await?;
    match act {
        Act::Move(mv) => reply.computer_move = Some(mv),
        Act::Choice(c) => reply.computer_choices.push(c),
    }
    Ok(reply)
}

/// A swap decision.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChooseRequest {
    /// `black`, `white` or `place_two`.
    choice: String,
}

async fn choose(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    req: Result<Json<ChooseRequest>, JsonRejection>,
) -> Result<Reply, ApiError> {
    let shared = app.get(&id)?;
    let req = ApiError::json_body(req)?;
    let choice = match req.choice.trim().to_ascii_lowercase().as_str() {
        "black" => Choice::Black,
        "white" => Choice::White,
        "place_two" => Choice::PlaceTwo,
        other => {
            return Err(ApiError::BadRequest(format!(
                "unknown choice {other:?} (black, white or place_two)"
            )));
        }
    };
    {
        let mut s = lock(&shared);
        s.check_flag();
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
        s.choose(choice)?;
        s.clear_redo();
    }
    after_change(&app, &shared, true).await
}

async fn undo(AxState(app): AxState<AppState>, Path(id): Path<String>) -> Result<Reply, ApiError> {
    let shared = app.get(&id)?;
    lock(&shared).undo()?;
    after_change(&app, &shared, false).await
}

async fn redo(AxState(app): AxState<AppState>, Path(id): Path<String>) -> Result<Reply, ApiError> {
    let shared = app.get(&id)?;
    lock(&shared).redo()?;
    after_change(&app, &shared, false).await
}

/// Where to go in the game's moves.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GotoRequest {
    /// The number of moves to have on the board.
    ply: usize,
}

async fn goto(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    req: Result<Json<GotoRequest>, JsonRejection>,
) -> Result<Reply, ApiError> {
    let shared = app.get(&id)?;
    let req = ApiError::json_body(req)?;
    lock(&shared).goto(req.ply)?;
    after_change(&app, &shared, false).await
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
    let multipv = req.multipv.unwrap_or(default_pv);
    if !(1..=10).contains(&multipv) {
        return Err(ApiError::BadRequest(
            "multipv must be between 1 and 10".into(),
        ));
    }
    // The time asked for is charged up front: a search is stopped early only by a newer one.
    limits.analysis_ms.take(client, time)?;
    let (game, stop) = {
        let mut s = lock(shared);
        if s.game.outcome().is_some() {
            return Err(ApiError::Conflict("the game is over".into()));
        }
        let stop = start_search(&mut s);
        (s.game.clone(), stop)
    };
    let size = game.board().size();
    let side = game.to_move().unwrap_or(Color::Black);
    let ply = game.moves().len();
    let limits = Limits {
        time: Some(Duration::from_millis(time)),
        nodes: None,
        depth: None,
        multipv,
    };
    let result = app
        .pool
        .run(Priority::Analysis, stop, move |engine, stop| {
            engine.search_game(&game, &limits, stop, &mut |_| {})
        })
        .await?;
    let lines = result
        .lines
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
    Ok(Analysis {
        ply,
        to_move: side.name(),
        lines,
        depth: result.depth,
        nodes: result.nodes,
        time_ms: result.elapsed.as_millis() as u64,
    })
}

/// Reads an optional JSON body: nothing (or only spaces) means the defaults.
fn optional_body<T: serde::de::DeserializeOwned + Default>(
    bytes: Result<axum::body::Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    let bytes = bytes.map_err(|e| ApiError::from_body(&e))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::BadRequest(format!("bad request body: {e}")))
}

async fn hint(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    Client(client): Client,
    Extension(limits): Extension<Arc<ClientLimits>>,
    req: Result<axum::body::Bytes, BytesRejection>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let shared = app.get(&id)?;
    let req: ThinkRequest = optional_body(req)?;
    if lock(&shared).computer_to_move() {
        return Err(ApiError::Conflict("it is the computer's turn".into()));
    }
    let a = think(&app, &shared, client, &limits, req, 1_000, 1).await?;
    let best = a
        .lines
        .first()
        .ok_or_else(|| ApiError::Engine("the engine found no move".into()))?;
    lock(&shared).assisted = true;
    Ok(Json(serde_json::json!({
        "move": best.moves.first(),
        "point": best.points.first(),
        "score": best.score,
        "line": best.moves,
    })))
}

async fn analysis(
    AxState(app): AxState<AppState>,
    Path(id): Path<String>,
    Client(client): Client,
    Extension(limits): Extension<Arc<ClientLimits>>,
    req: Result<axum::body::Bytes, BytesRejection>,
) -> Result<Json<Analysis>, ApiError> {
    let shared = app.get(&id)?;
    let req: ThinkRequest = optional_body(req)?;
    {
        let mut s = lock(&shared);
        if s.setup.opponent == Opponent::Computer && s.game.outcome().is_none() {
            s.assisted = true;
        }
    }
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
    let shared = app.get(&id)?;
    let req: ResignRequest = optional_body(req)?;
    {
        let mut s = lock(&shared);
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
        s.cancel_search();
        s.game
            .resign(color)
            .map_err(|e| ApiError::Conflict(e.to_string()))?;
        s.version += 1;
    }
    after_change(&app, &shared, false).await
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
    let shared = app.get(&id)?;
    let req: DrawRequest = optional_body(req)?;
    let (opponent, human, over) = {
        let s = lock(&shared);
        (
            s.setup.opponent,
            s.human_color(),
            s.game.outcome().is_some(),
        )
    };
    if over {
        return Err(ApiError::Conflict("the game is over".into()));
    }
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
            (true, "both players agreed".to_string())
        }
        Opponent::Computer => {
            // The computer looks at the position and accepts unless it stands better.
            let a = think(
                &app,
                &shared,
                client,
                &limits,
                ThinkRequest::default(),
                500,
                1,
            )
            .await?;
            let best = a
                .lines
                .first()
                .ok_or_else(|| ApiError::Engine("the engine found no move".into()))?;
            let computer = human.opponent();
            let for_computer = if computer == Color::Black {
                best.black_value
            } else {
                -best.black_value
            };
            if for_computer > 30 {
                (
                    false,
                    format!("the computer declines: it stands better ({})", best.score),
                )
            } else {
                (true, "the computer accepts".to_string())
            }
        }
    };
    if accepted {
        let mut s = lock(&shared);
        s.cancel_search();
        s.game
            .agree_draw()
            .map_err(|e| ApiError::Conflict(e.to_string()))?;
        s.version += 1;
    }
    let reply = after_change(&app, &shared, false).await?;
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
    let shared = app.get(&id)?;
    let ext = q.format.as_deref().unwrap_or("txt");
    let format = parse_format(ext)?;
    let text = {
        let s = lock(&shared);
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
