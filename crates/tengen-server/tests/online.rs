//! Online play against the real server on a loopback port, with real WebSocket clients and a
//! temporary SQLite file (or, under `TENGEN_TEST_BACKEND=postgres`, a new database on the tests'
//! PostgreSQL server).

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tengen_server::{Config, Server};
use tengen_wire::{
    ClientMsg, CreateGame, GameState, JoinGame, Lobby, RequestKind, Role, Seated, ServerMsg,
};
use tokio_tungstenite::tungstenite::Message;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A server on its own runtime, so that stopping it drops every task at once, as a crash would.
struct Running {
    addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
    // Stops the server gracefully (`stop`), as SIGTERM or Ctrl-C does.
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<Result<(), tengen_server::ServeError>>>,
}

impl Running {
    fn start(dir: &Path, grace_secs: u64) -> Running {
        Running::start_on(dir, grace_secs, None)
    }

    /// A server on the database at `url`, or (`None`) the tests' database for `dir`.
    fn start_on(dir: &Path, grace_secs: u64, url: Option<String>) -> Running {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let mut config = Config::new(dir.to_path_buf());
        config.port = 0;
        config.engine_threads = Some(1);
        config.grace_secs = grace_secs;
        // Tests run inside a runtime of their own, where blocking is not allowed: bind from a
        // plain thread.
        let server = std::thread::scope(|s| {
            s.spawn(|| {
                runtime.block_on(async {
                    let url = match url {
                        Some(url) => url,
                        None => tengen_server::testing::database_for(dir).await,
                    };
                    config.database = Some(url);
                    Server::bind(&config).await
                })
            })
            .join()
            .expect("bind thread")
        })
        .expect("the server starts");
        let addr = server.local_addr();
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = runtime.spawn(server.run_until(async move {
            let _ = stopped.await;
        }));
        Running {
            addr,
            runtime: Some(runtime),
            shutdown: Some(shutdown),
            served: Some(served),
        }
    }

    /// Stops the server as a signal does: it stops serving, stores what it must, and ends.
    fn stop(&mut self) {
        if let (Some(shutdown), Some(served), Some(rt)) = (
            self.shutdown.take(),
            self.served.take(),
            self.runtime.as_ref(),
        ) {
            let _ = shutdown.send(());
            // Blocking is not allowed inside the test's runtime: wait from a plain thread.
            std::thread::scope(|s| s.spawn(|| rt.block_on(served)).join().expect("stop thread"))
                .expect("the server task")
                .expect("the server stops cleanly");
        }
        self.crash();
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Stops everything without a goodbye: tasks are dropped where they stand.
    fn crash(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.crash();
    }
}

async fn create(server: &Running, req: serde_json::Value) -> Seated {
    let resp = reqwest::Client::new()
        .post(server.url("/api/online"))
        .json(&req)
        .send()
        .await
        .expect("create");
    assert_eq!(resp.status(), 201);
    resp.json().await.expect("seated")
}

async fn join(server: &Running, id: &str, name: &str) -> Result<Seated, u16> {
    let resp = reqwest::Client::new()
        .post(server.url(&format!("/api/online/{id}/join")))
        .json(&JoinGame {
            name: Some(name.into()),
        })
        .send()
        .await
        .expect("join");
    if resp.status().is_success() {
        Ok(resp.json().await.expect("seated"))
    } else {
        Err(resp.status().as_u16())
    }
}

/// The clock readings stored with a game's last event, first seat then second.
async fn last_readings(dir: &Path, id: &str) -> [u64; 2] {
    use sqlx::Row;
    let url = tengen_server::testing::database_for(dir).await;
    let sql = "SELECT first_ms, second_ms FROM online_events WHERE game_id = $1 \
               ORDER BY seq DESC LIMIT 1";
    let ms = |v: i64| u64::try_from(v).expect("a reading");
    // The same query on either database's pool.
    macro_rules! read {
        ($pool:expr) => {{
            let pool = $pool;
            let row = sqlx::query(sql)
                .bind(id)
                .fetch_one(&pool)
                .await
                .expect("an event");
            pool.close().await;
            [ms(row.get("first_ms")), ms(row.get("second_ms"))]
        }};
    }
    if url.starts_with("postgres") {
        read!(sqlx::PgPool::connect(&url).await.expect("the store"))
    } else {
        read!(sqlx::SqlitePool::connect(&url).await.expect("the store"))
    }
}

async fn get_state(server: &Running, id: &str) -> GameState {
    get_json(server, &format!("/api/online/{id}")).await
}

struct Client {
    ws: Ws,
    role: Role,
    last: Option<GameState>,
    chat: Vec<String>,
    notices: Vec<String>,
}

impl Client {
    async fn connect(server: &Running, id: &str, token: Option<&str>) -> Result<Client, String> {
        let url = format!("ws://{}/api/online/{id}/ws", server.addr);
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .map_err(|e| e.to_string())?;
        let mut c = Client {
            ws,
            role: Role::Spectator,
            last: None,
            chat: Vec::new(),
            notices: Vec::new(),
        };
        c.send(ClientMsg::Hello {
            token: token.map(String::from),
            name: Some("Watcher".into()),
        })
        .await;
        match c.next().await {
            Some(ServerMsg::Welcome { role, .. }) => c.role = role,
            Some(ServerMsg::Error { message }) => return Err(message),
            other => return Err(format!("unexpected {other:?}")),
        }
        c.state(|_| true).await;
        Ok(c)
    }

    async fn send(&mut self, msg: ClientMsg) {
        let text = serde_json::to_string(&msg).expect("json");
        self.ws.send(Message::text(text)).await.expect("send");
    }

    async fn send_raw(&mut self, text: String) -> bool {
        self.ws.send(Message::text(text)).await.is_ok()
    }

    /// The next frame from the server (None when the connection closed).
    async fn next(&mut self) -> Option<ServerMsg> {
        loop {
            let msg = tokio::time::timeout(Duration::from_secs(20), self.ws.next())
                .await
                .expect("the server answers within 20 s")?
                .ok()?;
            match msg {
                Message::Text(t) => {
                    let m: ServerMsg = serde_json::from_str(t.as_str()).expect("server JSON");
                    match &m {
                        ServerMsg::State(s) => self.last = Some(s.clone()),
                        ServerMsg::Chat(l) => self.chat.push(l.text.clone()),
                        ServerMsg::Notice { text } => self.notices.push(text.clone()),
                        _ => {}
                    }
                    return Some(m);
                }
                Message::Close(_) => return None,
                _ => continue,
            }
        }
    }

