//! Feeds arbitrary text to the Gomocup protocol: the command parser line by line (whatever it
//! reads must print and read back the same), the reply and report parsers, and the whole brain
//! loop as a manager's script, which must end cleanly and say only lines a manager can read.

#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use tengen_brain::{BrainOptions, run};
use tengen_engine::Level;
use tengen_protocol::command::{Command, CommandParser, Response, SearchReport};

// Settings a script may not change: they would make one run take seconds or gigabytes.
const SLOW: [&str; 8] = [
    "timeout_turn",
    "timeout_match",
    "time_left",
    "max_node",
    "max_depth",
    "hash_size",
    "max_memory",
    "level",
];

fn slow(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next().is_some_and(|w| w.eq_ignore_ascii_case("INFO"))
        && words
            .next()
            .is_some_and(|key| SLOW.iter().any(|s| key.eq_ignore_ascii_case(s)))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parser = CommandParser::new();
    for line in text.lines() {
        if let Some(Ok(command)) = parser.feed(line) {
            let printed = command.to_string();
            assert_eq!(
                printed.parse::<Command>(),
                Ok(command),
                "read back from {printed:?}"
            );
        }
        let _ = Response::parse(line);
        let _ = SearchReport::parse(line);
    }

    // Every search is cut to a few milliseconds and two plies, on the smallest table.
    let mut script = String::from("INFO timeout_turn 5\nINFO max_depth 2\nINFO max_node 2000\n");
    for line in text.lines().filter(|l| !slow(l)) {
        script.push_str(line);
        script.push('\n');
    }
    let options = BrainOptions {
        level: Level::Master,
        seed: 1,
        hash_mb: 1,
        ..BrainOptions::default()
    };
    let mut output = Vec::new();
    run(Cursor::new(script), &mut output, &options).expect("the loop ends cleanly");
    for line in String::from_utf8_lossy(&output).lines() {
        assert!(
            Response::parse(line).is_some(),
            "unreadable output {line:?}"
        );
    }
});
