//! `tengen bot` as a real process against a real server: two bots play games to their end (the
//! server stores the outcome), follow a rematch, play a swap opening on the clock; a Gomocup
//! brain plays through a bot; a bot declines takebacks and answers draw offers from a scripted
//! opponent, claims the win over one who left, and fails with a clear message and a non-zero
//! status when it cannot play. The server is `tengen serve` as a process, except for the claim, which needs
//! a grace period shorter than `tengen serve`'s.

mod common;

use std::time::Duration;

use common::{TestServer, finish, run, spawn};
use serde_json::{Value, json};

/// Generous: a game between beginners takes seconds, but the machine may be busy.
const GAME_LIMIT: Duration = Duration::from_secs(240);

fn create(server: &TestServer, body: Value) -> Value {
    let (status, seated) = server.post("/api/online", body);
    assert_eq!(status, 201, "{seated}");
    seated
}

/// Starts a bot at the beginner level for the seat whose token it is given, with `more`
/// arguments.
fn beginner_bot(base: &str, id: &str, token: &str, more: &[&str]) -> std::process::Child {
    let mut args = vec![
        "bot", "--server", base, "--game", id, "--token", token, "--level", "beginner",
    ];
    args.extend_from_slice(more);
    spawn(&args)
}

/// Waits for a bot to end (a hang guard of `GAME_LIMIT`) and checks that it ended well.
fn finished(bot: std::process::Child) -> common::Run {
    let r = finish(bot, GAME_LIMIT);
    assert!(
        r.status.success(),
        "the bot failed\nstdout:\n{}\nstderr:\n{}",
        r.stdout,
        r.stderr
    );
    r
}

/// Checks that a bot said `text`.
fn said(r: &common::Run, text: &str) {
    assert!(r.stdout.contains(text), "no {text:?} in:\n{}", r.stdout);
}

fn outcome(server: &TestServer, id: &str) -> Value {
    let (status, state) = server.get(&format!("/api/online/{id}"));
    assert_eq!(status, 200, "{state}");
    state["outcome"].clone()
}

#[test]
fn two_bots_play_a_game_and_a_rematch_to_the_end() {
    let server = TestServer::start();
    let seated = create(&server, json!({"listed": false, "name": "creator"}));
    let id = seated["id"].as_str().expect("id").to_string();
    let token = seated["token"].as_str().expect("token").to_string();
    let base = server.base.as_str();
    let first = beginner_bot(base, &id, &token, &["--rematch", "1"]);
    let second = spawn(&[
        "bot",
        "--server",
        base,
        "--game",
        &id,
        "--level",
        "beginner",
        "--rematch",
        "1",
    ]);
    let first = finished(first);
    let second = finished(second);
    for (who, r) in [("first", &first), ("second", &second)] {
        let over = r.stdout.lines().filter(|l| l.contains(" over: ")).count();
        assert_eq!(over, 2, "{who} bot should report two games:\n{}", r.stdout);
    }
    assert!(
        second
            .stdout
            .contains(&format!("joined game {id} as second"))
    );

    // The first game's outcome is on the server, and so is the rematch's.
    let first_outcome = outcome(&server, &id);
    assert!(first_outcome.is_object(), "no outcome: {first_outcome}");
    let (_, state) = server.get(&format!("/api/online/{id}"));
    let rematch = state["rematch"].as_str().expect("a rematch id").to_string();
    assert!(first.stdout.contains(&format!("rematch: game {rematch}")));
    let second_outcome = outcome(&server, &rematch);
    assert!(second_outcome.is_object(), "no outcome: {second_outcome}");
    // Both bots tell the same story of each game: one won where the other lost.
    let verdicts = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains(" over: "))
            .filter_map(|l| {
                l.rsplit(", ")
                    .next()
                    .map(|v| v.trim_end_matches(')').to_string())
            })
            .collect()
    };
    fn opposite(v: &str) -> &str {
        match v {
            "won" => "lost",
            "lost" => "won",
            other => other,
        }
    }
    let (a, b) = (verdicts(&first.stdout), verdicts(&second.stdout));
    assert_eq!(a.len(), 2);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.as_str(), opposite(y), "{a:?} against {b:?}");
    }
}

