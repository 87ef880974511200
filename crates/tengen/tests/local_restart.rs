//! `kill -9` of the real `tengen serve` during a game against the computer and during a game
//! between friends on one screen: restarted on the same SQLite file, both games come back whole,
//! and the computer plays the move it was thinking about without anyone asking.

mod common;

use std::time::Duration;

use common::TestServer;
use serde_json::{Value, json};

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

fn moves(v: &Value) -> Vec<String> {
    v["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m.as_str().expect("move").to_string())
        .collect()
}

/// Polls the game until `done` holds; a guard against a hang, not a measure of speed.
fn wait_for(server: &TestServer, game: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..1200 {
        let (status, v) = server.get(&format!("/api/games/{game}"));
        assert_eq!(status, 200, "{v}");
        if done(&v) {
            return v;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!("game {game} never reached the state waited for");
}

#[test]
fn games_in_one_browser_survive_kill_minus_nine() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let first = TestServer::start_in_with(dir.path(), &["--engine-threads", "1"], &[]);

    // Between friends: six moves, the last taken back (redo keeps it), a clock for the game.
    let (status, friends) = first.post(
        "/api/games",
        json!({"opponent": "friend", "clock": {"kind": "total", "ms": 600000, "increment_ms": 0}}),
    );
    assert_eq!(status, 201, "{friends}");
    let friends = id(&friends);
    for m in ["h8", "h9", "i8", "i9", "j8", "j9"] {
        let (status, v) = first.post(&format!("/api/games/{friends}/moves"), json!({"move": m}));
        assert_eq!(status, 200, "{v}");
    }
    let (status, before_friends) = first.post(&format!("/api/games/{friends}/undo"), json!({}));
    assert_eq!(status, 200, "{before_friends}");

    // Finished: resigned against the computer, never to be reopened.
    let (_, resigned) = first.post("/api/games", json!({"opponent": "computer"}));
    let resigned = id(&resigned);
    let (status, _) = first.post(
        &format!("/api/games/{resigned}/moves"),
        json!({"move": "h8"}),
    );
    assert_eq!(status, 200);
    let (status, v) = first.post(&format!("/api/games/{resigned}/resign"), json!({}));
    assert_eq!(
        (status, v["status"].as_str()),
        (200, Some("White wins: black resigned"))
    );

    // Against the master: one exchange, then a move the server answers at once while the
    // master thinks; the server dies right then.
    let (_, computer) = first.post(
        "/api/games",
        json!({"opponent": "computer", "level": "master"}),
    );
    let computer = id(&computer);
    let (status, v) = first.post(
        &format!("/api/games/{computer}/moves"),
        json!({"move": "h8"}),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(moves(&v).len(), 2, "{v}");
    let reply = moves(&v)[1].clone();
    let second_move = if reply == "a1" { "o15" } else { "a1" };
    let (status, thinking) = first.post(
        &format!("/api/games/{computer}/moves"),
        json!({"move": second_move, "wait": false}),
    );
    assert_eq!(status, 200, "{thinking}");
    assert_eq!(moves(&thinking), ["h8", reply.as_str(), second_move]);
    first.kill();

    let second = TestServer::start_in_with(dir.path(), &["--engine-threads", "1"], &[]);

    // The friends' game is exactly as it was: moves, the move taken back, whose turn, clocks.
    let (status, back) = second.get(&format!("/api/games/{friends}"));
    assert_eq!(status, 200, "{back}");
    for k in [
        "moves", "redo", "to_move", "status", "over", "opponent", "can_undo",
    ] {
        assert_eq!(back[k], before_friends[k], "{k}");
    }
    // Black's clock stands as stored; white's turn starts again from its stored reading.
    assert_eq!(
        back["clock"]["black_ms"],
        before_friends["clock"]["black_ms"]
    );
    assert_eq!(back["clock"]["running"], "white");
    // ... and goes on: redo, then black completes five.
    let (status, v) = second.post(&format!("/api/games/{friends}/redo"), json!({}));
    assert_eq!((status, moves(&v).len()), (200, 6), "{v}");
    let (status, v) = second.post(
        &format!("/api/games/{friends}/moves"),
        json!({"move": "k8"}),
    );
    assert_eq!(status, 200, "{v}");
    let (_, v) = second.post(
        &format!("/api/games/{friends}/moves"),
        json!({"move": "k9"}),
    );
    let (_, v2) = second.post(
        &format!("/api/games/{friends}/moves"),
        json!({"move": "l8"}),
    );
    assert_eq!(moves(&v).len(), 8, "{v}");
    assert_eq!(v2["status"], "Black wins: five in a row", "{v2}");

    // The resigned game stays resigned, and undo cannot reopen it.
    let (_, v) = second.get(&format!("/api/games/{resigned}"));
    assert_eq!(v["status"], "White wins: black resigned");
    assert_eq!(v["can_undo"], false);
    let (status, _) = second.post(&format!("/api/games/{resigned}/undo"), json!({}));
    assert_eq!(status, 409);

    // The master's move comes, nobody asking for it but this look at the game.
    let done = wait_for(&second, &computer, |v| moves(v).len() == 4);
    assert_eq!(moves(&done)[..3], moves(&thinking)[..]);
    assert_eq!(done["computer_to_move"], false);
    assert!(
        done["status"]
            .as_str()
            .is_some_and(|s| s == "Black to move"),
        "{done}"
    );
    second.kill();
}

#[test]
fn the_computer_resumes_its_turn_at_start_up_without_being_asked() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let first = TestServer::start_in_with(dir.path(), &["--engine-threads", "1"], &[]);
    let (_, game) = first.post(
        "/api/games",
        json!({"opponent": "computer", "level": "master"}),
    );
    let game = id(&game);
    let (status, v) = first.post(
        &format!("/api/games/{game}/moves"),
        json!({"move": "h8", "wait": false}),
    );
    assert_eq!(
        (status, v["computer_to_move"].as_bool()),
        (200, Some(true)),
        "{v}"
    );
    first.kill();
    let second = TestServer::start_in_with(dir.path(), &["--engine-threads", "1"], &[]);
    // Nobody asks for the game: the server resumes the computer's turn at start-up.
    second.wait_for_log("the computer's turn resumed");
    let done = wait_for(&second, &game, |v| moves(v).len() == 2);
    assert_eq!(moves(&done)[0], "h8");
    second.kill();
}
