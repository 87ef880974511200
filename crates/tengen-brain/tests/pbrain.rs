//! Runs the real `pbrain-tengen` binary over pipes through the protocol client: against itself
//! and against the classic one-ply bot of `shared/tools/classicbot.py`, every game judged by
//! `tengen_rules::Game`.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use tengen_protocol::client::{Client, Swap2Answer};
use tengen_protocol::command::{Info, SearchReport, parse_point};
use tengen_rules::{BoardSize, Color, EndReason, Game, Rule};

const BRAIN: &str = env!("CARGO_BIN_EXE_pbrain-tengen");
/// Time for one move, told to Tengen with `INFO timeout_turn`.
const TURN_MS: u64 = 200;
/// How long the client waits for a move: the turn plus room for a busy two-core machine.
const WAIT: Duration = Duration::from_secs(5);

fn tengen(args: &[&str], rule: Rule) -> Client {
    tengen_with_turn(args, rule, TURN_MS)
}

fn tengen_with_turn(args: &[&str], rule: Rule, turn_ms: u64) -> Client {
    let mut brain = Client::spawn(BRAIN, args).expect("pbrain-tengen starts");
    brain
        .start(BoardSize::STANDARD, WAIT)
        .expect("OK to START 15");
    brain
        .info(&Info::TimeoutTurn(turn_ms))
        .expect("INFO timeout_turn");
    brain
        .info(&Info::Rule(rule.gomocup_bits()))
        .expect("INFO rule");
    brain
        .info(&Info::MaxMemory(64 << 20))
        .expect("INFO max_memory");
    brain
}

fn classicbot() -> Option<Client> {
    let script = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/tools/classicbot.py"
    ));
    if !script.exists() {
        eprintln!(
            "note: {} is absent; skipping the game against it",
            script.display()
        );
        return None;
    }
    let mut bot = Client::spawn("python3", &[script.as_os_str(), "expert".as_ref()])
        .expect("python3 runs classicbot");
    bot.start(BoardSize::STANDARD, WAIT)
        .expect("classicbot starts");
    Some(bot)
}

/// Plays a whole game, `black` opening with BEGIN, each move relayed to the other with TURN;
/// the game as the rules judge it.
fn play(black: &mut Client, white: &mut Client, rule: Rule, wait: Duration) -> Game {
    let mut game = Game::new(BoardSize::STANDARD, rule);
    let mut last = black.begin(wait).expect("black opens");
    loop {
        if let Err(e) = game.play(last).map(|_| ()) {
            panic!("illegal move {last:?} after {:?}: {e}", game.moves());
        }
        if game.outcome().is_some() {
            return game;
        }
        let mover = match game.to_move() {
            Some(Color::Black) => &mut *black,
            _ => &mut *white,
        };
        last = mover
            .turn(last, wait)
            .unwrap_or_else(|e| panic!("no answer after {:?}: {e}", game.moves()));
    }
}

#[test]
fn tengen_plays_itself_to_the_end_under_renju() {
    let mut black = tengen(&[], Rule::Renju);
    let mut white = tengen(&["--level", "master"], Rule::Renju);
    let about = black.about(WAIT).expect("ABOUT");
    assert!(about.starts_with("name=\"Tengen\""), "{about}");
    let game = play(&mut black, &mut white, Rule::Renju, WAIT);
    let outcome = game.outcome().expect("the game is over");
    eprintln!("self-play: {outcome} in {} moves", game.moves().len());
    // Tengen's black never plays a forbidden point: the game ends by a five or a full board.
    assert!(
        matches!(outcome.reason, EndReason::Five | EndReason::BoardFull),
        "{outcome} after {:?}",
        game.moves()
    );
    // Thinking was reported along the way.
    assert!(black.last_report().is_some_and(|r| r.depth.is_some()));
    assert_eq!(
        black.end(WAIT).expect("END").map(|s| s.success()),
        Some(true)
    );
    assert_eq!(
        white.end(WAIT).expect("END").map(|s| s.success()),
        Some(true)
    );
}

/// The expert's search without its clock, so that the games repeat on any machine, however
/// busy: at most ten plies (as the expert) and a node budget instead of a time budget (about
/// what the expert searched in its half-second in a debug build). The turn is long enough never
/// to end a search: it and the wait for each answer are hang guards.
const STRENGTH_NODES: u64 = 20_000;
const STRENGTH_DEPTH: u32 = 10;
const STRENGTH_TURN_MS: u64 = 120_000;
const STRENGTH_WAIT: Duration = Duration::from_secs(120);

