//! What the computer decides besides its moves: the first stones of an opening, the swap and
//! swap2 choices (placing two more stones included), whether to take a draw, and when to resign.
//! The web app, the Gomocup brain and the online bot all decide through this module, so they
//! share one set of constants. (The Gomocup protocol asks a brain neither for draws nor
//! resignations, so the brain uses the opening decisions only.)

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use tengen_rules::{
    Board, BoardSize, Choice, Color, Game, OpeningRule, Pending, Phase, Point, Rule, forbidden,
};

use crate::{Engine, Level, Limits, Line, Played, Score, TimeControl};

/// Within this many evaluation units of even (either way) a swap2 position counts as balanced:
/// the one to choose places two more stones rather than take a side that is no better.
pub const BALANCED: i32 = 40;

/// The computer declines a draw when it stands better than this many evaluation units.
pub const DRAW_DECLINE_ABOVE: i32 = 30;

/// The master resigns a loss its search proves within this many plies (the opponent's five
/// whatever it plays); a longer proof is played out, as a person may still miss the win.
pub const RESIGN_WITHIN_PLIES: u32 = 10;

/// How many of black's best stones the balancing search compares, when it places two.
const BALANCING_LINES: usize = 5;

/// The ceiling of an opening judgement's time; the node budget usually ends it first.
const JUDGEMENT_TIME: Duration = Duration::from_millis(3_000);

/// The budget of an opening judgement or a draw offer's look at a level: the node count keeps a
/// level's games repeatable, the time is a ceiling for slow machines.
pub fn judgement_limits(level: Level) -> Limits {
    let nodes = match level {
        Level::Beginner => 50_000,
        Level::Intermediate => 100_000,
        Level::Expert | Level::Master => 200_000,
    };
    Limits {
        time: Some(JUDGEMENT_TIME),
        nodes: Some(nodes),
        depth: None,
        multipv: 1,
        ..Limits::default()
    }
}

/// A short search's verdict on a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// The best move for the side to move, if the search found one.
    pub best: Option<Point>,
    /// Its score, for the side to move (even when the search found nothing).
    pub score: Score,
    /// The same score for black.
    pub black_value: i32,
}

/// Judges `board` with `side` to move within `limits` (one line, whatever `limits` asks).
pub fn judge(
    engine: &mut Engine,
    board: &Board,
    rule: Rule,
    side: Color,
    limits: &Limits,
    stop: &AtomicBool,
) -> Judgement {
    let lines = playable_lines(engine, board, rule, side, limits, 1, stop);
    let first = lines.first();
    let score = first.map_or(Score::Eval(0), |l| l.score);
    let value = score.value();
    Judgement {
        best: first.and_then(|l| l.moves.first().copied()),
        score,
        black_value: if side == Color::Black { value } else { -value },
    }
}

/// The swap or swap2 choice for a position black stands `black_value` in: two more stones when
/// the position is balanced and they may be placed, else the better side (black when even).
pub fn choice(black_value: i32, may_place_two: bool) -> Choice {
    if may_place_two && black_value.abs() < BALANCED {
        Choice::PlaceTwo
    } else if black_value >= 0 {
        Choice::Black
    } else {
        Choice::White
    }
}

/// Whether the computer, playing `own`, takes a draw in a position black stands `black_value`
/// in: yes unless it stands clearly better.
pub fn accepts_draw(own: Color, black_value: i32) -> bool {
    let own_value = if own == Color::Black {
        black_value
    } else {
        -black_value
    };
    own_value <= DRAW_DECLINE_ABOVE
}

/// The computer's answer to a draw offer, and the judgement it rests on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawAnswer {
    /// Whether it takes the draw.
    pub accepts: bool,
    /// The position's score for the computer (whoever is to move).
    pub own_score: Score,
    /// The judgement, for the side to move.
    pub judgement: Judgement,
}

/// The computer at `level`, playing `own`, answers a draw offer in `board` (`to_move` to
/// play): it judges the position within the level's judgement budget and takes the draw
/// unless it stands clearly better ([`accepts_draw`]).
pub fn answer_draw(
    engine: &mut Engine,
    board: &Board,
    rule: Rule,
    to_move: Color,
    own: Color,
    level: Level,
    stop: &AtomicBool,
) -> DrawAnswer {
    let judgement = judge(engine, board, rule, to_move, &judgement_limits(level), stop);
    let own_score = if own == to_move {
        judgement.score
    } else {
        match judgement.score {
            Score::Eval(v) => Score::Eval(-v),
            Score::Win(n) => Score::Loss(n),
            Score::Loss(n) => Score::Win(n),
        }
    };
    DrawAnswer {
        accepts: accepts_draw(own, judgement.black_value),
        own_score,
        judgement,
    }
}

