//! The online routes: HTTP for creating, joining and looking, and one WebSocket per page.

use std::time::{Duration, Instant};

use axum::extract::rejection::JsonRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade, close_code};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use tengen_rules::Record;
use tokio::sync::broadcast;

use super::actor::{Cmd, Failed, Reply};
use super::table::Action;
use super::{MAX_NAME_CHARS, Online};
use crate::error::ApiError;
use crate::limits::{Client, ClientLimits};
use tengen_wire::{
    ChatLine, ClientMsg, CreateGame, FRAME_BURST, FRAMES_PER_SEC, JoinGame, Role, ServerMsg,
};

/// The largest frame a client may send.
const MAX_FRAME: usize = 4096;
/// A frame over `MAX_FRAME` but within this is read whole before it is refused, so that the
/// refusal (an `error` frame, then a close frame with the reason) ends a connection that has
/// nothing left unread: closing a socket with unread bytes resets it, and a client may then lose
/// what was sent to it last. A larger frame is cut off as soon as its header gives its size,
/// with the same refusal, sent as the connection ends.
const READ_LIMIT: usize = 64 * 1024;
/// How long a refused connection waits for the client's answer to its close frame.
const CLOSE_WITHIN: Duration = Duration::from_secs(2);
/// Frames refused in a row for coming too fast, past which the connection is closed.
const FLOOD_REFUSALS: u32 = 50;
/// The longest chat line, in characters.
const MAX_CHAT: usize = 300;
/// How long a new connection has to say hello.
const HELLO_WITHIN: Duration = Duration::from_secs(10);
/// How often the server pings, and how long it waits for any sign of life before it closes a
/// connection whose other end vanished without a word (so the player is marked gone).
const PING_EVERY: Duration = Duration::from_secs(30);
const SILENT_LIMIT: Duration = Duration::from_secs(90);

/// The online routes, to merge into the app's router.
pub fn router(online: Online) -> Router {
    Router::new()
        .route("/api/online", post(create))
        .route("/api/online/lobby", get(lobby))
        .route("/api/online/stats", get(stats))
        .route("/api/online/{id}", get(state))
        .route("/api/online/{id}/join", post(join))
        .route("/api/online/{id}/record", get(record))
        .route("/api/online/{id}/ws", get(websocket))
        .with_state(online)
}

async fn create(
    State(online): State<Online>,
    Client(client): Client,
    Extension(limits): Extension<std::sync::Arc<ClientLimits>>,
    req: Result<Json<CreateGame>, JsonRejection>,
) -> Result<(StatusCode, Json<tengen_wire::Seated>), ApiError> {
    let req = ApiError::json_body(req)?;
    limits.games.take(client, 1)?;
    let seated = online.create(req).await?;
    Ok((StatusCode::CREATED, Json(seated)))
}

async fn join(
    State(online): State<Online>,
    Path(id): Path<String>,
    req: Result<Json<JoinGame>, JsonRejection>,
) -> Result<Json<tengen_wire::Seated>, ApiError> {
    Ok(Json(online.join(&id, ApiError::json_body(req)?).await?))
}

async fn state(
    State(online): State<Online>,
    Path(id): Path<String>,
) -> Result<Json<tengen_wire::GameState>, ApiError> {
    Ok(Json(online.state(&id).await?))
}

async fn lobby(State(online): State<Online>) -> Json<tengen_wire::Lobby> {
    Json(online.lobby())
}

async fn stats(State(online): State<Online>) -> Json<tengen_wire::Stats> {
    Json(online.stats())
}

#[derive(Debug, serde::Deserialize)]
struct RecordQuery {
    format: Option<String>,
}

async fn record(
    State(online): State<Online>,
    Path(id): Path<String>,
    Query(q): Query<RecordQuery>,
) -> Result<Response, ApiError> {
    let ext = q.format.as_deref().unwrap_or("txt");
    let format = crate::api::parse_format(ext)?;
    let (game, names) = online.record(&id).await?;
    let mut r = Record::from_game(&game);
    // Under the free and beginner openings the first seat has black; swap openings settle it.
    let black_seat = match game.black_seat() {
        Some(tengen_rules::Seat::Second) => 1,
        _ => 0,
    };
    let name = |i: usize| names[i].clone().unwrap_or_else(|| "Anonymous".into());
    r.black = Some(name(black_seat));
    r.white = Some(name(1 - black_seat));
    let text = r
        .write(format)
        .map_err(|e| ApiError::Conflict(format!("cannot write this game as {ext}: {e}")))?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"tengen-online-{id}.{ext}\""),
            ),
        ],
        text,
    )
        .into_response())
}

