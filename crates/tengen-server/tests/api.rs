//! The HTTP API against the real server on a free port with a temporary SQLite file (or, under
//! `TENGEN_TEST_BACKEND=postgres`, a new database on the tests' PostgreSQL server).

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

struct App {
    base: String,
    http: reqwest::Client,
    _dir: tempfile::TempDir,
}

async fn start() -> App {
    start_with(|_| {}).await
}

/// A server with some settings of its own (`set` changes the test's usual config).
async fn start_with(set: impl FnOnce(&mut tengen_server::Config)) -> App {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut config = tengen_server::Config::new(dir.path().to_path_buf());
    config.port = 0;
    config.hash_mb = 4;
    set(&mut config);
    config.database = Some(tengen_server::testing::database_for(dir.path()).await);
    let server = tengen_server::Server::bind(&config)
        .await
        .expect("server binds");
    let base = format!("http://{}", server.local_addr());
    tokio::spawn(server.run_until(std::future::pending()));
    App {
        base,
        http: reqwest::Client::new(),
        _dir: dir,
    }
}

impl App {
    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        let r = self
            .http
            .post(format!("{}{path}", self.base))
            .json(&body)
            .send()
            .await
            .expect("request");
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("request");
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    async fn text(&self, path: &str) -> (StatusCode, String) {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("request");
        (r.status(), r.text().await.expect("body"))
    }

    async fn create(&self, body: Value) -> Value {
        let (s, v) = self.post("/api/games", body).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        v
    }

