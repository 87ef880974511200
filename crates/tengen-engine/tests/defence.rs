//! The engine holds against prepared attacks: in every position of `tests/data/defence.txt` the
//! opponent would win were it his move (by continuous fours, or by threats with at most two open
//! threes), and the move played in the game let him. The file lists every move that holds: after
//! it the opponent has no VCF within 20 fours, and searches of his side up to 4,000,000 nodes
//! find no forced win (see `examples/defence_positions.rs`).
//!
//! The goal is to hold 95% of them at a fixed node budget, 1,000,000 nodes (what one thread
//! searches in about 2 s a move on the 2-core test machine). Of the 81 positions the engine holds
//! 77 there (95.1%, the goal) and 72 at 200,000 nodes (about half a second). Those are the
//! floors the two tests keep, so that a change that loses a defence shows. Their history, all
//! in `src/search.rs` and `docs/levels.md`:
//! - freestyle's negative extension (Step 6d, 2026-12-02): 76 and 71 -> 79 and 68. It held the
//!   three freestyle positions missed at 1,000,000 nodes (in two of them the moves played lost
//!   to attacks 23 plies long) and missed three freestyle ones more at 200,000. The two it
//!   still missed at 1,000,000 were renju positions that came in that day;
//! - freestyle's correction history (Step 9b, 2026-12-06; +51.6 +/- 49.2 Elo in self-play):
//!   79 -> 77 at 1,000,000 nodes, two freestyle positions given up (counted in full instead of
//!   at half it gave up three, below the goal);
//! - renju's correction history (the same day): 77 and 68 -> 78 and 69, one renju position
//!   more at each budget;
//! - freestyle's second correction table, by the last stone (the same day; +39.5 +/- 39.1 Elo
//!   in self-play): 78 -> 77 at 1,000,000 nodes, one freestyle position given up;
//! - the root's first move in an aspiration window (Step A, 2026-12-06, freestyle and renju):
//!   77 and 69 -> 77 and 72. At 1,000,000 nodes it held the renju position and two of the
//!   three freestyle ones missed before, and missed three other freestyle ones; the whole root
//!   in the window held 75.
//!
//! Every position not held is printed.
//!
//! Until 2026-12-02 the set had 14 positions, and the engine held all 14 at 1,000,000 nodes and
//! 12 at 200,000. So small a set could not tell one change from another (several lost or won a
//! single position by the table's size alone, see `docs/levels.md`, 2026-11-28), and holding 95%
//! of it meant holding all. The 67 positions added then are every position to defend in 100
//! freestyle games (40 positions) and 100 renju games (27) against Carbon 2.3, without a choice
//! among them. (Before that: 12 of the 14 held at 200,000 nodes before freestyle took the narrow
//! tree, which sees the holding i7 of `h8 i9 e7 f8 i5 h9 f6 g9 f9 i10 g5 h4 d8 c9 h5 f5` from
//! 400,000 nodes instead of 150,000 and won its self-play games; see `docs/levels.md`,
//! 2026-11-28; 11 until a search cut short stopped playing a first move its last iteration had
//! just proven lost.)
//!
//! The engine here has a 64 MB table, what `pbrain-tengen` and `tengen analyze` take by
//! default. The result leans on the table size (see `docs/levels.md`, 2026-11-28): over
//! 600,000, 800,000, 1,000,000, 1,200,000 and 1,500,000 nodes, the search with freestyle's
//! late-move reductions at / 1.4 holds 12, 14, 14, 14 and 14 of 14 with 64 MB and 12, 13, 13,
//! 14 and 14 with 16 MB; the search before it (/ 1.8) held 11, 12, 13, 13 and 13 with 64 MB and
//! 13, 14, 14, 14 and 14 with 16 MB, the size this test used until then.
//!
//! The set's history: first checked at 400,000 nodes only; rechecked at 4,000,000, 10 of its 23
//! positions had no hold left (every listed hold loses to an attack 13 to 41 plies long), among
//! them the 3 the engine did not hold, and were dropped; 5 positions from later games came in,
//! of which the engine then held 1, and 2 more from the games the 2026-11-26 build lost to
//! Carbon 2.3 at 500 ms a move, of which it holds 1 at 1,000,000 nodes and none at 200,000.
//! Before the recheck it held 20 of the 23 at 200,000 nodes (16 before the leaf VCF looked 20
//! fours deep, 13 before forks entered the evaluation, 9 before the exact open-three defence).
//! Rechecked again on 2026-11-27 by the faster engine (same command): 6 of the 20 had no hold
//! left (each listed hold met a forced win, or every move was proven lost), among them the one
//! the engine did not hold at 1,000,000 nodes, and were dropped.

use std::sync::atomic::AtomicBool;

use tengen_engine::{Engine, Limits};
use tengen_rules::{BoardSize, Game, Rule, parse_point, point_name};

/// The budgets the engine gets for each position, and how many of the 81 it holds at each today:
/// the floors the tests keep (the goal, 95% at 1,000,000 nodes, is 77).
const LONG: (u64, usize) = (1_000_000, 77);
const SHORT: (u64, usize) = (200_000, 72);

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
fn holds_against_prepared_attacks_at_a_million_nodes() {
    holds_at(LONG);
}

#[test]
fn holds_most_prepared_attacks_at_200_000_nodes() {
    holds_at(SHORT);
}

/// Searches every position with `nodes` and fails unless at least `floor` of them are held.
fn holds_at((nodes, floor): (u64, usize)) {
    let cases = cases();
    assert!(cases.len() >= 81, "the set has {} positions", cases.len());
    let size = BoardSize::STANDARD;
    let stop = AtomicBool::new(false);
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let mut failed = Vec::new();
    for case in &cases {
        let game = game_of(case.rule, &case.moves);
        let mut engine = Engine::new(64);
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
    eprintln!(
        "held {held} of {} at {nodes} nodes; not held:\n{}",
        cases.len(),
        failed.join("\n")
    );
    assert!(
        held >= floor,
        "held {held} of {} at {nodes} nodes:\n{}",
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
