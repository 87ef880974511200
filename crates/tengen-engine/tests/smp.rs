//! Lazy SMP: several threads on one shared table play sound moves, honour the caller's stop and
//! limits, count every thread's nodes, and leave one-thread searches exactly repeatable.

use std::sync::atomic::AtomicBool;

use tengen_engine::{Engine, Limits, Score};
use tengen_rules::{BoardSize, Game, Point, Rule, parse_point, point_name};

fn game(rule: Rule, moves: &str) -> Game {
    let mut game = Game::new(BoardSize::STANDARD, rule);
    for m in moves.split_whitespace() {
        let p = parse_point(BoardSize::STANDARD, m).expect("a point");
        game.play(p).expect("legal");
    }
    game
}

fn engine(threads: usize) -> Engine {
    let mut engine = Engine::new(8);
    engine.set_threads(threads);
    engine
}

/// The move found, which must be on an empty point of `game`.
fn legal_best(game: &Game, r: &tengen_engine::SearchResult) -> Point {
    let best = r.best().expect("a move");
    assert!(game.board().get(best).is_none(), "an empty point");
    best
}

fn name(p: Option<Point>) -> String {
    point_name(BoardSize::STANDARD, p.expect("a move"))
}

#[test]
fn several_threads_play_the_forced_moves() {
    // White to move; black's four h8-k8 must be blocked at g8 or l8 (g8 is taken: l8).
    let block = game(Rule::Freestyle, "h8 g8 i8 a1 j8 a3 k8");
    // Black to move with an open three on row 8 and no white threat: the straight four wins.
    let win = game(Rule::Freestyle, "h8 a1 i8 a3 j8 a5");
    for threads in [2, 4] {
        let mut engine = engine(threads);
        let stop = AtomicBool::new(false);
        let limits = Limits {
            nodes: Some(50_000),
            ..Limits::default()
        };
        let r = engine.search_game(&block, &limits, &stop, &mut |_| {});
        assert_eq!(name(r.best()), "l8", "{threads} threads");
        let r = engine.search_game(&win, &limits, &stop, &mut |_| {});
        assert!(
            ["g8", "k8"].contains(&name(r.best()).as_str()),
            "{threads} threads"
        );
        assert!(
            matches!(r.score(), Some(Score::Win(_))),
            "{threads} threads: {:?}",
            r.score()
        );
    }
}

#[test]
fn one_thread_repeats_exactly_and_helpers_add_their_nodes() {
    let middlegame = game(Rule::Renju, "h8 i9 j10 g9 i7 h7 g8 j8 f7 e6 i8 k9");
    let limits = Limits {
        nodes: Some(60_000),
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    let run = |threads| engine(threads).search_game(&middlegame, &limits, &stop, &mut |_| {});
    let (a, b) = (run(1), run(1));
    assert_eq!(
        (a.best(), a.score(), a.nodes),
        (b.best(), b.score(), b.nodes)
    );
    assert!(a.nodes <= 60_000);
    // The node limit counts the main thread; the helpers' nodes come on top of it.
    let two = run(2);
    assert!(two.nodes > 60_000, "{} nodes", two.nodes);
    legal_best(&middlegame, &two);
}

#[test]
fn a_stop_before_the_start_still_gives_a_legal_move() {
    let g = game(Rule::Freestyle, "h8 i9 j8 i8 i7 j6 g9 h9 k9");
    let mut engine = engine(3);
    let stop = AtomicBool::new(true);
    let r = engine.search_game(&g, &Limits::default(), &stop, &mut |_| {});
    legal_best(&g, &r);
}

#[test]
fn several_best_lines_come_best_first_with_several_threads() {
    // White to move, black better: the scores of white's best lines differ.
    let g = game(Rule::Freestyle, "h8 a1 i8 a15 j9");
    let mut engine = engine(2);
    let limits = Limits {
        nodes: Some(100_000),
        multipv: 3,
        ..Limits::default()
    };
    let r = engine.search_game(&g, &limits, &AtomicBool::new(false), &mut |_| {});
    assert_eq!(r.lines.len(), 3);
    let values: Vec<i32> = r.lines.iter().map(|l| l.score.value()).collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
}
