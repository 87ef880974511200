//! `kill -9` of the real `tengen serve` in mid-game: after a restart on the same data folder the
//! game goes on with every move a player was told of, and its clocks.

mod common;

use common::{TestServer, until};
use serde_json::json;
use tengen_client::online::{OnlineClient, Socket};
use tengen_wire::{ClientMsg, GameState};

async fn seat(server: &OnlineClient, id: &str, token: &str) -> Socket {
    let mut s = server.connect(id).await.expect("websocket");
    s.send(&ClientMsg::Hello {
        token: Some(token.into()),
        name: None,
    })
    .await
    .expect("hello");
    s
}

fn ms_since(t: std::time::Instant) -> u64 {
    u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX)
}

#[test]
fn a_game_survives_kill_minus_nine() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let first = TestServer::start_in(dir.path());
    let (_, a) = first.post(
        "/api/online",
        json!({"name": "Ann", "clock": {"kind": "total", "ms": 600000, "increment_ms": 0}}),
    );
    let id = a["id"].as_str().expect("id").to_string();
    let (status, b) = first.post(&format!("/api/online/{id}/join"), json!({"name": "Bea"}));
    assert_eq!(status, 200);
    let (ta, tb) = (
        a["token"].as_str().expect("token").to_string(),
        b["token"].as_str().expect("token").to_string(),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let moves = ["h8", "h9", "i8", "i9", "j8", "j9"];
    // The last state, and how long its move took to come back: black's clock ran no longer
    // than that before the state was sent.
    let (seen, turn_ms) = runtime.block_on(async {
        let server = OnlineClient::new(&first.base).expect("url");
        let mut black = seat(&server, &id, &ta).await;
        let mut white = seat(&server, &id, &tb).await;
        let mut last = None;
        for (i, at) in moves.iter().enumerate() {
            let mover = if i % 2 == 0 { &mut black } else { &mut white };
            let sent = std::time::Instant::now();
            mover
                .send(&ClientMsg::Move {
                    at: (*at).into(),
                    moves: None,
                })
                .await
                .expect("send");
            let state = until(mover, |s| s.moves.len() == i + 1).await;
            last = Some((state, ms_since(sent)));
        }
        last.expect("states")
    });
    // The moment the last move is confirmed, the server dies without a word.
    first.kill();
    let restarted = std::time::Instant::now();
    let second = TestServer::start_in(dir.path());
    let (status, back) = second.get(&format!("/api/online/{id}"));
    let since = ms_since(restarted);
    assert_eq!(status, 200);
    let back: GameState = serde_json::from_value(back).expect("state");
    assert_eq!(back.moves, seen.moves);
    assert!(back.outcome.is_none());
    // Clocks stood still while the server was down: white's reading is as stored; black's
    // turn starts again from its stored reading, which lies between what black's clock showed
    // (`before`) and that plus the last move's round trip. So black has lost at most the time
    // since the restart, and gained at most the round trip, each as this test measured it,
    // whatever the machine's load.
    assert_eq!(back.seats[1].clock_ms, seen.seats[1].clock_ms);
    let (before, after) = (
        seen.seats[0].clock_ms.expect("clock"),
        back.seats[0].clock_ms.expect("clock"),
    );
    assert!(
        after + since >= before && after <= before + turn_ms,
        "{before} -> {after}, {since} ms after the restart, a round trip of {turn_ms} ms"
    );
    // Both players come back with their tokens and finish the game.
    runtime.block_on(async {
        let server = OnlineClient::new(&second.base).expect("url");
        let mut black = seat(&server, &id, &ta).await;
        let mut white = seat(&server, &id, &tb).await;
        black
            .send(&ClientMsg::Move {
                at: "k8".into(),
                moves: None,
            })
            .await
            .expect("send");
        until(&mut black, |s| s.moves.len() == 7).await;
        white
            .send(&ClientMsg::Move {
                at: "k9".into(),
                moves: None,
            })
            .await
            .expect("send");
        until(&mut white, |s| s.moves.len() == 8).await;
        black
            .send(&ClientMsg::Move {
                at: "l8".into(),
                moves: None,
            })
            .await
            .expect("send");
        let end = until(&mut white, |s| s.outcome.is_some()).await;
        let out = end.outcome.expect("over");
        assert_eq!(
            (out.reason.as_str(), out.winner.as_deref()),
            ("five", Some("black"))
        );
    });
}
