//! Builds the defence test set (`tests/data/defence.txt`) from game records: every position in
//! which the side to move has no win by fours of its own, the opponent would win by fours were it
//! his move, and the move played in the game did not stop him. For each such position it lists
//! every point that holds: after it the opponent has no VCF within 20 fours, and a search of the
//! opponent's side (400,000 nodes) finds no forced win either; a point that passes is searched
//! again, ten times deeper (4,000,000 nodes), since attacks 30 and more plies long escape the
//! first look.
//!
//! ```text
//! cargo run --release -p tengen-engine --example defence_positions -- GAME.txt... > defence.txt
//! ```
//!
//! With `--recheck FILE`, it reads a set already made and checks each listed hold again by the
//! deep search, writing the set back with the holds that survive; a position left with none is
//! dropped (both reported on standard error).
//!
//! A record is the text `tengen match --out` writes: `# rule: freestyle, board 15x15` and the
//! moves in renju notation on the last line.

use std::sync::atomic::AtomicBool;

use tengen_engine::{Engine, Limits};
use tengen_rules::{Board, BoardSize, Color, Game, Point, Rule, parse_point, point_name};

const VCF_FOURS: u32 = 20;
const CHECK_NODES: u64 = 400_000;
const DEEP_CHECK_NODES: u64 = 4_000_000;

fn main() {
    let mut engine = Engine::new(64);
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, path] = args.as_slice() {
        if flag == "--recheck" {
            recheck(&mut engine, path);
            return;
        }
    }
    let mut seen = std::collections::HashSet::new();
    println!("# rule | moves before the position | move played (lost) | every move that holds");
    for path in args {
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!("{path}: unreadable, skipped");
            continue;
        };
        let rule = text
            .lines()
            .find_map(|l| l.strip_prefix("# rule: "))
            .and_then(|l| l.split(',').next())
            .and_then(|r| r.trim().parse::<Rule>().ok())
            .unwrap_or(Rule::Freestyle);
        let Some(moves) = text.lines().rfind(|l| !l.starts_with('#') && !l.is_empty()) else {
            continue;
        };
        let size = BoardSize::STANDARD;
        let moves: Vec<Point> = moves
            .split_whitespace()
            .filter_map(|m| parse_point(size, m).ok())
            .collect();
        let mut game = Game::new(size, rule);
        for (i, &played) in moves.iter().enumerate() {
            if game.outcome().is_some() {
                break;
            }
            let Some(side) = game.to_move() else { break };
            let key = (rule, moves[..i].to_vec());
            if seen.insert(key) {
                if let Some(holds) = must_defend(&mut engine, game.board(), rule, side, played) {
                    let before: Vec<String> =
                        moves[..i].iter().map(|&p| point_name(size, p)).collect();
                    let holds: Vec<String> = holds.iter().map(|&p| point_name(size, p)).collect();
                    println!(
                        "{rule} | {} | {} | {}",
                        before.join(" "),
                        point_name(size, played),
                        holds.join(" ")
                    );
                }
            }
            if game.play(played).is_err() {
                break;
            }
        }
    }
}

/// The points that hold, when `side` must defend and `played` did not; `None` otherwise.
fn must_defend(
    engine: &mut Engine,
    board: &Board,
    rule: Rule,
    side: Color,
    played: Point,
) -> Option<Vec<Point>> {
    let stop = AtomicBool::new(false);
    let none = Limits::default();
    let opp = side.opponent();
    if engine
        .find_vcf(board, rule, side, VCF_FOURS, &none, &stop)
        .is_some()
    {
        return None;
    }
    engine.find_vcf(board, rule, opp, VCF_FOURS, &none, &stop)?;
    if !opponent_wins_after(engine, board, rule, side, played, CHECK_NODES) {
        return None;
    }
    let mut holds = Vec::new();
    for p in board.size().points() {
        if !board.is_empty_at(p)
            || (rule == Rule::Renju
                && side == Color::Black
                && tengen_rules::forbidden(board, p).is_some())
        {
            continue;
        }
        if !opponent_wins_after(engine, board, rule, side, p, CHECK_NODES) {
            holds.push(p);
        }
    }
    holds.retain(|&p| !opponent_wins_after(engine, board, rule, side, p, DEEP_CHECK_NODES));
    (!holds.is_empty()).then_some(holds)
}

/// Checks every hold of the set in `path` again by the deep search and prints the set back.
fn recheck(engine: &mut Engine, path: &str) {
    let text = std::fs::read_to_string(path).expect("a readable set");
    let size = BoardSize::STANDARD;
    for line in text.lines() {
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        if line.starts_with('#') || fields.len() != 4 {
            println!("{line}");
            continue;
        }
        let rule: Rule = fields[0].parse().expect("a rule");
        let mut game = Game::new(size, rule);
        for m in fields[1].split_whitespace() {
            game.play(parse_point(size, m).expect("a point"))
                .expect("a legal move");
        }
        let side = game.to_move().expect("a side to move");
        let (holds, refuted): (Vec<&str>, Vec<&str>) =
            fields[3].split_whitespace().partition(|h| {
                let p = parse_point(size, h).expect("a point");
                !opponent_wins_after(engine, game.board(), rule, side, p, DEEP_CHECK_NODES)
            });
        if !refuted.is_empty() {
            eprintln!("{rule} {}: refuted {}", fields[1], refuted.join(" "));
        }
        if holds.is_empty() {
            eprintln!("  dropped: no hold left");
            continue;
        }
        println!(
            "{} | {} | {} | {}",
            fields[0],
            fields[1],
            fields[2],
            holds.join(" ")
        );
    }
}

/// Whether, after `side` plays `p`, the opponent wins by fours or by a deep search.
fn opponent_wins_after(
    engine: &mut Engine,
    board: &Board,
    rule: Rule,
    side: Color,
    p: Point,
    nodes: u64,
) -> bool {
    let stop = AtomicBool::new(false);
    let mut b = board.clone();
    if b.place(p, side).is_err() {
        return true;
    }
    let opp = side.opponent();
    if engine
        .find_vcf(&b, rule, opp, VCF_FOURS, &Limits::default(), &stop)
        .is_some()
    {
        return true;
    }
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    // A fresh table for every check, so that the verdict does not depend on the order.
    engine.clear_hash();
    let r = engine.search(&b, rule, opp, &limits, &stop, &mut |_| {});
    matches!(r.score(), Some(tengen_engine::Score::Win(_)))
}