    async fn play(&self, id: &str, m: &str) -> Value {
        let (s, v) = self
            .post(&format!("/api/games/{id}/moves"), json!({ "move": m }))
            .await;
        assert_eq!(s, StatusCode::OK, "{m}: {v}");
        v
    }
    /// Plays `m` without waiting for the computer's reply, which follows on its own.
    async fn play_no_wait(&self, id: &str, m: &str) -> Value {
        let (s, v) = self
            .post(
                &format!("/api/games/{id}/moves"),
                json!({ "move": m, "wait": false }),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{m}: {v}");
        v
    }
    /// Creates a game against the computer from `setup`, plays h8 and leaves the computer
    /// thinking; returns the game's id.
    async fn computer_thinking(&self, setup: Value) -> String {
        let id = gid(&self.create(setup).await);
        let v = self.play_no_wait(&id, "h8").await;
        assert_eq!(v["computer_to_move"], json!(true));
        id
    }
    /// The address of game `id`'s WebSocket.
    fn ws_url(&self, id: &str) -> String {
        format!(
            "{}/api/games/{id}/ws",
            self.base.replace("http://", "ws://")
        )
    }
    /// Leaves game `id` (it goes from memory, not from the store).
    async fn leave(&self, id: &str) {
        let r = self
            .http
            .delete(format!("{}/api/games/{id}", self.base))
            .send()
            .await
            .expect("delete");
        assert_eq!(r.status(), StatusCode::NO_CONTENT);
    }
}

fn gid(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

#[tokio::test]
async fn a_hot_seat_game_is_won_by_a_five() {
    let app = start().await;
    let g = app.create(json!({ "opponent": "friend" })).await;
    assert_eq!(g["status"], "Black to move");
    assert_eq!(g["size"], "15x15");
    let id = gid(&g);
    let mut last = Value::Null;
    for m in ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"] {
        last = app.play(&id, m).await;
    }
    assert_eq!(last["status"], "Black wins: five in a row");
    assert_eq!(last["over"], true);
    assert_eq!(last["winner"], "black");
    assert_eq!(last["winning_line"].as_array().map(Vec::len), Some(5));
    assert_eq!(last["last_move"], json!([11, 7]));
    assert_eq!(last["moves"][0], "h8");
    let (s, e) = app
        .post(&format!("/api/games/{id}/moves"), json!({ "move": "a1" }))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(e["error"].as_str().is_some_and(|t| t.contains("over")));
    // Undo reopens the game; redo plays the five again.
    let (s, u) = app.post(&format!("/api/games/{id}/undo"), json!({})).await;
    assert_eq!((s, &u["status"]), (StatusCode::OK, &json!("Black to move")));
    let (_, r) = app.post(&format!("/api/games/{id}/redo"), json!({})).await;
    assert_eq!(r["status"], "Black wins: five in a row");
}

#[tokio::test]
async fn caro_with_overlines_is_won_by_a_six_and_caro_is_not() {
    let app = start().await;
    for (rule, status) in [
        ("caro-overlines", "Black wins: five in a row"),
        ("caro", "White to move"),
    ] {
        let g = app
            .create(json!({ "opponent": "friend", "rule": rule }))
            .await;
        assert_eq!(g["rule"], rule);
        let id = gid(&g);
        let mut last = Value::Null;
        // Black d8 e8 f8 and h8 i8, then g8: a six.
        for m in [
            "d8", "a1", "e8", "a3", "f8", "a5", "h8", "a7", "i8", "a9", "g8",
        ] {
            last = app.play(&id, m).await;
        }
        assert_eq!(last["status"], status, "{rule}");
    }
}

#[tokio::test]
async fn bad_input_is_a_clear_error_and_changes_nothing() {
    let app = start().await;
    for body in [
        json!({ "rule": "chess" }),
        json!({ "size": "3" }),
        json!({ "size": "101" }),
        json!({ "level": "grandmaster" }),
        json!({ "opponent": "alien" }),
        json!({ "opening": "swap3" }),
        json!({ "clock": { "kind": "total", "ms": 5 } }),
        json!({ "colour": "black" }),
    ] {
        let (s, e) = app.post("/api/games", body.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {e}");
        assert!(e["error"].is_string(), "{e}");
    }
    let g = app.create(json!({ "opponent": "friend" })).await;
    let id = gid(&g);
    app.play(&id, "h8").await;
    let (s, e) = app
        .post(&format!("/api/games/{id}/moves"), json!({ "move": "h8" }))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    // The refusal names the point once.
    assert_eq!(e["error"], "h8 is already occupied");
    // A point off the board is a bad request (docs/api.md), as an unreadable one is.
    for m in ["z99", "p1", "a16", "hh"] {
        let (s, e) = app
            .post(&format!("/api/games/{id}/moves"), json!({ "move": m }))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{m}: {e}");
        assert_eq!(e["kind"], "bad_request", "{m}: {e}");
        if m != "hh" {
            assert!(
                e["error"]
                    .as_str()
                    .is_some_and(|t| t.contains("off the 15x15 board")),
                "{m}: {e}"
            );
        }
    }
    let (s, _) = app
        .post(&format!("/api/games/{id}/moves"), json!({ "mvoe": "a1" }))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (_, now) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(now["moves"], json!(["h8"]));
    let (s, e) = app.get("/api/games/nope").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(e["error"].is_string());
    let (s, _) = app
        .post(
            &format!("/api/games/{id}/analysis"),
            json!({ "time_ms": 999999 }),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, _) = app
        .text(&format!("/api/games/{id}/record?format=doc"))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn against_the_computer_undo_redo_hint_and_analysis() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "computer", "level": "beginner", "human": "black" }))
        .await;
    let id = gid(&g);
    let r = app.play(&id, "h8").await;
    assert!(r["computer_move"].is_string(), "{r}");
    assert_eq!(r["moves"].as_array().map(Vec::len), Some(2));
    assert_eq!(r["to_move"], "black");
    // A point beside h8 that the computer's reply (drawn from the game's seed) left free.
    let mine = ["i9", "g7", "g9", "i7"]
        .into_iter()
        .find(|p| !r["moves"].as_array().expect("moves").contains(&json!(p)))
        .expect("the computer took one point");
    let r = app.play(&id, mine).await;
    assert_eq!(r["moves"].as_array().map(Vec::len), Some(4));
    let (s, u) = app.post(&format!("/api/games/{id}/undo"), json!({})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(u["moves"].as_array().map(Vec::len), Some(2));
    assert_eq!(u["redo"].as_array().map(Vec::len), Some(2));
    assert_eq!(u["redo"][0], mine);
    let (_, rd) = app.post(&format!("/api/games/{id}/redo"), json!({})).await;
    assert_eq!(rd["moves"], r["moves"]);
    let (s, h) = app
        .post(&format!("/api/games/{id}/hint"), json!({ "time_ms": 300 }))
        .await;
    assert_eq!(s, StatusCode::OK, "{h}");
    assert!(h["move"].is_string());
    let (_, after) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(after["moves"], r["moves"], "a hint plays nothing");
    let (s, a) = app
        .post(
            &format!("/api/games/{id}/analysis"),
            json!({ "time_ms": 300, "multipv": 3 }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{a}");
    assert_eq!(a["lines"].as_array().map(Vec::len), Some(3));
    assert!(
        a["lines"][0]["moves"]
            .as_array()
            .is_some_and(|m| !m.is_empty())
    );
    assert_eq!(a["to_move"], "black");
}

#[tokio::test]
async fn the_computer_moves_first_when_the_human_is_white() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "computer", "human": "white", "level": "intermediate" }))
        .await;
    assert_eq!(g["moves"].as_array().map(Vec::len), Some(1));
    assert!(g["computer_move"].is_string());
    assert_eq!(g["computer_moves"], json!([g["computer_move"]]), "{g}");
    assert_eq!(g["to_move"], "white");
    // Nothing of the human's to undo yet.
    let (s, _) = app
        .post(&format!("/api/games/{}/undo", gid(&g)), json!({}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
}

/// The `[x, y, kind]` of each mark in a state's `forbidden` or `threats`, in order.
fn marks(state: &Value, which: &str) -> Vec<(i64, i64, String)> {
    let mut v: Vec<(i64, i64, String)> = state[which]
        .as_array()
        .unwrap_or_else(|| panic!("{which} in {state}"))
        .iter()
        .map(|m| {
            let n = |k: &str| m[k].as_i64().expect("a coordinate");
            (
                n("x"),
                n("y"),
                m["kind"].as_str().expect("kind").to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

/// On the unbounded board with stones hundreds of points apart, the marks (computed off the
/// async runtime; a debug build panics a handler that would compute them on it) are those of
/// the position each answer, fetch and push shows, also after a takeback and a redo.
#[tokio::test]
async fn marks_follow_the_position_on_the_unbounded_board_with_stones_far_apart() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "friend", "rule": "renju", "size": "unbounded" }))
        .await;
    let id = gid(&g);
    // Stones far apart first: a black column and a white one, no two within a line's reach.
    let mut moves = Vec::new();
    for i in 0..20 {
        moves.push(format!("-400,{}", -400 + 37 * i));
        moves.push(format!("400,{}", 400 - 41 * i));
    }
    // Then black h8 i8 j7 j6 (j8 a double three) and, far away, a white open four.
    for (b, w) in [
        ("7,7", "200,200"),
        ("8,7", "201,200"),
        ("9,8", "202,200"),
        ("9,9", "203,200"),
    ] {
        moves.push(b.to_string());
        moves.push(w.to_string());
    }
    let mut last = Value::Null;
    for m in &moves {
        last = app.play(&id, m).await;
    }
    let five = |x| (x, 200, "five".to_string());
    let black_to_move = |v: &Value| {
        assert_eq!(v["to_move"], "black", "{v}");
        assert!(
            marks(v, "forbidden").contains(&(9, 7, "double_three".to_string())),
            "{v}"
        );
        assert_eq!(marks(v, "threats"), vec![five(199), five(204)], "{v}");
    };
    black_to_move(&last);
    let (s, fetched) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(s, StatusCode::OK);
    black_to_move(&fetched);
    let url = app.ws_url(&id);
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.expect("ws");
    black_to_move(&pushed_until(&mut ws, |_| true).await);
    // White's fourth stone taken back: white to move; nothing is forbidden to white, and black
    // threatens nothing.
    let (s, back) = app.post(&format!("/api/games/{id}/undo"), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{back}");
    assert_eq!(back["to_move"], "white", "{back}");
    assert_eq!(marks(&back, "forbidden"), vec![], "{back}");
    assert_eq!(marks(&back, "threats"), vec![], "{back}");
    let pushed = pushed_until(&mut ws, |v| v["to_move"] == "white").await;
    assert_eq!(marks(&pushed, "threats"), vec![], "{pushed}");
    let (s, again) = app.post(&format!("/api/games/{id}/redo"), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{again}");
    black_to_move(&again);
}

#[tokio::test]
async fn renju_lists_and_refuses_black_forbidden_points() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "friend", "rule": "renju" }))
        .await;
    let id = gid(&g);
    let mut last = Value::Null;
    // Black h8 i8 and j7 j6: j8 would make two open threes.
    for m in ["h8", "a1", "i8", "a15", "j7", "o1", "j6", "o15"] {
        last = app.play(&id, m).await;
    }
    let forbidden: Vec<&str> = last["forbidden"]
        .as_array()
        .expect("forbidden list")
        .iter()
        .filter_map(|f| f["name"].as_str())
        .collect();
    assert!(forbidden.contains(&"j8"), "{last}");
    let (s, e) = app
        .post(&format!("/api/games/{id}/moves"), json!({ "move": "j8" }))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        e["error"].as_str().is_some_and(|t| t.contains("forbidden")),
        "{e}"
    );
    // Under the tournament policy the move stands and black loses.
    let g = app
        .create(json!({ "opponent": "friend", "rule": "renju", "forbidden": "lose" }))
        .await;
    let id = gid(&g);
    for m in ["h8", "a1", "i8", "a15", "j7", "o1", "j6", "o15"] {
        app.play(&id, m).await;
    }
    let r = app.play(&id, "j8").await;
    assert_eq!(
        r["status"],
        "White wins: black played a forbidden double-three"
    );
}