/// Whether the computer at `level` resigns, its search having scored its position `score` (for
/// itself, to move). Only the master resigns, and only a loss proven near
/// ([`RESIGN_WITHIN_PLIES`]), as engines in playing apps do: the lower levels play every game
/// to its end, since their opponents learn by finding the win, and an unproven bad position is
/// never resigned at any level.
pub fn resigns(level: Level, score: Score) -> bool {
    level == Level::Master && matches!(score, Score::Loss(n) if n <= RESIGN_WITHIN_PLIES)
}

/// What the computer does when [`Game::pending`] waits for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// A stone on this point (`None`: the search found no move, as on a full board).
    Stone(Option<Point>),
    /// A swap decision.
    Choose(Choice),
    /// Resign ([`resigns`]).
    Resign,
}

/// The computer's act in `game` at `level` within the clock `tc`: in a swap opening the stones
/// it places and the colour it takes, then its moves, and resignation where [`resigns`] says
/// so. The web app and `tengen play` both act through it. `None` when the game is over.
pub fn act(
    engine: &mut Engine,
    game: &Game,
    level: Level,
    tc: &TimeControl,
    seed: u64,
    stop: &AtomicBool,
) -> Option<Act> {
    let limits = judgement_limits(level);
    let (board, rule) = (game.board(), game.rule());
    match game.pending() {
        Pending::Over => None,
        Pending::Choice { may_place_two, .. } => {
            let side = game.to_move()?;
            let j = judge(engine, board, rule, side, &limits, stop);
            Some(Act::Choose(choice(j.black_value, may_place_two)))
        }
        Pending::Move { color, .. } if matches!(game.phase(), Phase::Placing { .. }) => {
            if game.moves().len() < 3 {
                return Some(Act::Stone(opening_stone(board, seed)));
            }
            Some(Act::Stone(balancing_stone(
                engine, board, rule, color, &limits, stop,
            )))
        }
        // The beginner opening's first three stones have their places (the centre, touching it,
        // the central 5x5), of which the search knows nothing: placed by rule of thumb too.
        Pending::Move { .. }
            if game.opening() == OpeningRule::Beginner && game.moves().len() < 3 =>
        {
            Some(Act::Stone(opening_stone(board, seed)))
        }
        Pending::Move { .. } => Some(match engine.play_scored(game, level, tc, seed, stop) {
            Some(Played {
                score: Some(score), ..
            }) if resigns(level, score) => Act::Resign,
            played => Act::Stone(played.map(|p| p.at)),
        }),
    }
}

/// One of the first three stones of an opening the computer places by rule of thumb (swap,
/// swap2, beginner): the centre, a stone beside it (straight or diagonal) and a black stone
/// within two points of the centre (near both when the second stone is the computer's, in the
/// shapes of the 26 renju openings), chosen by `seed`. `None` when no shape fits.
pub fn opening_stone(board: &Board, seed: u64) -> Option<Point> {
    /// White's second stone: beside the centre, straight or diagonal (all the openings up to
    /// symmetry).
    const SECOND: [(i32, i32); 2] = [(1, 0), (1, -1)];
    /// Black's third stone, within two points of the centre.
    const THIRD: [(i32, i32); 12] = [
        (0, -1),
        (1, -1),
        (2, 0),
        (2, -1),
        (0, -2),
        (1, -2),
        (2, -2),
        (-1, -1),
        (0, 1),
        (1, 1),
        (2, 1),
        (-1, 0),
    ];
    let c = board.size().center();
    let pick = |options: &[(i32, i32)], k: u64| {
        // A mixed seed, so that neighbouring seeds start at different shapes.
        let start = (seed.wrapping_mul(6364136223846793005).wrapping_add(k) >> 33) as usize;
        (0..options.len())
            .map(|i| options[(start + i) % options.len()])
            .map(|(dx, dy)| c.offset(dx, dy))
            .find(|&p| board.contains(p) && board.is_empty_at(p))
    };
    match board.stone_count() {
        0 => Some(c),
        1 => pick(&SECOND, 1),
        _ => pick(&THIRD, 2),
    }
}

