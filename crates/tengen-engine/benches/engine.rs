//! Engine micro-benchmarks: the incremental pattern update, move generation, and VCF solving on
//! published puzzles.

use std::hint::black_box;
use std::sync::atomic::AtomicBool;

use criterion::{Criterion, criterion_group, criterion_main};
use tengen_engine::bench::BenchPosition;
use tengen_engine::{Engine, Limits};
use tengen_rules::{Board, BoardSize, Color, Game, Rule, parse_point};

fn middlegame(size: BoardSize, moves: &str) -> Game {
    let mut g = Game::new(size, Rule::Freestyle);
    for m in moves.split_whitespace() {
        g.play(parse_point(size, m).expect("valid")).expect("legal");
    }
    g
}

fn board_of<S: AsRef<str>>(rows: &[S]) -> Board {
    Board::from_rows(rows).expect("a valid test board")
}

fn benches(c: &mut Criterion) {
    const MOVES: &str = "h8 i9 j8 i8 i7 j6 g9 h9 k9 g7 h10 j10";
    for (name, size, moves) in [
        ("15x15", BoardSize::STANDARD, MOVES.to_string()),
        // The same shape in the middle of a 100x100 board: the cost must not grow with the board.
        (
            "100x100",
            BoardSize::square(100).expect("valid"),
            "ax50 ay51 az50 ay50 ay49 az48 aw51 ax51 ba51 aw49 ax52 az52".to_string(),
        ),
    ] {
        let g = middlegame(size, &moves);
        let mut pos = BenchPosition::new(g.board(), Rule::Freestyle, Color::Black);
        let p = parse_point(size, if name == "15x15" { "k11" } else { "bb53" }).expect("valid");
        c.bench_function(&format!("pattern update (make + unmake) {name}"), |b| {
            b.iter(|| pos.make_unmake(black_box(p)))
        });
        c.bench_function(&format!("move generation {name}"), |b| {
            b.iter(|| black_box(pos.generate()))
        });
    }

    #[derive(serde::Deserialize)]
    struct Suite {
        cases: Vec<Case>,
    }
    #[derive(serde::Deserialize)]
    struct Case {
        rows: Vec<String>,
        side_to_move: String,
        #[serde(default)]
        vcf_check_line: Option<String>,
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/vcf_cases.json");
    let suite: Suite =
        serde_json::from_str(&std::fs::read_to_string(path).expect("data")).expect("json");
    let puzzles: Vec<(Board, Color)> = suite
        .cases
        .iter()
        .step_by(20)
        .map(|c| {
            (
                board_of(&c.rows),
                if c.side_to_move == "black" {
                    Color::Black
                } else {
                    Color::White
                },
            )
        })
        .collect();
    // The puzzles whose known line needs at least 15 attacking moves.
    let long: Vec<(Board, Color)> = suite
        .cases
        .iter()
        .filter(|c| {
            c.vcf_check_line.as_deref().is_some_and(|l| {
                !l.contains("TIMEOUT")
                    && l.split_whitespace().filter(|t| !t.starts_with('(')).count() >= 15
            })
        })
        .map(|c| {
            (
                board_of(&c.rows),
                if c.side_to_move == "black" {
                    Color::Black
                } else {
                    Color::White
                },
            )
        })
        .collect();
    let stop = AtomicBool::new(false);
    let solve_all = |set: &[(Board, Color)]| {
        let mut engine = Engine::new(1);
        for (board, side) in set {
            // The fours the puzzle test allows (tests/vcf.rs): solved, not cut off.
            black_box(engine.find_vcf(board, Rule::Renju, *side, 120, &Limits::default(), &stop));
        }
    };
    c.bench_function(
        &format!("VCF of 15+ attacking moves, mean of {} puzzles", long.len()),
        |b| b.iter(|| solve_all(&long)),
    );
    c.bench_function(
        &format!("VCF on {} published puzzles", puzzles.len()),
        |b| b.iter(|| solve_all(&puzzles)),
    );
}

criterion_group!(engine, benches);
criterion_main!(engine);