#[tokio::test]
async fn records_export_and_import_and_play_on_from_any_move() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "friend", "rule": "standard" }))
        .await;
    let id = gid(&g);
    let moves = ["h8", "h9", "i8", "i9", "j8"];
    for m in moves {
        app.play(&id, m).await;
    }
    for format in ["psq", "sgf", "txt"] {
        let (s, text) = app
            .text(&format!("/api/games/{id}/record?format={format}"))
            .await;
        assert_eq!(s, StatusCode::OK, "{format}: {text}");
        let (s, v) = app
            .post(
                "/api/games/import",
                json!({ "text": text, "format": format, "opponent": "friend", "at": 3 }),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{format}: {v}");
        assert_eq!(v["moves"], json!(["h8", "h9", "i8"]), "{format}");
        assert_eq!(v["redo"], json!(["i9", "j8"]), "{format}");
        let nid = v["id"].as_str().expect("id");
        // Play on with a different move: the rest is forgotten.
        let r = app.play(nid, "a1").await;
        assert_eq!(r["redo"], json!([]));
        // Replay is read-only: another game continues from a move, this one stays as it is.
        let (s, v) = app
            .post(&format!("/api/games/{nid}/continue"), json!({ "ply": 1 }))
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        assert_eq!(v["moves"], json!(["h8"]));
        assert_ne!(v["id"].as_str(), Some(nid));
        let (_, v) = app.get(&format!("/api/games/{nid}")).await;
        assert_eq!(v["moves"], json!(["h8", "h9", "i8", "a1"]));
    }
    let (s, e) = app
        .post("/api/games/import", json!({ "text": "h8 h8" }))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        e["error"].as_str().is_some_and(|t| t.contains("move 2")),
        "{e}"
    );
}

#[tokio::test]
async fn results_and_hero_board_are_stored() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "computer", "player": "Ann" }))
        .await;
    let id = gid(&g);
    app.play(&id, "h8").await;
    let (s, r) = app
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(r["status"], "White wins: black resigned");
    let (_, t) = app.get("/api/results?player=Ann").await;
    let beginner = &t["levels"][0];
    assert_eq!(beginner["level"], "beginner");
    assert_eq!(
        (beginner["wins"].as_i64(), beginner["losses"].as_i64()),
        (Some(0), Some(1))
    );
    let (_, t) = app.get("/api/results?player=Bob").await;
    assert_eq!(t["levels"][0]["losses"], 0);
    let (s, h) = app.get("/api/heroes").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(h["levels"].as_array().map(Vec::len), Some(4));
    assert!(h["levels"][0]["fewest_moves"].is_null());
}

/// A game begun from a set-up position (an import, a continuation) was not played from the
/// start: its result counts neither in the results nor on the hero board, even when it starts
/// finished or is played out by redoing the record's moves.
#[tokio::test]
async fn games_from_a_set_up_position_store_no_result() {
    let app = start().await;
    let won = "h8 a1 i8 a2 j8 a3 k8 a4 l8";
    let (s, v) = app
        .post(
            "/api/games/import",
            json!({ "text": won, "player": "Cat", "level": "master" }),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["status"], "Black wins: five in a row");
    let id = gid(&v);
    // Continuing the finished game at its end starts another finished game.
    let (s, v) = app
        .post(&format!("/api/games/{id}/continue"), json!({ "ply": 9 }))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["status"], "Black wins: five in a row");
    // Imported at the start, the record's moves are there to redo, up to the five.
    let (s, v) = app
        .post(
            "/api/games/import",
            json!({ "text": won, "player": "Cat", "level": "master", "at": 0 }),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = gid(&v);
    // (Against the computer a redo may bring back a pair of moves.)
    let mut last = v;
    while last["status"] != "Black wins: five in a row" {
        let (s, v) = app.post(&format!("/api/games/{id}/redo"), json!({})).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        last = v;
    }
    let (_, t) = app.get("/api/results?player=Cat").await;
    let levels = t["levels"].as_array().expect("levels");
    assert!(
        levels
            .iter()
            .all(|l| l["wins"] == 0 && l["losses"] == 0 && l["draws"] == 0),
        "{t}"
    );
    let (_, h) = app.get("/api/heroes").await;
    let heroes = h["levels"].as_array().expect("levels");
    assert!(heroes.iter().all(|l| l["fewest_moves"].is_null()), "{h}");
}

