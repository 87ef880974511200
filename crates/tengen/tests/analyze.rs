//! `tengen analyze`, the real binary over pipes: the best moves of a record's last position.

mod common;

use std::time::Duration;

use serde_json::Value;

fn analyze(args: &[&str], record: &str) -> common::Run {
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    common::run_with_input(&all, record, Duration::from_secs(120))
}

/// The bench's freestyle middlegame: black's open three leaves white two moves that hold.
const MIDDLEGAME: &str = "h8 i9 j8 i8 i7 j6 g9 h9 k9\n";

#[test]
fn fewer_lines_than_asked_are_explained() {
    let run = analyze(&["--nodes", "20000", "--multipv", "5"], MIDDLEGAME);
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    let numbered = run
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .count();
    assert_eq!(numbered, 2, "{}", run.stdout);
    assert!(
        run.stdout.contains("Only 2 moves are worth searching here"),
        "{}",
        run.stdout
    );
    let run = analyze(
        &["--json", "--nodes", "20000", "--multipv", "5"],
        MIDDLEGAME,
    );
    let j: Value = serde_json::from_str(&run.stdout).expect("one JSON object");
    assert_eq!(j["multipv"], 5);
    assert_eq!(j["lines"].as_array().expect("lines").len(), 2);
    // None asked for is a mistake, not one line.
    let run = analyze(&["--multipv", "0"], MIDDLEGAME);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("--multipv"), "{}", run.stderr);
}

#[test]
fn a_forced_win_is_shown_to_the_five() {
    // Black's h12 makes a straight four on the h column: white blocks one end, black fives.
    let run = analyze(
        &["--rule", "renju", "--depth", "4"],
        "h9 a1 h10 a3 h11 a5 i8 a7 j8 a9 k8 a11\n",
    );
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains("forced win in 3") && run.stdout.contains("h12 h13 h8"),
        "{}",
        run.stdout
    );
}

/// Each finished depth is told as it comes (the binary prints it on a terminal), deepest last.
#[test]
fn each_depth_is_reported_as_it_finishes() {
    let limits = tengen_engine::Limits {
        depth: Some(6),
        ..tengen_engine::Limits::default()
    };
    let mut seen = Vec::new();
    let a = tengen::analyze::analyze_text(
        MIDDLEGAME,
        None,
        tengen_rules::BoardSize::STANDARD,
        None,
        &limits,
        1,
        &mut |line| seen.push(line.to_string()),
    )
    .expect("a position");
    assert_eq!(seen.len(), 6, "{seen:?}");
    for (i, line) in seen.iter().enumerate() {
        assert!(line.starts_with(&format!("depth {}: ", i + 1)), "{line}");
    }
    let best = a.best.expect("a move");
    assert!(seen[5].contains(&format!(": {best} (")), "{seen:?}");
}