    /// The latest state if it meets `pred`, else reads until one does.
    async fn state(&mut self, pred: impl Fn(&GameState) -> bool) -> GameState {
        if let Some(s) = self.last.as_ref().filter(|s| pred(s)) {
            return s.clone();
        }
        loop {
            match self.next().await {
                Some(ServerMsg::State(s)) if pred(&s) => return s,
                Some(_) => {}
                None => panic!("the connection closed while waiting for a state"),
            }
        }
    }

    /// Reads until an error frame.
    async fn error(&mut self) -> String {
        loop {
            match self.next().await {
                Some(ServerMsg::Error { message }) => return message,
                Some(_) => {}
                None => panic!("the connection closed while waiting for an error"),
            }
        }
    }

    /// A move as an old client sends it, tied to no position.
    async fn play(&mut self, at: &str) {
        self.send(ClientMsg::Move {
            at: at.into(),
            moves: None,
        })
        .await;
    }

    /// A move on the position with `seen` stones, as the page and the bot send it.
    async fn play_on(&mut self, seen: u32, at: &str) {
        self.send(ClientMsg::Move {
            at: at.into(),
            moves: Some(seen),
        })
        .await;
    }
}

fn moves(n: usize) -> impl Fn(&GameState) -> bool {
    move |s| s.moves.len() == n
}

/// A request of this kind is open (an earlier request of another kind may still be in the
/// client's last state).
fn asked(kind: RequestKind) -> impl Fn(&GameState) -> bool {
    move |s| s.request.as_ref().is_some_and(|r| r.kind == kind)
}

/// Black (first) makes five on row 8 while white plays row 9.
const BLACK: [&str; 5] = ["d8", "e8", "f8", "g8", "h8"];
const WHITE: [&str; 4] = ["d9", "e9", "f9", "g9"];

async fn seated_pair(server: &Running, req: serde_json::Value) -> (Seated, Seated, Client, Client) {
    let a = create(server, req).await;
    let b = join(server, &a.id, "Bea")
        .await
        .expect("the second seat is free");
    let ca = Client::connect(server, &a.id, Some(&a.token))
        .await
        .expect("a");
    let cb = Client::connect(server, &a.id, Some(&b.token))
        .await
        .expect("b");
    (a, b, ca, cb)
}

#[tokio::test]
async fn a_whole_game_watched_by_a_spectator() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let (a, b, mut black, mut white) = seated_pair(
        &server,
        serde_json::json!({"name": "Ann", "color": "black"}),
    )
    .await;
    assert_eq!((a.role, b.role), (Role::First, Role::Second));
    assert_eq!(black.role, Role::First);
    assert_eq!(white.role, Role::Second);
    // A third visitor can no longer sit down, and watches.
    assert_eq!(join(&server, &a.id, "Cy").await.err(), Some(409));
    let mut watcher = Client::connect(&server, &a.id, None).await.expect("watch");
    assert_eq!(watcher.role, Role::Spectator);
    let s = white.state(|s| s.spectators == 1).await;
    assert_eq!(s.seats[0].name.as_deref(), Some("Ann"));
    assert_eq!(s.seats[1].name.as_deref(), Some("Bea"));
    for i in 0..9 {
        let (mover, at) = if i % 2 == 0 {
            (&mut black, BLACK[i / 2])
        } else {
            (&mut white, WHITE[i / 2])
        };
        mover.play(at).await;
        let s = mover.state(moves(i + 1)).await;
        assert_eq!(s.moves.last().map(String::as_str), Some(at));
        // The spectator sees every move, in order.
        let seen = watcher.state(moves(i + 1)).await;
        assert_eq!(seen.moves, s.moves);
    }
    let end = watcher.state(|s| s.outcome.is_some()).await;
    let out = end.outcome.expect("over");
    assert_eq!(out.reason, "five");
    assert_eq!(out.winner.as_deref(), Some("black"));
    assert_eq!(out.winner_seat, Some(Role::First));
    assert_eq!(out.lines.len(), 1);
    let over = get_state(&server, &a.id).await;
    assert_eq!(over.pending.kind, "over");
    assert_eq!(over.moves.len(), 9);
    let record = reqwest::get(server.url(&format!("/api/online/{}/record?format=sgf", a.id)))
        .await
        .expect("record")
        .text()
        .await
        .expect("text");
    assert!(
        record.contains("PB[Ann]") && record.contains("PW[Bea]"),
        "{record}"
    );
}

#[tokio::test]
async fn forged_tokens_and_moves_out_of_turn_change_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let (a, _, mut black, mut white) = seated_pair(&server, serde_json::json!({})).await;
    black.play("h8").await;
    black.state(moves(1)).await;
    let before = get_state(&server, &a.id).await;
    // A made-up token seats nobody.
    let forged = Client::connect(&server, &a.id, Some("0123456789abcdef0123456789abcdef")).await;
    assert!(forged.err().is_some_and(|e| e.contains("no seat")));
    // Black moves again out of turn; white plays on an occupied point; a spectator tries to
    // move and to resign.
    black.play("h9").await;
    assert!(black.error().await.contains("not your turn"));
    white.play("h8").await;
    assert!(white.error().await.contains("occupied"));
    white.play("zz99").await;
    assert!(!white.error().await.is_empty());
    assert!(white.send_raw("{\"type\": \"fly\"}".into()).await);
    assert!(white.error().await.contains("cannot read"));
    let mut watcher = Client::connect(&server, &a.id, None).await.expect("watch");
    watcher.play("a1").await;
    assert!(watcher.error().await.contains("spectators"));
    watcher.send(ClientMsg::Resign).await;
    assert!(watcher.error().await.contains("spectators"));
    // Nothing answered the requests nobody made.
    white.send(ClientMsg::Accept { kind: None }).await;
    assert!(white.error().await.contains("no request"));
    let after = get_state(&server, &a.id).await;
    assert_eq!(after.moves, before.moves);
    assert_eq!(after.seq, before.seq);
    assert!(after.outcome.is_none());
}