/// The next of the two stones placed in swap2 to keep the balance, `side` to place it: white's
/// best stone, then the black stone among black's best that leaves the position closest to even.
pub fn balancing_stone(
    engine: &mut Engine,
    board: &Board,
    rule: Rule,
    side: Color,
    limits: &Limits,
    stop: &AtomicBool,
) -> Option<Point> {
    if side == Color::White {
        return judge(engine, board, rule, side, limits, stop).best;
    }
    let lines = playable_lines(engine, board, rule, side, limits, BALANCING_LINES, stop);
    lines
        .iter()
        .filter(|l| !l.score.is_decisive())
        .min_by_key(|l| l.score.value().abs())
        .or(lines.first())
        .and_then(|l| l.moves.first().copied())
}

/// The three stones (black, white, black) near the centre that the engine finds closest to even
/// with white to move: the swap2 opener's stones when the opponent picks a side next. Each
/// candidate gets `limits` (the caller divides its time); `on_candidate` hears each one judged.
pub fn balanced_opening(
    engine: &mut Engine,
    size: BoardSize,
    rule: Rule,
    limits: &Limits,
    stop: &AtomicBool,
    on_candidate: &mut dyn FnMut(&[Point], Score),
) -> Vec<Point> {
    let centre = size.center();
    let mut best: Option<(i32, Vec<Point>)> = None;
    for pts in balanced_opening_candidates(size) {
        let mut board = Board::new(size);
        for (i, &p) in pts.iter().enumerate() {
            board.place(p, Color::of_ply(i)).ok();
        }
        let lines = playable_lines(engine, &board, rule, Color::White, limits, 1, stop);
        let imbalance = lines.first().map_or(i32::MAX, |l| l.score.value().abs());
        if let Some(l) = lines.first() {
            on_candidate(&pts, l.score);
        }
        if best.as_ref().is_none_or(|(v, _)| imbalance < *v) {
            best = Some((imbalance, pts));
        }
    }
    // Every board is at least 5x5, so the first shape (within two points of the centre)
    // always fits; the literal is only for the type checker.
    best.map(|(_, pts)| pts)
        .unwrap_or_else(|| vec![centre, centre.offset(1, -1), centre.offset(2, 0)])
}

/// How many candidates `balanced_opening` judges on a board of `size` (for dividing time).
pub fn balanced_opening_candidates(size: BoardSize) -> Vec<Vec<Point>> {
    const SHAPES: [[(i32, i32); 3]; 6] = [
        [(0, 0), (1, -1), (2, 0)],
        [(0, 0), (0, 1), (2, 2)],
        [(0, 0), (1, 1), (-1, 2)],
        [(0, 0), (2, 0), (1, 2)],
        [(0, 0), (-1, 1), (2, 1)],
        [(0, 0), (3, 0), (1, 1)],
    ];
    let centre = size.center();
    SHAPES
        .iter()
        .map(|shape| {
            shape
                .iter()
                .map(|&(dx, dy)| centre.offset(dx, dy))
                .collect::<Vec<_>>()
        })
        .filter(|pts| pts.iter().all(|&p| size.contains(p)))
        .collect()
}

/// Whether `side` may play `p` on `board` under `rule`.
pub fn playable(board: &Board, rule: Rule, side: Color, p: Point) -> bool {
    board.contains(p)
        && board.is_empty_at(p)
        && !(rule.has_forbidden() && side == Color::Black && forbidden(board, p).is_some())
}

