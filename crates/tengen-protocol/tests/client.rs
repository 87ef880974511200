//! The client against small stand-in brains written in `sh`: well-behaved, refusing, stalled,
//! crashing and babbling ones. (The real brain is exercised by `crates/tengen/tests/pbrain.rs`.)
#![cfg(unix)]

use std::time::{Duration, Instant};

use tengen_protocol::client::{Client, ClientError, Swap2Answer};
use tengen_protocol::command::ReportedScore;
use tengen_protocol::command::{Field, Info, Stone};
use tengen_rules::{BoardSize, Point};

const SHORT: Duration = Duration::from_secs(5);

fn sh(script: &str) -> Client {
    Client::spawn("sh", &["-c", script]).expect("sh starts")
}

// Answers like a brain, with the extras a manager must cope with: MESSAGE, DEBUG and ERROR
// lines before a move, SUGGEST instead of a move, an OK after INFO.
const FAKE: &str = r#"
while read -r line; do
  case "$line" in
    START*) echo OK ;;
    INFO*) echo OK ;;
    BEGIN) echo "MESSAGE depth 3 eval +12 nodes 99 pv 7,7 8,8"; echo "DEBUG hmm"; echo "ERROR not really"; echo "SUGGEST 7,7" ;;
    PLAY*) echo "${line#PLAY }" ;;
    TURN*) echo "UNKNOWN whatever"; echo "8,8" ;;
    BOARD) while read -r s; do [ "$s" = DONE ] && break; done; echo "9,9" ;;
    SWAP2BOARD) while read -r s; do [ "$s" = DONE ] && break; done; echo "7,7 8,8 9,9" ;;
    TAKEBACK*) echo OK ;;
    RESTART) echo OK ;;
    ABOUT) echo 'name="fake", version="1"' ;;
    END) exit 0 ;;
  esac
done
"#;

#[test]
fn a_well_behaved_brain_is_driven_through_a_game() {
    let mut brain = sh(FAKE);
    brain
        .start(BoardSize::STANDARD, SHORT)
        .expect("OK to START");
    brain.info(&Info::TimeoutTurn(1000)).expect("INFO sent");
    // SUGGEST is answered with PLAY, whose echo is the move; the stray OK (after INFO), the
    // MESSAGE, DEBUG and ERROR lines are skipped.
    assert_eq!(brain.begin(SHORT).expect("a move"), Point::new(7, 7));
    let report = brain.last_report().expect("a report");
    assert_eq!(report.depth, Some(3));
    assert_eq!(report.eval, Some(ReportedScore::Eval(12)));
    assert_eq!(report.pv, vec![Point::new(7, 7), Point::new(8, 8)]);
    assert!(brain.messages().any(|m| m.starts_with("depth 3")));
    assert!(brain.errors().any(|e| e == "ERROR not really"));
    assert_eq!(
        brain.turn(Point::new(1, 1), SHORT).expect("a move"),
        Point::new(8, 8)
    );
    assert!(brain.errors().any(|e| e.starts_with("UNKNOWN")));
    let stones = [Stone::new(Point::new(7, 7), Field::Own)];
    assert_eq!(
        brain.board(&stones, SHORT).expect("a move"),
        Point::new(9, 9)
    );
    assert_eq!(
        brain.swap2board(&[], SHORT).expect("an answer"),
        Swap2Answer::Stones(vec![Point::new(7, 7), Point::new(8, 8), Point::new(9, 9)])
    );
    brain.takeback(Point::new(9, 9), SHORT).expect("OK");
    brain.restart(SHORT).expect("OK");
    assert_eq!(
        brain.about(SHORT).expect("about"),
        "name=\"fake\", version=\"1\""
    );
    brain.clear_messages();
    assert!(brain.last_report().is_none());
    let status = brain.end(SHORT).expect("ends").expect("exits by itself");
    assert!(status.success());
}