/// Under renju, a board where every free point is forbidden to black, who is to move, is a
/// draw: before, the game stood with no move to make, and the computer's turn failed.
#[tokio::test]
async fn renju_black_without_a_legal_point_draws() {
    let app = start().await;
    let record = "b6 e3 c2 e4 c1 a2 b5 d4 f4 a3 d3 c5 b4 b3 c6 e2 e6 c3 d5 e5 a6 f3 b1 a4 \
                  f1 d2 a1 b2 f6 a5 f5 f2 e1 c4";
    let (s, v) = app
        .post(
            "/api/games/import",
            json!({ "text": record, "size": "6", "rule": "renju", "opponent": "friend" }),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["status"], "Draw: every free point is forbidden to black");
    // Against the computer as black: the human's last white move ends the game, and the
    // computer is not asked for a move it cannot make.
    let (s, v) = app
        .post(
            "/api/games/import",
            json!({ "text": record, "size": "6", "rule": "renju", "opponent": "computer",
                    "human": "white", "at": 33 }),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let id = gid(&v);
    let v = app.play(&id, "c4").await;
    assert_eq!(v["status"], "Draw: every free point is forbidden to black");
}

#[tokio::test]
async fn draw_offers_resignation_in_hot_seat_and_leaving() {
    let app = start().await;
    let g = app.create(json!({ "opponent": "friend" })).await;
    let id = gid(&g);
    let (s, _) = app.post(&format!("/api/games/{id}/draw"), json!({})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, d) = app
        .post(&format!("/api/games/{id}/draw"), json!({ "agreed": true }))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(d["state"]["status"], "Draw by agreement");
    // The answer is a sentence for the page's message line.
    let sentence = |d: &Value| {
        d["message"]
            .as_str()
            .is_some_and(|m| m.starts_with(char::is_uppercase) && m.ends_with('.'))
    };
    assert!(sentence(&d), "{d}");
    let g = app.create(json!({ "opponent": "computer" })).await;
    let id = gid(&g);
    let (s, d) = app.post(&format!("/api/games/{id}/draw"), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{d}");
    assert!(d["accepted"].is_boolean());
    assert!(sentence(&d), "{d}");
    app.leave(&id).await;
    // Left, not lost: the game is stored and comes back when asked for.
    let (s, v) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["id"], id);
    let (s, _) = app.get("/api/games/0123456789abcdef").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_draw_offer_the_computer_moves_past_lapses() {
    // One engine thread: the computer's look at the offer waits behind its own move, which
    // changes the position it was asked about.
    let app = start_with(|c| c.engine_threads = Some(1)).await;
    let id = app.computer_thinking(json!({ "level": "master" })).await;
    let (s, d) = app.post(&format!("/api/games/{id}/draw"), json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT, "{d}");
    assert!(
        d["error"]
            .as_str()
            .is_some_and(|e| e.contains("offer it again")),
        "{d}"
    );
    // The game goes on with the computer's move, and the offer made again is answered for
    // the position as it is.
    let (_, v) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(
        (&v["over"], v["moves"].as_array().map(Vec::len)),
        (&json!(false), Some(2)),
        "{v}"
    );
    let (s, d) = app.post(&format!("/api/games/{id}/draw"), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{d}");
    assert_eq!(d["state"]["moves"].as_array().map(Vec::len), Some(2));
    assert_eq!(d["state"]["over"], d["accepted"]);
}

#[tokio::test]
async fn a_clock_that_runs_out_loses_and_computers_play_each_other() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "friend", "clock": { "kind": "total", "ms": 1000, "increment_ms": 0 } }))
        .await;
    // No clock runs before the first stone.
    assert_eq!(g["clock"]["black_ms"], 1000);
    assert_eq!(g["clock"]["running"], Value::Null);
    let v = app.play(&gid(&g), "h8").await;
    assert_eq!(v["clock"]["running"], "white");
    let mut s = Value::Null;
    for _ in 0..600 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        s = app.get(&format!("/api/games/{}", gid(&g))).await.1;
        if s["over"] == true {
            break;
        }
    }
    assert_eq!(s["status"], "Black wins: white ran out of time");
    // The flag reads zero; black's clock keeps its reading.
    assert_eq!(
        (
            s["clock"]["black_ms"].clone(),
            s["clock"]["white_ms"].clone()
        ),
        (json!(1000), json!(0))
    );

    let g = app
        .create(json!({ "opponent": "computers", "level": "beginner", "size": "unbounded" }))
        .await;
    assert_eq!(g["size"], "unbounded");
    let id = gid(&g);
    for n in 1..=3 {
        let (s, v) = app.post(&format!("/api/games/{id}/step"), json!({})).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["moves"].as_array().map(Vec::len), Some(n));
    }
}

#[tokio::test]
async fn the_page_is_served() {
    let app = start().await;
    for (path, needle) in [
        ("/", "<svg id=\"board\""),
        ("/app.js", "/api/games"),
        ("/style.css", ".stone-black"),
    ] {
        let (s, body) = app.text(path).await;
        assert_eq!(s, StatusCode::OK);
        assert!(body.contains(needle), "{path}");
    }
}

#[tokio::test]
async fn leaving_a_game_stops_its_search() {
    let app = start().await;
    // A minute a move: the master would think for most of it, so only the stop brings the
    // answer back within the hang guard below.
    let g = app
        .create(json!({
            "opponent": "computers",
            "level": "master",
            "clock": { "kind": "per_move", "ms": 60_000 }
        }))
        .await;
    let id = gid(&g);
    let step = {
        let http = app.http.clone();
        let url = format!("{}/api/games/{id}/step", app.base);
        tokio::spawn(async move { http.post(url).send().await.map(|r| r.status()) })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.leave(&id).await;
    // A hang guard, far below the master's minute: not a measure of how fast the stop is.
    let status = tokio::time::timeout(Duration::from_secs(20), step)
        .await
        .expect("the step answers once its game is left, without thinking out its minute")
        .expect("task")
        .expect("response");
    assert_eq!(status, StatusCode::CONFLICT);
}

impl App {
    async fn choose(&self, id: &str, choice: &str) -> Value {
        let (s, v) = self
            .post(
                &format!("/api/games/{id}/choose"),
                json!({ "choice": choice }),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{choice}: {v}");
        v
    }

    async fn refused_choice(&self, id: &str, choice: &str, status: StatusCode) {
        let (_, before) = self.get(&format!("/api/games/{id}")).await;
        let (s, e) = self
            .post(
                &format!("/api/games/{id}/choose"),
                json!({ "choice": choice }),
            )
            .await;
        assert_eq!(s, status, "{choice}: {e}");
        assert!(e["error"].is_string(), "{e}");
        let (_, after) = self.get(&format!("/api/games/{id}")).await;
        assert_eq!(before["moves"], after["moves"]);
        assert_eq!(before["pending"], after["pending"]);
    }
}

#[tokio::test]
async fn hot_seat_swap_lets_the_second_player_choose() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "friend", "opening": "swap" }))
        .await;
    let id = gid(&g);
    assert_eq!(g["opening"], "swap");
    assert_eq!(g["pending"]["kind"], "move");
    assert_eq!(g["pending"]["seat"], "first");
    assert_eq!(g["pending"]["color"], "black");
    assert!(
        g["status"].as_str().expect("text").contains("stone 1 of 3"),
        "{g}"
    );
    app.refused_choice(&id, "black", StatusCode::CONFLICT).await;
    app.play(&id, "h8").await;
    let v = app.play(&id, "h9").await;
    assert_eq!(v["pending"]["color"], "black");
    assert_eq!(v["pending"]["seat"], "first");
    let v = app.play(&id, "j9").await;
    assert_eq!(v["pending"]["kind"], "choice");
    assert_eq!(v["pending"]["seat"], "second");
    assert_eq!(v["pending"]["options"], json!(["black", "white"]));
    // No stone while the choice is open; no place_two under swap; no nonsense.
    let (s, _) = app
        .post(&format!("/api/games/{id}/moves"), json!({ "move": "a1" }))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    app.refused_choice(&id, "place_two", StatusCode::CONFLICT)
        .await;
    app.refused_choice(&id, "red", StatusCode::BAD_REQUEST)
        .await;
    // The second player takes black: the first player (white) moves next.
    let v = app.choose(&id, "black").await;
    assert_eq!(v["to_move"], "white");
    assert_eq!(v["pending"]["kind"], "move");
    assert_eq!(v["pending"]["seat"], "first");
    assert_eq!(v["can_undo"], true);
    // Undo takes back the decision, then a stone.
    let (s, v) = app.post(&format!("/api/games/{id}/undo"), json!({})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["pending"]["kind"], "choice");
    assert_eq!(v["moves"].as_array().expect("list").len(), 3);
    let (_, v) = app.post(&format!("/api/games/{id}/redo"), json!({})).await;
    assert_eq!(v["pending"]["seat"], "first");
    assert_eq!(v["to_move"], "white");
    let v = app.play(&id, "g7").await;
    assert_eq!(v["pending"]["seat"], "second");
    assert_eq!(v["pending"]["color"], "black");
    app.refused_choice(&id, "white", StatusCode::CONFLICT).await;
    // A resignation is not taken back.
    let (s, v) = app
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await;
    assert_eq!((s, v["over"].clone()), (StatusCode::OK, json!(true)));
    assert_eq!(v["can_undo"], false);
    let (s, v) = app.post(&format!("/api/games/{id}/undo"), json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    let (_, v) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(v["over"], true);
    assert_eq!(v["moves"].as_array().expect("list").len(), 4);
}

