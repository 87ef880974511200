//! The published renju VCF puzzles (see `tests/data/SOURCES.md`): every one must be solved, and
//! every winning line is checked move by move by the rules library.

use std::sync::atomic::AtomicBool;

use serde::Deserialize;
use tengen_engine::{Engine, Limits};
use tengen_rules::{
    Board, BoardSize, Color, ForbiddenPolicy, Game, Point, Rule, forbidden, point_name,
};

#[derive(Deserialize)]
struct Suite {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    rows: Vec<String>,
    side_to_move: String,
}

fn board_of<S: AsRef<str>>(rows: &[S]) -> Board {
    Board::from_rows(rows).expect("a valid test board")
}

/// Checks a VCF line with the rules library alone: attacker and defender alternate, every
/// attacker move but the last makes a four (a five threat) and every defender move blocks the
/// only five threat; the line ends with a five, or with a four black may not block.
fn check_line(board: &Board, attacker: Color, line: &[Point]) -> Result<(), String> {
    let mut game = Game::from_position(board.clone(), Rule::Renju, attacker);
    game.set_forbidden_policy(ForbiddenPolicy::Refuse);
    let size = BoardSize::STANDARD;
    let fives = |g: &Game, c: Color| -> Vec<Point> {
        size.points()
            .filter(|&p| g.board().is_empty_at(p))
            .filter(|&p| {
                let mut b = g.board().clone();
                b.place(p, c).is_ok() && !Rule::Renju.fives(&b, p, c).is_empty()
            })
            .collect()
    };
    for (i, &p) in line.iter().enumerate() {
        let mover = game.to_move().ok_or("game over before the line ends")?;
        if mover == attacker.opponent() {
            let threats = fives(&game, attacker);
            if threats != vec![p] && !(threats.len() >= 2 && threats.contains(&p)) {
                return Err(format!(
                    "defender move {} is not the forced block of {threats:?}",
                    point_name(size, p)
                ));
            }
            if !fives(&game, mover).is_empty() {
                return Err("the defender had a five of his own".into());
            }
        }
        game.play(p)
            .map_err(|e| format!("move {} {}: {e}", i + 1, point_name(size, p)))?;
        if let Some(out) = game.outcome() {
            return if out.winner == Some(attacker) && i + 1 == line.len() {
                Ok(())
            } else {
                Err(format!("unexpected end {out:?} at move {}", i + 1))
            };
        }
        if game.to_move() == Some(attacker.opponent()) && fives(&game, attacker).is_empty() {
            return Err(format!(
                "attacker move {} is not a four",
                point_name(size, p)
            ));
        }
    }
    // No five yet: the last four must be unstoppable for a black defender.
    let threats = fives(&game, attacker);
    let blockable = threats.len() == 1
        && !(attacker == Color::White && forbidden(game.board(), threats[0]).is_some());
    if threats.is_empty() || blockable || !fives(&game, attacker.opponent()).is_empty() {
        return Err(format!(
            "line ends without a won position (threats {threats:?})"
        ));
    }
    Ok(())
}

#[test]
fn solves_every_published_vcf_puzzle() {
    let path = format!("{}/tests/data/vcf_cases.json", env!("CARGO_MANIFEST_DIR"));
    let suite: Suite =
        serde_json::from_str(&std::fs::read_to_string(path).expect("data")).expect("json");
    assert_eq!(suite.cases.len(), 1940);
    let mut engine = Engine::new(16);
    let stop = AtomicBool::new(false);
    let limits = Limits {
        nodes: Some(20_000_000),
        ..Limits::default()
    };
    let mut failures = Vec::new();
    let mut longest = 0;
    for case in &suite.cases {
        let board = board_of(&case.rows);
        let side = if case.side_to_move == "black" {
            Color::Black
        } else {
            Color::White
        };
        match engine.find_vcf(&board, Rule::Renju, side, 120, &limits, &stop) {
            None => failures.push(format!("{}: no VCF found", case.id)),
            Some(line) => {
                longest = longest.max(line.len());
                if let Err(e) = check_line(&board, side, &line) {
                    let names: Vec<String> = line
                        .iter()
                        .map(|&p| point_name(BoardSize::STANDARD, p))
                        .collect();
                    failures.push(format!("{}: {e} in {}", case.id, names.join(" ")));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 1940 failed:\n{}",
        failures.len(),
        failures[..failures.len().min(40)].join("\n")
    );
    assert!(
        longest >= 21,
        "the suite holds long VCFs, longest line found {longest}"
    );
}