#[tokio::test]
async fn takeback_accepted_and_declined() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let (a, _, mut black, mut white) = seated_pair(&server, serde_json::json!({})).await;
    for (i, at) in ["h8", "h9", "i8"].iter().enumerate() {
        let c = if i % 2 == 0 { &mut black } else { &mut white };
        c.play(at).await;
        c.state(moves(i + 1)).await;
    }
    // White asks to take back h9 (and black's reply i8); black declines.
    white
        .send(ClientMsg::Request {
            kind: RequestKind::Takeback,
        })
        .await;
    let asked = black.state(|s| s.request.is_some()).await;
    let req = asked.request.expect("request");
    assert_eq!((req.kind, req.by), (RequestKind::Takeback, Role::Second));
    // The asker cannot answer its own request.
    white.send(ClientMsg::Accept { kind: None }).await;
    assert!(white.error().await.contains("your own"));
    black.send(ClientMsg::Decline { kind: None }).await;
    let s = white.state(|s| s.request.is_none()).await;
    assert_eq!(s.moves.len(), 3);
    // Black, too, sees the request gone, so the next request it waits for is the new one (not
    // the declined one still in its last state).
    black.state(|s| s.request.is_none()).await;
    while white.notices.is_empty() {
        white.next().await.expect("notice");
    }
    assert!(white.notices[0].contains("declined"));
    // Again, accepted this time: back to the position before white's h9.
    white
        .send(ClientMsg::Request {
            kind: RequestKind::Takeback,
        })
        .await;
    black.state(|s| s.request.is_some()).await;
    black.send(ClientMsg::Accept { kind: None }).await;
    let s = white.state(moves(1)).await;
    assert_eq!(s.moves, vec!["h8".to_string()]);
    assert_eq!(s.pending.seat, Some(Role::Second));
    black.state(moves(1)).await;
    // White plays somewhere else; the game goes on from there.
    white.play("g7").await;
    let s = black.state(moves(2)).await;
    assert_eq!(s.moves, vec!["h8".to_string(), "g7".to_string()]);
    assert_eq!(get_state(&server, &a.id).await.moves.len(), 2);
}

/// The state says what a takeback could take back of each player: the second player, who has
/// neither placed a stone nor taken a decision, has nothing (and the server refuses to ask).
#[tokio::test]
async fn the_state_counts_each_players_actions_for_takebacks() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let count = |s: &GameState| [s.seats[0].actions, s.seats[1].actions];
    let (a, _, mut black, mut white) = seated_pair(&server, serde_json::json!({})).await;
    assert_eq!(count(&white.state(|_| true).await), [Some(0), Some(0)]);
    black.play("h8").await;
    let s = white.state(moves(1)).await;
    assert_eq!(count(&s), [Some(1), Some(0)]);
    // Nothing of white's to take back: refused, and nothing changes.
    white
        .send(ClientMsg::Request {
            kind: RequestKind::Takeback,
        })
        .await;
    assert!(white.error().await.contains("no move to take back"));
    assert!(get_state(&server, &a.id).await.request.is_none());
    white.play("h9").await;
    assert_eq!(count(&black.state(moves(2)).await), [Some(1), Some(1)]);
    // Under swap the first player places three stones, and the second's decision counts.
    let (_, _, mut first, mut second) =
        seated_pair(&server, serde_json::json!({"opening": "swap"})).await;
    for (i, at) in ["h8", "h9", "i8"].iter().enumerate() {
        first.play(at).await;
        first.state(moves(i + 1)).await;
    }
    assert_eq!(
        count(&second.state(|s| s.pending.kind == "choice").await),
        [Some(3), Some(0)]
    );
    second
        .send(ClientMsg::Choose {
            choice: "white".into(),
            moves: None,
        })
        .await;
    let s = first
        .state(|s| s.pending.kind == "move" && s.moves.len() == 3)
        .await;
    assert_eq!(count(&s), [Some(3), Some(1)]);
}

/// The state says which forbidden-move policy the game was created with, so a page can ask
/// "play it and lose?" only when a forbidden move would stand and lose.
#[tokio::test]
async fn the_state_says_the_forbidden_move_policy() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    for (req, policy) in [
        (
            serde_json::json!({"rule": "renju", "forbidden": "refuse"}),
            "refuse",
        ),
        (
            serde_json::json!({"rule": "renju", "forbidden": "lose"}),
            "lose",
        ),
        (serde_json::json!({"rule": "renju"}), "lose"),
    ] {
        let a = create(&server, req.clone()).await;
        let s = get_state(&server, &a.id).await;
        assert_eq!(s.forbidden_policy.as_deref(), Some(policy), "{req}");
        let c = Client::connect(&server, &a.id, Some(&a.token))
            .await
            .expect("a");
        assert_eq!(
            c.last.as_ref().and_then(|s| s.forbidden_policy.as_deref()),
            Some(policy)
        );
    }
    // Refused: black's forbidden point is not played, and black is still to move.
    let (a, _, mut black, mut white) = seated_pair(
        &server,
        serde_json::json!({"rule": "renju", "forbidden": "refuse"}),
    )
    .await;
    let opening = ["h8", "a1", "i8", "a15", "j7", "o1", "j6", "o15"];
    for (i, at) in opening.iter().enumerate() {
        let c = if i % 2 == 0 { &mut black } else { &mut white };
        c.play(at).await;
        c.state(moves(i + 1)).await;
    }
    let s = black.state(moves(8)).await;
    assert!(
        s.forbidden.iter().any(|f| [f.x, f.y] == [9, 7]),
        "j8 forbidden"
    );
    black.play("j8").await;
    assert!(black.error().await.contains("forbidden"));
    let s = get_state(&server, &a.id).await;
    assert_eq!((s.moves.len(), &s.outcome), (8, &None));
    // A state from an older server, without the new fields, still reads.
    let mut old = serde_json::to_value(&s).expect("json");
    let map = old.as_object_mut().expect("object");
    map.remove("forbidden_policy");
    for seat in map["seats"].as_array_mut().expect("seats") {
        seat.as_object_mut().expect("seat").remove("actions");
    }
    let read: GameState = serde_json::from_value(old).expect("an older state reads");
    assert_eq!(read.forbidden_policy, None);
    assert_eq!(read.seats[0].actions, None);
}

