//! `tengen serve` logs with `tracing` on standard error: requests at debug (with `RUST_LOG`), and
//! at warn a game it had to set aside at start-up, named by its id, while it serves the rest.

mod common;

use common::TestServer;
use serde_json::json;

#[test]
fn a_damaged_game_is_named_at_warn_and_requests_are_logged_at_debug() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let first = TestServer::start_in(dir.path());
    let (status, good) = first.post("/api/online", json!({"name": "Ann"}));
    assert_eq!(status, 201);
    let (_, bad) = first.post("/api/online", json!({"name": "Bea"}));
    let good = good["id"].as_str().expect("id").to_string();
    let bad = bad["id"].as_str().expect("id").to_string();
    first.kill();

    // The game's first event loses its `kind`, as a hand edit or a bad migration could do.
    let url = format!("sqlite://{}", dir.path().join("tengen.db").display());
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(async {
            let db = sqlx::SqlitePool::connect(&url).await.expect("open");
            sqlx::query(
                "UPDATE online_events SET event = '{\"seat\":\"first\"}' WHERE game_id = ?",
            )
            .bind(&bad)
            .execute(&db)
            .await
            .expect("damage");
            db.close().await;
        });

    let server =
        TestServer::start_in_with(dir.path(), &[], &[("RUST_LOG", "tengen_server=debug,info")]);
    let log = server.wait_for_log(&bad);
    let line = log
        .lines()
        .find(|l| l.contains(&bad))
        .expect("a line names the game");
    assert!(line.contains("WARN") && line.contains("kind"), "{line}");
    assert_eq!(server.get(&format!("/api/online/{good}")).0, 200);
    assert_eq!(server.get(&format!("/api/online/{bad}")).0, 410);
    let _ = server.get("/api/online/stats");
    server.wait_for_log("/api/online/stats");
}
