//! Properties of the rules that must hold for every position: undo is exact, the board's
//! symmetries change nothing, white is never restricted, and the fast forbidden-point check
//! agrees with the slow one written from the rule text (`reference/mod.rs`).

mod common;
mod reference;

use common::config;

use std::collections::BTreeMap;

use proptest::collection::vec;
use proptest::prelude::*;
use reference::{naive_double_three, slow_forbidden};
use serde::Deserialize;
use tengen_rules::{
    Board, BoardSize, Color, EndReason, Forbidden, Game, Point, Rule, forbidden, forbidden_points,
    parse_point, point_name,
};

// ---------------------------------------------------------------------------------------------
// Random games.

fn any_size() -> impl Strategy<Value = BoardSize> {
    prop_oneof![
        (5u32..=19).prop_map(|n| BoardSize::square(n).expect("side in range")),
        (5u32..=20, 5u32..=20).prop_map(|(w, h)| BoardSize::rect(w, h).expect("sides in range")),
        Just(BoardSize::UNBOUNDED),
    ]
}

fn any_rule() -> impl Strategy<Value = Rule> {
    proptest::sample::select(Rule::ALL.to_vec())
}

/// A free point for the next move, chosen by `pick` among the free points within `radius` of the
/// centre (so that stones meet and games reach fours, fives and forbidden points), or anywhere
/// once that window is full. `None` only on a full board.
fn pick_point(board: &Board, radius: i32, pick: u32) -> Option<Point> {
    let c = board.size().center();
    let free = |r: i32| -> Vec<Point> {
        (-r..=r)
            .flat_map(|dy| (-r..=r).map(move |dx| c.offset(dx, dy)))
            .filter(|&p| board.contains(p) && board.get(p).is_none())
            .collect()
    };
    let mut points = free(radius);
    if points.is_empty() {
        // Past the window: the whole bounded board, or a wider patch of the unbounded one.
        points = match board.size().width().zip(board.size().height()) {
            Some((w, h)) => free(w.max(h) as i32),
            None => free(radius + 10),
        };
    }
    (!points.is_empty()).then(|| points[pick as usize % points.len()])
}

