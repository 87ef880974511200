//! Points at and past the ends of `i32`, and at the bound of the unbounded board
//! ([`MAX_UNBOUNDED_COORD`]): every entry point of the rules answers them with a typed error or a
//! correct result, never a panic, and the bound behaves as an edge.

mod common;
use common::config;

use proptest::prelude::*;
use tengen_rules::{
    Board, BoardSize, Color, Coord, CoordError, Direction, ForbiddenPolicy, Game,
    MAX_UNBOUNDED_COORD, PlaceError, PlayError, Point, Record, RecordError, RecordFormat, Rule,
    forbidden, forbidden_points, parse_point, point_name,
};

const M: i32 = MAX_UNBOUNDED_COORD;

fn p(x: i32, y: i32) -> Point {
    Point::new(x, y)
}

// A coordinate next to one of the values where arithmetic on points could go wrong.
fn coordinate() -> impl Strategy<Value = i32> {
    let near = |v: i32| (-8i32..=8).prop_map(move |d| v.wrapping_add(d));
    prop_oneof![
        near(i32::MIN),
        near(i32::MAX),
        near(M),
        near(-M),
        near(0),
        any::<i32>(),
    ]
}

fn sizes() -> impl Strategy<Value = BoardSize> {
    prop_oneof![
        2 => Just(BoardSize::UNBOUNDED),
        1 => Just(BoardSize::STANDARD),
        1 => Just(BoardSize::square(100).expect("valid")),
    ]
}

// Points clustered around an anchor near the limits, so that they make lines, fives and
// forbidden shapes there; offsets wrap, so a cluster at i32::MAX spills over to i32::MIN.
fn cluster() -> impl Strategy<Value = Vec<Point>> {
    (
        coordinate(),
        coordinate(),
        prop::collection::vec((-6i32..=6, -6i32..=6), 0..48),
    )
        .prop_map(|(x, y, offsets)| {
            offsets
                .into_iter()
                .map(|(dx, dy)| p(x, y).offset(dx, dy))
                .collect()
        })
}