async fn swap2_opening(app: &App) -> String {
    let g = app
        .create(json!({ "opponent": "friend", "opening": "swap2" }))
        .await;
    let id = gid(&g);
    for m in ["h8", "h9", "j9"] {
        app.play(&id, m).await;
    }
    id
}

#[tokio::test]
async fn hot_seat_swap2_has_three_branches() {
    let app = start().await;
    // Black: the second player takes black, white (the first player) moves.
    let id = swap2_opening(&app).await;
    let (_, v) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(
        v["pending"]["options"],
        json!(["black", "white", "place_two"])
    );
    assert!(
        v["status"].as_str().expect("text").starts_with("Swap2"),
        "{v}"
    );
    let v = app.choose(&id, "black").await;
    assert_eq!(
        (v["to_move"].clone(), v["pending"]["seat"].clone()),
        (json!("white"), json!("first"))
    );
    // White: the second player moves as white.
    let id = swap2_opening(&app).await;
    let v = app.choose(&id, "white").await;
    assert_eq!(
        (v["to_move"].clone(), v["pending"]["seat"].clone()),
        (json!("white"), json!("second"))
    );
    // Two more stones, then the first player chooses (no place_two any more).
    let id = swap2_opening(&app).await;
    let v = app.choose(&id, "place_two").await;
    assert_eq!(v["pending"]["kind"], "move");
    assert_eq!(v["pending"]["seat"], "second");
    assert_eq!(v["pending"]["color"], "white");
    app.play(&id, "g9").await;
    let v = app.play(&id, "g7").await;
    assert_eq!(v["pending"]["kind"], "choice");
    assert_eq!(v["pending"]["seat"], "first");
    assert_eq!(v["pending"]["options"], json!(["black", "white"]));
    app.refused_choice(&id, "place_two", StatusCode::CONFLICT)
        .await;
    let v = app.choose(&id, "white").await;
    assert_eq!(
        (v["to_move"].clone(), v["pending"]["seat"].clone()),
        (json!("white"), json!("first"))
    );
    // Undo steps back over the decision and the stones one by one.
    for n in [5, 4, 3, 3] {
        let (s, v) = app.post(&format!("/api/games/{id}/undo"), json!({})).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["moves"].as_array().expect("list").len(), n, "{v}");
    }
    let (_, v) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(
        v["pending"]["options"],
        json!(["black", "white", "place_two"])
    );
}

#[tokio::test]
async fn the_computer_opens_a_swap2_game_when_the_human_is_second() {
    let app = start().await;
    let g = app
        .create(json!({ "opening": "swap2", "human": "white" }))
        .await;
    let id = gid(&g);
    assert_eq!(g["human_seat"], "second");
    assert_eq!(g["moves"].as_array().expect("list").len(), 3, "{g}");
    // The answer names every stone the computer placed, not only its last.
    assert_eq!(g["computer_moves"], g["moves"], "{g}");
    assert_eq!(g["computer_move"], g["moves"][2], "{g}");
    assert_eq!(g["pending"]["kind"], "choice");
    assert_eq!(g["pending"]["human"], true);
    assert_eq!(g["human_color"], Value::Null);
    assert_eq!(
        g["status"],
        "Swap2: choose your colour, or place two more stones"
    );
    // Take white: the human moves now as white.
    let v = app.choose(&id, "white").await;
    assert_eq!(v["human_color"], "white");
    assert_eq!(v["to_move"], "white");
    assert_eq!(v["pending"]["human"], true);
    let v = app.play(&id, "a1").await;
    assert_eq!(v["moves"].as_array().expect("list").len(), 5, "{v}");
    assert!(v["computer_move"].is_string());
    // Undo goes back to the decision, not into the computer's opening.
    let (s, v) = app.post(&format!("/api/games/{id}/undo"), json!({})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["moves"].as_array().expect("list").len(), 3, "{v}");
    assert_eq!(v["pending"]["kind"], "move", "{v}");
    assert_eq!(v["to_move"], "white");
    let (s, v) = app.post(&format!("/api/games/{id}/undo"), json!({})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["pending"]["kind"], "choice", "{v}");
    assert_eq!(v["can_undo"], false);
    let (s, _) = app.post(&format!("/api/games/{id}/undo"), json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT);
    // Place two: the human places white then black, and the computer chooses and replies.
    let v = app.choose(&id, "place_two").await;
    assert_eq!(v["status"], "Swap2: place opening stone 4 of 5 (white)");
    app.play(&id, "a15").await;
    let v = app.play(&id, "o15").await;
    assert_eq!(
        v["computer_choices"].as_array().map(Vec::len),
        Some(1),
        "{v}"
    );
    assert!(v["human_color"].is_string(), "{v}");
    assert_eq!(v["pending"]["human"], true, "{v}");
    assert_eq!(v["to_move"], v["human_color"], "{v}");
}