/// A newcomer hears the state once, in its first frames (the others hear of it by a state of
/// their own): the next frame it gets is what happens next.
#[tokio::test]
async fn a_newcomer_gets_the_state_once_and_the_others_hear_of_it() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let a = create(&server, serde_json::json!({})).await;
    let mut player = Client::connect(&server, &a.id, Some(&a.token))
        .await
        .expect("seated");
    let mut watcher = Client::connect(&server, &a.id, None).await.expect("watch");
    let seen = player.state(|s| s.spectators == 1).await;
    assert_eq!(seen.spectators, 1);
    watcher
        .send(ClientMsg::Chat {
            text: "hello".into(),
        })
        .await;
    match watcher.next().await {
        Some(ServerMsg::Chat(line)) => assert_eq!(line.text, "hello"),
        other => panic!("expected the chat line first, got {other:?}"),
    }
}

#[tokio::test]
async fn draw_resign_rematch_and_chat() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let (a, b, mut black, mut white) =
        seated_pair(&server, serde_json::json!({"name": "Ann"})).await;
    let mut watcher = Client::connect(&server, &a.id, None).await.expect("watch");
    black
        .send(ClientMsg::Chat {
            text: "good luck".into(),
        })
        .await;
    while !white.chat.iter().any(|c| c == "good luck") {
        white.next().await.expect("chat");
    }
    while !watcher.chat.iter().any(|c| c == "good luck") {
        watcher.next().await.expect("chat");
    }
    let too_long = "x".repeat(301);
    white.send(ClientMsg::Chat { text: too_long }).await;
    assert!(white.error().await.contains("at most 300"));
    // A draw offer, accepted.
    black.play("h8").await;
    black.state(moves(1)).await;
    black
        .send(ClientMsg::Request {
            kind: RequestKind::Draw,
        })
        .await;
    white.state(asked(RequestKind::Draw)).await;
    white.send(ClientMsg::Accept { kind: None }).await;
    let s = watcher.state(|s| s.outcome.is_some()).await;
    let out = s.outcome.expect("drawn");
    assert_eq!((out.reason.as_str(), out.winner), ("agreement", None));
    // No takeback after the end; a rematch instead, with the seats swapped.
    white
        .send(ClientMsg::Request {
            kind: RequestKind::Takeback,
        })
        .await;
    assert!(white.error().await.contains("over"));
    white
        .send(ClientMsg::Request {
            kind: RequestKind::Rematch,
        })
        .await;
    black.state(asked(RequestKind::Rematch)).await;
    black.send(ClientMsg::Accept { kind: None }).await;
    let s = watcher.state(|s| s.rematch.is_some()).await;
    let next = s.rematch.expect("rematch id");
    assert_ne!(next, a.id);
    let mut ann = Client::connect(&server, &next, Some(&a.token))
        .await
        .expect("ann");
    let mut bea = Client::connect(&server, &next, Some(&b.token))
        .await
        .expect("bea");
    assert_eq!((ann.role, bea.role), (Role::Second, Role::First));
    let s = ann.state(|s| s.seats.iter().all(|p| p.connected)).await;
    assert_eq!(s.seats[0].name.as_deref(), Some("Bea"));
    assert_eq!(s.seats[0].color.as_deref(), Some("black"));
    // Bea has black now; Ann resigns at once.
    bea.play("h8").await;
    ann.state(moves(1)).await;
    ann.send(ClientMsg::Resign).await;
    let s = bea.state(|s| s.outcome.is_some()).await;
    let out = s.outcome.expect("resigned");
    assert_eq!(out.reason, "resignation");
    assert_eq!(out.winner_seat, Some(Role::First));
    assert_eq!(out.winner.as_deref(), Some("black"));
}

#[tokio::test]
async fn a_crash_in_mid_game_loses_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let mut server = Running::start(dir.path(), 120);
    let req = serde_json::json!({"clock": {"kind": "total", "ms": 300000, "increment_ms": 2000}});
    let (a, b, mut black, mut white) = seated_pair(&server, req.clone()).await;
    for i in 0..6 {
        let (c, at) = if i % 2 == 0 {
            (&mut black, BLACK[i / 2])
        } else {
            (&mut white, WHITE[i / 2])
        };
        c.play(at).await;
        c.state(moves(i + 1)).await;
    }
    // The last state a player saw is on disk: every move a player was told of survives.
    let seen = white.state(moves(6)).await;
    server.crash();
    drop((black, white));
    let stored = last_readings(dir.path(), &a.id).await;
    let restarted = std::time::Instant::now();
    let server = Running::start(dir.path(), 120);
    let back = get_state(&server, &a.id).await;
    let since = u64::try_from(restarted.elapsed().as_millis()).expect("ms");
    assert_eq!(back.moves, seen.moves);
    assert!(back.outcome.is_none());
    // The clocks stood still while the server was down: white's reads as stored; black's turn
    // starts again from its stored reading, so it has lost at most the time since the restart
    // (as this test measured it, whatever the machine's load).
    assert_eq!(back.running, Some(Role::First));
    assert_eq!(back.seats[1].clock_ms, Some(stored[1]));
    let black_ms = back.seats[0].clock_ms.expect("clock");
    assert!(
        black_ms <= stored[0] && stored[0] - black_ms <= since,
        "stored {stored:?}, now {black_ms}, {since} ms after the restart"
    );
    let mut black = Client::connect(&server, &a.id, Some(&a.token))
        .await
        .expect("black");
    let mut white = Client::connect(&server, &a.id, Some(&b.token))
        .await
        .expect("white");
    assert_eq!((black.role, white.role), (Role::First, Role::Second));
    black.play("g8").await;
    black.state(moves(7)).await;
    white.play("g9").await;
    white.state(moves(8)).await;
    black.play("h8").await;
    let s = white.state(|s| s.outcome.is_some()).await;
    assert_eq!(s.outcome.expect("five").reason, "five");
    // A game over is not replayed as live, but can still be looked at.
    drop(server);
    let server = Running::start(dir.path(), 120);
    let lobby: Lobby = reqwest::get(server.url("/api/online/lobby"))
        .await
        .expect("lobby")
        .json()
        .await
        .expect("lobby body");
    assert!(lobby.live.iter().all(|g| g.id != a.id));
    assert_eq!(get_state(&server, &a.id).await.moves.len(), 9);
}

