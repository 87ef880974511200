//! Two real `tengen serve` nodes serving one site from one PostgreSQL database and one Redis
//! bus (started by `scripts/test`): players connected to different nodes play a game to its
//! end, with a spectator on each node; the lobby spans both; after `kill -9` of the node running
//! a second game, the other takes it over from the event log and that game goes on with every
//! move.

mod common;

use std::time::Duration;

use common::{TestServer, until};
use serde_json::json;
use tengen_client::online::{OnlineClient, Socket};
use tengen_wire::{ClientMsg, GameState, Lobby, ServerMsg};

/// A seat (or, with no token, a spectator) on `server`, once the node answers with the game:
/// right after its owner died a node may take a few seconds to take the game over.
async fn seat(server: &OnlineClient, id: &str, token: Option<&str>) -> Socket {
    let wait = async {
        loop {
            let mut s = server.connect(id).await.expect("websocket");
            s.send(&ClientMsg::Hello {
                token: token.map(String::from),
                name: Some("Watcher".into()),
            })
            .await
            .expect("hello");
            match s.recv().await.expect("frame") {
                Some(ServerMsg::Welcome { .. }) => return s,
                other => {
                    eprintln!("not yet: {other:?}");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .expect("the game is served within a minute")
}

/// Plays `moves` from move number `from` on, black and white alternating, each confirmed to the
/// mover and seen by every watcher; the state the mover of the last one was sent.
async fn play(
    black: &mut Socket,
    white: &mut Socket,
    watchers: &mut [&mut Socket],
    from: usize,
    moves: &[&str],
) -> Option<GameState> {
    let mut last = None;
    for (k, at) in moves.iter().enumerate() {
        let n = from + k + 1;
        let (mover, other) = if n % 2 == 1 {
            (&mut *black, &mut *white)
        } else {
            (&mut *white, &mut *black)
        };
        mover
            .send(&ClientMsg::Move {
                at: (*at).into(),
                moves: None,
            })
            .await
            .expect("send");
        last = Some(until(mover, |s| s.moves.len() == n).await);
        until(other, |s| s.moves.len() == n).await;
        for w in watchers.iter_mut() {
            until(w, |s| s.moves.len() == n).await;
        }
    }
    last
}

/// Reads `s` until the chat line `text` arrives.
async fn chat_heard(s: &mut Socket, text: &str) {
    let wait = async {
        loop {
            match s.recv().await.expect("frame") {
                Some(ServerMsg::Chat(line)) if line.text == text => return,
                Some(ServerMsg::Error { message }) => panic!("refused: {message}"),
                Some(_) => {}
                None => panic!("the connection closed"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .expect("the chat line arrives");
}

#[test]
fn two_nodes_serve_one_game_and_outlive_its_owner() {
    let (Some(_), Ok(redis)) = (
        tengen_server::testing::postgres_admin_url(),
        std::env::var("TENGEN_TEST_REDIS"),
    ) else {
        eprintln!("no PostgreSQL and Redis to test on (scripts/test starts both): not run");
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let database = runtime.block_on(tengen_server::testing::new_postgres_database());
    let node = |name: &str| {
        TestServer::start_with(&[
            "--database",
            &database,
            "--bus",
            &redis,
            "--node",
            name,
            "--engine-threads",
            "1",
        ])
    };
    let (node_a, node_b) = (node("a"), node("b"));
    let (client_a, client_b) = (
        OnlineClient::new(&node_a.base).expect("url"),
        OnlineClient::new(&node_b.base).expect("url"),
    );
    // A whole game across the nodes: made on B, joined through A, a spectator on each.
    let (status, a) = node_b.post("/api/online", json!({"name": "Cy"}));
    assert_eq!(status, 201);
    let first = a["id"].as_str().expect("id").to_string();
    let (status, b) = node_a.post(&format!("/api/online/{first}/join"), json!({"name": "Di"}));
    assert_eq!(status, 200, "{b}");
    runtime.block_on(async {
        let mut black = seat(&client_b, &first, a["token"].as_str()).await;
        let mut white = seat(&client_a, &first, b["token"].as_str()).await;
        let mut watch_a = seat(&client_a, &first, None).await;
        let mut watch_b = seat(&client_b, &first, None).await;
        play(
            &mut black,
            &mut white,
            &mut [&mut watch_a, &mut watch_b],
            0,
            &["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4"],
        )
        .await;
        // A chat line said on the node that does not run the game is stored by its owner and
        // heard on both nodes (a refusal would come back to the speaker as an error, which
        // `until` below fails on).
        watch_a
            .send(&ClientMsg::Chat {
                text: "across the nodes".into(),
            })
            .await
            .expect("send");
        for s in [&mut watch_b, &mut white] {
            chat_heard(s, "across the nodes").await;
        }
        black
            .send(&ClientMsg::Move {
                at: "l8".into(),
                moves: None,
            })
            .await
            .expect("send");
        for s in [&mut black, &mut white, &mut watch_a, &mut watch_b] {
            let end = until(s, |s| s.outcome.is_some()).await;
            assert_eq!(end.moves.len(), 9);
            assert_eq!(end.outcome.and_then(|o| o.winner).as_deref(), Some("black"));
        }
    });
    // Ann makes the game on node A, which runs it; Bea joins through node B.
    let (status, a) = node_a.post(
        "/api/online",
        json!({"name": "Ann", "clock": {"kind": "total", "ms": 600000, "increment_ms": 0}}),
    );
    assert_eq!(status, 201);
    let id = a["id"].as_str().expect("id").to_string();
    let (status, b) = node_b.post(&format!("/api/online/{id}/join"), json!({"name": "Bea"}));
    assert_eq!(status, 200, "{b}");
    let (ta, tb) = (
        a["token"].as_str().expect("token").to_string(),
        b["token"].as_str().expect("token").to_string(),
    );
    let before = runtime.block_on(async {
        let mut black = seat(&client_a, &id, Some(&ta)).await;
        let mut white = seat(&client_b, &id, Some(&tb)).await;
        let mut watch_a = seat(&client_a, &id, None).await;
        let mut watch_b = seat(&client_b, &id, None).await;
        let sixth = play(
            &mut black,
            &mut white,
            &mut [&mut watch_a, &mut watch_b],
            0,
            &["h8", "h9", "i8", "i9", "j8", "j9"],
        )
        .await
        .expect("a state");
        // The statistics of node B count node A's connections too (two each).
        let stats = async {
            loop {
                let stats = client_b.stats().await.expect("stats");
                if stats.connections >= 4 {
                    return stats;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(10), stats)
            .await
            .expect("both nodes' connections in the statistics");
        // Node B's lobby lists the game node A runs, with both spectators.
        let lobby = async {
            loop {
                let lobby: Lobby = reqwest::get(format!("{}/api/online/lobby", node_b.base))
                    .await
                    .expect("lobby")
                    .json()
                    .await
                    .expect("lobby body");
                if let Some(g) = lobby.live.iter().find(|g| g.id == id)
                    && g.spectators == 2
                {
                    return g.moves;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        };
        let moves = tokio::time::timeout(Duration::from_secs(10), lobby)
            .await
            .expect("the other node's game in the lobby");
        assert_eq!(moves, 6);
        sixth
    });
    // The node running the game dies without a word.
    let killed = std::time::Instant::now();
    node_a.kill();
    runtime.block_on(async {
        // Everyone comes back through node B, which takes the game over from the event log.
        let mut black = seat(&client_b, &id, Some(&ta)).await;
        let mut white = seat(&client_b, &id, Some(&tb)).await;
        let mut watcher = seat(&client_b, &id, None).await;
        let state = until(&mut watcher, |_| true).await;
        assert_eq!(
            state.moves.len(),
            6,
            "every acknowledged move is kept: {:?}",
            state.moves
        );
        // Clocks as stored: white's (not to move) as it was; black's, to move, ran at most
        // while this test watched, and did not gain time.
        assert_eq!(state.seats[1].clock_ms, before.seats[1].clock_ms);
        let (was, now) = (
            before.seats[0].clock_ms.expect("clock"),
            state.seats[0].clock_ms.expect("clock"),
        );
        let since = u64::try_from(killed.elapsed().as_millis()).expect("ms");
        assert!(
            now <= was + 1_000 && now + since + 1_000 >= was,
            "black's clock {was} -> {now}, {since} ms after the kill"
        );
        play(
            &mut black,
            &mut white,
            &mut [&mut watcher],
            6,
            &["k8", "k9"],
        )
        .await;
        black
            .send(&ClientMsg::Move {
                at: "l8".into(),
                moves: None,
            })
            .await
            .expect("send");
        let end = until(&mut watcher, |s| s.outcome.is_some()).await;
        assert_eq!(end.moves.len(), 9);
        let out = end.outcome.expect("over");
        assert_eq!(
            (out.reason.as_str(), out.winner.as_deref()),
            ("five", Some("black"))
        );
    });
}
