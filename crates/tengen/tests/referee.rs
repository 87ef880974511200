//! Runs the real `tengen referee` binary over pipes.

mod common;

use std::time::Duration;

use common::Run;
use serde_json::{Value, json};

fn referee(args: &[&str], stdin: impl AsRef<[u8]>) -> Run {
    let mut all = vec!["referee"];
    all.extend_from_slice(args);
    common::run_with_input(&all, stdin, Duration::from_secs(60))
}

fn judged(args: &[&str], stdin: &str) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let run = referee(&all, stdin);
    assert_eq!(run.status.code(), Some(0), "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("one JSON object")
}

fn example(name: &str) -> String {
    format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn five_in_a_row_wins() {
    let j = judged(&[&example("freestyle-five.txt")], "");
    assert_eq!(j["rule"], "freestyle");
    assert_eq!(j["moves"], 9);
    assert_eq!(j["result"], "black");
    assert_eq!(j["reason"], "five");
    assert_eq!(j["winning_line"], json!(["h8", "i8", "j8", "k8", "l8"]));
    assert_eq!(j["to_move"], Value::Null);
    assert_eq!(j["forbidden"], json!([]));
}

#[test]
fn forbidden_move_loses_under_renju() {
    let j = judged(&["--rule", "renju", &example("renju-double-three.txt")], "");
    assert_eq!(j["result"], "white");
    assert_eq!(j["reason"], "forbidden");
    assert_eq!(j["forbidden_kind"], "double_three");
    assert_eq!(j["winning_line"], Value::Null);
    // The same moves under freestyle are an ordinary game in progress.
    let j = judged(&[&example("renju-double-three.txt")], "");
    assert_eq!(j["result"], "ongoing");
    assert_eq!(j["to_move"], "white");
}

#[test]
fn lists_black_forbidden_points_when_black_is_to_move() {
    let j = judged(&["--rule", "renju"], "g8 a1 i8 a3 h9 a5 h7 a7");
    assert_eq!(j["result"], "ongoing");
    assert_eq!(j["reason"], Value::Null);
    assert_eq!(j["to_move"], "black");
    assert_eq!(
        j["forbidden"],
        json!([{"point": "h8", "reason": "double_three"}])
    );
    let text = referee(&["--rule", "renju"], "g8 a1 i8 a3 h9 a5 h7 a7");
    assert!(
        text.stdout
            .contains("Forbidden for black: h8 (double-three)"),
        "{}",
        text.stdout
    );
    // White to move: white has none.
    let j = judged(&["--rule", "renju"], "g8 a1 i8 a3 h9 a5 h7");
    assert_eq!(j["forbidden"], json!([]));
}

#[test]
fn illegal_move_names_its_number_and_exits_2() {
    let run = referee(&[], "h8 i9 h8");
    assert_eq!(run.status.code(), Some(2));
    assert!(run.stderr.contains("move 3"), "{}", run.stderr);
    assert!(run.stderr.contains("occupied"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    let run = referee(&[], "h8 i9 j10 p3");
    assert_eq!(run.status.code(), Some(2));
    assert!(run.stderr.contains("p3"), "{}", run.stderr);
    // A move after the game ended is illegal too.
    let run = referee(&[], "h8 h9 i8 i9 j8 j9 k8 k9 l8 l9");
    assert_eq!(run.status.code(), Some(2));
    assert!(run.stderr.contains("move 10"), "{}", run.stderr);
}

#[test]
fn unreadable_input_exits_2() {
    for bad in [
        "h8 what",
        "(;GM[4]SZ[15];B[hh",
        "Piskvorky 15x15, 11:11, 0\n8,8,0\n99,99,0\n",
        "Piskvorky 0x0, 1:1, 0\n",
    ] {
        let run = referee(&[], bad);
        assert_eq!(run.status.code(), Some(2), "{bad:?}: {}", run.stdout);
        assert!(!run.stderr.is_empty());
    }
    let run = referee(&["/no/such/file.psq"], "");
    assert_ne!(run.status.code(), Some(0));
    assert!(run.stderr.contains("/no/such/file.psq"), "{}", run.stderr);
}

#[test]
fn other_formats_and_boards() {
    // Piskvork: 1-based x,y from the top-left; 8,8 is h8 on 15x15.
    let psq = "Piskvorky 15x15, 11:11, 0\n8,8,0\n8,7,0\n9,8,0\n";
    let j = judged(&[], psq);
    assert_eq!(
        (j["moves"].clone(), j["to_move"].clone()),
        (json!(3), json!("white"))
    );
    let sgf = "(;GM[4]FF[4]SZ[15]RU[renju];B[hh];W[hg];B[ih])";
    let j = judged(&[], sgf);
    assert_eq!(j["rule"], "renju");
    assert_eq!(j["moves"], 3);
    let j = judged(&["--size", "16x14"], "p14 a1 o14 b1 n14 c1 m14 d1 l14");
    assert_eq!(j["result"], "black");
    assert_eq!(j["size"], "16x14");
    assert_eq!(
        j["winning_line"],
        json!(["l14", "m14", "n14", "o14", "p14"])
    );
    let j = judged(
        &["--size", "unbounded"],
        "0,0 0,1 -1,0 -1,1 -2,0 -2,1 -3,0 -3,1 -4,0",
    );
    assert_eq!(j["result"], "black");
    assert_eq!(
        j["winning_line"],
        json!(["-4,0", "-3,0", "-2,0", "-1,0", "0,0"])
    );
}

#[test]
fn moves_past_the_unbounded_boards_coordinates_exit_2_not_a_panic() {
    for (moves, point) in [
        ("2147483647,0", "2147483647,0"),
        ("-2147483648,0", "-2147483648,0"),
        ("0,0 0,2147483647", "0,2147483647"),
        ("1000000000,5 1000000001,5", "1000000001,5"),
    ] {
        let run = referee(&["--size", "unbounded"], moves);
        assert_eq!(run.status.code(), Some(2), "{moves}: {}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("{point} is off the unbounded board")),
            "{moves}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
    // The last column of the unbounded board is an edge, like a bounded board's.
    let j = judged(
        &["--size", "unbounded"],
        "1000000000,0 999999990,5 999999999,0 999999990,6 999999998,0 999999990,7 \
         999999997,0 999999990,8 999999996,0",
    );
    assert_eq!(j["result"], "black");
    assert_eq!(
        j["winning_line"],
        json!([
            "999999996,0",
            "999999997,0",
            "999999998,0",
            "999999999,0",
            "1000000000,0"
        ])
    );
}

#[test]
fn an_error_is_printed_once_and_a_long_token_is_cut() {
    let run = referee(&[], "h8 i9 h8");
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(run.stderr.matches("occupied").count(), 1, "{}", run.stderr);

    let token = "x".repeat(1 << 20);
    let run = referee(&[], format!("h8 {token} i9\n"));
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        run.stderr.matches("cannot read coordinate").count(),
        1,
        "{}",
        run.stderr
    );
    let shown = format!("\"{}…\"", "x".repeat(40));
    assert!(run.stderr.contains(&shown), "{}", run.stderr);
    // The message and the prefix of the token: a line, not a megabyte.
    assert!(run.stderr.len() < 300, "{} bytes", run.stderr.len());
}

#[test]
fn an_input_larger_than_any_record_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("huge.txt");
    // Sparse: 65 MiB of zero bytes that take no disk.
    let file = std::fs::File::create(&path).expect("created");
    file.set_len(65 << 20).expect("sized");
    let run = referee(&[path.to_str().expect("UTF-8 path")], "");
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("longer than 64 MiB"), "{}", run.stderr);
    assert!(run.stderr.len() < 300, "{} bytes", run.stderr.len());
}

/// A record in Latin-1 (an SGF's `CA[ISO-8859-1]`, or an older Windows manager's names) is read:
/// its moves are ASCII either way.
#[test]
fn a_latin1_record_is_read() {
    let sgf: &[u8] = b"(;GM[4]FF[4]CA[ISO-8859-1]SZ[15]PB[Ren\xe9]PW[J\xfcrgen];B[hh];W[ih];B[ii])";
    let run = referee(&["--json"], sgf);
    assert_eq!(run.status.code(), Some(0), "stderr: {}", run.stderr);
    let j: Value = serde_json::from_str(&run.stdout).expect("one JSON object");
    assert_eq!(j["moves"], 3);
}
