//! Threat-space search beyond fours: a VCT the engine claims must win when played out against
//! the engine's own best defence, every move judged by the rules library.

use std::sync::atomic::AtomicBool;

use tengen_engine::{Engine, Limits};
use tengen_rules::{BoardSize, Color, Game, Rule, parse_point, point_name};

fn game(rule: Rule, moves: &str) -> Game {
    let mut g = Game::new(BoardSize::STANDARD, rule);
    for m in moves.split_whitespace() {
        g.play(parse_point(BoardSize::STANDARD, m).expect("valid"))
            .expect("legal");
    }
    g
}

/// Plays the VCT out: the attacker follows the threat search at every turn, the defender plays
/// the engine's best move by a real search. Returns the moves played.
fn play_out(mut g: Game, attacker: Color) -> Vec<String> {
    let stop = AtomicBool::new(false);
    let mut engine = Engine::new(16);
    let mut played = Vec::new();
    while g.outcome().is_none() {
        let side = g.to_move().expect("game on");
        let mv = if side == attacker {
            let line = engine
                .find_vct(
                    g.board(),
                    g.rule(),
                    side,
                    4,
                    &Limits {
                        nodes: Some(2_000_000),
                        ..Limits::default()
                    },
                    &stop,
                )
                .unwrap_or_else(|| panic!("the attack lost its VCT after {played:?}"));
            line[0]
        } else {
            let limits = Limits {
                nodes: Some(150_000),
                ..Limits::default()
            };
            engine
                .search_game(&g, &limits, &stop, &mut |_| {})
                .best()
                .expect("a defence")
        };
        played.push(point_name(BoardSize::STANDARD, mv));
        g.play(mv).expect("legal move");
        assert!(played.len() < 60, "no end in sight: {played:?}");
    }
    let out = g.outcome().expect("over");
    assert_eq!(out.winner, Some(attacker), "{played:?} ended {out:?}");
    played
}

#[test]
fn claimed_vcts_win_against_the_best_defence() {
    let stop = AtomicBool::new(false);
    let mut engine = Engine::new(16);
    for (rule, moves, attacker) in [
        (Rule::Freestyle, "h8 a1 i9 a2 j8 a3", Color::Black),
        (Rule::Freestyle, "h8 a1 i8 a15 h9 o1", Color::Black),
        (Rule::Renju, "h8 a1 i9 a2 j8 a3", Color::Black),
        (Rule::Standard, "a1 h8 a3 i9 o15 j8 o1", Color::White),
    ] {
        let g = game(rule, moves);
        let line = engine.find_vct(g.board(), rule, attacker, 4, &Limits::default(), &stop);
        assert!(line.is_some(), "{rule} {moves}: a VCT exists");
        play_out(g, attacker);
    }
}

#[test]
fn no_vct_where_there_is_none() {
    let stop = AtomicBool::new(false);
    let mut engine = Engine::new(16);
    for moves in ["h8", "h8 h9", "h8 i9 g7"] {
        let g = game(Rule::Freestyle, moves);
        let side = g.to_move().expect("game on");
        assert_eq!(
            engine.find_vct(
                g.board(),
                Rule::Freestyle,
                side,
                3,
                &Limits::default(),
                &stop
            ),
            None,
            "{moves}"
        );
    }
}