#[test]
fn the_expert_search_beats_classicbot_with_either_colour_under_freestyle_and_renju() {
    for (rule, tengen_black) in [
        (Rule::Freestyle, true),
        (Rule::Freestyle, false),
        (Rule::Renju, true),
        (Rule::Renju, false),
    ] {
        let Some(mut bot) = classicbot() else {
            return;
        };
        // The master's search is the expert's without its time cap; one thread, as the expert.
        let mut brain = tengen_with_turn(&["--level", "master"], rule, STRENGTH_TURN_MS);
        brain
            .info(&Info::MaxNode(STRENGTH_NODES))
            .expect("INFO max_node");
        brain
            .info(&Info::MaxDepth(STRENGTH_DEPTH))
            .expect("INFO max_depth");
        let game = if tengen_black {
            play(&mut brain, &mut bot, rule, STRENGTH_WAIT)
        } else {
            play(&mut bot, &mut brain, rule, STRENGTH_WAIT)
        };
        let tengen_colour = if tengen_black {
            Color::Black
        } else {
            Color::White
        };
        let outcome = game.outcome().expect("the game is over");
        eprintln!(
            "against classicbot under {rule:?}: {outcome} in {} moves",
            game.moves().len()
        );
        assert_eq!(
            outcome.winner,
            Some(tengen_colour),
            "{outcome} after {:?}",
            game.moves()
        );
        brain.end(WAIT).expect("END");
        bot.end(WAIT).expect("END");
    }
}

#[test]
fn the_level_flag_and_swap2_work_in_the_binary() {
    let mut brain = tengen(&["--level", "beginner", "--seed", "3"], Rule::Standard);
    match brain.swap2board(&[], WAIT).expect("a swap2 answer") {
        Swap2Answer::Stones(stones) => assert_eq!(stones.len(), 3),
        other => panic!("three stones expected, got {other:?}"),
    }
    brain.restart(WAIT).expect("RESTART");
    let first = brain.begin(WAIT).expect("a move");
    assert!(BoardSize::STANDARD.contains(first));
    brain.end(WAIT).expect("END");

    let mut bad = Client::spawn(BRAIN, &["--level", "grandmaster"]).expect("starts");
    // A bad flag: the binary exits with an error before speaking the protocol.
    assert!(bad.start(BoardSize::STANDARD, WAIT).is_err());
}

/// Far longer than any answer takes, even on a busy machine: reaching it means the brain hangs.
const HANG: Duration = Duration::from_secs(30);

