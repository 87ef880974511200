//! `tengen match` end to end: the real binary driving the real `pbrain-tengen`, the classic bot
//! and misbehaving brains over pipes.

mod common;

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn classicbot() -> String {
    let path = root().join("../../../shared/tools/classicbot.py");
    format!("cmd=python3 '{}' expert", path.display())
}

fn bad_brain(script: &str) -> String {
    let path = root().join("../tengen-match/tests/brains").join(script);
    format!("cmd=python3 '{}'", path.display())
}

fn pbrain() -> String {
    format!("cmd={}", common::pbrain_tengen())
}

fn tengen_match(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("match")
        .args(args)
        .output()
        .expect("tengen runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn alive(pid: u64) -> bool {
    Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Every process id the summary lists, checked to be gone.
fn assert_no_process_left(summary: &Value) {
    let games = summary["games"].as_array().expect("games");
    let mut n = 0;
    for g in games {
        for side in ["black_side", "white_side"] {
            for pid in g[side]["pids"].as_array().expect("pids") {
                let pid = pid.as_u64().expect("a pid");
                assert!(!alive(pid), "process {pid} was left running");
                n += 1;
            }
        }
    }
    assert_eq!(n, 2 * games.len(), "two processes per game");
}

#[test]
fn tengen_against_the_classic_bot() {
    let out = std::env::temp_dir().join(format!("tengen-match-cli-{}", std::process::id()));
    let (pb, cb) = (pbrain(), classicbot());
    let out_arg = out.to_string_lossy().into_owned();
    let (code, stdout, stderr) = tengen_match(&[
        "--engine",
        &pb,
        "arg=--level",
        "arg=intermediate",
        "name=tengen",
        "--engine",
        &cb,
        "name=classic",
        "--games",
        "2",
        // Far more than either needs (the intermediate level stops at 250 ms, the classic
        // player does not search): the test is about the runner, and a loaded machine must not
        // turn a slow move into a loss on time.
        "--tc",
        "5000",
        "--openings",
        "renju26",
        "--rotate",
        "--seed",
        "5",
        "--rule",
        "renju",
        "--concurrency",
        "2",
        "--out",
        &out_arg,
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("games 2/2"), "the progress line: {stderr}");
    let summary: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(summary["engines"], serde_json::json!(["tengen", "classic"]));
    let games = summary["games"].as_array().expect("games");
    assert_eq!(games.len(), 2);
    for g in games {
        // A game between two working brains ends on the board, never by a failure.
        let reason = g["reason"].as_str().expect("a reason");
        assert!(["five", "forbidden", "full"].contains(&reason), "{g}");
        assert_eq!(g["opening"], "1D Kansei");
    }
    assert_eq!(summary["totals"][0]["failures"], 0);
    assert_eq!(summary["totals"][1]["failures"], 0);
    assert_no_process_left(&summary);
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .expect("the records")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "0001-tengen-vs-classic.psq",
            "0001-tengen-vs-classic.txt",
            "0002-classic-vs-tengen.psq",
            "0002-classic-vs-tengen.txt"
        ]
    );
    let txt = std::fs::read_to_string(out.join("0002-classic-vs-tengen.txt")).expect("read");
    assert!(txt.contains("# black: classic\n# white: tengen\n"), "{txt}");
    assert!(txt.contains("# reason: "), "{txt}");
    // The record replays under the referee to the same result.
    let judged = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["referee", "--rule", "renju", "--json"])
        .arg(out.join("0002-classic-vs-tengen.psq"))
        .output()
        .expect("referee");
    let verdict: Value = serde_json::from_slice(&judged.stdout).expect("referee JSON");
    let winner = games.iter().find(|g| g["id"] == 2).expect("game 2")["winner"].clone();
    assert_eq!(verdict["result"], winner);
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn misbehaving_brains_lose_with_the_reason() {
    let pb = pbrain();
    let (crash, stall, occupied, junk) = (
        bad_brain("crash.py"),
        bad_brain("stall.py"),
        bad_brain("occupied.py"),
        bad_brain("junk.py"),
    );
    let (code, stdout, stderr) = tengen_match(&[
        "--engine",
        &pb,
        "arg=--level",
        "arg=beginner",
        "name=tengen",
        "--engine",
        &crash,
        "name=crash",
        "--engine",
        &stall,
        "name=stall",
        "--engine",
        &occupied,
        "name=occupied",
        "--engine",
        &junk,
        "name=junk",
        "--tournament",
        "gauntlet",
        "--games",
        "2",
        // The beginner stops at 250 ms; the rest is room for a loaded machine, so that only the
        // stalled brain runs out of time.
        "--tc",
        "2000",
        "--concurrency",
        "2",
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let summary: Value = serde_json::from_str(&stdout).expect("JSON");
    let games = summary["games"].as_array().expect("games");
    assert_eq!(games.len(), 8);
    let expected = [
        ("crash", "crash"),
        ("stall", "timeout"),
        ("occupied", "illegal"),
        ("junk", "garbage"),
    ];
    for g in games {
        let names = &summary["engines"];
        let (b, w) = (
            g["black"].as_u64().expect("b"),
            g["white"].as_u64().expect("w"),
        );
        let bad = if b == 0 { w } else { b };
        let bad_name = names[bad as usize].as_str().expect("name");
        let (_, reason) = expected
            .iter()
            .find(|(n, _)| *n == bad_name)
            .expect("a bad brain");
        assert_eq!(g["reason"], *reason, "{g}");
        let tengen_colour = if b == 0 { "black" } else { "white" };
        assert_eq!(g["winner"], tengen_colour, "{g}");
    }
    for i in 1..5 {
        assert_eq!(
            summary["totals"][i]["failures"], 2,
            "{}",
            summary["totals"][i]
        );
    }
    assert_no_process_left(&summary);
}

#[test]
fn bad_settings_are_reported() {
    let (code, _, stderr) = tengen_match(&["--engine", "name=lonely", "--engine", "cmd=x"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cmd=PROGRAM"), "{stderr}");
    let (code, _, stderr) =
        tengen_match(&["--engine", "cmd=a", "--engine", "cmd=b", "--tc", "soon"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bad time control"), "{stderr}");
    let (code, _, stderr) = tengen_match(&[
        "--engine",
        "cmd=a",
        "--engine",
        "cmd=b",
        "--engine",
        "cmd=c",
        "--sprt",
        "--tournament",
        "round-robin",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("two engines"), "{stderr}");
}
