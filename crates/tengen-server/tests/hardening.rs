//! The server under abuse and faults, each against a real server on a loopback port with real
//! sockets: a game that fails, clients that hold connections or send half a request, clients that
//! create games or ask for analyses without end, damaged stores, text with control characters,
//! analyses crowding out computer moves, and requests from other sites. Floods are bounded and
//! on loopback; time limits in here only catch hangs, and the timeouts under test are set short.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tengen_server::{Config, Server};
use tengen_wire::{ClientMsg, GameState, ServerMsg};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// Time limits that only catch a hang.
const HANG: Duration = Duration::from_secs(30);

/// A second client address: all of 127.0.0.0/8 is loopback on Linux.
const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

/// A server on its own runtime, so that stopping it drops every task at once, as a crash would.
struct Running {
    addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Running {
    fn start(config: &Config) -> Running {
        Running::try_start(config).expect("the server starts")
    }

    fn try_start(config: &Config) -> Result<Running, tengen_server::ServeError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        // Tests run inside a runtime of their own, where blocking is not allowed: bind from a
        // plain thread.
        let server = std::thread::scope(|s| {
            s.spawn(|| runtime.block_on(Server::bind(config)))
                .join()
                .expect("bind thread")
        });
        let server = match server {
            Ok(s) => s,
            Err(e) => {
                // Dropping a runtime is not allowed inside the test's own runtime.
                runtime.shutdown_background();
                return Err(e);
            }
        };
        let addr = server.local_addr();
        runtime.spawn(server.run_until(std::future::pending()));
        Ok(Running {
            addr,
            runtime: Some(runtime),
        })
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

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

fn config(dir: &Path) -> Config {
    let mut c = Config::new(dir.to_path_buf());
    c.port = 0;
    c.hash_mb = 4;
    c.engine_threads = Some(1);
    c
}

fn http_from(ip: IpAddr) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(ip)
        .build()
        .expect("client")
}

async fn call(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    body: Option<Value>,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let mut req = http.request(method, url);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let r = tokio::time::timeout(HANG, req.send())
        .await
        .expect("answered in time")
        .expect("answered");
    let status = r.status();
    let headers = r.headers().clone();
    (status, headers, r.json().await.unwrap_or(Value::Null))
}

async fn post(server: &Running, path: &str, body: Value) -> (StatusCode, Value) {
    let (s, _, v) = call(
        &reqwest::Client::new(),
        reqwest::Method::POST,
        server.url(path),
        Some(body),
    )
    .await;
    (s, v)
}

async fn get(server: &Running, path: &str) -> (StatusCode, Value) {
    let (s, _, v) = call(
        &reqwest::Client::new(),
        reqwest::Method::GET,
        server.url(path),
        None,
    )
    .await;
    (s, v)
}

/// Waits until `cond` holds, checking every 50 ms; fails after [`HANG`].
async fn until<F, Fut>(what: &str, mut cond: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let wait = async {
        while !cond().await {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(HANG, wait)
        .await
        .unwrap_or_else(|_| panic!("waited too long for: {what}"));
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

struct Client {
    ws: Ws,
}

impl Client {
    async fn connect(server: &Running, id: &str, token: Option<&str>, name: &str) -> Client {
        let url = format!("ws://{}/api/online/{id}/ws", server.addr);
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("websocket");
        let mut c = Client { ws };
        c.send(&ClientMsg::Hello {
            token: token.map(String::from),
            name: Some(name.into()),
        })
        .await;
        match c.next().await {
            Some(ServerMsg::Welcome { .. }) => {}
            other => panic!("no welcome: {other:?}"),
        }
        c
    }

    async fn send(&mut self, msg: &ClientMsg) {
        let text = serde_json::to_string(msg).expect("json");
        self.ws.send(Message::text(text)).await.expect("send");
    }

    async fn next(&mut self) -> Option<ServerMsg> {
        loop {
            let msg = tokio::time::timeout(HANG, self.ws.next())
                .await
                .expect("the server answers")?
                .ok()?;
            match msg {
                Message::Text(t) => return Some(serde_json::from_str(t.as_str()).expect("JSON")),
                Message::Close(_) => return None,
                _ => continue,
            }
        }
    }

    async fn state(&mut self, pred: impl Fn(&GameState) -> bool) -> GameState {
        loop {
            match self.next().await {
                Some(ServerMsg::State(s)) if pred(&s) => return s,
                Some(_) => {}
                None => panic!("the connection closed while waiting for a state"),
            }
        }
    }

    async fn error(&mut self) -> String {
        loop {
            match self.next().await {
                Some(ServerMsg::Error { message }) => return message,
                Some(_) => {}
                None => panic!("the connection closed while waiting for an error"),
            }
        }
    }

    async fn play(&mut self, at: &str) {
        self.send(&ClientMsg::Move {
            at: at.into(),
            moves: None,
        })
        .await;
    }
}

fn moves(n: usize) -> impl Fn(&GameState) -> bool {
    move |s| s.moves.len() == n
}

/// An online game with both seats taken and both players connected.
async fn seated_pair(server: &Running, settings: Value) -> (String, Client, Client) {
    let (s, a) = post(server, "/api/online", settings).await;
    assert_eq!(s, StatusCode::CREATED, "{a}");
    let id = a["id"].as_str().expect("id").to_string();
    let (s, b) = post(
        server,
        &format!("/api/online/{id}/join"),
        json!({"name": "Bea"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let mut first = Client::connect(server, &id, a["token"].as_str(), "").await;
    let second = Client::connect(server, &id, b["token"].as_str(), "").await;
    first.state(|s| s.seats[1].connected).await;
    (id, first, second)
}

// --- A: a failing game -----------------------------------------------------------------------

#[tokio::test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the fault hook is compiled out of builds without debug assertions"
)]
async fn a_failing_online_game_answers_and_stays_reachable() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let server = Running::start(&config(dir.path()));
    let (id, mut a, mut b) = seated_pair(&server, json!({"name": "Ann"})).await;
    a.play("h8").await;
    b.state(moves(1)).await;
    b.play("h9").await;
    a.state(moves(2)).await;

    // The move makes the game's task panic (a test-only hook, as a bug in the rules would).
    a.play("fault:panic").await;
    let why = a.error().await;
    assert!(why.contains("failed"), "{why}");

    // The game is still there, as stored, and both players are still connected to it.
    let (s, state) = get(&server, &format!("/api/online/{id}")).await;
    assert_eq!(s, StatusCode::OK, "{state}");
    assert_eq!(state["moves"], json!(["h8", "h9"]));
    let (_, stats) = get(&server, "/api/online/stats").await;
    assert_eq!(stats["connections"], 2, "{stats}");
    a.play("i8").await;
    let st = b.state(moves(3)).await;
    assert_eq!(st.moves, ["h8", "h9", "i8"]);

    // The count of connections drops when one closes.
    drop(b);
    until("the connection count drops", || async {
        get(&server, "/api/online/stats").await.1["connections"] == 1
    })
    .await;
}

#[tokio::test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the fault hook is compiled out of builds without debug assertions"
)]
async fn a_failing_request_on_the_local_api_is_answered_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let server = Running::start(&config(dir.path()));
    let (s, g) = post(&server, "/api/games", json!({"opponent": "friend"})).await;
    assert_eq!(s, StatusCode::CREATED);
    let id = g["id"].as_str().expect("id");
    let moves_path = format!("/api/games/{id}/moves");
    assert_eq!(
        post(&server, &moves_path, json!({"move": "h8"})).await.0,
        200
    );
    let (s, v) = post(&server, &moves_path, json!({"move": "fault:panic"})).await;
    assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR, "{v}");
    assert_eq!(v["kind"], "internal", "{v}");
    let (_, state) = get(&server, &format!("/api/games/{id}")).await;
    assert_eq!(state["moves"], json!(["h8"]));
    assert_eq!(
        post(&server, &moves_path, json!({"move": "h9"})).await.0,
        200
    );
}