// Renders a bounded board, top row first, for failure messages.
fn rows(board: &Board) -> String {
    let size = board.size();
    let (w, h) = match size.width().zip(size.height()) {
        Some(wh) => wh,
        None => {
            return format!(
                "unbounded board, stones {:?}",
                board.stones().collect::<Vec<_>>()
            );
        }
    };
    (0..h as i32)
        .map(|y| {
            (0..w as i32)
                .map(|x| match board.get(Point::new(x, y)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

proptest! {
    #![proptest_config(config(64))]

    /// Taking a move back restores the game exactly, whatever the board, the rule and the move
    /// (winning and forbidden moves included), and playing it again gives the same game again.
    #[test]
    fn play_then_undo_restores_the_game(
        size in any_size(),
        rule in any_rule(),
        radius in 2i32..=7,
        picks in vec(any::<u32>(), 1..70),
    ) {
        let mut game = Game::new(size, rule);
        for pick in picks {
            if game.outcome().is_some() {
                break;
            }
            let Some(p) = pick_point(game.board(), radius, pick) else { break };
            let before = game.clone();
            game.play(p).expect("a free point is playable in the free opening");
            let after = game.clone();
            prop_assert_eq!(game.undo(), Some(p));
            prop_assert!(game == before, "undo of {:?}: {:?} != {:?}", p, game, before);
            game.play(p).expect("playable again");
            prop_assert!(game == after, "replay of {:?}: {:?} != {:?}", p, game, after);
        }
        // Undoing everything leads back to the new game.
        while game.undo().is_some() {}
        prop_assert!(game == Game::new(size, rule));
    }

    /// White has no forbidden points under any rule, and black has none outside renju.
    #[test]
    fn white_is_never_forbidden(
        size in any_size(),
        rule in any_rule(),
        radius in 2i32..=5,
        picks in vec(any::<u32>(), 1..70),
    ) {
        let mut game = Game::new(size, rule);
        for pick in picks {
            let Some(to_move) = game.to_move() else { break };
            let Some(p) = pick_point(game.board(), radius, pick) else { break };
            if to_move == Color::White || rule != Rule::Renju {
                prop_assert!(game.forbidden_points().is_empty());
                prop_assert_eq!(game.forbidden_at(p), None);
            }
            let outcome = game.play(p).expect("a free point is playable").cloned();
            if let Some(EndReason::Forbidden(_)) = outcome.map(|o| o.reason) {
                // Only a black move under renju can lose on a forbidden point.
                prop_assert_eq!((rule, to_move), (Rule::Renju, Color::Black));
            }
        }
        // When black is to move under renju, the game's forbidden points are the board's.
        if rule == Rule::Renju && game.to_move() == Some(Color::Black) {
            prop_assert_eq!(game.forbidden_points(), forbidden_points(game.board()));
        }
    }
}

/// A stone near the unbounded board's storage border grows the storage, and taking it back does
/// not shrink it: the boards must still compare equal, since they hold the same stones.
#[test]
fn unbounded_undo_restores_board_equality() {
    let mut game = Game::new(BoardSize::UNBOUNDED, Rule::Freestyle);
    let before = game.clone();
    game.play(Point::new(20, 0)).expect("free point");
    game.undo();
    assert_eq!(game, before);
}

/// The position where black's h8 is a double-three, with white to move: white may play h8 and
/// the game goes on.
#[test]
fn white_may_play_on_blacks_forbidden_point() {
    let mut game = Game::new(BoardSize::STANDARD, Rule::Renju);
    for m in ["g8", "a1", "i8", "a3", "h9", "a5", "h7"] {
        game.play(parse_point(BoardSize::STANDARD, m).expect("valid point"))
            .expect("legal move");
    }
    let h8 = Point::new(7, 7);
    assert_eq!(forbidden(game.board(), h8), Some(Forbidden::DoubleThree));
    assert_eq!(game.to_move(), Some(Color::White));
    assert!(game.forbidden_points().is_empty());
    assert_eq!(game.forbidden_at(h8), None);
    assert_eq!(game.play(h8), Ok(None));
}

// ---------------------------------------------------------------------------------------------
// Symmetries.

/// The `k`-th of the eight symmetries of an `n` x `n` board: bit 2 swaps the axes (a reflection
/// in the main diagonal), then bit 0 mirrors left-right and bit 1 top-bottom.
fn transform(k: u8, n: i32, p: Point) -> Point {
    let (x, y) = if k & 4 != 0 { (p.y, p.x) } else { (p.x, p.y) };
    let x = if k & 1 != 0 { n - 1 - x } else { x };
    let y = if k & 2 != 0 { n - 1 - y } else { y };
    Point::new(x, y)
}

// A winning row as a sorted set of points: a symmetry may reverse its order along the line.
fn line_sets(lines: &[Vec<Point>], f: impl Fn(Point) -> Point) -> Vec<Vec<Point>> {
    let mut sets: Vec<Vec<Point>> = lines
        .iter()
        .map(|l| {
            let mut s: Vec<Point> = l.iter().map(|&p| f(p)).collect();
            s.sort();
            s
        })
        .collect();
    sets.sort();
    sets
}

fn sorted(mut v: Vec<(Point, Forbidden)>) -> Vec<(Point, Forbidden)> {
    v.sort_by_key(|&(p, _)| p);
    v
}

proptest! {
    #![proptest_config(config(24))]

    /// A game played to its end and replayed under each of the eight symmetries of a square
    /// board ends the same way, and the forbidden points along the way map onto each other.
    #[test]
    fn symmetries_keep_outcome_and_forbidden_points(
        n in 5u32..=15,
        rule in any_rule(),
        radius in 2i32..=4,
        picks in vec(any::<u32>(), 225),
    ) {
        let size = BoardSize::square(n).expect("side in range");
        let side = n as i32;
        let mut game = Game::new(size, rule);
        for &pick in &picks {
            if game.outcome().is_some() {
                break;
            }
            let p = pick_point(game.board(), radius, pick).expect("a board not full");
            game.play(p).expect("a free point is playable");
        }
        let outcome = game.outcome().expect("every game ends, at the latest on a full board");
        let moves = game.moves().to_vec();
        for k in 0..8u8 {
            let f = |p: Point| transform(k, side, p);
            let mut image = Game::new(size, rule);
            let mut board = Board::new(size);
            for (i, &p) in moves.iter().enumerate() {
                // The forbidden map, every few moves and at the end: the image of the map is the
                // map of the image.
                if i % 8 == 0 {
                    let mapped: Vec<_> =
                        forbidden_points(&board).into_iter().map(|(q, why)| (f(q), why)).collect();
                    prop_assert_eq!(
                        sorted(forbidden_points(image.board())),
                        sorted(mapped),
                        "symmetry {} before move {}:\n{}", k, i, rows(&board)
                    );
                }
                board.place(p, Color::of_ply(i)).expect("replaying a legal game");
                image.play(f(p)).expect("the image of a legal move is legal");
            }
            let got = image.outcome().expect("the image game ends too");
            prop_assert_eq!((got.winner, got.reason), (outcome.winner, outcome.reason));
            prop_assert_eq!(line_sets(&got.lines, |p| p), line_sets(&outcome.lines, f));
            let mapped: Vec<_> =
                forbidden_points(&board).into_iter().map(|(q, why)| (f(q), why)).collect();
            prop_assert_eq!(sorted(forbidden_points(image.board())), sorted(mapped));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Fast forbidden check against the reference.

/// How a random position is laid out: which board, and which rectangle of it holds stones.
#[derive(Clone, Copy, Debug)]
struct Layout {
    size: BoardSize,
    // Top-left corner and sides of the stone area.
    origin: Point,
    w: i32,
    h: i32,
}

fn board_of_cells(layout: Layout, cells: &[Option<Color>]) -> Board {
    let mut board = Board::new(layout.size);
    for (i, cell) in cells.iter().enumerate() {
        if let Some(color) = *cell {
            let p = layout
                .origin
                .offset(i as i32 % layout.w, i as i32 / layout.w);
            board
                .place(p, color)
                .expect("inside the board, each cell once");
        }
    }
    board
}

/// The points whose verdicts are compared: the whole of a bounded board; on the unbounded board,
/// every point within reach of a stone.
fn points_to_check(board: &Board) -> Vec<Point> {
    if !board.size().is_unbounded() {
        return board.size().points().collect();
    }
    let Some((lo, hi)) = board.extent() else {
        return Vec::new();
    };
    (lo.y - 5..=hi.y + 5)
        .flat_map(|y| (lo.x - 5..=hi.x + 5).map(move |x| Point::new(x, y)))
        .collect()
}

/// What a run of positions met, to show the comparison was not vacuous.
#[derive(Default, Debug)]
struct Tally {
    positions: usize,
    points: usize,
    double_three: usize,
    double_four: usize,
    overline: usize,
    // Points a naive check (every three counts) calls a double-three but RIF 9.3 does not.
    false_double_three: usize,
}

/// Compares the fast and the slow verdict on every point of `board`, or describes the first
/// disagreement.
fn compare(board: &Board, tally: &mut Tally) -> Result<(), String> {
    tally.positions += 1;
    for p in points_to_check(board) {
        if board.get(p).is_some() {
            continue;
        }
        tally.points += 1;
        let fast = forbidden(board, p);
        let slow = slow_forbidden(board, p);
        if fast != slow {
            return Err(format!(
                "fast {fast:?} but slow {slow:?} at {p:?} on {}:\n{}",
                board.size(),
                rows(board)
            ));
        }
        match slow {
            Some(Forbidden::DoubleThree) => tally.double_three += 1,
            Some(Forbidden::DoubleFour) => tally.double_four += 1,
            Some(Forbidden::Overline) => tally.overline += 1,
            None if naive_double_three(board, p) => tally.false_double_three += 1,
            None => {}
        }
    }
    Ok(())
}

// Stone densities of a random position, in percent.
fn densities() -> impl Strategy<Value = (u32, u32)> {
    (25u32..=45, 10u32..=30)
}

fn cell(black: u32, white: u32) -> impl Strategy<Value = Option<Color>> {
    // Empty first, so that shrinking takes stones away.
    prop_oneof![
        100 - black - white => Just(None),
        black => Just(Some(Color::Black)),
        white => Just(Some(Color::White)),
    ]
}

/// Mostly a crowded 7x7 to 9x9 area somewhere on the 15x15 board; now and then a whole small
/// (often rectangular) board, where the edge takes part in the shapes, or a patch of the
/// unbounded board.
fn layout() -> impl Strategy<Value = Layout> {
    let standard = (7i32..=9, 7i32..=9).prop_flat_map(|(w, h)| {
        (0..=15 - w, 0..=15 - h).prop_map(move |(x, y)| Layout {
            size: BoardSize::STANDARD,
            origin: Point::new(x, y),
            w,
            h,
        })
    });
    let small = (5u32..=10, 5u32..=10).prop_map(|(w, h)| Layout {
        size: BoardSize::rect(w, h).expect("sides in range"),
        origin: Point::new(0, 0),
        w: w as i32,
        h: h as i32,
    });
    let unbounded = (7i32..=8, -30i32..=30, -30i32..=30).prop_map(|(s, x, y)| Layout {
        size: BoardSize::UNBOUNDED,
        origin: Point::new(x, y),
        w: s,
        h: s,
    });
    prop_oneof![6 => standard, 3 => small, 1 => unbounded]
}

fn position() -> impl Strategy<Value = Board> {
    (layout(), densities()).prop_flat_map(|(layout, (black, white))| {
        vec(cell(black, white), (layout.w * layout.h) as usize)
            .prop_map(move |cells| board_of_cells(layout, &cells))
    })
}

proptest! {
    #![proptest_config(config(300))]

    /// The fast forbidden check and the reference give the same verdict on every point.
    #[test]
    fn fast_forbidden_matches_reference(board in position()) {
        let mut tally = Tally::default();
        if let Err(e) = compare(&board, &mut tally) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// A deterministic xorshift generator, so the coverage run below is the same on every machine.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + self.below((hi - lo + 1) as u64) as i32
    }
}

fn random_position(rng: &mut XorShift, i: usize) -> Board {
    let layout = match i % 10 {
        0..=5 => {
            let (w, h) = (rng.range(7, 9), rng.range(7, 9));
            let origin = Point::new(rng.range(0, 15 - w), rng.range(0, 15 - h));
            Layout {
                size: BoardSize::STANDARD,
                origin,
                w,
                h,
            }
        }
        6..=8 => {
            let (w, h) = (rng.range(5, 10), rng.range(5, 10));
            Layout {
                size: BoardSize::rect(w as u32, h as u32).expect("sides in range"),
                origin: Point::new(0, 0),
                w,
                h,
            }
        }
        _ => Layout {
            size: BoardSize::UNBOUNDED,
            origin: Point::new(rng.range(-30, 30), rng.range(-30, 30)),
            w: 8,
            h: 8,
        },
    };
    let black = rng.range(25, 45) as u64;
    let white = rng.range(10, 30) as u64;
    let cells: Vec<Option<Color>> = (0..layout.w * layout.h)
        .map(|_| match rng.below(100) {
            r if r < black => Some(Color::Black),
            r if r < black + white => Some(Color::White),
            _ => None,
        })
        .collect();
    board_of_cells(layout, &cells)
}

/// The same comparison over a fixed set of positions, with proof that it met every kind of
/// forbidden point, and false double-threes, often enough to mean something.
#[test]
fn fast_forbidden_matches_reference_with_coverage() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for i in 0..400 {
        let board = random_position(&mut rng, i);
        if let Err(e) = compare(&board, &mut tally) {
            failures.push(format!("position {i}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!("{tally:?}");
    assert_eq!(tally.positions, 400);
    // This run meets about 220 double-threes, 550 double-fours, 400 overlines and 160 false
    // double-threes; the bounds leave room for changes to the generator.
    assert!(tally.double_three >= 100, "{tally:?}");
    assert!(tally.double_four >= 200, "{tally:?}");
    assert!(tally.overline >= 200, "{tally:?}");
    assert!(tally.false_double_three >= 50, "{tally:?}");
}

// ---------------------------------------------------------------------------------------------
// The reference against the published verdicts.

#[derive(Deserialize)]
struct Suite {
    cases: Vec<Case>,
    #[serde(default)]
    full_maps: Vec<Map>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    rows: Vec<String>,
    point: String,
    color: Option<String>,
    expected_type: Option<String>,
}

#[derive(Deserialize)]
struct Map {
    id: String,
    rows: Vec<String>,
    forbidden: BTreeMap<String, String>,
}

fn load(name: &str) -> Suite {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("test data present");
    serde_json::from_str(&text).expect("test data well-formed")
}

fn board_of_rows<S: AsRef<str>>(rows: &[S]) -> Board {
    Board::from_rows(rows).expect("a valid test board")
}

fn reference_agrees_with(suite: &Suite) -> usize {
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in &suite.cases {
        if case.color.as_deref() == Some("white") {
            // Such a case only says the point is legal for white, who has no forbidden points.
            continue;
        }
        let board = board_of_rows(&case.rows);
        let p = parse_point(BoardSize::STANDARD, &case.point).expect("a valid point");
        let got = slow_forbidden(&board, p).map_or("legal", Forbidden::key);
        // A five is legal: the data marks it apart.
        let want = match case.expected_type.as_deref() {
            Some("five") | None => "legal",
            Some(t) => t,
        };
        checked += 1;
        if got != want {
            failures.push(format!("{}: expected {want}, got {got}", case.id));
        }
    }
    for map in &suite.full_maps {
        let board = board_of_rows(&map.rows);
        let got: BTreeMap<String, String> = BoardSize::STANDARD
            .points()
            .filter_map(|p| {
                slow_forbidden(&board, p)
                    .map(|f| (point_name(BoardSize::STANDARD, p), f.key().to_string()))
            })
            .collect();
        checked += 1;
        if got != map.forbidden {
            failures.push(format!(
                "map {}: expected {:?}, got {got:?}",
                map.id, map.forbidden
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

#[test]
fn reference_agrees_with_published_verdicts() {
    // 128 cases, of which a few ask about white, and 30 complete maps.
    let checked = reference_agrees_with(&load("forbidden_cases.json"));
    assert!(checked >= 150, "only {checked} checked");
}

#[test]
fn reference_agrees_with_generated_false_double_threes() {
    assert_eq!(
        reference_agrees_with(&load("generated_false33_cases.json")),
        60
    );
}