#[tokio::test]
async fn the_computer_decides_a_swap_as_second_player() {
    let app = start().await;
    for opening in ["swap", "swap2"] {
        let g = app.create(json!({ "opening": opening })).await;
        let id = gid(&g);
        assert_eq!(g["human_seat"], "first");
        assert_eq!(g["pending"]["human"], true);
        app.refused_choice(&id, "black", StatusCode::CONFLICT).await;
        app.play(&id, "h8").await;
        app.play(&id, "h9").await;
        let v = app.play(&id, "j10").await;
        let choices = v["computer_choices"].as_array().expect("choices").clone();
        assert!(!choices.is_empty(), "{v}");
        if choices[0] == "place_two" {
            assert_eq!(opening, "swap2");
            assert_eq!(v["moves"].as_array().expect("list").len(), 5, "{v}");
            assert_eq!(v["pending"]["kind"], "choice");
            let v = app.choose(&id, "black").await;
            assert_eq!(v["human_color"], "black");
            assert_eq!(v["moves"].as_array().expect("list").len(), 6, "{v}");
        } else {
            // Whatever it took, the human now has the other colour and is to move.
            assert!(v["human_color"].is_string(), "{v}");
            assert_ne!(json!(choices[0]), v["human_color"]);
            assert_eq!(v["to_move"], v["human_color"], "{v}");
            assert_eq!(v["pending"]["human"], true);
        }
    }
}

#[tokio::test]
async fn computers_play_a_swap2_game_step_by_step() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "computers", "opening": "swap2" }))
        .await;
    let id = gid(&g);
    for _ in 0..8 {
        let (s, v) = app.post(&format!("/api/games/{id}/step"), json!({})).await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
    let (_, v) = app.get(&format!("/api/games/{id}")).await;
    assert!(v["moves"].as_array().expect("list").len() >= 5, "{v}");
    assert_eq!(v["pending"]["kind"], "move", "{v}");
}

/// Reads a game's WebSocket until a state meeting `done`; a guard against a hang only.
async fn pushed_until(
    ws: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    done: impl Fn(&Value) -> bool,
) -> Value {
    use futures_util::StreamExt;
    let wait = async {
        loop {
            let msg = ws.next().await.expect("open").expect("frame");
            if let tokio_tungstenite::tungstenite::Message::Text(t) = msg {
                let v: Value = serde_json::from_str(t.as_str()).expect("json");
                assert_eq!(v["type"], "state", "{v}");
                if done(&v) {
                    return v;
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(120), wait)
        .await
        .expect("the state arrives")
}

#[tokio::test]
async fn the_computer_replies_without_anyone_waiting_and_the_socket_hears_it() {
    let app = start().await;
    let g = app.create(json!({ "opponent": "computer" })).await;
    let id = gid(&g);
    let url = app.ws_url(&id);
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.expect("ws");
    // The state as it is, first.
    let first = pushed_until(&mut ws, |_| true).await;
    assert_eq!(first["seq"], 0);
    // A move whose answer does not wait: the reply comes over the socket.
    let v = app.play_no_wait(&id, "h8").await;
    assert_eq!(v["moves"], json!(["h8"]));
    let pushed = pushed_until(&mut ws, |v| v["moves"].as_array().map(Vec::len) == Some(2)).await;
    assert_eq!(pushed["computer_to_move"], false);
    assert!(pushed["seq"].as_u64() > v["seq"].as_u64());
    // Another site's page may not listen.
    let r = app
        .http
        .get(format!("{}/api/games/{id}/ws", app.base))
        .header("origin", "http://elsewhere.example")
        .header("connection", "upgrade")
        .header("upgrade", "websocket")
        .header("sec-websocket-version", "13")
        .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
        .send()
        .await
        .expect("request");
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn an_analysis_while_the_computer_thinks_does_not_stop_its_move() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "computer", "level": "expert" }))
        .await;
    let id = gid(&g);
    let url = app.ws_url(&id);
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.expect("ws");
    app.play_no_wait(&id, "h8").await;
    let (s, a) = app
        .post(
            &format!("/api/games/{id}/analysis"),
            json!({ "time_ms": 100, "multipv": 1 }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{a}");
    // Only the socket is read (a GET would start a stopped turn again): the move comes.
    let v = pushed_until(&mut ws, |v| v["moves"].as_array().map(Vec::len) == Some(2)).await;
    assert_eq!(v["assisted"], true);
}

#[tokio::test]
async fn a_loss_on_time_against_the_computer_is_recorded() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "computer", "human": "white", "player": "Tim", "clock": { "kind": "total", "ms": 1000, "increment_ms": 0 } }))
        .await;
    let id = gid(&g);
    // The computer's first stone is not timed; then the human's clock runs out.
    assert_eq!(g["moves"].as_array().map(Vec::len), Some(1), "{g}");
    assert_eq!(g["clock"]["running"], "white");
    let mut v = Value::Null;
    for _ in 0..600 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        v = app.get(&format!("/api/games/{id}")).await.1;
        if v["over"] == true {
            break;
        }
    }
    assert_eq!(v["status"], "Black wins: white ran out of time", "{v}");
    assert_eq!(v["clock"]["white_ms"], 0);
    let (_, t) = app.get("/api/results?player=Tim").await;
    assert_eq!(t["levels"][0]["losses"], 1, "{t}");
}

#[tokio::test]
async fn a_move_after_the_flag_fell_is_refused_and_the_loss_stands() {
    let app = start().await;
    let g = app
        .create(json!({ "opponent": "friend", "clock": { "kind": "per_move", "ms": 1000 } }))
        .await;
    let id = gid(&g);
    let played = app.play(&id, "h8").await;
    tokio::time::sleep(Duration::from_millis(1300)).await;
    // White's move comes too late: refused as after any end, and not played.
    let (status, v) = app
        .post(&format!("/api/games/{id}/moves"), json!({ "move": "h9" }))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{v}");
    assert_eq!(v["kind"], "conflict", "{v}");
    let error = v["error"].as_str().expect("a message");
    assert!(error.contains("the game is over"), "{error}");
    assert!(error.contains("white ran out of time"), "{error}");
    // The state is as before the move but for the fall, which is stored.
    let (_, s) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(s["moves"], played["moves"]);
    assert_eq!(s["status"], "Black wins: white ran out of time");
    assert_eq!(s["reason"], "timeout");
    assert_eq!(s["seq"], played["seq"].as_u64().expect("seq") + 1, "{s}");
    // Undo and resignation after it are refused the same way.
    for path in ["undo", "resign"] {
        let (status, v) = app
            .post(&format!("/api/games/{id}/{path}"), json!({}))
            .await;
        assert_eq!(status, StatusCode::CONFLICT, "{path}: {v}");
    }
    let (_, after) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(after["seq"], s["seq"]);
}

