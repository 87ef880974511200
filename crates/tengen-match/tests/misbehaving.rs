//! Real games over pipes: the classic bot against brains that crash, stall, play an occupied
//! point or print junk. Every game must end with the right winner and reason, quickly, and
//! leave no process behind.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tengen_match::{
    EngineSpec, MatchConfig, MatchSummary, OpeningSource, Sprt, SprtDecision, TimeControl, run,
};
use tengen_rules::BoardSize;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn classicbot() -> EngineSpec {
    let path = manifest().join("../../../shared/tools/classicbot.py");
    EngineSpec {
        name: "classic".into(),
        program: "python3".into(),
        args: vec![path.to_string_lossy().into_owned(), "expert".into()],
        dir: None,
        options: Vec::new(),
    }
}

fn brain(script: &str) -> EngineSpec {
    EngineSpec {
        name: script.trim_end_matches(".py").into(),
        program: "python3".into(),
        args: vec![
            manifest()
                .join("tests/brains")
                .join(script)
                .to_string_lossy()
                .into_owned(),
        ],
        dir: None,
        options: Vec::new(),
    }
}

fn alive(pid: u32) -> bool {
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn all_pids(summary: &MatchSummary) -> Vec<u32> {
    summary
        .games
        .iter()
        .flat_map(|g| {
            g.outcome
                .black
                .pids
                .iter()
                .chain(&g.outcome.white.pids)
                .copied()
        })
        .collect()
}

/// Plays `bad` against the classic bot, once with each colour, and checks that the bad brain
/// lost every game for `reason`.
fn check(bad: &str, reason: &str, tc: TimeControl) -> MatchSummary {
    let mut config = MatchConfig::new(vec![classicbot(), brain(bad)]);
    config.settings.tc = tc;
    config.concurrency = 2;
    let started = Instant::now();
    let summary = run(&config, &mut |_| {}).expect("the match runs");
    // A hang guard (each game is lost in its first seconds), not a timing measure.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{bad}: the match hangs"
    );
    assert_eq!(summary.games.len(), 2);
    for g in &summary.games {
        assert_eq!(g.winner_engine(), Some(0), "{bad}: {g:?}");
        assert_eq!(g.reason, reason, "{bad}: {}", g.reason_text);
    }
    assert_eq!(summary.totals[1].failures, 2);
    assert_eq!(summary.pairings[0].wld.wins, 2);
    let pids = all_pids(&summary);
    assert_eq!(pids.len(), 4, "two processes per game");
    for pid in pids {
        assert!(!alive(pid), "{bad}: process {pid} is still running");
    }
    summary
}

#[test]
fn a_brain_that_crashes_loses() {
    let s = check("crash.py", "crash", TimeControl::PerMove { ms: 300 });
    // The brain's last words make it into the reason.
    assert!(
        s.games[0].reason_text.contains("about to fall over"),
        "{}",
        s.games[0].reason_text
    );
}

#[test]
fn a_brain_that_stalls_loses_on_time() {
    check("stall.py", "timeout", TimeControl::PerMove { ms: 300 });
}

#[test]
fn a_brain_that_stalls_loses_on_its_match_clock() {
    check(
        "stall.py",
        "timeout",
        TimeControl::Increment {
            base_ms: 400,
            inc_ms: 100,
        },
    );
}

#[test]
fn a_brain_that_plays_an_occupied_point_loses() {
    let s = check("occupied.py", "illegal", TimeControl::PerMove { ms: 300 });
    assert!(
        s.games[0].reason_text.contains("occupied"),
        "{}",
        s.games[0].reason_text
    );
}

#[test]
fn a_brain_that_prints_junk_loses() {
    check("junk.py", "garbage", TimeControl::PerMove { ms: 300 });
}

#[test]
fn a_missing_program_loses_without_a_game() {
    let mut missing = brain("x.py");
    missing.program = "/nonexistent/brain".into();
    let config = MatchConfig::new(vec![classicbot(), missing]);
    let summary = run(&config, &mut |_| {}).expect("the match runs");
    assert!(
        summary
            .games
            .iter()
            .all(|g| g.reason == "spawn" && g.winner_engine() == Some(0))
    );
    for pid in all_pids(&summary) {
        assert!(!alive(pid));
    }
}

#[test]
fn the_sprt_stops_a_one_sided_match_and_records_are_written() {
    let out = std::env::temp_dir().join(format!("tengen-match-test-{}", std::process::id()));
    let mut config = MatchConfig::new(vec![classicbot(), brain("junk.py")]);
    config.games = Some(40);
    config.concurrency = 2;
    config.settings.tc = TimeControl::PerMove { ms: 300 };
    config.sprt = Some(Sprt {
        elo0: 0.0,
        elo1: 200.0,
        alpha: 0.05,
        beta: 0.05,
    });
    config.openings = OpeningSource::from_arg("renju26", BoardSize::STANDARD, config.settings.rule)
        .expect("the renju openings");
    config.out = Some(out.clone());
    let mut lines = Vec::new();
    let summary = run(&config, &mut |p| lines.push(p.line.clone())).expect("the match runs");
    let (decision, llr, games) = summary.sprt_decision.expect("a decision");
    assert_eq!(decision, SprtDecision::H1);
    assert!(llr >= 2.94 && games < 40, "{llr} after {games}");
    assert!(summary.games.len() < 40);
    assert!(
        summary.table().contains("H1 accepted"),
        "{}",
        summary.table()
    );
    assert!(lines[0].starts_with("games 1/40"), "{}", lines[0]);
    // Game 1: the classic bot black from the first renju opening; the junk brain lost.
    let txt = std::fs::read_to_string(out.join("0001-classic-vs-junk.txt")).expect("the record");
    assert!(txt.contains("# black: classic\n# white: junk\n"), "{txt}");
    assert!(txt.contains("# opening: 1D Kansei"), "{txt}");
    assert!(
        txt.contains("# result: 1-0\n# reason: white answered garbage"),
        "{txt}"
    );
    assert!(txt.trim_end().ends_with("h8 h9 h10"), "{txt}");
    let psq = std::fs::read_to_string(out.join("0001-classic-vs-junk.psq")).expect("the psq");
    assert!(psq.starts_with("Piskvorky 15x15"), "{psq}");
    assert!(psq.ends_with("-1\nclassic\njunk\n"), "{psq}");
    std::fs::remove_dir_all(&out).ok();
}
