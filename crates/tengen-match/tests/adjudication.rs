//! The runner's verdicts, with scripted brains that play fixed moves: a five wins, black's
//! forbidden point loses under renju, a point off the board loses, the move limit draws.

use std::path::PathBuf;

use tengen_match::{EngineSpec, MatchConfig, Reason, TimeControl, play_game};
use tengen_rules::{BoardSize, Color, Rule};

fn scripted(name: &str, moves: &[&str]) -> EngineSpec {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/brains/scripted.py");
    let mut args = vec![script.to_string_lossy().into_owned()];
    args.extend(moves.iter().map(|m| m.to_string()));
    EngineSpec {
        name: name.into(),
        program: "python3".into(),
        args,
        dir: None,
        options: Vec::new(),
    }
}

fn settings(rule: Rule) -> tengen_match::GameSettings {
    let mut s = MatchConfig::new(Vec::new()).settings;
    s.rule = rule;
    s.tc = TimeControl::PerMove { ms: 2000 };
    s
}

// White's stones, far from black's.
const WHITE: [&str; 5] = ["0,0", "0,2", "0,4", "14,14", "14,12"];

#[test]
fn five_in_a_row_wins() {
    let black = scripted("b", &["5,7", "6,7", "7,7", "8,7", "9,7"]);
    let white = scripted("w", &WHITE);
    let g = play_game(&black, &white, &[], &settings(Rule::Freestyle));
    assert_eq!((g.winner, &g.reason), (Some(Color::Black), &Reason::Five));
    assert_eq!(g.moves.len(), 9);
}

#[test]
fn a_forbidden_double_three_loses_under_renju_only() {
    // Black's ninth stone, 8,7, makes two open threes: 6,7 7,7 8,7 across and 8,7 8,8 8,9 down.
    let black = scripted("b", &["6,7", "7,7", "8,8", "8,9", "8,7"]);
    let white = scripted("w", &WHITE);
    let g = play_game(&black, &white, &[], &settings(Rule::Renju));
    assert_eq!(g.winner, Some(Color::White));
    assert!(matches!(g.reason, Reason::Forbidden(_)), "{:?}", g.reason);
    assert_eq!(g.moves.len(), 9);
    // Under freestyle the same move is fine, and black runs out of script: the game goes on
    // until the move limit.
    let mut s = settings(Rule::Freestyle);
    s.max_moves = Some(10);
    let g = play_game(&black, &white, &[], &s);
    assert_eq!((g.winner, &g.reason), (None, &Reason::MoveLimit));
    assert_eq!(g.moves.len(), 10);
}

#[test]
fn a_point_off_the_board_loses() {
    let black = scripted("b", &["7,7", "15,3"]);
    let white = scripted("w", &WHITE);
    let g = play_game(&black, &white, &[], &settings(Rule::Freestyle));
    assert_eq!(g.winner, Some(Color::White));
    assert!(
        matches!(&g.reason, Reason::IllegalMove(d) if d.contains("15,3")),
        "{:?}",
        g.reason
    );
    // The refused point is not in the record.
    assert_eq!(g.moves.len(), 2);
}

#[test]
fn an_opening_is_sent_to_the_side_to_move() {
    // After a three-stone opening white moves first, told the position by BOARD; its script's
    // first move, 0,0, is then the fourth stone.
    let black = scripted("b", &["3,3"]);
    let white = scripted("w", &["0,0", "0,1"]);
    let opening = [(7, 7), (7, 8), (8, 8)].map(|(x, y)| tengen_rules::Point::new(x, y));
    let mut s = settings(Rule::Freestyle);
    s.size = BoardSize::square(15).expect("15");
    s.max_moves = Some(6);
    let g = play_game(&black, &white, &opening, &s);
    let names: Vec<(i32, i32)> = g.moves.iter().map(|p| (p.x, p.y)).collect();
    assert_eq!(names, [(7, 7), (7, 8), (8, 8), (0, 0), (3, 3), (0, 1)]);
    assert_eq!(g.reason, Reason::MoveLimit);
    assert_eq!(&g.times_ms[..3], &[0, 0, 0]);
}
