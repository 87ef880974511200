//! The engine plays on every board the rules library has, under every rule, from any position;
//! stops on request; repeats exactly under node and depth limits; reports several best moves.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tengen_engine::{Engine, Level, Limits, Score, TimeControl};
use tengen_rules::{Board, BoardSize, Color, Game, Point, Rule};

/// Plays a whole game of the engine against itself; every move must be legal (the game refuses
/// forbidden moves), and the game must end.
fn self_play(size: BoardSize, rule: Rule, nodes: u64) -> Game {
    let mut game = Game::new(size, rule);
    game.set_forbidden_policy(tengen_rules::ForbiddenPolicy::Refuse);
    let mut engine = Engine::new(8);
    let stop = AtomicBool::new(false);
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    while game.outcome().is_none() && game.moves().len() < 400 {
        let best = engine
            .search_game(&game, &limits, &stop, &mut |_| {})
            .best()
            .unwrap_or_else(|| panic!("{size} {rule}: no move after {:?}", game.moves()));
        game.play(best)
            .unwrap_or_else(|e| panic!("{size} {rule}: illegal {best:?}: {e}"));
    }
    game
}

#[test]
fn plays_every_board_and_rule_to_the_end() {
    let sizes = [
        BoardSize::square(5).expect("valid"),
        BoardSize::rect(7, 9).expect("valid"),
        BoardSize::rect(16, 14).expect("valid"),
        BoardSize::square(100).expect("valid"),
        BoardSize::UNBOUNDED,
    ];
    for size in sizes {
        for rule in Rule::ALL {
            let game = self_play(size, rule, 3_000);
            let ended = game.outcome().is_some() || size.is_unbounded() || size.area() > Some(300);
            assert!(
                ended,
                "{size} {rule}: no end after {} moves",
                game.moves().len()
            );
        }
    }
}

#[test]
fn plays_from_set_up_positions_and_the_empty_board() {
    let mut engine = Engine::new(8);
    let stop = AtomicBool::new(false);
    let limits = Limits {
        depth: Some(4),
        ..Limits::default()
    };
    // Empty board: the centre.
    let empty = Board::new(BoardSize::STANDARD);
    let r = engine.search(
        &empty,
        Rule::Renju,
        Color::Black,
        &limits,
        &stop,
        &mut |_| {},
    );
    assert_eq!(r.best(), Some(Point::new(7, 7)));
    // White to move with more white stones than black: a set-up position, white has a four.
    let mut b = Board::new(BoardSize::STANDARD);
    for x in 3..7 {
        b.place(Point::new(x, 0), Color::White).expect("free");
    }
    b.place(Point::new(2, 0), Color::Black).expect("free");
    let r = engine.search(
        &b,
        Rule::Freestyle,
        Color::White,
        &limits,
        &stop,
        &mut |_| {},
    );
    assert_eq!(r.best(), Some(Point::new(7, 0)));
    assert_eq!(r.score(), Some(Score::Win(1)));
    // The same position with black to move: black must block.
    let r = engine.search(
        &b,
        Rule::Freestyle,
        Color::Black,
        &limits,
        &stop,
        &mut |_| {},
    );
    assert_eq!(r.best(), Some(Point::new(7, 0)));
}