#[test]
fn bots_open_a_swap_game_on_the_clock() {
    let server = TestServer::start();
    let seated = create(
        &server,
        json!({
            "listed": false,
            "opening": "swap",
            "clock": {"kind": "per_move", "ms": 3000},
        }),
    );
    let id = seated["id"].as_str().expect("id").to_string();
    let token = seated["token"].as_str().expect("token").to_string();
    let base = server.base.as_str();
    let first = beginner_bot(base, &id, &token, &[]);
    let second = spawn(&[
        "bot",
        "--server",
        base,
        "--game",
        &id,
        "--level",
        "intermediate",
        "--name",
        "swapper",
    ]);
    finished(first);
    let second = finished(second);
    // The second player took the swap decision.
    assert!(
        second.stdout.contains("takes black") || second.stdout.contains("takes white"),
        "{}",
        second.stdout
    );
    let (_, state) = server.get(&format!("/api/online/{id}"));
    let out = &state["outcome"];
    assert!(out.is_object(), "no outcome: {state}");
    // Neither bot let its clock run out.
    assert_ne!(out["reason"], "timeout", "{state}");
    assert_eq!(state["seats"][1]["name"], "swapper");
    assert!(state["points"].as_array().expect("points").len() >= 5);
}

#[test]
fn a_bot_that_cannot_play_says_why_and_fails() {
    let server = TestServer::start();
    let base = server.base.as_str();
    let seated = create(&server, json!({"listed": false}));
    let id = seated["id"].as_str().expect("id").to_string();
    let quick = Duration::from_secs(60);

    // A token the server does not know.
    let r = run(
        &[
            "bot",
            "--server",
            base,
            "--game",
            &id,
            "--token",
            "not-a-token",
        ],
        quick,
    );
    assert!(!r.status.success());
    assert!(r.stderr.contains("tengen bot:"), "{}", r.stderr);
    assert!(r.stderr.contains(&id), "{}", r.stderr);

    // No such game.
    let r = run(&["bot", "--server", base, "--game", "nosuchgame"], quick);
    assert!(!r.status.success());
    assert!(r.stderr.contains("404"), "{}", r.stderr);

    // Both seats taken.
    let (status, joined) = server.post(&format!("/api/online/{id}/join"), json!({}));
    assert_eq!(status, 200, "{joined}");
    let r = run(&["bot", "--server", base, "--game", &id], quick);
    assert!(!r.status.success());
    assert!(r.stderr.contains("both seats are taken"), "{}", r.stderr);

    // No server there: the port of a listener that is closed again.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let nobody = format!("http://127.0.0.1:{port}");
    let r = run(&["bot", "--server", &nobody, "--game", &id], quick);
    assert!(!r.status.success());
    assert!(r.stderr.contains("cannot reach the server"), "{}", r.stderr);

    // Not an address at all.
    let r = run(&["bot", "--server", "localhost:1", "--game", &id], quick);
    assert!(!r.status.success());
    assert!(r.stderr.contains("bad server address"), "{}", r.stderr);
}

#[test]
fn a_gomocup_brain_plays_through_the_bot() {
    let server = TestServer::start();
    let seated = create(
        &server,
        json!({"listed": false, "clock": {"kind": "per_move", "ms": 2000}}),
    );
    let id = seated["id"].as_str().expect("id").to_string();
    let token = seated["token"].as_str().expect("token").to_string();
    let base = server.base.as_str();
    let brain = format!("{} --level beginner", common::pbrain_tengen());
    let first = beginner_bot(base, &id, &token, &[]);
    let second = spawn(&["bot", "--server", base, "--game", &id, "--brain", &brain]);
    finished(first);
    let second = finished(second);
    assert!(second.stdout.contains("move 2: "), "{}", second.stdout);
    let (_, state) = server.get(&format!("/api/online/{id}"));
    assert!(state["outcome"].is_object(), "no outcome: {state}");
    assert_ne!(state["outcome"]["reason"], "timeout", "{state}");
    // Named after the brain's program.
    assert_eq!(state["seats"][1]["name"], "pbrain-tengen (bot)");
}

