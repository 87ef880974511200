//! The engine holds against prepared attacks: in every position of `tests/data/defence.txt` the
//! opponent would win were it his move (by continuous fours, or by threats with at most two open
//! threes), and the move played in the game let him. The file lists every move that holds: after
//! it the opponent has no VCF within 20 fours, and searches of his side up to 4,000,000 nodes
//! find no forced win (see `examples/defence_positions.rs`).
//!
//! The goal is to hold 95% of them at a fixed node budget. Today the engine holds 16 of 18 at
//! 200,000 nodes (14 when the set took its present form), so the test keeps that floor and
//! prints every position it does not hold; raise it as the defence improves. The set was first
//! checked at 400,000 nodes only: rechecked at 4,000,000, 10 of its 23 positions had no hold
//! left (every listed hold loses to an attack 13 to 41 plies long), among them the 3 the engine
//! did not hold, and were dropped; 5 positions
//! from later games came in, of which the engine holds 1. Before the recheck it held 20 of the
//! 23 (16 before the leaf VCF looked 20 fours deep, 13 before forks entered the evaluation, 9
//! before the exact open-three defence).

use std::sync::atomic::AtomicBool;

use tengen_engine::{Engine, Limits};
use tengen_rules::{BoardSize, Game, Rule, parse_point, point_name};

/// Nodes the engine gets for each position.
const NODES: u64 = 200_000;

/// How many positions the engine holds today: the floor the test keeps (the goal is 95%, 18 of
/// these 18).
const HOLD_AT_LEAST: usize = 16;

struct Case {
    rule: Rule,
    moves: String,
    lost: String,
    holds: Vec<String>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/defence.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(f.len(), 4, "four fields in {l:?}");
            Case {
                rule: f[0].parse().expect("a rule"),
                moves: f[1].to_string(),
                lost: f[2].to_string(),
                holds: f[3].split_whitespace().map(String::from).collect(),
            }
        })
        .collect()
}

#[test]
fn holds_against_prepared_attacks() {
    let cases = cases();
    assert!(cases.len() >= 18, "the set has {} positions", cases.len());
    let size = BoardSize::STANDARD;
    let stop = AtomicBool::new(false);
    let limits = Limits {
        nodes: Some(NODES),
        ..Limits::default()
    };
    let mut failed = Vec::new();
    for case in &cases {
        let game = game_of(case.rule, &case.moves);
        let mut engine = Engine::new(16);
        let best = engine
            .search_game(&game, &limits, &stop, &mut |_| {})
            .best()
            .map(|p| point_name(size, p))
            .unwrap_or_default();
        if !case.holds.contains(&best) {
            failed.push(format!(
                "{} {}: played {best} (the game's {} lost too), holding: {}",
                case.rule,
                case.moves,
                case.lost,
                case.holds.join(" ")
            ));
        }
    }
    let held = cases.len() - failed.len();
    eprintln!("held {held} of {}", cases.len());
    assert!(
        held >= HOLD_AT_LEAST,
        "held {held} of {}:\n{}",
        cases.len(),
        failed.join("\n")
    );
}

/// The position of `moves` (renju notation, black first) under `rule`.
fn game_of(rule: Rule, moves: &str) -> Game {
    let size = BoardSize::STANDARD;
    let mut game = Game::new(size, rule);
    for m in moves.split_whitespace() {
        game.play(parse_point(size, m).expect("a point"))
            .expect("a legal move");
    }
    game
}