#[test]
fn a_refused_size_is_refused() {
    let mut brain = sh(r#"read -r line; echo "ERROR only 20x20"; read -r line"#);
    match brain.start(BoardSize::STANDARD, SHORT) {
        Err(ClientError::Refused(why)) => assert_eq!(why, "only 20x20"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_stalled_brain_times_out_and_is_killed() {
    let mut brain = Client::spawn("sleep", &["30"]).expect("sleep starts");
    let pid = brain.id();
    let asked = Instant::now();
    match brain.begin(Duration::from_millis(300)) {
        Err(ClientError::Timeout(d)) => assert_eq!(d, Duration::from_millis(300)),
        other => panic!("expected a timeout, got {other:?}"),
    }
    // A hang guard (the brain sleeps 30 s), not a timing measure.
    assert!(
        asked.elapsed() < Duration::from_secs(15),
        "the client waits for a stalled brain past its time-out"
    );
    // END is not obeyed: the grace runs out and the process is killed.
    assert_eq!(brain.end(Duration::from_millis(100)).expect("ends"), None);
    drop(brain);
    assert!(!process_exists(pid), "no process left behind");
}

#[test]
fn a_brain_that_never_stops_talking_still_times_out() {
    // Lines the waits skip (MESSAGE, and OK while a move is awaited), written without end: each
    // is already queued when read, so only a deadline checked line by line ends the wait.
    for script in ["yes 'MESSAGE depth 1 eval +1'", "yes OK"] {
        let mut brain = sh(script);
        let pid = brain.id();
        match brain.turn(Point::new(7, 7), Duration::from_millis(300)) {
            Err(ClientError::Timeout(d)) => assert_eq!(d, Duration::from_millis(300)),
            other => panic!("{script}: expected a timeout, got {other:?}"),
        }
        drop(brain);
        assert!(!process_exists(pid), "{script}: no process left behind");
    }
    let mut brain = sh("yes 'MESSAGE still thinking'");
    match brain.restart(Duration::from_millis(300)) {
        Err(ClientError::Timeout(d)) => assert_eq!(d, Duration::from_millis(300)),
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[test]
fn dropping_the_client_kills_the_brain() {
    let brain = Client::spawn("sleep", &["30"]).expect("sleep starts");
    let pid = brain.id();
    assert!(process_exists(pid) || !cfg!(target_os = "linux"));
    drop(brain);
    assert!(!process_exists(pid), "no process left behind");
}

#[test]
fn a_crash_is_reported_with_the_last_words() {
    let mut brain = sh("read -r line; echo 'it hurts' >&2; exit 3");
    match brain.begin(SHORT) {
        Err(ClientError::Crashed { status, stderr }) => {
            assert_eq!(status.and_then(|s| s.code()), Some(3));
            assert!(stderr.contains("it hurts"), "{stderr}");
        }
        other => panic!("expected a crash, got {other:?}"),
    }
    // Later calls say the same, at once.
    assert!(matches!(
        brain.turn(Point::new(1, 1), SHORT),
        Err(ClientError::Crashed { .. })
    ));
}

#[test]
fn a_brain_that_is_gone_before_we_write_is_crashed() {
    let mut brain = sh("exit 0");
    std::thread::sleep(Duration::from_millis(100));
    assert!(matches!(
        brain.start(BoardSize::STANDARD, SHORT),
        Err(ClientError::Crashed { .. })
    ));
}

#[test]
fn garbage_is_garbage() {
    let mut brain = sh("read -r line; echo 'I think 7,7'; exec sleep 5");
    match brain.begin(SHORT) {
        Err(ClientError::Garbage(line)) => assert_eq!(line, "I think 7,7"),
        other => panic!("expected garbage, got {other:?}"),
    }
    let mut brain = sh("read -r line; echo 'SWAP please'; exec sleep 5");
    assert!(matches!(
        brain.swap2board(&[], SHORT),
        Err(ClientError::Garbage(_))
    ));
}

#[test]
fn a_missing_program_cannot_be_spawned() {
    assert!(matches!(
        Client::spawn("/nonexistent/pbrain-nothing", &[] as &[&str]),
        Err(ClientError::Spawn(_))
    ));
}

#[test]
fn unbounded_boards_are_refused_without_asking() {
    let mut brain = sh(FAKE);
    assert!(matches!(
        brain.start(BoardSize::UNBOUNDED, SHORT),
        Err(ClientError::Refused(_))
    ));
}

fn process_exists(pid: u32) -> bool {
    // A reaped process leaves no /proc entry (Linux); elsewhere, assume the best.
    if cfg!(target_os = "linux") {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
    } else {
        false
    }
}