/// A raw request: the status, the `Allow` header and the body read as JSON (or `Null`).
async fn raw(
    app: &App,
    method: reqwest::Method,
    path: &str,
    body: Option<&str>,
) -> (StatusCode, Option<String>, Value) {
    let mut r = app.http.request(method, format!("{}{path}", app.base));
    if let Some(body) = body {
        r = r
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    let r = r.send().await.expect("request");
    let status = r.status();
    let allow = r
        .headers()
        .get("allow")
        .map(|v| v.to_str().expect("text").to_string());
    let text = r.text().await.expect("body");
    let v = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{path}: not JSON: {text:?}"));
    (status, allow, v)
}

#[tokio::test]
async fn every_error_is_json_with_a_kind_in_our_words() {
    use reqwest::Method;
    let app = start().await;
    let id = gid(&app.create(json!({ "opponent": "friend" })).await);
    let moves = format!("/api/games/{id}/moves");
    let resign = format!("/api/games/{id}/resign");
    // Bodies that are not the request: the field and what is wrong, without Rust's type names.
    let bodies: [(&str, &str, &[&str]); 10] = [
        ("/api/games", "[]", &["got a list, expected an object"]),
        ("/api/games", r#"{"opponent":5}"#, &["opponent"]),
        (
            "/api/games",
            r#"{"opponent":"nobody"}"#,
            &["opponent", "`friend`"],
        ),
        (
            "/api/games",
            r#"{"clock":{"kind":"total","ms":"x"}}"#,
            &["clock", "a whole number"],
        ),
        ("/api/games", r#"{"wait":3}"#, &["wait", "a boolean"]),
        (
            "/api/games",
            r#"{"colour":"x"}"#,
            &["unknown field `colour`"],
        ),
        (
            "/api/games",
            "{",
            &["not valid JSON", "EOF while parsing an object"],
        ),
        (&moves, "{}", &["missing field `move`"]),
        (&moves, r#"{"move":[1]}"#, &["move", "a string"]),
        (&resign, "[]", &["an object"]),
    ];
    for (path, body, words) in bodies {
        let (status, _, v) = raw(&app, Method::POST, path, Some(body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {v}");
        assert_eq!(v["kind"], "bad_request", "{body}: {v}");
        let error = v["error"].as_str().expect("a message");
        assert!(error.starts_with("the body is not"), "{body}: {error}");
        for w in words {
            assert!(error.contains(w), "{body}: {error:?} lacks {w:?}");
        }
        for internal in [
            "struct",
            "Request",
            "enum",
            "Failed to",
            "u64",
            "sequence",
            "expected value",
            "line 1",
        ] {
            assert!(
                !error.contains(internal),
                "{body}: {error:?} holds {internal:?}"
            );
        }
    }
    // A body over the 2 MiB limit, on a route that reads JSON, one that reads an optional body
    // and the import: 413 in our words, and the game unchanged.
    let (_, before) = app.get(&format!("/api/games/{id}")).await;
    let huge = format!(r#"{{"record":"{}"}}"#, "h8 ".repeat(800_000));
    for path in ["/api/games", resign.as_str(), "/api/games/import"] {
        let (status, _, v) = raw(&app, Method::POST, path, Some(&huge)).await;
        assert_eq!(
            (status, v["kind"].as_str()),
            (StatusCode::PAYLOAD_TOO_LARGE, Some("too_large")),
            "{path}: {v}"
        );
        assert!(
            v["error"]
                .as_str()
                .expect("message")
                .contains("at most 2048 KiB"),
            "{path}: {v}"
        );
    }
    let (_, after) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(after, before);
    // An address that cannot be read, a method a route does not take, an unknown path, a
    // query string that cannot be read, a WebSocket request that is not one.
    let (status, _, v) = raw(&app, Method::GET, "/api/games/%ff", None).await;
    assert_eq!(
        (status, v["kind"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad_request")),
        "{v}"
    );
    assert!(
        v["error"]
            .as_str()
            .expect("message")
            .contains("cannot be read"),
        "{v}"
    );
    let (status, allow, v) = raw(&app, Method::GET, "/api/games", None).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{v}");
    assert_eq!(v["kind"], "method_not_allowed");
    assert_eq!(allow.as_deref(), Some("POST"));
    assert!(
        v["error"]
            .as_str()
            .expect("message")
            .starts_with("GET is not allowed on /api/games"),
        "{v}"
    );
    let (status, _, v) = raw(&app, Method::GET, "/nonexistent", None).await;
    assert_eq!(
        (status, v["kind"].as_str()),
        (StatusCode::NOT_FOUND, Some("not_found")),
        "{v}"
    );
    let error = v["error"].as_str().expect("message");
    assert!(
        error.contains("/nonexistent") && !error.contains("no game"),
        "{error}"
    );
    let (status, _, v) = raw(&app, Method::GET, "/api/nonexistent", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{v}");
    let (status, _, v) = raw(
        &app,
        Method::GET,
        &format!("/api/games/{id}/record?format=doc"),
        None,
    )
    .await;
    assert_eq!(
        (status, v["kind"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad_request")),
        "{v}"
    );
    let (status, _, v) = raw(
        &app,
        Method::GET,
        "/api/results?player=a&player=b&x=1",
        None,
    )
    .await;
    assert!(
        status.is_success() || v["kind"] == "bad_request",
        "{status} {v}"
    );
    let (status, _, v) = raw(&app, Method::GET, &format!("/api/games/{id}/ws"), None).await;
    assert!(status.is_client_error(), "{status} {v}");
    assert_eq!(v["kind"], "bad_request", "{v}");
    // A game that does not exist is still named as such.
    let (status, _, v) = raw(&app, Method::GET, "/api/games/abc123", None).await;
    assert_eq!(
        (status, v["kind"].as_str()),
        (StatusCode::NOT_FOUND, Some("not_found")),
        "{v}"
    );
}

/// Reads a server-sent event stream until `want` events named `name` have come, or the
/// stream ends; returns every (event, data) pair read. A stream that stalls fails the test
/// after a hang guard, with what it read.
async fn read_events(
    r: &mut reqwest::Response,
    buf: &mut String,
    name: &str,
    want: usize,
) -> Vec<(String, Value)> {
    const HANG: Duration = Duration::from_secs(120);
    let mut out: Vec<(String, Value)> = Vec::new();
    loop {
        // Whole events end with a blank line.
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            let mut event = String::new();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    event = v.trim().to_string();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.trim());
                }
            }
            if !event.is_empty() {
                out.push((event, serde_json::from_str(&data).unwrap_or(Value::Null)));
            }
        }
        if out.iter().filter(|(e, _)| e == name).count() >= want {
            return out;
        }
        match tokio::time::timeout(HANG, r.chunk()).await {
            Ok(Ok(Some(bytes))) => buf.push_str(&String::from_utf8_lossy(&bytes)),
            Ok(Ok(None)) => return out,
            Ok(Err(e)) => panic!("the stream broke: {e}; read {out:?}"),
            Err(_) => panic!("no {name} event within {HANG:?}; read {out:?}"),
        }
    }
}

#[tokio::test]
async fn live_analysis_streams_each_depth_and_ends_when_the_position_changes() {
    let app = start().await;
    let g = app.create(json!({ "opponent": "friend" })).await;
    let id = gid(&g);
    for m in ["h8", "i9", "j8", "i8", "i7"] {
        app.play(&id, m).await;
    }
    let (s, e) = app
        .get(&format!("/api/games/{id}/analysis/live?multipv=11"))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let mut r = app
        .http
        .get(format!(
            "{}/api/games/{id}/analysis/live?multipv=2",
            app.base
        ))
        .send()
        .await
        .expect("request");
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()[reqwest::header::CONTENT_TYPE]
            .to_str()
            .is_ok_and(|t| t.starts_with("text/event-stream"))
    );
    let mut buf = String::new();
    let events = read_events(&mut r, &mut buf, "info", 3).await;
    let infos: Vec<&Value> = events
        .iter()
        .filter(|(e, _)| e == "info")
        .map(|(_, v)| v)
        .collect();
    assert!(infos.len() >= 3, "{events:?}");
    let depths: Vec<u64> = infos.iter().filter_map(|a| a["depth"].as_u64()).collect();
    assert!(depths.windows(2).all(|w| w[0] < w[1]), "{depths:?}");
    for a in &infos {
        assert_eq!(a["ply"], 5);
        assert_eq!(a["to_move"], "white");
        assert_eq!(a["lines"].as_array().map(Vec::len), Some(2), "{a}");
    }
    // A move changes the position: the live search on the old one ends.
    app.play(&id, "h9").await;
    let events = read_events(&mut r, &mut buf, "done", 1).await;
    assert!(events.iter().any(|(e, _)| e == "done"), "{events:?}");
    // The game is as the moves left it: the analysis played nothing.
    let (_, now) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(now["moves"].as_array().map(Vec::len), Some(6));
}

/// A game against the master, left (by this or another client) while the computer thinks about
/// its first reply: its search stops, and the game leaves memory.
async fn left_while_the_computer_thinks() -> (App, String) {
    // One engine thread, so the searches run one after another in the order they are asked for.
    let app = start_with(|c| c.engine_threads = Some(1)).await;
    let id = app
        .computer_thinking(json!({
            "level": "master",
            "clock": { "kind": "per_move", "ms": 2_000 }
        }))
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.leave(&id).await;
    (app, id)
}

#[tokio::test]
async fn a_game_left_while_the_computer_thinks_is_not_played_twice() {
    let (app, id) = left_while_the_computer_thinks().await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Asked for again: the game comes back from the store, and the computer plays its move,
    // once.
    let mut v = Value::Null;
    for _ in 0..150 {
        let (s, got) = app.get(&format!("/api/games/{id}")).await;
        assert_eq!(s, StatusCode::OK, "{got}");
        v = got;
        if v["moves"].as_array().map(Vec::len) == Some(2) && v["computer_to_move"] == false {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        (v["moves"].as_array().map(Vec::len), &v["computer_to_move"]),
        (Some(2), &json!(false)),
        "the computer's reply never came: {v}"
    );
    // The human plays on, and the game is as stored.
    let v = app.play(&id, "a1").await;
    assert_eq!(v["moves"].as_array().map(Vec::len), Some(4), "{v}");
}

#[tokio::test]
async fn the_computers_loss_on_time_is_stored_with_nobody_asking() {
    // One engine thread, held by an analysis: the computer's move waits for it past its flag.
    let app = start_with(|c| c.engine_threads = Some(1)).await;
    let other = gid(&app.create(json!({ "opponent": "friend" })).await);
    let look = {
        let http = app.http.clone();
        let url = format!("{}/api/games/{other}/analysis", app.base);
        tokio::spawn(async move {
            http.post(url)
                .json(&json!({ "time_ms": 3_000 }))
                .send()
                .await
                .map(|r| r.status())
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let id = app
        .computer_thinking(json!({
            "player": "Flo",
            "clock": { "kind": "per_move", "ms": 1_000 }
        }))
        .await;
    assert_eq!(look.await.expect("task").expect("analysis"), StatusCode::OK);
    // The player has gone (no page asks about the game): the computer's flag falls while it
    // waits, and the win is the player's all the same.
    let mut wins = None;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let (_, t) = app.get("/api/results?player=Flo").await;
        wins = t["levels"][0]["wins"].as_i64();
        if wins == Some(1) {
            break;
        }
    }
    assert_eq!(wins, Some(1), "the win on time was not stored");
    let (_, v) = app.get(&format!("/api/games/{id}")).await;
    assert_eq!(v["status"], "Black wins: white ran out of time", "{v}");
}

#[tokio::test]
async fn a_page_that_reconnects_after_the_game_left_sees_the_computer_reply() {
    let (app, id) = left_while_the_computer_thinks().await;
    // The page connects again, and asks nothing else: the computer's reply still comes.
    let url = app.ws_url(&id);
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.expect("ws");
    let pushed = pushed_until(&mut ws, |v| v["moves"].as_array().map(Vec::len) == Some(2)).await;
    assert_eq!(pushed["computer_to_move"], false, "{pushed}");
}