/// Whether a WebSocket request may come from where it says: a browser page of this server (its
/// `Origin` names the host the request was sent to), or a program, which sends no `Origin`.
/// Another site's page could otherwise act with a token it got hold of, or watch on a visitor's
/// behalf.
pub(crate) fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let authority = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, rest)| rest.trim_end_matches('/'));
    matches!((authority, host), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h))
}

async fn websocket(
    ws: WebSocketUpgrade,
    State(online): State<Online>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if !same_origin(&headers) {
        return Err(ApiError::Forbidden(
            "this game's WebSocket is open to this server's own page only".into(),
        ));
    }
    // An unknown game is a 404 before the upgrade, not a socket that closes at once.
    online.inner.handle(&id).await?;
    Ok(ws
        .max_message_size(READ_LIMIT)
        .max_frame_size(READ_LIMIT)
        .read_buffer_size(MAX_FRAME)
        .write_buffer_size(0)
        .on_upgrade(move |socket| connection(socket, online, id)))
}

/// A token bucket: `burst` frames at once, then one every `every`.
#[derive(Debug)]
struct Bucket {
    tokens: f64,
    burst: f64,
    per_sec: f64,
    last: Instant,
}

impl Bucket {
    fn new(burst: u32, per_sec: f64) -> Bucket {
        Bucket {
            tokens: f64::from(burst),
            burst: f64::from(burst),
            per_sec,
            last: Instant::now(),
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.last).as_secs_f64() * self.per_sec;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

fn frame(msg: &ServerMsg) -> Message {
    Message::text(serde_json::to_string(msg).unwrap_or_default())
}

fn error(message: impl Into<String>) -> Message {
    frame(&ServerMsg::Error {
        message: message.into(),
    })
}

/// Whether a read failed on a frame over `READ_LIMIT` (the library stops at its header).
fn over_limit(e: &axum::Error) -> bool {
    // The library's capacity error ("Space limit exceeded: Message too long: ..."), which axum
    // passes on boxed.
    e.to_string().contains("Space limit exceeded")
}

/// Refuses a frame over `MAX_FRAME` and ends the connection: an `error` frame, then a close
/// frame (1009, "message too big") that says why. `read` is whether the frame was read whole:
/// then the client's answer to the close is awaited, so the connection ends cleanly; a frame
/// left unread is not read on.
async fn too_large(socket: &mut WebSocket, size: Option<usize>, read: bool) {
    let rule = format!("a frame is at most {MAX_FRAME} bytes");
    let message = match size {
        Some(n) => format!("frame too large ({n} bytes; {rule}): the connection is closed"),
        None => format!("frame too large ({rule}): the connection is closed"),
    };
    refuse(
        socket,
        message,
        close_code::SIZE,
        format!("frame too large: {rule}"),
        read,
    )
    .await;
}

/// Ends a connection the server will not serve on, saying why twice: an `error` frame, which
/// every client reads, then a close frame with `code` and `reason`, which tells a client not to
/// connect again at once. With `drain`, the client's answer to the close is awaited (what it sent
/// before it is read and dropped) for `CLOSE_WITHIN` at most, so the connection ends cleanly:
/// closing a socket with unread bytes resets it, and the client may then lose both frames.
async fn refuse(socket: &mut WebSocket, message: String, code: u16, reason: String, drain: bool) {
    let _ = socket.send(error(message)).await;
    // A close frame's reason holds at most 123 bytes.
    let mut reason = reason;
    while reason.len() > 123 {
        reason.pop();
    }
    let close = CloseFrame {
        code,
        reason: reason.into(),
    };
    if socket.send(Message::Close(Some(close))).await.is_err() || !drain {
        return;
    }
    let _ = tokio::time::timeout(CLOSE_WITHIN, async {
        while let Some(Ok(msg)) = socket.recv().await {
            if matches!(msg, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}

/// A frame read, or `None` when the connection ends: on a read error, or on a frame over
/// `MAX_FRAME`, which is refused first (see [`too_large`]).
async fn within_limit(
    socket: &mut WebSocket,
    received: Option<Result<Message, axum::Error>>,
) -> Option<Message> {
    let msg = match received? {
        Ok(msg) => msg,
        Err(e) => {
            if over_limit(&e) {
                too_large(socket, None, false).await;
            }
            return None;
        }
    };
    let size = match &msg {
        Message::Text(t) => t.len(),
        Message::Binary(b) => b.len(),
        _ => 0,
    };
    if size > MAX_FRAME {
        too_large(socket, Some(size), true).await;
        return None;
    }
    Some(msg)
}

async fn read_hello(socket: &mut WebSocket) -> Option<Result<ClientMsg, String>> {
    let Ok(received) = tokio::time::timeout(HELLO_WITHIN, socket.recv()).await else {
        return Some(Err(format!("no hello within {} s", HELLO_WITHIN.as_secs())));
    };
    match within_limit(socket, received).await? {
        Message::Text(t) => Some(serde_json::from_str(t.as_str()).map_err(|e| e.to_string())),
        Message::Close(_) => None,
        _ => Some(Err("send JSON text frames".into())),
    }
}

/// Refuses a connection before it is served: the `error` frame, then a policy close (1008) with
/// the same words. Not dropped: a dropped connection (1006) looks to the page like a network
/// failure, which it would retry in vain.
async fn refuse_hello(socket: &mut WebSocket, why: String) {
    refuse(socket, why.clone(), close_code::POLICY, why, true).await;
}

async fn connection(mut socket: WebSocket, online: Online, id: String) {
    let (token, name) = match read_hello(&mut socket).await {
        Some(Ok(ClientMsg::Hello { token, name })) => (token, name),
        Some(Ok(_)) => {
            refuse_hello(&mut socket, "the first frame must be hello".into()).await;
            return;
        }
        Some(Err(e)) => {
            refuse_hello(&mut socket, format!("cannot read the frame: {e}")).await;
            return;
        }
        None => return,
    };
    // A watcher's name is held to what a player's is over HTTP: refused when too long, not cut.
    let name = name.map(|n| crate::text::clean(&n));
    if name
        .as_ref()
        .is_some_and(|n| n.chars().count() > MAX_NAME_CHARS)
    {
        refuse_hello(&mut socket, super::name_too_long()).await;
        return;
    }
    let (connected, cmds) = match online.connect(&id, token, name).await {
        Ok(c) => c,
        Err(e) => {
            refuse_hello(&mut socket, e.to_string()).await;
            return;
        }
    };
    // Counted here rather than by the game, so that the count drops with the connection even
    // if the game fails meanwhile.
    let _counted = Counted::new(&online);
    let role = connected.role;
    let me = connected.name.clone();
    let mut updates = connected.updates;
    for f in connected.first {
        if socket.send(Message::text(f.as_ref())).await.is_err() {
            let _ = cmds.send(Cmd::Disconnect { role }).await;
            return;
        }
    }
    serve(&mut socket, &cmds, &mut updates, role, &me).await;
    // The game must hear of the leaving even if its queue is full for a moment.
    let _ = cmds.send(Cmd::Disconnect { role }).await;
}

/// One open WebSocket in `/api/online/stats`, for as long as it lives.
struct Counted(Online);

impl Counted {
    fn new(online: &Online) -> Counted {
        online
            .inner
            .connections
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Counted(online.clone())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0
            .inner
            .connections
            .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

async fn serve(
    socket: &mut WebSocket,
    cmds: &tokio::sync::mpsc::Sender<Cmd>,
    updates: &mut broadcast::Receiver<std::sync::Arc<str>>,
    role: Role,
    me: &str,
) {
    let mut frames = Bucket::new(FRAME_BURST, FRAMES_PER_SEC);
    let mut chats = Bucket::new(5, 0.5);
    let mut refused_in_row = 0u32;
    let mut ping = tokio::time::interval(PING_EVERY);
    let mut heard = Instant::now();
    loop {
        tokio::select! {
            msg = socket.recv() => {
                let Some(msg) = within_limit(socket, msg).await else { return };
                heard = Instant::now();
                let text = match msg {
                    Message::Text(t) => t,
                    Message::Close(_) => return,
                    Message::Binary(_) => {
                        if socket.send(error("send JSON text frames")).await.is_err() {
                            return;
                        }
                        continue;
                    }
                    // Pings are answered by the library; pongs only show life.
                    _ => continue,
                };
                if !frames.take() {
                    refused_in_row += 1;
                    // A client that keeps flooding after being told is cut off, with a policy
                    // close (1008) so that it does not reconnect at once into the same end.
                    if refused_in_row > FLOOD_REFUSALS {
                        let rule = format!(
                            "at most {FRAME_BURST} frames at once and {FRAMES_PER_SEC} a second"
                        );
                        refuse(
                            socket,
                            format!("too many frames ({rule}): the connection is closed"),
                            close_code::POLICY,
                            format!("too many frames: {rule}"),
                            true,
                        )
                        .await;
                        return;
                    }
                    if socket.send(error("too many frames; slow down")).await.is_err() {
                        return;
                    }
                    continue;
                }
                refused_in_row = 0;
                let reply = match serde_json::from_str::<ClientMsg>(text.as_str()) {
                    Err(e) => Some(format!("cannot read the frame: {e}")),
                    Ok(msg) => act(cmds, role, me, msg, &mut chats).await,
                };
                if let Some(why) = reply {
                    if socket.send(error(why)).await.is_err() {
                        return;
                    }
                }
            }
            update = updates.recv() => {
                let text = match update {
                    Ok(t) => t,
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // Fell behind: skip to the whole state as it is now. The updates
                        // still queued are older than it, so they are dropped first: sent
                        // after it, they would redraw positions already gone.
                        *updates = updates.resubscribe();
                        let (reply, answer) = Reply::new();
                        if cmds.send(Cmd::State { reply }).await.is_err() {
                            return;
                        }
                        let Ok(Ok(state)) = answer.await else { return };
                        if socket.send(frame(&ServerMsg::State(state))).await.is_err() {
                            return;
                        }
                        continue;
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if socket.send(Message::text(text.as_ref())).await.is_err() {
                    return;
                }
            }
            _ = ping.tick() => {
                if heard.elapsed() > SILENT_LIMIT {
                    return;
                }
                if socket.send(Message::Ping(Vec::new().into())).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Passes one client frame to the game; the reason when it was refused.
async fn act(
    cmds: &tokio::sync::mpsc::Sender<Cmd>,
    role: Role,
    me: &str,
    msg: ClientMsg,
    chats: &mut Bucket,
) -> Option<String> {
    let (reply, answer) = Reply::new();
    let cmd = match msg {
        ClientMsg::Hello { .. } => return Some("already said hello".into()),
        ClientMsg::Chat { text } => {
            let text = crate::text::clean(&text);
            if text.is_empty() {
                return Some("empty chat line".into());
            }
            if text.chars().count() > MAX_CHAT {
                return Some(format!("chat lines are at most {MAX_CHAT} characters"));
            }
            if !chats.take() {
                return Some("too many chat lines; wait a moment".into());
            }
            let line = ChatLine {
                name: me.to_string(),
                role,
                text,
                at_ms: super::unix_ms(),
            };
            Cmd::Chat { line, reply }
        }
        play => match Action::of_message(play) {
            Some(action) => Cmd::Act {
                role,
                action,
                reply,
            },
            None => return Some("not a move or request".into()),
        },
    };
    if cmds.send(cmd).await.is_err() {
        return Some("the game has closed".into());
    }
    match answer.await {
        Ok(Ok(Ok(()))) => None,
        Ok(Ok(Err(why))) => Some(why),
        Ok(Err(Failed)) => Some(
            "the game failed on this and was restarted from its stored record; it was not \
             carried out"
                .into(),
        ),
        Err(_) => Some("the game has closed".into()),
    }
}