#[tokio::test]
async fn a_flag_falls_and_a_gone_player_can_be_claimed_against() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 1);
    // Per-move clock of one second: the first player's clock runs once both seats are taken,
    // so a player who never places the first stone loses on time.
    let req = serde_json::json!({"clock": {"kind": "per_move", "ms": 1000}});
    let (_, _, mut black, _white) = seated_pair(&server, req).await;
    let s = black.state(|s| s.seats[1].taken).await;
    assert!(s.outcome.is_some() || s.running == Some(Role::First));
    let s = black.state(|s| s.outcome.is_some()).await;
    let out = s.outcome.expect("timeout");
    assert_eq!(out.reason, "timeout");
    assert_eq!(out.winner_seat, Some(Role::Second));
    assert!(s.moves.is_empty());
    // Without a clock: white leaves; black may claim only after the grace period.
    let (a, _, mut black, white) = seated_pair(&server, serde_json::json!({})).await;
    drop(white);
    let s = black.state(|s| s.seats[1].gone_ms.is_some()).await;
    assert!(!s.seats[1].connected);
    if !s.seats[1].claimable {
        black.send(ClientMsg::Claim).await;
        assert!(black.error().await.contains("gone"));
    }
    let s = black.state(|s| s.seats[1].claimable).await;
    assert!(s.outcome.is_none());
    black.send(ClientMsg::Claim).await;
    let s = black.state(|s| s.outcome.is_some()).await;
    let out = s.outcome.expect("claimed");
    assert_eq!(
        (out.reason.as_str(), out.winner_seat),
        ("abandonment", Some(Role::First))
    );
    assert!(get_state(&server, &a.id).await.outcome.is_some());
}

#[tokio::test]
async fn lobby_limits_and_bad_requests() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let open = create(
        &server,
        serde_json::json!({"name": "Open", "rule": "renju"}),
    )
    .await;
    let hidden = create(&server, serde_json::json!({"listed": false})).await;
    let lobby: Lobby = reqwest::get(server.url("/api/online/lobby"))
        .await
        .expect("lobby")
        .json()
        .await
        .expect("body");
    assert!(
        lobby
            .open
            .iter()
            .any(|g| g.id == open.id && g.rule == "renju")
    );
    assert!(lobby.open.iter().all(|g| g.id != hidden.id));
    let bea = join(&server, &open.id, "Bea").await.expect("join");
    let lobby_live = || async {
        let lobby: Lobby = get_json(&server, "/api/online/lobby").await;
        lobby.live.iter().any(|g| g.id == open.id)
    };
    // Under way once a player is there; out of the lobby again once both have left.
    let mut ws = Client::connect(&server, &open.id, Some(&bea.token))
        .await
        .expect("connects");
    ws.state(|_| true).await;
    assert!(lobby_live().await);
    drop(ws);
    let mut left = false;
    for _ in 0..100 {
        if !lobby_live().await {
            left = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(left, "a game both players left stays in the lobby");
    // Bad settings and unknown games are clear 4xx answers.
    let client = reqwest::Client::new();
    for body in [
        serde_json::json!({"rule": "chess"}),
        serde_json::json!({"size": "3"}),
        serde_json::json!({"color": "green"}),
        serde_json::json!({"clock": {"kind": "per_move", "ms": 5}}),
        serde_json::json!({"name": "x".repeat(41)}),
        serde_json::json!({"bogus": 1}),
    ] {
        let r = client
            .post(server.url("/api/online"))
            .json(&body)
            .send()
            .await
            .expect("post");
        assert_eq!(r.status(), 400, "{body}");
    }
    let r = reqwest::get(server.url("/api/online/ffff0000ffff0000"))
        .await
        .expect("get");
    assert_eq!(r.status(), 404);
    let r = reqwest::get(server.url("/api/online/..%2F..%2Fetc"))
        .await
        .expect("get");
    assert_eq!(r.status(), 404);
    // Flooding is refused, an oversized frame closes the connection, and the game is unchanged.
    let mut c = Client::connect(&server, &open.id, Some(&open.token))
        .await
        .expect("c");
    for _ in 0..40 {
        c.send(ClientMsg::Cancel).await;
    }
    let mut slow_down = false;
    for _ in 0..40 {
        if c.error().await.contains("slow down") {
            slow_down = true;
            break;
        }
    }
    assert!(slow_down);
    c.send_raw(format!(
        "{{\"type\": \"chat\", \"text\": \"{}\"}}",
        "y".repeat(5000)
    ))
    .await;
    let mut closed = false;
    for _ in 0..100 {
        if c.next().await.is_none() {
            closed = true;
            break;
        }
    }
    assert!(closed);
    let s = get_state(&server, &open.id).await;
    assert!(s.moves.is_empty() && s.outcome.is_none());
    let _ = CreateGame::default();
}

/// Reads a connection to its end: the `error` frames' messages, and the close frame (none when
/// the connection ended without one).
async fn read_to_close(ws: &mut Ws) -> (Vec<String>, Option<(u16, String)>) {
    let mut errors = Vec::new();
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("the server answers within 20 s");
        match msg {
            Some(Ok(Message::Text(t))) => {
                if let Ok(ServerMsg::Error { message }) = serde_json::from_str(t.as_str()) {
                    errors.push(message);
                }
            }
            Some(Ok(Message::Close(frame))) => {
                return (
                    errors,
                    frame.map(|f| (u16::from(f.code), f.reason.to_string())),
                );
            }
            Some(Ok(_)) => {}
            Some(Err(_)) | None => return (errors, None),
        }
    }
}

