//! `tengen play`, the real binary over real pipes: a person's commands on standard input, the
//! board and the computer's moves on standard output.

mod common;

use std::time::Duration;

use common::Run;

fn play(args: &[&str], input: impl AsRef<[u8]>) -> Run {
    let mut all = vec!["play"];
    all.extend_from_slice(args);
    common::run_with_input(&all, input, Duration::from_secs(120))
}

#[test]
fn a_game_against_the_computer_is_saved_and_reads_back() {
    let dir = tempfile::tempdir().expect("a folder");
    let sgf = dir.path().join("game.sgf");
    let input = format!("h8\nj10\nsave {}\nquit\n", sgf.display());
    let out = play(
        &[
            "--rule", "renju", "--level", "beginner", "--seed", "5", "--time", "300",
        ],
        &input,
    );
    let stdout = &out.stdout;
    assert!(out.status.success(), "{stdout}{}", out.stderr);
    // Two moves of ours, two answers.
    assert_eq!(stdout.matches("White plays ").count(), 2, "{stdout}");
    assert!(stdout.contains("Saved 4 moves"), "{stdout}");
    let saved = std::fs::read_to_string(&sgf).expect("the record was written");
    let record = tengen_rules::Record::parse_auto(&saved, tengen_rules::BoardSize::STANDARD)
        .expect("the record reads back");
    // Loaded again without --rule, the game goes on under the record's own rule.
    let again = play(
        &["--load", sgf.to_str().expect("a path"), "--you", "both"],
        "quit\n",
    );
    assert!(
        again.stdout.starts_with("Tengen: renju on 15x15"),
        "{}",
        again.stdout
    );
    assert_eq!(record.rule, Some(tengen_rules::Rule::Renju));
    let names: Vec<String> = record
        .moves
        .iter()
        .map(|&p| tengen_rules::point_name(record.size, p))
        .collect();
    assert_eq!(&names[0], "h8");
    assert_eq!(&names[2], "j10");
    // The computer's answers are the moves it announced.
    for answer in [&names[1], &names[3]] {
        assert!(
            stdout.contains(&format!("White plays {answer} (")),
            "{stdout}"
        );
    }
}

#[test]
fn a_loaded_record_goes_on_and_the_computer_finishes_it() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("open-four.txt");
    // Black has an open four on row 8 (e8 to h8): the computer, black, makes five.
    std::fs::write(&file, "e8 e1 f8 f1 g8 g1 h8 a15").expect("written");
    let out = play(
        &[
            "--load",
            file.to_str().expect("a path"),
            "--you",
            "white",
            "--level",
            "master",
            "--time",
            "500",
            "--threads",
            "1",
        ],
        "",
    );
    let stdout = &out.stdout;
    assert!(out.status.success(), "{stdout}{}", out.stderr);
    assert!(stdout.contains("Black wins: five in a row"), "{stdout}");
}

#[test]
fn a_bad_record_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("bad.txt");
    std::fs::write(&file, "h8 h8").expect("written");
    let out = play(&["--load", file.to_str().expect("a path")], "");
    assert!(!out.status.success());
    let stderr = &out.stderr;
    assert!(stderr.contains("tengen play:"), "{stderr}");
    assert!(stderr.contains("h8"), "{stderr}");
}

/// A line that is not UTF-8 is one more command not understood: the game goes on.
#[test]
fn a_line_that_is_not_text_does_not_end_the_game() {
    let run = play(&["--you", "both"], b"\xff\xfe\nh8\nquit\n".as_slice());
    assert_eq!(run.status.code(), Some(0), "stderr: {}", run.stderr);
    assert!(run.stdout.contains("Not a move"), "{}", run.stdout);
    // Two people play: no computer is announced.
    assert!(
        run.stdout.contains("two players at one keyboard"),
        "{}",
        run.stdout
    );
}

/// A .psq record has no place for the rule: saving a renju game as one says so.
#[test]
fn saving_a_renju_game_as_psq_says_the_rule_is_not_kept() {
    let dir = tempfile::tempdir().expect("a folder");
    let psq = dir.path().join("game.psq");
    let input = format!("h8\nsave {}\nquit\n", psq.display());
    let run = play(&["--rule", "renju", "--you", "both"], input);
    assert_eq!(run.status.code(), Some(0), "stderr: {}", run.stderr);
    assert!(
        run.stdout.contains("Saved 1 move to")
            && run.stdout.contains("does not keep the rule (renju)"),
        "{}",
        run.stdout
    );
    assert!(psq.exists());
}
