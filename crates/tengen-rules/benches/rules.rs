//! How fast the rules answer the questions a search asks millions of times: play and take back a
//! move, see whether a move wins, and find black's forbidden points.
//!
//! Run with `cargo bench -p tengen-rules --bench rules`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use tengen_rules::{
    Board, BoardSize, Color, Game, Point, Rule, forbidden, forbidden_points, parse_point,
};

/// A real renju game of 46 moves, black to move (realcore's `IsTwoLineDoubleFourTest` #12 in
/// `tests/data/forbidden_cases.json`): a crowded middlegame with one double-four for black (f2).
const GAME_46: &str = "h8 h7 j6 i7 i5 k7 j7 j8 k9 i9 h10 i8 i10 l6 m5 l8 k8 l9 l7 j9 k10 j10 j11 \
                       k12 j5 g6 f5 j3 i4 h3 i3 i6 g5 h5 h4 f6 j4 k4 i2 i1 k5 l5 h2 g1 j2 k1";

/// A composed position of 50 stones in four corner groups, full of forks (AlphaGomoku's
/// `MultipleForks` in the same file), where the forbidden check often has to look deeper.
const FORKS_50: [&str; 15] = [
    "...........OXO.",
    ".X........XOXOX",
    "..........OXXXO",
    "..X.X..........",
    "..XOX......X...",
    ".XO.O.........X",
    "...............",
    "...............",
    "...............",
    "............X..",
    ".XX.XO....X..X.",
    "..OXXO....OXXOO",
    "..OXOX....XO...",
    "...X.....X.....",
    "...O....O......",
];

// Black's next move in GAME_46: legal under every rule, and no five.
const NEXT_MOVE: &str = "g7";

fn point(name: &str) -> Point {
    parse_point(BoardSize::STANDARD, name).expect("a valid point")
}

fn game_46(rule: Rule) -> Game {
    let mut game = Game::new(BoardSize::STANDARD, rule);
    for m in GAME_46.split_whitespace() {
        let out = game.play(point(m)).expect("a legal move");
        assert!(out.is_none(), "the game goes on after {m}");
    }
    game
}

fn board_of_rows<S: AsRef<str>>(rows: &[S]) -> Board {
    Board::from_rows(rows).expect("a valid test board")
}

fn play_undo(c: &mut Criterion) {
    let mut group = c.benchmark_group("play_undo");
    let p = point(NEXT_MOVE);
    for rule in Rule::ALL {
        let mut game = game_46(rule);
        // Under renju black's move also pays for the forbidden check of the point.
        group.bench_function(BenchmarkId::from_parameter(rule), |b| {
            b.iter(|| {
                let out = game.play(black_box(p)).expect("a legal move").is_some();
                game.undo();
                out
            })
        });
    }
    group.finish();
}

fn fives(c: &mut Criterion) {
    let mut group = c.benchmark_group("fives_after_move");
    let p = point(NEXT_MOVE);
    let mut board = game_46(Rule::Freestyle).board().clone();
    board.place(p, Color::Black).expect("a free point");
    for rule in Rule::ALL {
        group.bench_function(BenchmarkId::from_parameter(rule), |b| {
            b.iter(|| rule.fives(black_box(&board), black_box(p), Color::Black))
        });
    }
    group.finish();
}

fn forbidden_scan(c: &mut Criterion) {
    let mut group = c.benchmark_group("forbidden_points");
    // One element per point of the board checked, so the report reads as time per point too.
    group.throughput(Throughput::Elements(225));
    let positions = [
        ("game_46", game_46(Rule::Renju).board().clone()),
        ("forks_50", board_of_rows(&FORKS_50)),
    ];
    for (name, board) in &positions {
        group.bench_with_input(BenchmarkId::from_parameter(name), board, |b, board| {
            b.iter(|| forbidden_points(black_box(board)))
        });
    }
    group.finish();

    // A single point, for scale: the double-four f2 of the game, found by the table alone.
    let board = &positions[0].1;
    let f2 = point("f2");
    c.bench_function("forbidden_point/double_four", |b| {
        b.iter(|| forbidden(black_box(board), black_box(f2)))
    });
}

criterion_group!(benches, play_undo, fives, forbidden_scan);
criterion_main!(benches);
