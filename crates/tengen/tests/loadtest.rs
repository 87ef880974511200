//! `tengen loadtest` as a real process against a real `tengen serve`: the games are played, every
//! move's round trip is measured, nothing is refused, and the report reads as documented. No
//! assertion on speed: the machine may be busy.

mod common;

use std::time::Duration;

use common::{TestServer, run};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(120);

#[test]
fn twenty_games_for_five_seconds_report_their_round_trips() {
    // Every simulated player is on this machine: one client, as far as the limits can tell.
    let server = TestServer::start_with(&["--no-client-limits"]);
    let r = run(
        &[
            "loadtest",
            "--server",
            &server.base,
            "--games",
            "20",
            "--duration-secs",
            "5",
            "--think-ms",
            "50",
            "--json",
        ],
        LIMIT,
    );
    assert!(
        r.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        r.stdout,
        r.stderr
    );
    let report: Value = serde_json::from_str(r.stdout.trim()).expect("one JSON object");
    let num = |k: &str| {
        report[k]
            .as_f64()
            .unwrap_or_else(|| panic!("{k} missing: {report}"))
    };
    assert!(num("moves") > 0.0, "{report}");
    assert!(num("moves_per_sec") > 0.0, "{report}");
    assert_eq!(num("errors"), 0.0, "{report}");
    assert_eq!(num("refused"), 0.0, "{report}");
    assert_eq!(num("failed_connections"), 0.0, "{report}");
    assert!(num("games_started") >= 20.0, "{report}");
    let (p50, p90, p99, max) = (num("p50_ms"), num("p90_ms"), num("p99_ms"), num("max_ms"));
    assert!(
        0.0 <= p50 && p50 <= p90 && p90 <= p99 && p99 <= max,
        "{report}"
    );
    for stats in ["stats_start", "stats_peak"] {
        for k in ["games", "connections", "rss_bytes"] {
            assert!(report[stats][k].is_u64(), "{stats}.{k}: {report}");
        }
    }
    // Linux reports the server's memory, so the memory per game is worked out.
    if cfg!(target_os = "linux") {
        assert!(report["memory_per_game_bytes"].is_i64(), "{report}");
    }
    // The games are the server's now: live ones are in memory.
    let (status, stats) = server.get("/api/online/stats");
    assert_eq!(status, 200);
    assert!(stats["games"].as_u64().expect("games") >= 20, "{stats}");
}

#[test]
fn the_text_report_names_every_figure() {
    // Every simulated player is on this machine: one client, as far as the limits can tell.
    let server = TestServer::start_with(&["--no-client-limits"]);
    let r = run(
        &[
            "loadtest",
            "--server",
            &server.base,
            "--games",
            "2",
            "--duration-secs",
            "2",
            "--think-ms",
            "100",
        ],
        LIMIT,
    );
    assert!(
        r.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        r.stdout,
        r.stderr
    );
    for word in [
        "moves",
        "round trip",
        "p50",
        "p99",
        "problems",
        "server before",
        "server at peak",
        "open files",
    ] {
        assert!(r.stdout.contains(word), "{word} missing:\n{}", r.stdout);
    }
}

#[test]
fn no_server_is_a_clear_failure() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let r = run(
        &[
            "loadtest",
            "--server",
            &format!("http://127.0.0.1:{port}"),
            "--games",
            "1",
        ],
        LIMIT,
    );
    assert!(!r.status.success());
    assert!(r.stderr.contains("cannot reach the server"), "{}", r.stderr);
}
