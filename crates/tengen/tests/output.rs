//! The real binary when its output cannot be written: a reader gone (a closed pipe, as `| head`
//! leaves it) ends a command quietly; a full disk is reported; neither panics.

mod common;

use std::process::Stdio;
use std::time::Duration;

fn example(name: &str) -> String {
    format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_closed_pipe_ends_a_command_quietly() {
    let mut child = common::spawn(&["bench", "--depth", "2"]);
    // The reader goes away before the first line is written.
    drop(child.stdout.take());
    let run = common::finish(child, Duration::from_secs(120));
    assert!(run.status.success(), "{:?}: {}", run.status, run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn a_full_disk_is_reported_and_fails_the_command() {
    let record = example("freestyle-five.txt");
    for args in [
        vec!["referee", record.as_str()],
        vec!["referee", "--json", record.as_str()],
        vec!["bench", "--depth", "1"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let child = std::process::Command::new(common::TENGEN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(full)
            .stderr(Stdio::piped())
            .spawn()
            .expect("tengen starts");
        let run = common::finish(child, Duration::from_secs(120));
        assert_eq!(run.status.code(), Some(1), "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("cannot write the output") && !run.stderr.contains("panicked"),
            "{args:?}: {}",
            run.stderr
        );
    }
}