const EXTREMES: [&str; 6] = [
    "2147483647,0",
    "-2147483648,0",
    "0,2147483647",
    "0,-2147483648",
    "2147483647,2147483647",
    "-2147483648,-2147483648",
];

#[tokio::test]
async fn moves_at_the_i32_extremes_are_refused_cleanly() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let server = Running::start(&config(dir.path()));

    // The local game API.
    let (_, g) = post(
        &server,
        "/api/games",
        json!({"opponent": "friend", "size": "unbounded"}),
    )
    .await;
    let id = g["id"].as_str().expect("id");
    let moves_path = format!("/api/games/{id}/moves");
    assert_eq!(
        post(&server, &moves_path, json!({"move": "0,0"})).await.0,
        200
    );
    for m in EXTREMES {
        let (s, v) = post(&server, &moves_path, json!({"move": m})).await;
        assert!(s.is_client_error(), "{m}: {s} {v}");
        let (_, state) = get(&server, &format!("/api/games/{id}")).await;
        assert_eq!(state["moves"], json!(["0,0"]), "{m}");
    }

    // Online.
    let (id, mut a, mut b) = seated_pair(&server, json!({"size": "unbounded"})).await;
    a.play("0,0").await;
    b.state(moves(1)).await;
    for m in EXTREMES {
        b.play(m).await;
        let why = b.error().await;
        assert!(!why.contains("failed"), "{m}: {why}");
        let (_, state) = get(&server, &format!("/api/online/{id}")).await;
        assert_eq!(state["moves"], json!(["0,0"]), "{m}");
    }
}