// A winning row as the rules report it: at least five points on the board, one step apart along
// one direction, all of `color`.
fn check_line(board: &Board, line: &[Point], color: Color) -> Result<(), TestCaseError> {
    prop_assert!(line.len() >= 5, "{line:?}");
    for q in line {
        prop_assert!(board.contains(*q), "{q:?} of {line:?}");
        prop_assert_eq!(board.get(*q), Some(color));
    }
    let step = (line[1].x - line[0].x, line[1].y - line[0].y);
    prop_assert!(Direction::ALL.iter().any(|d| d.delta() == step), "{line:?}");
    for w in line.windows(2) {
        prop_assert_eq!((w[1].x - w[0].x, w[1].y - w[0].y), step);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn games_near_the_limits_never_panic(
        size in sizes(),
        rule in prop::sample::select(Rule::ALL.to_vec()),
        refuse in any::<bool>(),
        points in cluster(),
    ) {
        let mut game = Game::new(size, rule);
        if refuse {
            game.set_forbidden_policy(ForbiddenPolicy::Refuse);
        }
        for &q in &points {
            let before = game.clone();
            let foul = game.forbidden_at(q);
            prop_assert!(foul.is_none() || size.contains(q));
            match game.play(q) {
                Ok(outcome) => {
                    prop_assert!(size.contains(q));
                    if let Some(o) = outcome.cloned() {
                        let color = game.board().get(q).expect("the stone just played");
                        for line in &o.lines {
                            check_line(game.board(), line, color)?;
                            prop_assert!(line.contains(&q));
                        }
                    }
                }
                Err(e) => {
                    prop_assert_eq!(&game, &before);
                    let off = matches!(e, PlayError::OffBoard(_));
                    prop_assert_eq!(off, !size.contains(q) && game.outcome().is_none(), "{}", e);
                }
            }
            // Keep playing past the end of a game, so that more of the cluster is tried.
            if game.outcome().is_some() {
                game.undo();
            }
        }
        let board = game.board();
        for (q, _) in board.stones() {
            prop_assert!(size.contains(q));
        }
        for (q, _) in forbidden_points(board) {
            prop_assert!(size.contains(q) && board.is_empty_at(q), "{q:?}");
        }
        for &q in &points {
            for color in [Color::Black, Color::White] {
                if board.get(q) == Some(color) {
                    for line in rule.fives(board, q, color) {
                        check_line(board, &line, color)?;
                    }
                }
            }
        }
    }

    #[test]
    fn the_board_takes_a_stone_exactly_where_it_contains_the_point(
        size in sizes(),
        points in cluster(),
    ) {
        let mut board = Board::new(size);
        for (i, &q) in points.iter().enumerate() {
            let before = board.clone();
            let color = Color::of_ply(i);
            let free = board.is_empty_at(q);
            prop_assert_eq!(free, size.contains(q) && board.get(q).is_none());
            match board.place(q, color) {
                Ok(()) => prop_assert!(size.contains(q) && free),
                Err(PlaceError::OffBoard(r)) => {
                    prop_assert_eq!(r, q);
                    prop_assert!(!size.contains(q));
                }
                Err(_) => prop_assert!(size.contains(q)),
            }
            if board.get(q).is_none() {
                prop_assert_eq!(&board, &before);
            }
            // An off-board point is never forbidden: it is not playable at all.
            if !size.contains(q) {
                prop_assert_eq!(forbidden(&board, q), None);
                prop_assert!(board.remove(q).is_err());
            }
        }
    }

    #[test]
    fn coordinates_at_the_limits_are_read_or_refused_with_a_typed_error(
        x in coordinate(),
        y in coordinate(),
        size in sizes(),
        k in coordinate(),
    ) {
        let q = p(x, y);
        let on = size.contains(q);
        let text = format!("{x},{y}");
        match parse_point(size, &text) {
            Ok(r) => prop_assert!(on && r == q),
            Err(e) => prop_assert!(!on && matches!(e, CoordError::OffBoard(..)), "{}", e),
        }
        prop_assert_eq!(Coord::renju(size, q).is_some(), on && !size.is_unbounded());
        if on {
            prop_assert_eq!(parse_point(size, &point_name(size, q)), Ok(q));
        }
        // Point arithmetic wraps instead of overflowing, whatever the step.
        for d in Direction::ALL {
            let (dx, dy) = d.delta();
            prop_assert_eq!(
                q.step(d, k),
                p(x.wrapping_add(dx.wrapping_mul(k)), y.wrapping_add(dy.wrapping_mul(k)))
            );
        }
        let _ = q.chebyshev(p(k, k));

        // A plain list reads the point or names it off the board.
        match Record::parse(&text, RecordFormat::Plain, size) {
            Ok(r) => prop_assert!(on && r.moves == vec![q]),
            Err(e) => prop_assert!(!on && matches!(
                e,
                RecordError::Coord { error: CoordError::OffBoard(..), .. }
            ), "{}", e),
        }
        // A psq move is 1-based, so x - 1 must not overflow either.
        let psq = format!("Piskvorky 20x20, 11:11, 0\n{x},{y},0\n");
        let in_psq = BoardSize::square(20)
            .expect("valid")
            .contains(p(x.wrapping_sub(1), y.wrapping_sub(1)));
        match Record::parse(&psq, RecordFormat::Psq, size) {
            Ok(r) => prop_assert!(in_psq && r.moves == vec![p(x - 1, y - 1)]),
            Err(e) => prop_assert!(!in_psq && matches!(e, RecordError::Coord { .. }), "{}", e),
        }

        // A record holding the point (its fields are public) writes and replays only if on.
        let mut record = Record::new(size);
        record.moves.push(q);
        prop_assert_eq!(record.write(RecordFormat::Plain).is_ok(), on);
        match record.replay(Rule::Renju, ForbiddenPolicy::Lose) {
            Ok(game) => prop_assert!(on && game.moves() == [q]),
            Err(e) => {
                prop_assert!(!on);
                prop_assert_eq!(e.error, PlayError::OffBoard(point_name(size, q)));
            }
        }
    }
}

#[test]
fn the_unbounded_board_ends_at_its_coordinate_bound() {
    let size = BoardSize::UNBOUNDED;
    for q in [p(M, M), p(-M, -M), p(M, -M), p(-M, M)] {
        assert!(size.contains(q), "{q:?}");
        let mut board = Board::new(size);
        board.place(q, Color::Black).expect("on the board");
        assert_eq!(board.get(q), Some(Color::Black));
        assert_eq!(board.extent(), Some((q, q)));
    }
    let mut game = Game::new(size, Rule::Renju);
    game.play(p(M, 0)).expect("on the board");
    let before = game.clone();
    for (q, name) in [
        (p(M + 1, 0), "1000000001,0"),
        (p(i32::MAX, 0), "2147483647,0"),
        (p(i32::MIN, 0), "-2147483648,0"),
        (p(0, i32::MAX), "0,2147483647"),
        (p(i32::MIN, i32::MIN), "-2147483648,-2147483648"),
    ] {
        assert!(!size.contains(q), "{q:?}");
        assert_eq!(game.play(q), Err(PlayError::OffBoard(name.into())));
        assert_eq!(game, before);
        let mut board = Board::new(size);
        assert_eq!(board.place(q, Color::White), Err(PlaceError::OffBoard(q)));
        assert_eq!(board.stone_count(), 0);
    }
}

// Plays `moves` (black first) and returns the game.
fn played(size: BoardSize, rule: Rule, moves: &[Point]) -> Game {
    let mut game = Game::new(size, rule);
    for &q in moves {
        game.play(q).expect("a legal move");
    }
    game
}

#[test]
fn fives_against_the_bound_win_and_their_lines_stay_on_the_board() {
    let size = BoardSize::UNBOUNDED;
    // Black along the right end of the top row, one stone short; white far enough away.
    let mut game = played(
        size,
        Rule::Standard,
        &[
            p(M, -M),
            p(M - 9, -M + 9),
            p(M - 1, -M),
            p(M - 9, -M + 8),
            p(M - 2, -M),
            p(M - 9, -M + 7),
            p(M - 3, -M),
            p(M - 9, -M + 6),
        ],
    );
    // Beyond the corner is off the board; the five is completed on the other side.
    assert_eq!(
        game.play(p(M + 1, -M)),
        Err(PlayError::OffBoard("1000000001,-1000000000".into()))
    );
    assert_eq!(
        game.play(p(M, -M - 1)),
        Err(PlayError::OffBoard("1000000000,-1000000001".into()))
    );
    let outcome = game
        .play(p(M - 4, -M))
        .expect("legal")
        .expect("five")
        .clone();
    assert_eq!(outcome.winner, Some(Color::Black));
    assert_eq!(
        outcome.lines,
        vec![(0..5).map(|i| p(M - 4 + i, -M)).collect::<Vec<_>>()]
    );

    // The anti-diagonal into the bottom-left corner, under caro: the edge is no block.
    let mut moves = Vec::new();
    for i in 0..4 {
        moves.push(p(-M + i, M - i));
        moves.push(p(-M + 20, M - 20 + i));
    }
    moves.push(p(-M + 4, M - 4));
    let game = played(size, Rule::Caro, &moves);
    let outcome = game.outcome().expect("five");
    assert_eq!(outcome.winner, Some(Color::Black));
    assert_eq!(
        outcome.lines,
        vec![(0..5).map(|i| p(-M + i, M - i)).collect::<Vec<_>>()]
    );
}

#[test]
fn the_bound_is_an_edge_for_forbidden_points() {
    // Black to move at `at` with two threes: horizontal (at, at+1, at+2) and vertical (at, one
    // and two below). Away from the bound both are open: a double three. With the horizontal
    // three's far end on the bound it can no longer become a straight four, so it is no three.
    let position = |x: i32| {
        let mut board = Board::new(BoardSize::UNBOUNDED);
        for q in [p(x + 1, 0), p(x + 2, 0), p(x, 1), p(x, 2)] {
            board.place(q, Color::Black).expect("free");
        }
        board
    };
    let inside = position(M - 12);
    assert_eq!(
        forbidden(&inside, p(M - 12, 0)),
        Some(tengen_rules::Forbidden::DoubleThree)
    );
    let at_bound = position(M - 2);
    assert_eq!(forbidden(&at_bound, p(M - 2, 0)), None);
    assert!(forbidden_points(&at_bound).is_empty());
    // The same against the edge of a bounded board, for comparison.
    let mut bounded = Board::new(BoardSize::STANDARD);
    for q in [p(13, 0), p(14, 0), p(12, 1), p(12, 2)] {
        bounded.place(q, Color::Black).expect("free");
    }
    assert_eq!(forbidden(&bounded, p(12, 0)), None);

    // An overline needs six on the board: five up to the bound and a stone beyond is no move.
    let mut game = Game::new(BoardSize::UNBOUNDED, Rule::Renju);
    for i in 0..4 {
        game.play(p(M - i, 5)).expect("legal");
        game.play(p(M - i, 20)).expect("legal");
    }
    assert_eq!(game.forbidden_at(p(M + 1, 5)), None);
    assert!(matches!(
        game.play(p(M + 1, 5)),
        Err(PlayError::OffBoard(_))
    ));
    let outcome = game
        .play(p(M - 4, 5))
        .expect("legal")
        .expect("exactly five");
    assert_eq!(outcome.winner, Some(Color::Black));
}