#[test]
fn stops_on_request() {
    let mut engine = Engine::new(8);
    let mut g = Game::new(BoardSize::STANDARD, Rule::Freestyle);
    for p in [(7, 7), (8, 8), (8, 6), (6, 8)] {
        g.play(Point::new(p.0, p.1)).expect("legal");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let flag = stop.clone();
    // The search runs on its own thread, so that one ignoring its flag fails here, with a
    // message, rather than hang the test.
    std::thread::spawn(move || {
        let result = engine.search_game(&g, &Limits::default(), &flag, &mut |_| {});
        tx.send(result).ok();
    });
    std::thread::sleep(Duration::from_millis(100));
    stop.store(true, Ordering::Relaxed);
    // A hang guard, not a measure: without a limit only the flag can end the search.
    let result = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the search ignores its stop flag");
    // Stopped, it still has a move to play.
    assert!(result.best().is_some());
}

#[test]
fn node_and_depth_limits_repeat_exactly() {
    let mut g = Game::new(BoardSize::STANDARD, Rule::Renju);
    for p in [(7, 7), (8, 6), (8, 8), (6, 6), (9, 9)] {
        g.play(Point::new(p.0, p.1)).expect("legal");
    }
    let stop = AtomicBool::new(false);
    for limits in [
        Limits {
            nodes: Some(40_000),
            ..Limits::default()
        },
        Limits {
            depth: Some(5),
            ..Limits::default()
        },
    ] {
        let a = Engine::new(8).search_game(&g, &limits, &stop, &mut |_| {});
        let b = Engine::new(8).search_game(&g, &limits, &stop, &mut |_| {});
        assert_eq!((a.nodes, &a.lines), (b.nodes, &b.lines));
    }
}

#[test]
fn multipv_reports_distinct_moves_best_first() {
    let mut g = Game::new(BoardSize::STANDARD, Rule::Freestyle);
    for p in [(7, 7), (8, 8), (8, 6)] {
        g.play(Point::new(p.0, p.1)).expect("legal");
    }
    let limits = Limits {
        depth: Some(4),
        multipv: 4,
        ..Limits::default()
    };
    let r = Engine::new(8).search_game(&g, &limits, &AtomicBool::new(false), &mut |_| {});
    assert_eq!(r.lines.len(), 4);
    let firsts: Vec<Point> = r.lines.iter().map(|l| l.moves[0]).collect();
    for (i, p) in firsts.iter().enumerate() {
        assert!(!firsts[..i].contains(p), "{firsts:?}");
    }
    let values: Vec<i32> = r.lines.iter().map(|l| l.score.value()).collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
}

/// A search cut short in the middle of an iteration still reports each move once: the
/// unfinished iteration's first line, when it beats the last completed one, takes the place of
/// that move's older line instead of joining it.
#[test]
fn a_cut_short_multipv_search_reports_each_move_once() {
    let mut g = Game::new(BoardSize::STANDARD, Rule::Freestyle);
    for p in [(7, 7), (8, 8), (8, 6)] {
        g.play(Point::new(p.0, p.1)).expect("legal");
    }
    for nodes in [5_000, 12_000, 16_000] {
        let limits = Limits {
            nodes: Some(nodes),
            multipv: 2,
            ..Limits::default()
        };
        let r = Engine::new(8).search_game(&g, &limits, &AtomicBool::new(false), &mut |_| {});
        let firsts: Vec<Point> = r.lines.iter().map(|l| l.moves[0]).collect();
        assert_eq!(firsts.len(), 2, "{nodes} nodes");
        assert_ne!(firsts[0], firsts[1], "{nodes} nodes");
        let values: Vec<i32> = r.lines.iter().map(|l| l.score.value()).collect();
        assert!(values[0] >= values[1], "{nodes} nodes: {values:?}");
    }
}

#[test]
fn every_level_takes_a_five_and_blocks_a_four() {
    let stop = AtomicBool::new(false);
    let tc = TimeControl {
        per_move: Some(300),
        ..TimeControl::default()
    };
    for level in Level::ALL {
        for seed in 0..4 {
            let mut engine = Engine::new(8);
            // Black to move with its own four and white's four: the five comes first.
            let mut g = Game::new(BoardSize::STANDARD, Rule::Freestyle);
            for (b, w) in [
                ((3, 3), (3, 10)),
                ((4, 3), (4, 10)),
                ((5, 3), (5, 10)),
                ((6, 3), (6, 10)),
            ] {
                g.play(Point::new(b.0, b.1)).expect("legal");
                g.play(Point::new(w.0, w.1)).expect("legal");
            }
            let mv = engine.play(&g, level, &tc, seed, &stop).expect("a move");
            assert!(
                mv == Point::new(2, 3) || mv == Point::new(7, 3),
                "{level}: {mv:?}"
            );
            // White to move against black's four: block it.
            let mut g2 = Game::new(BoardSize::STANDARD, Rule::Freestyle);
            for (b, w) in [((3, 3), (0, 14)), ((4, 3), (14, 14)), ((5, 3), (0, 0))] {
                g2.play(Point::new(b.0, b.1)).expect("legal");
                g2.play(Point::new(w.0, w.1)).expect("legal");
            }
            g2.play(Point::new(6, 3)).expect("legal");
            g2.play(Point::new(2, 3)).expect("legal");
            g2.play(Point::new(10, 10)).expect("legal");
            let mv = engine.play(&g2, level, &tc, seed, &stop).expect("a move");
            assert_eq!(mv, Point::new(7, 3), "{level} seed {seed}");
        }
    }
}

/// The unbounded board ends at its coordinate bound: a four against it has one open end, the
/// engine blocks it there and never proposes a point past the bound.
#[test]
fn the_unbounded_board_ends_at_its_coordinate_bound() {
    let m = tengen_rules::MAX_UNBOUNDED_COORD;
    let mut game = Game::new(BoardSize::UNBOUNDED, Rule::Freestyle);
    // Black's four runs up to the bound; white's stones sit away from it.
    for (b, w) in [(m - 3, 10), (m - 2, 11), (m - 1, 12)] {
        game.play(Point::new(b, 0)).expect("black on the board");
        game.play(Point::new(m, w)).expect("white on the board");
    }
    game.play(Point::new(m, 0)).expect("black's fourth stone");
    let stop = AtomicBool::new(false);
    let limits = Limits {
        depth: Some(4),
        ..Limits::default()
    };
    let result = Engine::new(8).search_game(&game, &limits, &stop, &mut |_| {});
    assert_eq!(result.best(), Some(Point::new(m - 4, 0)), "{result:?}");
    assert!(
        !result.score().is_some_and(|s| s.is_decisive()),
        "one four is no forced result: {:?}",
        result.score()
    );
}

/// The game after `moves` (renju names) on 15x15.
fn game_from(rule: Rule, moves: &str) -> Game {
    let mut game = Game::new(BoardSize::STANDARD, rule);
    for m in moves.split_whitespace() {
        let p = tengen_rules::parse_point(BoardSize::STANDARD, m).expect("a point");
        game.play(p).expect("legal");
    }
    game
}

/// The depths a search reports under `limits`.
fn depths_reported(game: &Game, limits: &Limits) -> Vec<u32> {
    let mut depths = Vec::new();
    Engine::new(8).search_game(game, limits, &AtomicBool::new(false), &mut |info| {
        depths.push(info.depth)
    });
    depths
}

#[test]
fn a_soft_limit_ends_the_search_between_iterations() {
    let game = game_from(Rule::Freestyle, "h8 i9 g7 i7 i8 h9");
    let deep = Limits {
        depth: Some(5),
        time: Some(Duration::from_secs(600)),
        ..Limits::default()
    };
    assert_eq!(depths_reported(&game, &deep), [1, 2, 3, 4, 5]);
    // A soft limit already used up: the first iteration is the last.
    let soft = Limits {
        soft_time: Some(Duration::ZERO),
        ..deep
    };
    assert_eq!(depths_reported(&game, &soft), [1]);
    // A generous soft limit changes nothing.
    let generous = Limits {
        soft_time: Some(Duration::from_secs(600)),
        ..deep
    };
    assert_eq!(depths_reported(&game, &generous), [1, 2, 3, 4, 5]);
}

#[test]
fn a_lone_legal_reply_is_played_after_one_iteration_under_a_game_clock() {
    // White must block black's four at l8 (or lose): the only move worth a look.
    let game = game_from(Rule::Freestyle, "h8 g8 i8 a1 j8 a2 k8");
    let limits = Limits {
        depth: Some(6),
        time: Some(Duration::from_secs(600)),
        soft_time: Some(Duration::from_secs(600)),
        ..Limits::default()
    };
    let depths = depths_reported(&game, &limits);
    assert_eq!(depths, [1], "one legal reply searched deeper: {depths:?}");
    // With no game clock to save time for, the search goes on as asked.
    let no_soft = Limits {
        soft_time: None,
        ..limits
    };
    assert!(depths_reported(&game, &no_soft).len() > 1);
}

/// A full board (no five on it) leaves no move: the search says so instead of playing on a
/// stone, whatever the limits.
#[test]
fn a_full_board_has_no_move() {
    let size = BoardSize::square(5).expect("a size");
    let mut board = Board::new(size);
    for y in 0..5 {
        for x in 0..5 {
            // Pairs of each colour along rows, alternating down columns and diagonals: no five.
            let colour = if (x + 2 * y) % 4 < 2 {
                Color::Black
            } else {
                Color::White
            };
            board
                .place(Point::new(x, y), colour)
                .expect("an empty point");
        }
    }
    let stop = AtomicBool::new(false);
    for limits in [
        Limits {
            nodes: Some(10_000),
            ..Limits::default()
        },
        Limits {
            time: Some(Duration::from_millis(200)),
            ..Limits::default()
        },
    ] {
        let result = Engine::new(1).search(
            &board,
            Rule::Freestyle,
            Color::Black,
            &limits,
            &stop,
            &mut |_| {},
        );
        assert_eq!(result.best(), None);
    }
}

#[test]
fn a_cut_short_iteration_does_not_play_the_move_it_just_proved_lost() {
    // Freestyle, white to move; h10 (the move played in the game, which lost) and g10 (which
    // holds) score alike up to depth 12. At 500,000 nodes the depth-13 iteration searches h10
    // first, proves it lost, and is stopped before any other move finishes. The move it proved
    // lost must not be played: the last completed iteration's next best move is. (Until the
    // root's aspiration window, Step A, the same happened at depth 15 within 2,500,000 nodes;
    // until freestyle's correction by the last stone, at depth 13 within 1,000,000.)
    let game = game_from(Rule::Freestyle, "h8 h7 j9 g8 i6 i10 j7 j10 h9");
    let limits = Limits {
        nodes: Some(500_000),
        ..Limits::default()
    };
    let mut last_completed = None;
    let result = Engine::new(64).search_game(&game, &limits, &AtomicBool::new(false), &mut |i| {
        last_completed = Some((i.depth, i.lines[0].moves[0], i.lines[0].score));
    });
    let h10 = tengen_rules::parse_point(BoardSize::STANDARD, "h10").expect("a point");
    // The setting the test is about: depth 12 completed with h10 best and not lost.
    let (depth, best, score) = last_completed.expect("an iteration completed");
    assert_eq!(
        (depth, best),
        (12, h10),
        "the search no longer reaches this test's case; pick a new budget"
    );
    assert!(
        !score.is_decisive(),
        "h10 already lost at depth 12: {score:?}"
    );
    assert_ne!(result.best(), Some(h10), "played the move proved lost");
    assert!(
        !result.score().expect("a score").is_decisive(),
        "{:?}",
        result.lines
    );
}