// --- B: connections --------------------------------------------------------------------------

/// Reads what the server sends until it closes; `None` if it stays open past `wait`.
async fn read_to_close(
    tcp: &mut (impl tokio::io::AsyncRead + Unpin),
    wait: Duration,
) -> Option<String> {
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    let read = async {
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(wait, read).await.ok()?;
    Some(String::from_utf8_lossy(&got).into_owned())
}

async fn connect_from(ip: IpAddr, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket.bind(SocketAddr::new(ip, 0)).expect("bind");
    socket.connect(to).await.expect("connect")
}

#[tokio::test]
async fn a_client_over_its_connection_cap_is_turned_away_and_others_are_served() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut c = config(dir.path());
    c.connections_per_client = 20;
    let server = Running::start(&c);
    let me = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let mut held = Vec::new();
    for _ in 0..20 {
        held.push(connect_from(me, server.addr).await);
    }
    // The 21st and later from the same address are answered 429 and closed.
    for _ in 0..280 {
        let mut tcp = connect_from(me, server.addr).await;
        let answer = read_to_close(&mut tcp, HANG)
            .await
            .expect("a connection over the cap is closed");
        assert!(answer.starts_with("HTTP/1.1 429"), "{answer:?}");
    }
    // Another client is served meanwhile.
    let (s, _, _) = call(
        &http_from(OTHER),
        reqwest::Method::GET,
        server.url("/api/online/stats"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    // Once its connections close, the first client is let in again. Until the server has seen
    // them close, a request may be refused; the refusal is written as the socket is dropped, so
    // with the request unread the client may see the connection reset instead of the 429.
    drop(held);
    until("the first client is let in again", || async {
        let answer = reqwest::Client::new()
            .get(server.url("/api/online/stats"))
            .send()
            .await;
        answer.is_ok_and(|r| r.status() == StatusCode::OK)
    })
    .await;
}

/// Long enough never to close a connection during a test: what closes one there is the other
/// timeout, the one under test.
const NEVER: Duration = Duration::from_secs(3600);

#[tokio::test]
async fn a_half_sent_head_is_cut_off_and_a_slow_body_answered_408() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut c = config(dir.path());
    c.read_timeout = Duration::from_millis(500);
    c.idle_timeout = NEVER;
    let server = Running::start(&c);
    let me = IpAddr::V4(Ipv4Addr::LOCALHOST);

    // Half a request head.
    let mut head = connect_from(me, server.addr).await;
    head.write_all(b"GET /api/online/stats HTTP/1.1\r\nHost: x\r\n")
        .await
        .expect("write");
    assert!(
        read_to_close(&mut head, HANG).await.is_some(),
        "a half-sent head is cut off"
    );

    // Half a body: the server gives up on it with 408.
    let mut body = connect_from(me, server.addr).await;
    body.write_all(
        b"POST /api/online HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"name\":",
    )
    .await
    .expect("write");
    let answer = read_to_close(&mut body, HANG)
        .await
        .expect("a half-sent body is cut off");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");

    // A body that keeps trickling in, a byte at a time more often than the read timeout, still
    // has to arrive whole within it. Sent whole, it would take 20 s and be answered 201.
    let mut trickle = connect_from(me, server.addr).await;
    let payload = format!("{{\"name\":\"{}\"}}", "a".repeat(30));
    let head = format!(
        "POST /api/online HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        payload.len()
    );
    trickle.write_all(head.as_bytes()).await.expect("write");
    let (mut reader, mut writer) = trickle.into_split();
    let dribble = tokio::spawn(async move {
        for b in payload.bytes() {
            if writer.write_all(&[b]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    let answer = read_to_close(&mut reader, HANG)
        .await
        .expect("a trickling body is cut off");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    dribble.abort();
}

#[tokio::test]
async fn idle_connections_are_closed_but_not_while_a_request_is_handled() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut c = config(dir.path());
    c.read_timeout = NEVER;
    c.idle_timeout = Duration::from_secs(1);
    let server = Running::start(&c);

    // Nothing at all.
    let mut idle = connect_from(IpAddr::V4(Ipv4Addr::LOCALHOST), server.addr).await;
    assert!(
        read_to_close(&mut idle, HANG).await.is_some(),
        "an idle connection is closed"
    );

    // A request that takes longer than the idle timeout to answer is not cut off: it is being
    // handled, not idle.
    let (_, g) = post(&server, "/api/games", json!({"opponent": "friend"})).await;
    let id = g["id"].as_str().expect("id");
    let (s, v) = post(
        &server,
        &format!("/api/games/{id}/analysis"),
        json!({"time_ms": 2500}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
}

// --- C: per-client limits and expiry ---------------------------------------------------------

#[tokio::test]
async fn game_creation_and_analysis_time_are_limited_per_client() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut c = config(dir.path());
    c.games_per_minute = 3;
    c.analysis_secs_per_minute = 2;
    let server = Running::start(&c);
    let me = http_from(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let other = http_from(OTHER);
    let post_as = |http: &reqwest::Client, path: &str, body: Value| {
        let (http, url) = (http.clone(), server.url(path));
        async move { call(&http, reqwest::Method::POST, url, Some(body)).await }
    };
    for (path, body) in [
        ("/api/games", json!({"opponent": "friend"})),
        ("/api/online", json!({})),
        (
            "/api/games/import",
            json!({"text": "h8\nh9", "opponent": "friend"}),
        ),
    ] {
        let (s, _, v) = post_as(&me, path, body).await;
        assert_eq!(s, StatusCode::CREATED, "{path}: {v}");
    }
    for path in ["/api/online", "/api/games"] {
        let (s, headers, v) = post_as(&me, path, json!({})).await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{path}: {v}");
        assert_eq!(v["kind"], "rate_limited");
        let retry: u64 = headers["retry-after"]
            .to_str()
            .expect("text")
            .parse()
            .expect("seconds");
        assert!((1..=60).contains(&retry), "{retry}");
    }
    // Another client has its own allowance.
    let (s, _, g) = post_as(&other, "/api/games", json!({"opponent": "friend"})).await;
    assert_eq!(s, StatusCode::CREATED);
    let id = g["id"].as_str().expect("id");
    let analysis = format!("/api/games/{id}/analysis");
    let (s, _, v) = post_as(&other, &analysis, json!({"time_ms": 1500})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, headers, v) = post_as(&other, &analysis, json!({"time_ms": 1500})).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert!(headers.contains_key("retry-after"));
}

#[tokio::test]
async fn api_requests_are_limited_per_client_and_served_again_after_the_refill() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut c = config(dir.path());
    c.request_burst = 5;
    c.requests_per_second = 1;
    let server = Running::start(&c);
    let me = http_from(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let other = http_from(OTHER);
    let as_client = |http: &reqwest::Client, method: reqwest::Method, path: &str, body| {
        let (http, url) = (http.clone(), server.url(path));
        async move { call(&http, method, url, body).await }
    };
    // The burst is served whole, then requests faster than one a second are refused, a GET and
    // a POST alike, each with when to come back.
    let mut served = 0;
    let mut refused = Vec::new();
    for i in 0..60 {
        let (method, path, body) = if i % 2 == 0 {
            (reqwest::Method::GET, "/api/engine", None)
        } else {
            (
                reqwest::Method::POST,
                "/api/games",
                Some(json!({"opponent": "friend"})),
            )
        };
        let (s, headers, v) = as_client(&me, method.clone(), path, body).await;
        if s == StatusCode::TOO_MANY_REQUESTS {
            assert!(served >= 5, "refused within the burst, after {served}");
            assert_eq!(v["kind"], "rate_limited", "{v}");
            assert!(
                v["error"].as_str().is_some_and(|t| t.contains("requests")),
                "{v}"
            );
            let retry: u64 = headers["retry-after"]
                .to_str()
                .expect("text")
                .parse()
                .expect("seconds");
            assert_eq!(retry, 1, "one request a second");
            if !refused.contains(&method) {
                refused.push(method);
            }
            if refused.len() == 2 {
                break;
            }
        } else {
            assert!(s.is_success(), "{path}: {s} {v}");
            served += 1;
        }
    }
    assert!(served >= 5, "the burst of 5 is served: {served}");
    assert_eq!(refused.len(), 2, "a GET and a POST refused: {refused:?}");
    // The page's own files are not counted, and another client has its own allowance.
    let (s, _, _) = as_client(&me, reqwest::Method::GET, "/", None).await;
    assert_eq!(s, StatusCode::OK);
    let (s, _, v) = as_client(&other, reqwest::Method::GET, "/api/engine", None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    // Once the time it was told has passed, the client is served again.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (s, _, v) = as_client(&me, reqwest::Method::GET, "/api/engine", None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    drop(server);
    // Without client limits, the same rate is served.
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut c = config(dir.path());
    c.request_burst = 5;
    c.requests_per_second = 1;
    let server = Running::start(&c.without_client_limits());
    for _ in 0..20 {
        let (s, _, v) = call(&me, reqwest::Method::GET, server.url("/api/engine"), None).await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
}

#[tokio::test]
async fn an_unjoined_game_expires_and_is_not_restored() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut c = config(dir.path());
    // Short enough to wait for, long enough that the lobby read right after the game is made
    // cannot miss it unless the server hangs.
    c.unjoined_expiry = Duration::from_secs(5);
    let mut server = Running::start(&c);
    let listed = |lobby: &Value, id: &str| {
        lobby["open"]
            .as_array()
            .is_some_and(|g| g.iter().any(|g| g["id"] == id))
    };
    let (_, open) = post(&server, "/api/online", json!({"name": "Ann"})).await;
    let open = open["id"].as_str().expect("id").to_string();
    assert!(listed(&get(&server, "/api/online/lobby").await.1, &open));
    let (live, _a, _b) = seated_pair(&server, json!({})).await;
    until("the unjoined game leaves the lobby", || async {
        !listed(&get(&server, "/api/online/lobby").await.1, &open)
    })
    .await;
    let (s, v) = get(&server, &format!("/api/online/{open}")).await;
    assert_eq!(s, StatusCode::GONE, "{v}");
    assert_eq!(v["kind"], "expired");
    let (_, lobby) = get(&server, "/api/online/lobby").await;
    let (_, stats) = get(&server, "/api/online/stats").await;
    assert_eq!(stats["games"], 1, "{stats} {lobby}");
    assert_eq!(
        get(&server, &format!("/api/online/{live}")).await.0,
        StatusCode::OK
    );
    let (_, late) = post(&server, "/api/online", json!({})).await;
    let late = late["id"].as_str().expect("id").to_string();
    server.crash();

    // After a restart with an expiry of an hour, the expired game stays closed, and the game
    // made just before the crash is open again.
    c.unjoined_expiry = NEVER;
    let mut server = Running::start(&c);
    assert_eq!(get(&server, "/api/online/stats").await.1["games"], 2);
    assert_eq!(
        get(&server, &format!("/api/online/{open}")).await.0,
        StatusCode::GONE
    );
    assert_eq!(
        get(&server, &format!("/api/online/{late}")).await.0,
        StatusCode::OK
    );
    server.crash();

    // After a restart with an expiry it has outlived, it is closed at start-up; the game in play
    // is not, however old.
    c.unjoined_expiry = Duration::from_millis(1);
    let server = Running::start(&c);
    assert_eq!(get(&server, "/api/online/stats").await.1["games"], 1);
    for id in [&open, &late] {
        let (s, v) = get(&server, &format!("/api/online/{id}")).await;
        assert_eq!(s, StatusCode::GONE, "{id}: {v}");
        assert_eq!(v["kind"], "expired", "{id}: {v}");
    }
    assert_eq!(
        get(&server, &format!("/api/online/{live}")).await.0,
        StatusCode::OK
    );
}

// --- D: a damaged store ----------------------------------------------------------------------

#[tokio::test]
async fn damaged_rows_are_set_aside_and_the_rest_is_served() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let c = config(dir.path());
    let mut server = Running::start(&c);
    let mut ids = Vec::new();
    for _ in 0..3 {
        let (id, mut a, mut b) = seated_pair(&server, json!({})).await;
        a.play("h8").await;
        b.state(moves(1)).await;
        b.play("h9").await;
        a.state(moves(2)).await;
        ids.push(id);
    }
    server.crash();

    // One event loses its kind; one game's settings name no rule.
    let url = format!("sqlite://{}", dir.path().join("tengen.db").display());
    let db = sqlx::SqlitePool::connect(&url).await.expect("open");
    sqlx::query(
        "UPDATE online_events SET event = '{\"seat\":\"first\",\"x\":7,\"y\":7}' \
         WHERE game_id = ? AND seq = 3",
    )
    .bind(&ids[1])
    .execute(&db)
    .await
    .expect("damage an event");
    sqlx::query("UPDATE online_games SET settings = '{\"rule\":\"nonsense\"}' WHERE id = ?")
        .bind(&ids[2])
        .execute(&db)
        .await
        .expect("damage settings");
    db.close().await;

    let server = Running::start(&c);
    let (s, v) = get(&server, &format!("/api/online/{}", ids[0])).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["moves"], json!(["h8", "h9"]));
    for (id, says) in [(&ids[1], "kind"), (&ids[2], "settings")] {
        let (s, v) = get(&server, &format!("/api/online/{id}")).await;
        assert_eq!(s, StatusCode::GONE, "{v}");
        assert_eq!(v["kind"], "quarantined");
        assert!(v["error"].as_str().is_some_and(|e| e.contains(says)), "{v}");
    }
    assert_eq!(get(&server, "/api/online/stats").await.1["games"], 1);
    let db = sqlx::SqlitePool::connect(&url).await.expect("open");
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM online_quarantine")
        .fetch_one(&db)
        .await
        .expect("count");
    assert_eq!(n, 2);
}

#[tokio::test]
async fn an_empty_database_file_is_reported_not_replaced() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let file = dir.path().join("tengen.db");
    std::fs::write(&file, b"").expect("empty file");
    let err = Running::try_start(&config(dir.path()))
        .err()
        .expect("the server refuses to start");
    let text = err.to_string();
    assert!(
        text.contains("empty") && text.contains("tengen.db"),
        "{text}"
    );
    assert_eq!(std::fs::metadata(&file).expect("file").len(), 0);
}

// --- E: text from users ----------------------------------------------------------------------

#[tokio::test]
async fn names_and_chat_lose_control_and_bidi_characters() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let server = Running::start(&config(dir.path()));
    let (s, a) = post(
        &server,
        "/api/online",
        json!({"name": "A\u{0}n\u{1b}[31mn\u{202e}"}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{a}");
    let id = a["id"].as_str().expect("id").to_string();
    let (s, b) = post(
        &server,
        &format!("/api/online/{id}/join"),
        json!({"name": "B\u{2066}e\u{7}a"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let mut ann = Client::connect(&server, &id, a["token"].as_str(), "").await;
    let mut watcher = Client::connect(&server, &id, None, "W\u{202d}at\u{0}cher").await;
    let st = ann.state(|s| s.spectators == 1).await;
    assert_eq!(st.seats[0].name.as_deref(), Some("An[31mn"));
    assert_eq!(st.seats[1].name.as_deref(), Some("Bea"));
    watcher
        .send(&ClientMsg::Chat {
            text: "hi\u{0}\u{202e} there\u{1b}".into(),
        })
        .await;
    let line = loop {
        match ann.next().await {
            Some(ServerMsg::Chat(l)) => break l,
            Some(_) => {}
            None => panic!("closed"),
        }
    };
    assert_eq!(line.text, "hi there");
    assert_eq!(line.name, "Watcher");

    let (s, g) = post(
        &server,
        "/api/games",
        json!({"opponent": "friend", "player": "Kim\u{7}\u{202e}"}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{g}");
    assert_eq!(g["player"], "Kim");
}

// --- F: computer moves first -----------------------------------------------------------------

#[tokio::test]
async fn computer_moves_go_before_waiting_analyses() {
    let dir = tempfile::tempdir().expect("temporary folder");
    // One engine thread: everything queues for it.
    let server = Running::start(&config(dir.path()));
    let engine = || async { get(&server, "/api/engine").await.1 };
    let mut friends = Vec::new();
    for _ in 0..3 {
        let (_, g) = post(&server, "/api/games", json!({"opponent": "friend"})).await;
        friends.push(g["id"].as_str().expect("id").to_string());
    }
    let (_, g) = post(&server, "/api/games", json!({"opponent": "computer"})).await;
    let against = g["id"].as_str().expect("id").to_string();

    let done = Arc::new(Mutex::new(Vec::<String>::new()));
    let spawn = |name: String, path: String, body: Value| {
        let done = done.clone();
        let url = server.url(&path);
        tokio::spawn(async move {
            let (s, _, v) = call(
                &reqwest::Client::new(),
                reqwest::Method::POST,
                url,
                Some(body),
            )
            .await;
            assert_eq!(s, StatusCode::OK, "{name}: {v}");
            done.lock().expect("lock").push(name);
        })
    };
    let analysis = |i: usize, time_ms: u64| {
        spawn(
            format!("analysis {i}"),
            format!("/api/games/{}/analysis", friends[i]),
            json!({ "time_ms": time_ms }),
        )
    };
    // The first analysis holds the only thread until the move has been queued behind it: it is
    // as long as an analysis may be, and stopped by a move in its game once the move waits.
    let mut tasks = vec![analysis(0, 10_000)];
    until("the first analysis runs", || async {
        engine().await["running_analyses"] == 1
    })
    .await;
    tasks.push(analysis(1, 1500));
    tasks.push(analysis(2, 1500));
    until("two analyses wait", || async {
        engine().await["queued_analyses"] == 2
    })
    .await;
    tasks.push(spawn(
        "move".into(),
        format!("/api/games/{against}/moves"),
        json!({"move": "h8"}),
    ));
    until("the computer's move waits", || async {
        engine().await["queued_moves"] == 1
    })
    .await;
    let (s, v) = post(
        &server,
        &format!("/api/games/{}/moves", friends[0]),
        json!({"move": "h8"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    for t in tasks {
        t.await.expect("task");
    }
    // The order of the answers is the order of the searches: each waiting analysis searches
    // for 1.5 s, far longer than the move takes to be answered once its search is done.
    let order = done.lock().expect("lock").clone();
    let at = |name: &str| order.iter().position(|n| n == name).expect("finished");
    assert!(
        at("move") < at("analysis 1") && at("move") < at("analysis 2"),
        "{order:?}"
    );
}

// --- G: headers, methods, origins ------------------------------------------------------------

#[tokio::test]
async fn pages_carry_security_headers_and_take_only_get_and_head() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let server = Running::start(&config(dir.path()));
    let http = reqwest::Client::new();
    for path in ["/", "/app.js", "/style.css", "/api/online/stats", "/nope"] {
        let r = http.get(server.url(path)).send().await.expect("answer");
        let h = r.headers();
        let csp = h["content-security-policy"].to_str().expect("text");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(csp.contains("script-src 'self'"), "{path}: {csp}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
    }
    for (method, path) in [
        (reqwest::Method::POST, "/"),
        (reqwest::Method::PUT, "/app.js"),
        (reqwest::Method::DELETE, "/style.css"),
        (reqwest::Method::PATCH, "/index.html"),
    ] {
        let r = http
            .request(method.clone(), server.url(path))
            .send()
            .await
            .expect("answer");
        assert_eq!(
            r.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        assert_eq!(r.headers()["allow"], "GET, HEAD");
    }
    let r = http.head(server.url("/")).send().await.expect("answer");
    assert_eq!(r.status(), StatusCode::OK);
    let r = http.post(server.url("/nope")).send().await.expect("answer");
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_websocket_takes_its_own_origin_and_programs_without_one() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let server = Running::start(&config(dir.path()));
    let (_, a) = post(&server, "/api/online", json!({})).await;
    let id = a["id"].as_str().expect("id");
    let url = format!("ws://{}/api/online/{id}/ws", server.addr);
    let with_origin = |origin: &str| {
        let mut req = url.as_str().into_client_request().expect("request");
        req.headers_mut()
            .insert("origin", origin.parse().expect("header"));
        tokio_tungstenite::connect_async(req)
    };
    match with_origin("http://evil.example").await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 403),
        other => panic!("another site's page was let in: {:?}", other.map(|_| ())),
    }
    with_origin(&format!("http://{}", server.addr))
        .await
        .expect("the server's own page");
    tokio_tungstenite::connect_async(url.as_str())
        .await
        .expect("a program without an Origin");
}