/// A connection refused before it is served (a forged token, a first frame that is not hello or
/// not JSON) ends with an `error` frame and a policy close (1008), not a dropped connection, so
/// the page tells it from a network failure and does not retry.
#[tokio::test]
async fn a_refused_hello_is_closed_with_the_reason() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let a = create(&server, serde_json::json!({})).await;
    let hello = |token: &str| format!(r#"{{"type": "hello", "token": "{token}"}}"#);
    for (first, says) in [
        (hello("0123456789abcdef0123456789abcdef"), "no seat"),
        (r#"{"type": "resign"}"#.to_string(), "must be hello"),
        ("not json".to_string(), "cannot read"),
        // A watcher's name over 40 characters, refused as it is over HTTP (not cut).
        (
            format!(r#"{{"type": "hello", "name": "{}"}}"#, "n".repeat(41)),
            "name too long",
        ),
    ] {
        let url = format!("ws://{}/api/online/{}/ws", server.addr, a.id);
        let mut ws = tokio_tungstenite::connect_async(url).await.expect("ws").0;
        ws.send(Message::text(first.clone())).await.expect("sent");
        let (errors, close) = read_to_close(&mut ws).await;
        assert!(
            errors.iter().any(|e| e.contains(says)),
            "{first}: {errors:?}"
        );
        let (code, reason) = close.unwrap_or_else(|| panic!("{first}: no close frame"));
        assert_eq!(code, 1008, "{first}");
        assert!(reason.contains(says), "{first}: {reason}");
    }
    // The seat is still there to take.
    let c = Client::connect(&server, &a.id, Some(&a.token))
        .await
        .expect("seated");
    assert_ne!(c.role, Role::Spectator);
}

/// A frame over 4 KiB ends the connection, but not without a word: an `error` frame and a close
/// frame (1009, "message too big") say why, whether the frame comes after hello or instead of
/// it. Past 64 KiB the words are sent too, but a reset may overtake them.
#[tokio::test]
async fn a_frame_over_the_limit_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let a = create(&server, serde_json::json!({})).await;
    let chat = |n: usize| format!("{{\"type\": \"chat\", \"text\": \"{}\"}}", "y".repeat(n));
    for (size, hello) in [
        (5000, true),
        (5000, false),
        (200_000, true),
        (200_000, false),
    ] {
        let mut ws = if hello {
            let c = Client::connect(&server, &a.id, Some(&a.token))
                .await
                .expect("c");
            c.ws
        } else {
            let url = format!("ws://{}/api/online/{}/ws", server.addr, a.id);
            tokio_tungstenite::connect_async(url).await.expect("ws").0
        };
        // The server may stop reading before the whole frame is sent.
        let _ = ws.send(Message::text(chat(size))).await;
        let (errors, close) = read_to_close(&mut ws).await;
        let what = format!("{size} bytes, after hello: {hello}");
        if size > 64 * 1024 && close.is_none() {
            // Past the read limit the server stops reading at the header. Its two frames are
            // sent, but while the client is still sending, the closed socket's reset may reach
            // the client first and discard them: the connection ends either way.
            continue;
        }
        assert!(
            errors.iter().any(|e| e.contains("at most 4096 bytes")),
            "{what}: {errors:?}"
        );
        let (code, reason) = close.unwrap_or_else(|| panic!("{what}: no close frame"));
        assert_eq!(code, 1009, "{what}");
        assert!(reason.contains("at most 4096 bytes"), "{what}: {reason}");
    }
    // The game is as it was, and a new connection is served.
    let c = Client::connect(&server, &a.id, Some(&a.token))
        .await
        .expect("again");
    assert!(c.last.expect("a state").moves.is_empty());
}

/// A client that keeps sending after being told to slow down is cut off, but not without a
/// word: an `error` frame and a policy close (1008) say why, so the page does not reconnect into
/// the same end. The game is as it was, and a new connection is served.
#[tokio::test]
async fn a_flooding_client_is_closed_with_the_reason() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let a = create(&server, serde_json::json!({})).await;
    let mut c = Client::connect(&server, &a.id, Some(&a.token))
        .await
        .expect("c");
    // Far more than the burst and the refusals in a row allowed, faster than the refill: each
    // frame is one the server reads and answers with an error when it lets it through.
    for _ in 0..200 {
        if !c.send_raw(r#"{"type": "nothing"}"#.to_string()).await {
            break;
        }
    }
    let (errors, close) = read_to_close(&mut c.ws).await;
    assert!(
        errors.iter().any(|e| e.contains("slow down")),
        "told to slow down first: {errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("the connection is closed")),
        "{errors:?}"
    );
    let (code, reason) = close.expect("a close frame, not a dropped connection");
    assert_eq!(code, 1008);
    assert!(reason.contains("too many frames"), "{reason}");
    let again = Client::connect(&server, &a.id, Some(&a.token))
        .await
        .expect("again");
    assert!(again.last.expect("a state").moves.is_empty());
}