/// Plays `seat` of game `id` over its own WebSocket with `token`: at each of its turns with no
/// request open, the next of `steps` (`move` to the first empty point, `draw`, `takeback`,
/// `resign`), until the game is over or the steps run out. How many steps it took, and the
/// server's notices.
fn scripted_opponent(
    server: &TestServer,
    id: &str,
    token: &str,
    seat: &str,
    steps: &[&str],
) -> (usize, Vec<String>) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let ws_url = format!(
        "ws://{}/api/online/{id}/ws",
        server.base.trim_start_matches("http://")
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let (mut ws, _) = tokio_tungstenite::connect_async(ws_url.as_str())
            .await
            .expect("WebSocket opens");
        let send = |v: Value| Message::text(v.to_string());
        ws.send(send(json!({"type": "hello", "token": token})))
            .await
            .expect("hello");
        let mut step = 0;
        let mut notices = Vec::new();
        // A hang guard: the bots' games take seconds.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        while let Ok(Some(Ok(frame))) = tokio::time::timeout_at(deadline, ws.next()).await {
            let Message::Text(text) = frame else { continue };
            let msg: Value = serde_json::from_str(text.as_str()).expect("JSON frame");
            match msg["type"].as_str() {
                Some("notice") => notices.push(msg["text"].to_string()),
                Some("error") => panic!("refused: {msg}"),
                Some("state") => {
                    if msg["outcome"].is_object() || step == steps.len() {
                        break;
                    }
                    let mine = msg["pending"]["kind"] == "move" && msg["pending"]["seat"] == seat;
                    let asked = msg["request"].is_object();
                    if !mine || asked {
                        continue;
                    }
                    let points = msg["points"].as_array().expect("points").clone();
                    let free = (0..15)
                        .flat_map(|y| (0..15).map(move |x| json!([x, y])))
                        .find(|p| !points.contains(p))
                        .expect("an empty point");
                    let next = match steps[step] {
                        "move" => json!({"type": "move", "at": format!("{},{}", free[0], free[1])}),
                        "resign" => json!({"type": "resign"}),
                        kind => json!({"type": "request", "kind": kind}),
                    };
                    step += 1;
                    ws.send(send(next)).await.expect("send");
                }
                _ => {}
            }
        }
        ws.close(None).await.ok();
        (step, notices)
    })
}

/// Starts a bot at the beginner level for the seat of `seated`; joins the other seat for the
/// script. The game's id and the script's token.
fn bot_against_a_script(
    server: &TestServer,
    seated: &Value,
) -> (String, String, std::process::Child) {
    let id = seated["id"].as_str().expect("id").to_string();
    let token = seated["token"].as_str().expect("token").to_string();
    let (status, joined) = server.post(&format!("/api/online/{id}/join"), json!({}));
    assert_eq!(status, 200, "{joined}");
    let bot = beginner_bot(&server.base, &id, &token, &[]);
    let theirs = joined["token"].as_str().expect("token").to_string();
    (id, theirs, bot)
}

/// The second seat moves, asks for a takeback, offers a draw, then resigns. The bot declines
/// the takeback and answers the draw offer as `tengen_engine::decide` does, a position it
/// stands better in or not (the rule itself is tested in the engine): either the game is drawn
/// there, or the script resigns and the bot wins.
#[test]
fn the_bot_declines_takebacks_and_answers_draw_offers() {
    let server = TestServer::start();
    let seated = create(&server, json!({"listed": false}));
    let (id, theirs, bot) = bot_against_a_script(&server, &seated);
    let steps = ["move", "takeback", "move", "draw", "resign"];
    let (step, notices) = scripted_opponent(&server, &id, &theirs, "second", &steps);
    let r = finished(bot);
    said(&r, "declines the takeback request");
    let (_, state) = server.get(&format!("/api/online/{id}"));
    // Black's third stone answered the script's second move: five stones when the offer came.
    assert_eq!(
        state["moves"].as_array().expect("moves").len(),
        5,
        "{state}"
    );
    if r.stdout.contains("accepts the draw request") {
        assert_eq!(step, 4, "{notices:?}");
        assert_eq!(state["outcome"]["reason"], "agreement", "{state}");
    } else {
        said(&r, "declines the draw request");
        assert_eq!(
            step, 5,
            "the script did not reach its resignation: {notices:?}"
        );
        said(&r, ", won)");
        assert_eq!(state["outcome"]["reason"], "resignation", "{state}");
    }
}

