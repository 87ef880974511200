//! Feeds arbitrary text to an online game as WebSocket frames, one JSON object a line, as the
//! server reads them: a frame that parses must print and parse back the same, and the game's
//! table must take any sequence of them (moves at any coordinates included) without a panic,
//! its state printing and parsing back the same after each.

#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use tengen_rules::{Pending, Seat};
use tengen_server::online::table::{Action, Table, TableSettings};
use tengen_wire::ClockSpec;
use tengen_wire::{ClientMsg, ServerMsg};

const SIZES: [&str; 4] = ["15", "unbounded", "16x14", "100"];
const RULES: [&str; 5] = ["freestyle", "standard", "renju", "caro", "caro-overlines"];
const OPENINGS: [&str; 4] = ["free", "beginner", "swap", "swap2"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let settings = TableSettings {
        // Five rules, so the byte's remainder rather than two of its bits: each rule still
        // meets four in five of the combinations of the other fields.
        rule: RULES[usize::from(pick) % RULES.len()].to_string(),
        size: SIZES[usize::from((pick >> 2) & 3)].to_string(),
        opening: OPENINGS[usize::from((pick >> 4) & 3)].to_string(),
        // A clock that runs out now and then, as the frames' times advance.
        clock: if pick & 0x80 != 0 {
            ClockSpec::PerMove { ms: 5_000 }
        } else {
            ClockSpec::None
        },
        forbidden_loses: pick & 0x40 != 0,
        listed: true,
    };
    let mut table = Table::new("fuzz".into(), settings, 60_000).expect("valid settings");
    let now = Instant::now();
    for (i, name) in ["a", "b"].into_iter().enumerate() {
        table
            .join(name.into(), format!("token{i}"), None, now)
            .expect("a free seat");
    }
    let text = String::from_utf8_lossy(rest);
    for (i, line) in text.lines().enumerate() {
        let Ok(msg) = serde_json::from_str::<ClientMsg>(line) else {
            continue;
        };
        let printed = serde_json::to_string(&msg).expect("a frame prints");
        assert_eq!(
            serde_json::from_str::<ClientMsg>(&printed).ok(),
            Some(msg.clone()),
            "read back from {printed:?}"
        );
        let Some(action) = Action::of_message(msg) else {
            continue;
        };
        // Mostly the seat the game waits for, so that games go on; now and then the other.
        let waited = match table.game().pending() {
            Pending::Move { seat, .. } | Pending::Choice { seat, .. } => seat,
            Pending::Over => Seat::First,
        };
        let seat = if i % 7 == 6 { waited.other() } else { waited };
        let later = now + Duration::from_millis(700 * i as u64);
        let _ = table.check_time(later);
        let _ = table.act(seat, action, later);
        let state = table.state(later, [true, true], 0);
        let frame = serde_json::to_string(&ServerMsg::State(state.clone())).expect("prints");
        match serde_json::from_str::<ServerMsg>(&frame) {
            Ok(ServerMsg::State(back)) => assert_eq!(back, state),
            other => panic!("state read back as {other:?}"),
        }
    }
});
