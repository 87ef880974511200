//! Builds the defence test set (`tests/data/defence.txt`) from game records: every position in
//! which the side to move has no win by fours of its own, the opponent would win were it his
//! move (by fours, or by threats with at most two open threes: a four-three or three-three
//! prepared), the move played in the game did not stop him, and the side to move is not lost
//! already (a search of its own side proves no loss). For each such position it lists
//! every point that holds: after it the opponent has no VCF within 20 fours, and a search of the
//! opponent's side finds no forced win either: first 50,000 nodes, then 400,000 for the points
//! that pass, then ten times deeper (4,000,000 nodes), since attacks 30 and more plies long
//! escape the shallower looks. A forced win found by any of them is a proof, so the quick looks
//! only save time.
//!
//! ```text
//! cargo run --release -p tengen-engine --example defence_positions -- GAME.txt... > defence.txt
//! ```
//!
//! A position is dropped after all when a 4,000,000-node search of the side to move proves
//! every move lost: "no win found" after a hold is not a proof that it holds.
//!
//! With `--recheck FILE`, it reads a set already made and checks each listed hold again by the
//! deep search, writing the set back with the holds that survive; a position left with none, or
//! which the deep search of the side to move proves lost, is dropped (reported on standard
//! error).
//!
//! A record is the text `tengen match --out` writes: `# rule: freestyle, board 15x15` and the
//! moves in renju notation on the last line.

use std::sync::atomic::AtomicBool;

use tengen_engine::{Engine, Limits, Score};
use tengen_rules::{Board, BoardSize, Color, Game, Point, Rule, parse_point, point_name};

const VCF_FOURS: u32 = 20;
/// A quick look first: a forced win it finds is as proven as a deeper one's, and most points
/// that do not hold are disposed of by it.
const QUICK_CHECK_NODES: u64 = 50_000;
const CHECK_NODES: u64 = 400_000;
/// The opponent's threat search: open threes it may use, and its node budget.
const VCT_THREES: u32 = 2;
const VCT_NODES: u64 = 100_000;
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
        eprintln!("{path}: {} moves", moves.len());
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
    // The opponent's prepared attack: a VCF, or a VCT of at most two open threes (a four-three
    // or a three-three in the making).
    if engine
        .find_vcf(board, rule, opp, VCF_FOURS, &none, &stop)
        .is_none()
    {
        let vct_limits = Limits {
            nodes: Some(VCT_NODES),
            ..Limits::default()
        };
        engine.clear_hash();
        engine.find_vct(board, rule, opp, VCT_THREES, &vct_limits, &stop)?;
    }
    if !opponent_wins_after(engine, board, rule, side, played, CHECK_NODES) {
        return None;
    }
    // A position already lost (a search of the side to move proves every move loses) has no
    // hold to find; one search saves a search of every point.
    if lost_already(engine, board, rule, side, CHECK_NODES) {
        return None;
    }
    eprintln!(
        "  a position to defend after {} stones",
        board.stones().count()
    );
    let mut holds = Vec::new();
    for p in board.size().points() {
        if !board.is_empty_at(p)
            || (rule == Rule::Renju
                && side == Color::Black
                && tengen_rules::forbidden(board, p).is_some())
        {
            continue;
        }
        if !opponent_wins_after(engine, board, rule, side, p, QUICK_CHECK_NODES) {
            holds.push(p);
        }
    }
    holds.retain(|&p| !opponent_wins_after(engine, board, rule, side, p, CHECK_NODES));
    holds.retain(|&p| !opponent_wins_after(engine, board, rule, side, p, DEEP_CHECK_NODES));
    // A hold is only a point the opponent's search found no win after; a deep search of the
    // side to move may still prove every move lost.
    if holds.is_empty() || lost_already(engine, board, rule, side, DEEP_CHECK_NODES) {
        return None;
    }
    Some(holds)
}

/// Whether a search of `side`'s own position (`nodes` nodes) proves every move lost.
fn lost_already(engine: &mut Engine, board: &Board, rule: Rule, side: Color, nodes: u64) -> bool {
    matches!(
        proven_score(engine, board, rule, side, nodes),
        Some(Score::Loss(_))
    )
}

/// The score a search of `side` to move finds in `nodes` nodes, with a fresh table so that the
/// verdict does not depend on the order of the checks.
fn proven_score(
    engine: &mut Engine,
    board: &Board,
    rule: Rule,
    side: Color,
    nodes: u64,
) -> Option<Score> {
    let stop = AtomicBool::new(false);
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    engine.clear_hash();
    engine
        .search(board, rule, side, &limits, &stop, &mut |_| {})
        .score()
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
        if lost_already(engine, game.board(), rule, side, DEEP_CHECK_NODES) {
            eprintln!("{rule} {}: dropped: every move proven lost", fields[1]);
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
    matches!(
        proven_score(engine, &b, rule, opp, nodes),
        Some(Score::Win(_))
    )
}