/// The real brain over raw pipes, line by line, for input the protocol client never sends.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Raw {
    fn spawn(args: &[&str]) -> Raw {
        let mut command = Command::new(BRAIN);
        command.args(args);
        Raw::spawn_command(command)
    }

    /// The brain with at most `kb` kilobytes of address space (`ulimit -v`), so that the system
    /// refuses it a large table.
    #[cfg(target_os = "linux")]
    fn spawn_limited(kb: u64, args: &[&str]) -> Raw {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("ulimit -v {kb} && exec \"$0\" \"$@\""))
            .arg(BRAIN)
            .args(args);
        Raw::spawn_command(command)
    }

    fn spawn_command(mut command: Command) -> Raw {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pbrain-tengen starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Raw {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn send(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("input open");
        writeln!(stdin, "{text}").expect("the brain reads its input");
        stdin.flush().expect("flushed");
    }

    /// The next line that is not a MESSAGE.
    fn reply(&mut self) -> String {
        loop {
            match self.lines.recv_timeout(HANG) {
                Ok(line) if line.starts_with("MESSAGE") => {}
                Ok(line) => return line,
                Err(RecvTimeoutError::Timeout) => panic!("no answer within {HANG:?}: a hang"),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the brain closed its output: {:?}", self.child.wait())
                }
            }
        }
    }

    /// The next line that is not a MESSAGE, and the MESSAGE texts before it.
    fn reply_with_messages(&mut self) -> (Vec<String>, String) {
        let mut messages = Vec::new();
        loop {
            match self.lines.recv_timeout(HANG) {
                Ok(line) => match line.strip_prefix("MESSAGE ") {
                    Some(text) => messages.push(text.to_string()),
                    None => return (messages, line),
                },
                Err(RecvTimeoutError::Timeout) => panic!("no answer within {HANG:?}: a hang"),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the brain closed its output: {:?}", self.child.wait())
                }
            }
        }
    }

    /// Closes the input and waits for the brain to exit.
    fn finish(&mut self) -> (ExitStatus, String) {
        self.stdin = None;
        let deadline = Instant::now() + HANG;
        loop {
            if let Some(status) = self.child.try_wait().expect("waitable") {
                let mut stderr = String::new();
                if let Some(mut e) = self.child.stderr.take() {
                    std::io::Read::read_to_string(&mut e, &mut stderr).ok();
                }
                return (status, stderr);
            }
            if Instant::now() > deadline {
                self.child.kill().ok();
                panic!("the brain did not exit within {HANG:?}");
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

// A failed test must not leave a brain thinking for minutes on a shared machine.
impl Drop for Raw {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

#[test]
fn yxstop_and_end_queued_behind_another_command_stop_the_search_at_once() {
    let mut brain = Raw::spawn(&[]);
    brain.send("START 15");
    assert_eq!(brain.reply(), "OK");
    // Two minutes a move: only YXSTOP brings the move back before the test gives up on it.
    brain.send("INFO timeout_turn 120000");
    brain.send("INFO rule 4");
    // BOARD starts a search; YXSHOWFORBID must wait for its move, and YXSTOP comes after it.
    brain.send("BOARD\n7,7,2\n8,8,1\n8,7,2\n6,8,1\nDONE");
    brain.send("YXSHOWFORBID");
    brain.send("YXSTOP");
    let answer = brain.reply();
    let first = parse_point(&answer).unwrap_or_else(|| panic!("a move first, not {answer:?}"));
    assert!(BoardSize::STANDARD.contains(first));
    let forbid = brain.reply();
    assert!(forbid.starts_with("FORBID"), "{forbid}");
    // Again with a TURN, and another command that waits (RESTART) between it and YXSTOP.
    brain.send("TURN 9,9");
    brain.send("RESTART");
    brain.send("YXSTOP");
    let answer = brain.reply();
    assert!(parse_point(&answer).is_some(), "a move, not {answer:?}");
    assert_eq!(brain.reply(), "OK");
    // END behind a waiting command ends the brain without the two minutes.
    brain.send("BEGIN");
    brain.send("YXSHOWFORBID");
    brain.send("END");
    let (status, stderr) = brain.finish();
    assert!(status.success(), "{status:?}: {stderr}");
}

#[test]
fn a_hash_size_beyond_the_machine_is_refused_in_a_message_not_an_abort() {
    let mut brain = Raw::spawn(&[]);
    // No max_memory: the machine's memory bounds the table. INFO has no answer: the refusal
    // is a MESSAGE.
    for kb in ["2000000000", "18446744073709551615"] {
        brain.send(&format!("INFO hash_size {kb}"));
    }
    brain.send("START 15");
    let (messages, answer) = brain.reply_with_messages();
    assert_eq!(answer, "OK");
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages.iter().all(|m| m.starts_with("INFO hash_size")),
        "{messages:?}"
    );
    brain.send("INFO timeout_turn 300");
    brain.send("BEGIN");
    assert_eq!(brain.reply(), "7,7");
    // Within what max_memory allows (half of it), a table is taken; beyond it, refused.
    brain.send("INFO max_memory 104857600");
    brain.send("INFO hash_size 40960");
    brain.send("INFO hash_size 1048576");
    brain.send("TURN 8,8");
    let (messages, answer) = brain.reply_with_messages();
    assert!(
        messages[0].starts_with("INFO hash_size 1048576") && messages[0].contains("max_memory"),
        "{messages:?}"
    );
    assert!(parse_point(&answer).is_some(), "a move, not {answer:?}");
    brain.send("END");
    let (status, stderr) = brain.finish();
    assert!(status.success(), "{status:?}: {stderr}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_table_the_system_refuses_is_reported_in_a_message_and_the_brain_plays_on() {
    // 1 GB of address space: room for the brain and a 64 MB table, none for a 2 GB one.
    const CAP_KB: u64 = 1 << 20;
    const REFUSED_MB: u64 = 2048;
    if tengen_brain::hash_limit_mb(None) < REFUSED_MB {
        eprintln!("note: this machine caps the table below {REFUSED_MB} MB; skipping");
        return;
    }
    let mut brain = Raw::spawn_limited(CAP_KB, &[]);
    let mut taken = vec![];
    // Answers a TURN on the first free point of a few far apart; the brain's move after it.
    let turn = |brain: &mut Raw, taken: &mut Vec<String>| {
        let theirs = ["0,0", "14,0", "0,14", "14,14", "0,7", "14,7"]
            .into_iter()
            .find(|p| !taken.iter().any(|t| t == p))
            .expect("a free point");
        taken.push(theirs.to_string());
        brain.send(&format!("TURN {theirs}"));
    };
    let moved = |answer: String, taken: &mut Vec<String>| {
        assert!(parse_point(&answer).is_some(), "a move, not {answer:?}");
        taken.push(answer);
    };
    brain.send("START 15");
    assert_eq!(brain.reply(), "OK");
    brain.send("INFO timeout_turn 300");
    brain.send(&format!("INFO hash_size {}", REFUSED_MB << 10));
    // The first search: no table yet, so the default size, and the move on time. The refusal
    // is a MESSAGE: the manager takes the first other line for the move (an ERROR, for
    // Piskvork, is a move that is not one, and the game lost).
    brain.send("BEGIN");
    let (messages, answer) = brain.reply_with_messages();
    assert_eq!(
        messages[0],
        "no memory for a 2048 MB hash table; the table is 64 MB instead"
    );
    moved(answer, &mut taken);
    // The size asked for is the same: not asked again, nor the refusal said again.
    turn(&mut brain, &mut taken);
    let (messages, answer) = brain.reply_with_messages();
    assert!(
        messages.iter().all(|m| !m.contains("no memory")),
        "{messages:?}"
    );
    moved(answer, &mut taken);
    // A size that fits is taken; one refused after it leaves it as it was.
    brain.send("INFO hash_size 16384");
    turn(&mut brain, &mut taken);
    moved(brain.reply(), &mut taken);
    brain.send(&format!("INFO hash_size {}", REFUSED_MB << 10));
    turn(&mut brain, &mut taken);
    let (messages, answer) = brain.reply_with_messages();
    assert_eq!(
        messages[0],
        "no memory for a 2048 MB hash table; the table stays at 16 MB"
    );
    moved(answer, &mut taken);
    brain.send("END");
    let (status, stderr) = brain.finish();
    assert!(status.success(), "{status:?}: {stderr}");
}

#[test]
fn a_hash_flag_beyond_the_machine_is_refused_at_start() {
    let mut brain = Raw::spawn(&["--hash", "99999999"]);
    // The brain may already be gone: what it says matters, not whether it read this.
    if let Some(stdin) = brain.stdin.as_mut() {
        stdin.write_all(b"START 15\nBEGIN\n").ok();
    }
    let (status, stderr) = brain.finish();
    assert_eq!(status.code(), Some(2), "{status:?}: {stderr}");
    assert!(stderr.contains("--hash 99999999"), "{stderr}");
}

#[test]
fn an_eval_file_is_read_at_start_and_a_bad_one_refused_with_its_line() {
    let dir = std::env::temp_dir().join(format!("tengen-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "tempo 3\nown_three_open three\n").expect("written");
    let mut brain = Raw::spawn(&["--eval", bad.to_str().expect("a path")]);
    if let Some(stdin) = brain.stdin.as_mut() {
        stdin.write_all(b"START 15\nBEGIN\n").ok();
    }
    let (status, stderr) = brain.finish();
    assert_eq!(status.code(), Some(2), "{status:?}: {stderr}");
    assert!(stderr.contains("line 2"), "{stderr}");

    // The built-in hand-set weights, as a file: the brain plays with them.
    let hand_set = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tengen-engine/data/eval/hand-set.txt"
    );
    let mut brain = tengen(&["--eval", hand_set], Rule::Renju);
    let first = brain.begin(WAIT).expect("a move");
    assert!(BoardSize::STANDARD.contains(first));
    brain.end(WAIT).expect("END");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn threads_are_taken_from_the_command_line_and_out_of_range_refused() {
    for bad in ["0", "65", "many"] {
        let mut brain = Raw::spawn(&["--threads", bad]);
        let (status, stderr) = brain.finish();
        assert_eq!(
            status.code(),
            Some(2),
            "--threads {bad}: {status:?}: {stderr}"
        );
        assert!(stderr.contains("--threads"), "{stderr}");
    }
    let mut brain = tengen(&["--threads", "2"], Rule::Freestyle);
    let first = brain.begin(WAIT).expect("a move");
    assert!(BoardSize::STANDARD.contains(first));
    brain.end(WAIT).expect("END");
}

#[test]
fn yixin_boards_start_with_width_and_height() {
    // Yixin-Board starts every game with `start W H`, square boards included.
    let mut brain = Raw::spawn(&[]);
    brain.send("start 15 15");
    assert_eq!(brain.reply(), "OK");
    brain.send("INFO timeout_turn 200");
    brain.send("BEGIN");
    assert_eq!(brain.reply(), "7,7");
    brain.send("START 20 15");
    assert_eq!(brain.reply(), "OK");
    // A 20 x 15 board: 19,14 is its far corner, 14,19 is off it.
    brain.send("TURN 14,19");
    assert!(brain.reply().starts_with("ERROR"));
    brain.send("TURN 19,14");
    let answer = brain.reply();
    let p = parse_point(&answer).unwrap_or_else(|| panic!("a move, not {answer:?}"));
    assert!(
        BoardSize::rect(20, 15).expect("a size").contains(p),
        "{p:?}"
    );
    brain.send("END");
    let (status, stderr) = brain.finish();
    assert!(status.success(), "{status:?}: {stderr}");
}

#[test]
fn yixin_boards_rule_2_is_renju() {
    // Yixin-Board's renju is `INFO rule 2` (Gomocup's renju bit is 4).
    let mut brain = Raw::spawn(&[]);
    brain.send("START 15");
    assert_eq!(brain.reply(), "OK");
    brain.send("INFO timeout_turn 200");
    brain.send("INFO rule 2");
    // Black (the brain: as many stones as the opponent) on g8, i8, h7, h9: h8 is a double three.
    let block = "6,7,1\n0,0,2\n8,7,1\n0,14,2\n7,6,1\n14,0,2\n7,8,1\n14,14,2\nDONE";
    brain.send(&format!("YXBOARD\n{block}"));
    brain.send("YXSHOWFORBID");
    assert_eq!(brain.reply(), "FORBID 0707.");
    // Black to move never takes it.
    brain.send(&format!("BOARD\n{block}"));
    let answer = brain.reply();
    assert!(parse_point(&answer).is_some(), "a move, not {answer:?}");
    assert_ne!(answer, "7,7", "h8 is forbidden to black");
    // Gomocup's renju and Piskvork's renju continuous game (4 + 2) are renju as before; the
    // other values are not.
    brain.send(&format!("YXBOARD\n{block}"));
    for (bits, forbid) in [
        ("4", "FORBID 0707."),
        ("6", "FORBID 0707."),
        ("0", "FORBID ."),
        ("3", "FORBID ."),
    ] {
        brain.send(&format!("INFO rule {bits}"));
        brain.send("YXSHOWFORBID");
        assert_eq!(brain.reply(), forbid, "INFO rule {bits}");
    }
    brain.send("END");
    let (status, stderr) = brain.finish();
    assert!(status.success(), "{status:?}: {stderr}");
}

#[test]
fn piskvorks_rule_8_lets_a_six_win_and_rule_9_does_not() {
    // Piskvork's 8 is caro with overlines, 9 caro (exactly five); bit 2 (continuous game)
    // changes neither. One side has d8 e8 f8 and h8 i8: g8 makes a six, which wins under 8 and
    // is nothing under 9. The brain blocks the opponent's six, and makes its own.
    let board = |six_owner: u8| {
        let mut lines: Vec<String> = ["3,7", "4,7", "5,7", "7,7", "8,7", "10,11"]
            .iter()
            .map(|p| format!("{p},{six_owner}"))
            .collect();
        let other = 3 - six_owner;
        lines.extend(
            ["12,2", "12,3", "2,12", "1,12", "13,13"]
                .iter()
                .map(|p| format!("{p},{other}")),
        );
        if six_owner == 1 {
            // One more stone of the opponent's, so that the brain is to move.
            lines.push("0,0,2".into());
        }
        format!("BOARD\n{}\nDONE", lines.join("\n"))
    };
    let mut brain = Raw::spawn(&[]);
    brain.send("START 15");
    assert_eq!(brain.reply(), "OK");
    brain.send("INFO timeout_turn 300");
    for (rule, six_wins) in [("8", true), ("9", false), ("10", true), ("11", false)] {
        brain.send(&format!("INFO rule {rule}"));
        for (six_owner, whose) in [(2, "his"), (1, "its own")] {
            brain.send(&board(six_owner));
            let answer = brain.reply();
            assert!(parse_point(&answer).is_some(), "a move, not {answer:?}");
            assert_eq!(
                answer == "6,7",
                six_wins,
                "INFO rule {rule}, {whose} six: {answer}"
            );
        }
    }
    brain.send("END");
    let (status, stderr) = brain.finish();
    assert!(status.success(), "{status:?}: {stderr}");
}

/// The deepest depth the MESSAGE search reports name.
fn deepest(messages: &[String]) -> u32 {
    messages
        .iter()
        .filter_map(|m| SearchReport::parse(m)?.depth)
        .max()
        .unwrap_or(0)
}

#[test]
fn yixin_boards_max_node_minus_one_is_no_limit() {
    let mut brain = Raw::spawn(&[]);
    brain.send("START 15");
    assert_eq!(brain.reply(), "OK");
    brain.send("INFO timeout_turn 300");
    brain.send("INFO max_node 5");
    brain.send("BEGIN");
    let (messages, answer) = brain.reply_with_messages();
    assert_eq!(answer, "7,7");
    assert!(deepest(&messages) <= 2, "{messages:?}");
    // Yixin-Board's "no limit" (its unlimited level): the search goes as deep as the turn allows.
    brain.send("INFO max_node -1");
    brain.send("TURN 8,8");
    let (messages, answer) = brain.reply_with_messages();
    assert!(parse_point(&answer).is_some(), "a move, not {answer:?}");
    assert!(deepest(&messages) >= 4, "{messages:?}");
    brain.send("END");
    let (status, stderr) = brain.finish();
    assert!(status.success(), "{status:?}: {stderr}");
}

#[test]
fn an_info_the_brain_cannot_follow_is_answered_by_nothing_but_a_message() {
    // A manager reads nothing after INFO and takes the next line that is not a MESSAGE (or a
    // DEBUG) for the answer to its next command: Piskvork reads an ERROR after BEGIN as a move
    // that is not one, and the brain loses the game.
    let bad = [
        "INFO caution_factor abc",
        "INFO timeout_turn soon",
        "INFO time_left 1000.5",
        "INFO max_memory -1",
        "INFO evaluate a,b",
        "INFO",
        "INFO level grandmaster",
        "INFO hash_size 18446744073709551615",
    ];
    let mut brain = Raw::spawn(&[]);
    // Before START (the protocol allows INFO there), and between START and BEGIN.
    for line in bad {
        brain.send(line);
    }
    brain.send("START 15");
    let (messages, answer) = brain.reply_with_messages();
    assert_eq!(answer, "OK", "{messages:?}");
    assert_eq!(
        messages.len(),
        bad.len(),
        "one MESSAGE for each: {messages:?}"
    );
    assert!(messages[0].contains("caution_factor"), "{messages:?}");
    brain.send("INFO timeout_turn 200");
    for line in bad {
        brain.send(line);
    }
    brain.send("BEGIN");
    let (messages, answer) = brain.reply_with_messages();
    assert_eq!(answer, "7,7", "{messages:?}");
    // The settings stay as they were: the turn is still 200 ms.
    brain.send("INFO timeout_turn soon");
    let asked = Instant::now();
    brain.send("TURN 8,8");
    let answer = brain.reply();
    assert!(parse_point(&answer).is_some(), "a move, not {answer:?}");
    assert!(
        asked.elapsed() < Duration::from_millis(1500),
        "{:?}",
        asked.elapsed()
    );
    brain.send("END");
    let (status, stderr) = brain.finish();
    assert!(status.success(), "{status:?}: {stderr}");
}

#[test]
fn yxshowinfo_states_the_thread_and_hash_limits_for_yixin_board() {
    // Yixin-Board's start-up: it sets its thread slider from MAX_THREAD_NUM (one thread
    // without it) and its hash slider, 2^k kilobytes, from MAX_HASH_SIZE.
    let mut brain = Raw::spawn(&[]);
    brain.send("info show_detail 1");
    brain.send("yxshowinfo");
    brain.send("START 15 15");
    let (messages, answer) = brain.reply_with_messages();
    assert_eq!(answer, "OK", "{messages:?}");
    let value = |key: &str| -> u64 {
        let text = messages
            .iter()
            .find_map(|m| m.strip_prefix(&format!("INFO {key} ")))
            .unwrap_or_else(|| panic!("no {key} in {messages:?}"));
        text.parse().unwrap_or_else(|_| panic!("{key} {text:?}"))
    };
    let cores = thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    assert_eq!(value("MAX_THREAD_NUM"), cores.min(64));
    let limit_kb = tengen_brain::hash_limit_mb(None) * 1024;
    assert_eq!(value("MAX_HASH_SIZE"), u64::from(limit_kb.ilog2()));
    // The largest table the slider then offers is within the limit: not refused.
    brain.send(&format!(
        "INFO hash_size {}",
        1u64 << value("MAX_HASH_SIZE")
    ));
    brain.send("ABOUT");
    let (messages, answer) = brain.reply_with_messages();
    assert!(answer.starts_with("name="), "{answer}");
    assert!(messages.is_empty(), "{messages:?}");
    brain.send("END");
    let (status, stderr) = brain.finish();
    assert!(status.success(), "{status:?}: {stderr}");
}

#[test]
fn a_line_read_while_thinking_is_answered_after_the_move() {
    // Answers come in the order of the commands: UNKNOWN and ERROR for lines that arrive while
    // the brain thinks wait for the move, as every command that is not INFO, ABOUT, YXSTOP or
    // END does.
    let mut brain = Raw::spawn(&[]);
    brain.send("START 15");
    assert_eq!(brain.reply(), "OK");
    brain.send("INFO timeout_turn 300");
    brain.send("BEGIN");
    brain.send("FLY 1,2");
    brain.send("TURN");
    assert_eq!(brain.reply(), "7,7");
    assert_eq!(brain.reply(), "UNKNOWN FLY 1,2");
    assert!(brain.reply().starts_with("ERROR TURN"));
    brain.send("END");
    let (status, stderr) = brain.finish();
    assert!(status.success(), "{status:?}: {stderr}");
}

/// A bug in the engine must not lose the game on time: with the test-only fault hook making
/// every search panic, the real binary still answers each move with a legal one (and the swap2
/// opening with three stones), says why in a MESSAGE, and keeps going until END.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the fault hook is compiled out of builds without debug assertions"
)]
fn a_search_that_panics_still_answers_every_move() {
    let mut command = Command::new(BRAIN);
    command.env(
        tengen_brain::fault::VARIABLE,
        tengen_brain::fault::SEARCH_PANIC,
    );
    let mut brain = Client::spawn_command(command).expect("pbrain-tengen starts");
    brain.start(BoardSize::STANDARD, WAIT).expect("OK to START");
    brain
        .info(&Info::Rule(Rule::Renju.gomocup_bits()))
        .expect("INFO rule");
    let mut game = Game::new(BoardSize::STANDARD, Rule::Renju);
    let first = brain.begin(WAIT).expect("a move despite the panic");
    game.play(first).expect("a legal first move");
    // Tengen is black under renju: each fallback move must keep off black's forbidden points
    // too.
    for _ in 0..20 {
        if game.outcome().is_some() {
            break;
        }
        // White fills the even columns of the top rows: never five in a row, so the game
        // runs its twenty moves.
        let reply = (0..15)
            .flat_map(|y| {
                (0..15)
                    .step_by(2)
                    .map(move |x| tengen_rules::Point::new(x, y))
            })
            .find(|&p| game.clone().play(p).is_ok())
            .expect("white has a move");
        game.play(reply).expect("white's move");
        if game.outcome().is_some() {
            break;
        }
        let answer = brain.turn(reply, WAIT).expect("a move despite the panic");
        game.play(answer)
            .unwrap_or_else(|e| panic!("the fallback {answer:?} is illegal: {e}"));
    }
    assert!(
        brain
            .messages()
            .any(|m| m.contains("internal error while thinking")),
        "the brain says its search failed"
    );
    assert_eq!(brain.errors().count(), 0, "no move was answered with ERROR");
    brain.restart(WAIT).expect("RESTART after the panics");
    match brain.swap2board(&[], WAIT).expect("a swap2 answer") {
        Swap2Answer::Stones(stones) => assert_eq!(stones.len(), 3),
        other => panic!("three stones expected, got {other:?}"),
    }
    let status = brain
        .end(WAIT)
        .expect("END")
        .expect("the brain exits on END");
    assert!(status.success(), "a clean exit, not a crash: {status:?}");
}