/// The bot plays white; black offers a draw before its first stone. On the empty board black
/// stands better (the first move), so the bot takes the draw.
#[test]
fn the_bot_takes_a_draw_it_does_not_stand_better_in() {
    let server = TestServer::start();
    let seated = create(&server, json!({"listed": false, "color": "white"}));
    let (id, theirs, bot) = bot_against_a_script(&server, &seated);
    let (step, notices) = scripted_opponent(&server, &id, &theirs, "first", &["draw"]);
    assert_eq!(step, 1, "{notices:?}");
    let r = finished(bot);
    said(&r, "accepts the draw request");
    let state = outcome(&server, &id);
    assert_eq!(state["reason"], "agreement", "{state}");
}

/// A server in this process with a grace period of one second (`tengen serve` keeps the
/// default two minutes); its address, and its folder to keep until the end.
fn short_grace_server() -> (String, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut config = tengen_server::Config::new(dir.path().to_path_buf());
    config.port = 0;
    config.hash_mb = 4;
    config.grace_secs = 1;
    let (tx, rx) = std::sync::mpsc::channel();
    // The server lives as long as the test process: its thread is never joined.
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let server = tengen_server::Server::bind(&config)
                .await
                .expect("server binds");
            tx.send(server.local_addr()).ok();
            server.run_until(std::future::pending()).await.ok();
        });
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("server address");
    (format!("http://{addr}"), dir)
}

/// The opponent plays nothing, leaves, and stays away past the grace period: the bot claims
/// the win instead of waiting for ever.
#[test]
fn the_bot_claims_the_win_over_an_opponent_who_left() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let (base, _dir) = short_grace_server();
    let post = |path: &str, body: Value| {
        let url = format!("{base}{path}");
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(async move {
                let r = reqwest::Client::new()
                    .post(url)
                    .json(&body)
                    .send()
                    .await
                    .expect("request");
                r.json::<Value>().await.expect("JSON")
            })
    };
    let seated = post("/api/online", json!({"listed": false}));
    let id = seated["id"].as_str().expect("id").to_string();
    let token = seated["token"].as_str().expect("token").to_string();
    let joined = post(&format!("/api/online/{id}/join"), json!({}));
    let their_token = joined["token"].as_str().expect("token").to_string();
    let bot = beginner_bot(&base, &id, &token, &[]);
    // The opponent comes, sees the bot's first move, and goes.
    let ws_url = format!(
        "ws://{}/api/online/{id}/ws",
        base.trim_start_matches("http://")
    );
    let saw_move = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(async move {
            let (mut ws, _) = tokio_tungstenite::connect_async(ws_url.as_str())
                .await
                .expect("WebSocket opens");
            let hello = json!({"type": "hello", "token": their_token}).to_string();
            ws.send(Message::text(hello)).await.expect("hello");
            let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
            while let Ok(Some(Ok(frame))) = tokio::time::timeout_at(deadline, ws.next()).await {
                let Message::Text(text) = frame else { continue };
                let msg: Value = serde_json::from_str(text.as_str()).expect("JSON frame");
                if msg["type"] == "state" && msg["points"].as_array().is_some_and(|p| !p.is_empty())
                {
                    ws.close(None).await.ok();
                    return true;
                }
            }
            false
        });
    assert!(saw_move, "the bot never moved");
    let r = finished(bot);
    said(&r, ", won)");
    said(&r, "claims the win");
}
