//! Runs the real `pbrain-tengen` binary over pipes through the protocol client: against itself
//! and against the classic one-ply bot of `shared/tools/classicbot.py`, every game judged by
//! `tengen_rules::Game`.

use std::path::PathBuf;
use std::time::Duration;

use tengen_protocol::client::{Client, Swap2Answer};
use tengen_protocol::command::Info;
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
fn play(black: &mut Client, white: &mut Client, rule: Rule) -> Game {
    let mut game = Game::new(BoardSize::STANDARD, rule);
    let mut last = black.begin(WAIT).expect("black opens");
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
            .turn(last, WAIT)
            .unwrap_or_else(|e| panic!("no answer after {:?}: {e}", game.moves()));
    }
}

#[test]
fn tengen_plays_itself_to_the_end_under_renju() {
    let mut black = tengen(&[], Rule::Renju);
    let mut white = tengen(&["--level", "master"], Rule::Renju);
    let about = black.about(WAIT).expect("ABOUT");
    assert!(about.starts_with("name=\"Tengen\""), "{about}");
    let game = play(&mut black, &mut white, Rule::Renju);
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

/// A 2 s turn: the expert level thinks for a quarter of its budget, about 450 ms a move.
const EXPERT_TURN_MS: u64 = 2_000;

#[test]
fn the_expert_level_beats_classicbot_with_either_colour_under_freestyle_and_renju() {
    for (rule, tengen_black) in [
        (Rule::Freestyle, true),
        (Rule::Freestyle, false),
        (Rule::Renju, true),
        (Rule::Renju, false),
    ] {
        let Some(mut bot) = classicbot() else {
            return;
        };
        let mut brain = tengen_with_turn(&["--level", "expert"], rule, EXPERT_TURN_MS);
        let game = if tengen_black {
            play(&mut brain, &mut bot, rule)
        } else {
            play(&mut bot, &mut brain, rule)
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
