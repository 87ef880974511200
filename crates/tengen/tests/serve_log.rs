//! `tengen serve` logs with `tracing` on standard error: requests at debug (with `RUST_LOG`), and
//! at warn a game it had to set aside at start-up, named by its id, while it serves the rest, or
//! that it has run out of open files, once, while it waits for some to be freed.

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

/// CPU time the process `pid` has used so far (Linux clock ticks, 100 a second).
#[cfg(target_os = "linux")]
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc");
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .expect("a command name")
        .1
        .split_whitespace()
        .collect();
    // utime and stime, fields 14 and 15 of the whole line.
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

#[cfg(target_os = "linux")]
#[test]
fn out_of_open_files_the_server_says_so_once_waits_and_recovers() {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    // About 15 files are the server's own; the connections below take the rest, and those left
    // over wait in the listening socket's backlog.
    let server = TestServer::start_with_open_files(64);
    let addr = server.base.strip_prefix("http://").expect("address");
    let held: Vec<TcpStream> = (0..100)
        .map(|_| TcpStream::connect(addr).expect("connect"))
        .collect();
    const OUT_OF_FILES: &str = "cannot accept connections; retrying";
    server.wait_for_log(OUT_OF_FILES);

    // A second of it. A loop that retried at once would log every try and burn a core; this
    // one waits 100 ms between tries and says so once. The CPU ceiling is generous: the
    // waiting loop uses a few milliseconds, a spinning one most of the second.
    let before = cpu_ticks(server.pid());
    std::thread::sleep(Duration::from_secs(1));
    let used = cpu_ticks(server.pid()) - before;
    let log = server.stderr.lock().expect("log").clone();
    assert_eq!(log.matches(OUT_OF_FILES).count(), 1, "{log}");
    assert!(used < 50, "{used} ticks of CPU in a second of waiting");

    // Once the connections close, it serves again (the 30 s only catch a hang).
    drop(held);
    let mut tcp = TcpStream::connect(addr).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    tcp.write_all(b"GET /api/online/stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .expect("write");
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}