/// The search's lines whose first move `side` may play: a decision never rests on a move the
/// rules refuse.
fn playable_lines(
    engine: &mut Engine,
    board: &Board,
    rule: Rule,
    side: Color,
    limits: &Limits,
    multipv: usize,
    stop: &AtomicBool,
) -> Vec<Line> {
    let limits = Limits { multipv, ..*limits };
    engine
        .search(board, rule, side, &limits, stop, &mut |_| {})
        .lines
        .into_iter()
        .filter(|l| {
            l.moves
                .first()
                .is_some_and(|&p| playable(board, rule, side, p))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// The computer's turn through a swap2 opening: three stones placed by rule of thumb, a
    /// choice when one is pending, moves once colours are settled, nothing once the game is
    /// over, and resignation only where a loss is proven close.
    #[test]
    fn a_turn_is_a_stone_a_choice_a_move_or_resignation() {
        let mut engine = Engine::new(4);
        let stop = AtomicBool::new(false);
        let tc = TimeControl {
            per_move: Some(200),
            left: None,
            increment: 0,
        };
        let mut game = Game::with_opening(BoardSize::STANDARD, Rule::Freestyle, OpeningRule::Swap2);
        for _ in 0..3 {
            let Some(Act::Stone(Some(p))) = act(&mut engine, &game, Level::Beginner, &tc, 1, &stop)
            else {
                panic!("a stone of the opening");
            };
            game.play(p).expect("a legal opening stone");
        }
        match act(&mut engine, &game, Level::Beginner, &tc, 1, &stop) {
            Some(Act::Choose(c)) => game.choose(c).expect("an offered choice"),
            other => panic!("a choice, not {other:?}"),
        }
        if game.phase().mover(Color::White).is_some() {
            let Some(Act::Stone(Some(p))) = act(&mut engine, &game, Level::Master, &tc, 1, &stop)
            else {
                panic!("a move");
            };
            assert!(game.play(p).is_ok());
        }
        // Black with a straight four on row 8 and white to move: the master resigns a loss
        // this close, the beginner plays on.
        let mut lost = Game::new(BoardSize::STANDARD, Rule::Freestyle);
        for m in ["e8", "a1", "f8", "c1", "g8", "e1", "h8"] {
            lost.play(tengen_rules::parse_point(BoardSize::STANDARD, m).expect("a point"))
                .expect("legal");
        }
        assert_eq!(lost.to_move(), Some(Color::White));
        assert_eq!(
            act(&mut engine, &lost, Level::Master, &tc, 1, &stop),
            Some(Act::Resign)
        );
        assert!(matches!(
            act(&mut engine, &lost, Level::Beginner, &tc, 1, &stop),
            Some(Act::Stone(Some(_)))
        ));
        lost.resign(Color::White)
            .expect("the game goes on until now");
        assert_eq!(act(&mut engine, &lost, Level::Master, &tc, 1, &stop), None);
    }

    /// The beginner opening puts the first stone on the centre, the second touching it and the
    /// third inside the central 5x5: the computer's stones keep to it on any board, at any
    /// level, as black or white. (Searched, white's second stone often went two points away.)
    #[test]
    fn the_computers_first_stones_keep_the_beginner_opening() {
        let mut engine = Engine::new(4);
        let stop = AtomicBool::new(false);
        let tc = TimeControl {
            per_move: Some(100),
            left: None,
            increment: 0,
        };
        let sizes = [
            BoardSize::STANDARD,
            BoardSize::square(5).expect("a size"),
            BoardSize::rect(100, 6).expect("a size"),
            BoardSize::UNBOUNDED,
        ];
        for size in sizes {
            for level in Level::ALL {
                for seed in 0..3 {
                    let mut game = Game::with_opening(size, Rule::Renju, OpeningRule::Beginner);
                    for _ in 0..3 {
                        let Some(Act::Stone(Some(p))) =
                            act(&mut engine, &game, level, &tc, seed, &stop)
                        else {
                            panic!("{size} {level}: no stone after {:?}", game.moves());
                        };
                        let before = game.moves().to_vec();
                        if let Err(e) = game.play(p) {
                            panic!("{size} {level} seed {seed}: {e} after {before:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn choices_follow_the_value() {
        assert_eq!(choice(0, true), Choice::PlaceTwo);
        assert_eq!(choice(BALANCED - 1, true), Choice::PlaceTwo);
        assert_eq!(choice(-(BALANCED - 1), true), Choice::PlaceTwo);
        assert_eq!(choice(BALANCED, true), Choice::Black);
        assert_eq!(choice(-BALANCED, true), Choice::White);
        assert_eq!(choice(0, false), Choice::Black);
        assert_eq!(choice(-1, false), Choice::White);
    }

    #[test]
    fn draws_are_declined_only_when_standing_better() {
        assert!(accepts_draw(Color::Black, DRAW_DECLINE_ABOVE));
        assert!(!accepts_draw(Color::Black, DRAW_DECLINE_ABOVE + 1));
        assert!(accepts_draw(Color::White, DRAW_DECLINE_ABOVE + 1));
        assert!(!accepts_draw(Color::White, -(DRAW_DECLINE_ABOVE + 1)));
        assert!(accepts_draw(Color::White, 200));
    }

    #[test]
    fn only_the_master_resigns_and_only_a_near_proven_loss() {
        for level in Level::ALL {
            assert!(!resigns(level, Score::Eval(-5_000)), "{level}");
            assert!(!resigns(level, Score::Win(3)), "{level}");
            assert_eq!(resigns(level, Score::Loss(2)), level == Level::Master);
            assert_eq!(
                resigns(level, Score::Loss(RESIGN_WITHIN_PLIES)),
                level == Level::Master
            );
            assert!(!resigns(level, Score::Loss(RESIGN_WITHIN_PLIES + 1)));
        }
    }

    #[test]
    fn opening_stones_keep_the_beginner_and_swap_rules() {
        for opening in [OpeningRule::Beginner, OpeningRule::Swap, OpeningRule::Swap2] {
            for seed in [0_u64, 1, 2, 3, 1 << 33, 5 << 33, u64::MAX] {
                let mut game = Game::with_opening(BoardSize::STANDARD, Rule::Freestyle, opening);
                for _ in 0..3 {
                    let p = opening_stone(game.board(), seed).expect("a stone");
                    game.play(p).expect("the opening allows it");
                }
                let c = BoardSize::STANDARD.center();
                assert!(game.board().stones().all(|(p, _)| p.chebyshev(c) <= 2));
            }
        }
    }

    #[test]
    fn a_won_position_is_no_choice_and_no_draw() {
        // Black has an open four: black is the side to take, and no draw for black.
        let board = Board::from_rows(&[
            ".........",
            ".........",
            ".........",
            "..XXXX...",
            "....O....",
            "....O....",
            "....O....",
            ".........",
            ".........",
        ])
        .expect("a board");
        let mut engine = Engine::new(1);
        let stop = AtomicBool::new(false);
        let j = judge(
            &mut engine,
            &board,
            Rule::Freestyle,
            Color::White,
            &limits(20_000),
            &stop,
        );
        assert!(j.score.is_decisive() && j.black_value > BALANCED);
        assert_eq!(choice(j.black_value, true), Choice::Black);
        assert!(!accepts_draw(Color::Black, j.black_value));
        assert!(accepts_draw(Color::White, j.black_value));
        // The same through the offer's own path, at a level's budget, for either side.
        for (own, accepts) in [(Color::Black, false), (Color::White, true)] {
            let a = answer_draw(
                &mut engine,
                &board,
                Rule::Freestyle,
                Color::White,
                own,
                Level::Beginner,
                &stop,
            );
            assert_eq!(a.accepts, accepts, "{own:?}");
            assert_eq!(
                matches!(a.own_score, Score::Win(_)),
                own == Color::Black,
                "{:?}",
                a.own_score
            );
        }
    }

    #[test]
    fn on_an_empty_board_white_takes_a_draw_and_black_keeps_its_first_move() {
        let board = Board::new(BoardSize::STANDARD);
        let mut engine = Engine::new(1);
        let stop = AtomicBool::new(false);
        let answer = |engine: &mut Engine, own| {
            answer_draw(
                engine,
                &board,
                Rule::Renju,
                Color::Black,
                own,
                Level::Beginner,
                &stop,
            )
        };
        let white = answer(&mut engine, Color::White);
        assert!(white.accepts, "{:?}", white.judgement);
        // Black's first move is worth more than the margin to the engine.
        let black = answer(&mut engine, Color::Black);
        assert!(black.judgement.black_value > DRAW_DECLINE_ABOVE);
        assert!(!black.accepts);
        assert_eq!(black.own_score, black.judgement.score);
    }

    #[test]
    fn balancing_stones_are_playable_and_balanced_openings_fit() {
        let size = BoardSize::STANDARD;
        let mut engine = Engine::new(1);
        let stop = AtomicBool::new(false);
        let opening = balanced_opening(
            &mut engine,
            size,
            Rule::Renju,
            &limits(5_000),
            &stop,
            &mut |pts, _| assert_eq!(pts.len(), 3),
        );
        assert!(balanced_opening_candidates(size).contains(&opening));
        let mut board = Board::new(size);
        for (i, &p) in opening.iter().enumerate() {
            board.place(p, Color::of_ply(i)).expect("free");
        }
        for side in [Color::White, Color::Black] {
            let p = balancing_stone(
                &mut engine,
                &board,
                Rule::Renju,
                side,
                &limits(5_000),
                &stop,
            )
            .expect("a stone");
            assert!(playable(&board, Rule::Renju, side, p));
            board.place(p, side).expect("free");
        }
    }
}