/// Event logs stored before local and online games shared one clock type kept a per-move
/// clock's readings as zeros: they replay to the same games, with the clocks the rows say.
#[tokio::test]
async fn event_logs_stored_in_the_old_form_replay() {
    let dir = tempfile::tempdir().expect("dir");
    // Only SQLite files hold rows of that form. A first start makes the tables; the rows are
    // then written as the old server wrote them.
    let url = format!("sqlite://{}", dir.path().join("tengen.db").display());
    Running::start_on(dir.path(), 120, Some(url.clone())).crash();
    let pool = sqlx::SqlitePool::connect(&url).await.expect("the store");
    let created = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis();
    let settings = |opening: &str, clock: &str| {
        format!(
            r#"{{"rule":"renju","size":"15x15","opening":"{opening}","clock":{clock},"forbidden_loses":true,"listed":true}}"#
        )
    };
    let join = |seat: &str| {
        format!(r#"{{"kind":"join","seat":"{seat}","name":"{seat}","token_hash":"00"}}"#)
    };
    let stone = |seat: &str, x: i32, y: i32| {
        format!(r#"{{"kind":"move","seat":"{seat}","x":{x},"y":{y}}}"#)
    };
    // Each event, as JSON, with the first and second seats' readings.
    type Rows = Vec<(String, [i64; 2])>;
    let games: [(&str, String, bool, Rows); 3] = [
        // A per-move clock in play: readings of zero.
        (
            "aaa1",
            settings("free", r#"{"kind":"per_move","ms":60000}"#),
            false,
            vec![
                (join("first"), [0, 0]),
                (join("second"), [0, 0]),
                (stone("first", 7, 7), [0, 0]),
                (stone("second", 7, 8), [0, 0]),
            ],
        ),
        // A total clock under swap: three timed stones with increments, then a decision.
        (
            "aaa2",
            settings(
                "swap",
                r#"{"kind":"total","ms":300000,"increment_ms":5000}"#,
            ),
            false,
            vec![
                (join("first"), [300_000, 300_000]),
                (join("second"), [300_000, 300_000]),
                (stone("first", 7, 7), [305_000, 300_000]),
                (stone("first", 7, 8), [303_000, 300_000]),
                (stone("first", 8, 7), [306_000, 300_000]),
                (
                    r#"{"kind":"choose","seat":"second","choice":"white"}"#.into(),
                    [306_000, 290_000],
                ),
            ],
        ),
        // A per-move flag that fell, the game over.
        (
            "aaa3",
            settings("free", r#"{"kind":"per_move","ms":30000}"#),
            true,
            vec![
                (join("first"), [0, 0]),
                (join("second"), [0, 0]),
                (stone("first", 7, 7), [0, 0]),
                (r#"{"kind":"timeout","seat":"second"}"#.into(), [0, 0]),
            ],
        ),
    ];
    for (id, settings, over, events) in &games {
        sqlx::query(
            "INSERT INTO online_games (id, settings, over, created_ms) VALUES (?, ?, ?, ?)",
        )
        .bind(id)
        .bind(settings)
        .bind(i64::from(*over))
        .bind(i64::try_from(created).expect("ms"))
        .execute(&pool)
        .await
        .expect("game row");
        for (seq, (event, [first, second])) in events.iter().enumerate() {
            sqlx::query(
                "INSERT INTO online_events (game_id, seq, event, first_ms, second_ms, at_ms) \
                 VALUES (?, ?, ?, ?, ?, 0)",
            )
            .bind(id)
            .bind(i64::try_from(seq + 1).expect("seq"))
            .bind(event)
            .bind(first)
            .bind(second)
            .execute(&pool)
            .await
            .expect("event row");
        }
    }
    pool.close().await;
    let server = Running::start_on(dir.path(), 120, Some(url));
    // A running clock loses a little while the test looks; a hang guard's worth at most.
    let about = |ms: Option<u64>, want: u64| {
        let ms = ms.expect("a clock");
        assert!(ms <= want && ms + 30_000 > want, "{ms} against {want}");
    };

    let s = get_state(&server, "aaa1").await;
    assert_eq!(s.moves, ["h8", "h7"]);
    assert_eq!(s.running, Some(Role::First));
    about(s.seats[0].clock_ms, 60_000);
    assert_eq!(s.seats[1].clock_ms, Some(60_000));

    let s = get_state(&server, "aaa2").await;
    assert_eq!(s.moves.len(), 3);
    assert_eq!(s.running, Some(Role::Second));
    assert_eq!(s.seats[0].clock_ms, Some(306_000));
    about(s.seats[1].clock_ms, 290_000);
    assert_eq!(
        [s.seats[0].color.as_deref(), s.seats[1].color.as_deref()],
        [Some("black"), Some("white")]
    );

    let s = get_state(&server, "aaa3").await;
    let out = s.outcome.expect("over");
    assert_eq!(
        (out.reason.as_str(), out.winner_seat),
        ("timeout", Some(Role::First))
    );
    assert_eq!(s.running, None);
    // The one reading that changed meaning: a fallen flag reads zero, as it always did in
    // games in one browser.
    assert_eq!(
        [s.seats[0].clock_ms, s.seats[1].clock_ms],
        [Some(30_000), Some(0)]
    );
}

#[tokio::test]
async fn a_graceful_restart_keeps_the_clocks_and_the_open_request() {
    let dir = tempfile::tempdir().expect("dir");
    let mut server = Running::start(dir.path(), 120);
    let req = serde_json::json!({"clock": {"kind": "total", "ms": 60000, "increment_ms": 0}});
    let (a, b, mut black, mut white) = seated_pair(&server, req).await;
    black.play("h8").await;
    black.state(moves(1)).await;
    white.play("h9").await;
    white.state(moves(2)).await;
    white
        .send(ClientMsg::Request {
            kind: RequestKind::Draw,
        })
        .await;
    black.state(asked(RequestKind::Draw)).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let before = get_state(&server, &a.id).await;
    let read_at = std::time::Instant::now();
    let left = before.seats[0].clock_ms.expect("a clock");
    assert!(left <= 58_500, "{left}");
    drop((black, white));
    server.stop();
    let mut server = Running::start(dir.path(), 120);
    let back = get_state(&server, &a.id).await;
    let since = u64::try_from(read_at.elapsed().as_millis()).expect("ms");
    // The clock comes back where it stood at the stop, not at the start of the turn.
    assert_eq!(back.running, Some(Role::First));
    let now = back.seats[0].clock_ms.expect("a clock");
    assert!(
        now <= left && left - now <= since,
        "{left} before the stop, {now} after, {since} ms later"
    );
    assert_eq!(back.seats[1].clock_ms, before.seats[1].clock_ms);
    // The draw offer is still open, and is answered as before.
    let open = back.request.expect("the draw offer survives the restart");
    assert_eq!((open.kind, open.by), (RequestKind::Draw, Role::Second));
    let mut black = Client::connect(&server, &a.id, Some(&a.token))
        .await
        .expect("black");
    black.send(ClientMsg::Decline { kind: None }).await;
    black.state(|s| s.request.is_none()).await;
    // Declined, it stays gone after a crash too; a request lapsed by a move as well.
    let mut white = Client::connect(&server, &a.id, Some(&b.token))
        .await
        .expect("white");
    white
        .send(ClientMsg::Request {
            kind: RequestKind::Takeback,
        })
        .await;
    black.state(asked(RequestKind::Takeback)).await;
    black.play("i8").await;
    black
        .state(|s| s.moves.len() == 3 && s.request.is_none())
        .await;
    drop((black, white));
    server.crash();
    let server = Running::start(dir.path(), 120);
    let back = get_state(&server, &a.id).await;
    assert_eq!(back.moves.len(), 3);
    assert!(back.request.is_none());
    assert_eq!(back.running, Some(Role::Second));
}

async fn post_json(
    server: &Running,
    path: &str,
    body: serde_json::Value,
) -> (u16, serde_json::Value) {
    let r = reqwest::Client::new()
        .post(server.url(path))
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = r.status().as_u16();
    (status, r.json().await.expect("json"))
}

async fn get_json<T: serde::de::DeserializeOwned>(server: &Running, path: &str) -> T {
    reqwest::get(server.url(path))
        .await
        .expect("request")
        .json()
        .await
        .expect("json")
}

#[tokio::test]
async fn a_graceful_restart_keeps_a_local_games_clock_where_it_stood() {
    let dir = tempfile::tempdir().expect("dir");
    for clock in [
        serde_json::json!({"kind": "total", "ms": 60000, "increment_ms": 0}),
        serde_json::json!({"kind": "per_move", "ms": 60000}),
    ] {
        let mut server = Running::start(dir.path(), 120);
        let body = serde_json::json!({"opponent": "friend", "clock": clock});
        let (status, game) = post_json(&server, "/api/games", body).await;
        assert_eq!(status, 201, "{game}");
        let id = game["id"].as_str().expect("id").to_string();
        for m in ["h8", "h9"] {
            let path = format!("/api/games/{id}/moves");
            let (status, v) = post_json(&server, &path, serde_json::json!({ "move": m })).await;
            assert_eq!(status, 200, "{v}");
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let before: serde_json::Value = get_json(&server, &format!("/api/games/{id}")).await;
        let read_at = std::time::Instant::now();
        let left = before["clock"]["black_ms"].as_u64().expect("black_ms");
        assert!(left <= 58_500, "{before}");
        server.stop();
        let server = Running::start(dir.path(), 120);
        let back: serde_json::Value = get_json(&server, &format!("/api/games/{id}")).await;
        let since = u64::try_from(read_at.elapsed().as_millis()).expect("ms");
        assert_eq!(back["clock"]["running"], "black", "{back}");
        let now = back["clock"]["black_ms"].as_u64().expect("black_ms");
        assert!(
            now <= left && left - now <= since,
            "{clock}: {left} before the stop, {now} after, {since} ms later"
        );
        assert_eq!(back["moves"], before["moves"]);
        assert_eq!(back["clock"]["white_ms"], before["clock"]["white_ms"]);
        // The game plays on from there.
        let path = format!("/api/games/{id}/moves");
        let (status, v) = post_json(&server, &path, serde_json::json!({ "move": "i8" })).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["clock"]["running"], "white", "{v}");
    }
}

/// An answer names the request its player was shown: one that crossed a change of request (the
/// request withdrawn and another made) is refused, and the new request stays open, to be
/// answered as shown.
#[tokio::test]
async fn an_answer_to_a_withdrawn_request_does_not_answer_the_next_one() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let (a, _, mut black, mut white) = seated_pair(&server, serde_json::json!({})).await;
    black.play("h8").await;
    white.state(moves(1)).await;
    black
        .send(ClientMsg::Request {
            kind: RequestKind::Takeback,
        })
        .await;
    white.state(asked(RequestKind::Takeback)).await;
    // Black withdraws the takeback and offers a draw; white's acceptance of the takeback
    // arrives after that.
    black.send(ClientMsg::Cancel).await;
    black
        .send(ClientMsg::Request {
            kind: RequestKind::Draw,
        })
        .await;
    black.state(asked(RequestKind::Draw)).await;
    white
        .send(ClientMsg::Accept {
            kind: Some(RequestKind::Takeback),
        })
        .await;
    assert!(white.error().await.contains("draw"));
    let s = get_state(&server, &a.id).await;
    assert!(
        s.outcome.is_none(),
        "a draw nobody accepted: {:?}",
        s.outcome
    );
    assert_eq!(s.moves.len(), 1);
    let open = s.request.expect("the draw offer is still open");
    assert_eq!((open.kind, open.by), (RequestKind::Draw, Role::First));
    // Answered as shown, it is taken.
    white
        .send(ClientMsg::Accept {
            kind: Some(RequestKind::Draw),
        })
        .await;
    let s = black.state(|s| s.outcome.is_some()).await;
    assert_eq!(s.outcome.expect("drawn").reason, "agreement");
}

/// Both players asking for the same draw or rematch at once (their requests crossed) agree on
/// it, rather than the second being told a request is open; and the store holds it.
#[tokio::test]
async fn crossing_draw_offers_and_rematch_requests_agree() {
    let dir = tempfile::tempdir().expect("dir");
    let mut server = Running::start(dir.path(), 120);
    let (a, _, mut black, mut white) = seated_pair(&server, serde_json::json!({})).await;
    black.play("h8").await;
    white.state(moves(1)).await;
    for kind in [RequestKind::Draw, RequestKind::Rematch] {
        black.send(ClientMsg::Request { kind }).await;
        black.state(asked(kind)).await;
        // White's own request, sent before white heard of black's.
        white.send(ClientMsg::Request { kind }).await;
        let s = white
            .state(|s| match kind {
                RequestKind::Rematch => s.rematch.is_some(),
                _ => s.outcome.is_some(),
            })
            .await;
        assert!(s.request.is_none());
    }
    let s = get_state(&server, &a.id).await;
    assert_eq!(
        s.outcome.as_ref().map(|o| o.reason.as_str()),
        Some("agreement")
    );
    let next = s.rematch.clone().expect("a rematch");
    drop((black, white));
    server.crash();
    let server = Running::start(dir.path(), 120);
    let back = get_state(&server, &a.id).await;
    assert_eq!(back.seq, s.seq);
    assert_eq!(back.rematch.as_deref(), Some(next.as_str()));
    assert_eq!(get_state(&server, &next).await.moves.len(), 0);
}

/// A move names the position its player saw: one that crossed a change of position (the
/// player's own takeback, accepted while the move was on its way) is refused, rather than
/// played on a position the player never saw; the player then moves on the position shown.
#[tokio::test]
async fn a_move_played_on_a_position_taken_back_meanwhile_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Running::start(dir.path(), 120);
    let (a, _, mut black, mut white) = seated_pair(&server, serde_json::json!({})).await;
    black.play_on(0, "h8").await;
    white.state(moves(1)).await;
    white.play_on(1, "h9").await;
    black.state(moves(2)).await;
    // Black asks to take back h8 (and white's h9), then thinks better of it and plays i8 on
    // the two stones it sees; white's acceptance reaches the server first.
    black
        .send(ClientMsg::Request {
            kind: RequestKind::Takeback,
        })
        .await;
    white.state(asked(RequestKind::Takeback)).await;
    white
        .send(ClientMsg::Accept {
            kind: Some(RequestKind::Takeback),
        })
        .await;
    let taken_back = white.state(moves(0)).await;
    black.play_on(2, "i8").await;
    // The answer: an error, or the state with i8 played on the empty board.
    let answer = loop {
        match black.next().await {
            Some(ServerMsg::Error { message }) => break Ok(message),
            Some(ServerMsg::State(s)) if s.moves.len() == 1 => break Err(s.moves),
            Some(_) => {}
            None => panic!("the connection closed"),
        }
    };
    assert!(
        answer
            .as_ref()
            .is_ok_and(|m| m.contains("position changed")),
        "{answer:?}"
    );
    let s = get_state(&server, &a.id).await;
    assert!(s.moves.is_empty(), "i8 played on a board black never saw");
    assert_eq!(s.seq, taken_back.seq, "a refused move stores nothing");
    // On the position shown now, the move is played.
    black.state(moves(0)).await;
    black.play_on(0, "i8").await;
    let s = white.state(moves(1)).await;
    assert_eq!(s.moves, vec!["i8".to_string()]);
}
