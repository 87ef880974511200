//! A game: a board, a rule, the moves so far, whose turn it is and how it ended.

use std::fmt;

use crate::opening::{Choice, OpeningRule, Phase, Seat};
use crate::{Board, BoardSize, Color, Forbidden, PlaceError, Point, Rule, forbidden};

/// What happens when black plays a forbidden point under renju.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum ForbiddenPolicy {
    /// The move stands and black loses on the spot, as in RIF tournaments.
    #[default]
    Lose,
    /// The move is refused with [`PlayError::Forbidden`], as a friendly app does.
    Refuse,
}

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    /// A winning row of five.
    Five,
    /// Black played a forbidden point under renju.
    Forbidden(Forbidden),
    /// No free intersection is left.
    BoardFull,
    /// The agreed move limit was reached.
    MoveLimit,
    /// Under renju, black is to move and every free point is forbidden to black: a draw.
    NoLegalMove,
    /// A player resigned.
    Resignation,
    /// A player ran out of time.
    Timeout,
    /// Both players agreed to a draw.
    Agreement,
    /// A player left the game and did not come back in time; the opponent claimed the win.
    Abandonment,
}

impl EndReason {
    /// A short key: `"five"`, `"forbidden"`, `"full"`, `"move_limit"`, `"no_move"`,
    /// `"resignation"`, `"timeout"`, `"agreement"` or `"abandonment"`.
    pub const fn key(self) -> &'static str {
        match self {
            EndReason::Five => "five",
            EndReason::Forbidden(_) => "forbidden",
            EndReason::BoardFull => "full",
            EndReason::MoveLimit => "move_limit",
            EndReason::NoLegalMove => "no_move",
            EndReason::Resignation => "resignation",
            EndReason::Timeout => "timeout",
            EndReason::Agreement => "agreement",
            EndReason::Abandonment => "abandonment",
        }
    }
}

/// The end of a game.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: EndReason,
    /// The winning rows (more than one when a move completes two), each in order along its line.
    pub lines: Vec<Vec<Point>>,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let who = |c: Color| if c == Color::Black { "Black" } else { "White" };
        match (self.winner, self.reason) {
            (Some(c), EndReason::Five) => write!(f, "{} wins: five in a row", who(c)),
            (Some(c), EndReason::Forbidden(kind)) => {
                write!(f, "{} wins: black played a forbidden {kind}", who(c))
            }
            (Some(c), EndReason::Resignation) => {
                write!(f, "{} wins: {} resigned", who(c), c.opponent())
            }
            (Some(c), EndReason::Timeout) => {
                write!(f, "{} wins: {} ran out of time", who(c), c.opponent())
            }
            (Some(c), EndReason::Abandonment) => {
                write!(f, "{} wins: {} left the game", who(c), c.opponent())
            }
            (Some(c), _) => write!(f, "{} wins", who(c)),
            (None, EndReason::BoardFull) => f.write_str("Draw: the board is full"),
            (None, EndReason::MoveLimit) => f.write_str("Draw: the move limit was reached"),
            (None, EndReason::NoLegalMove) => {
                f.write_str("Draw: every free point is forbidden to black")
            }
            (None, _) => f.write_str("Draw by agreement"),
        }
    }
}

/// Why a move or a choice was refused. The game is unchanged after any of these.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum PlayError {
    /// Off the board (beyond [`MAX_UNBOUNDED_COORD`](crate::MAX_UNBOUNDED_COORD) on the
    /// unbounded one).
    #[error("{} is off the board", .0)]
    OffBoard(String),
    /// A stone is already there.
    #[error("{} is already occupied", .0)]
    Occupied(String),
    /// On the unbounded board, too far from the other stones.
    #[error("{} is too far from the other stones", .0)]
    TooFar(String),
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// The caller moved for the colour that is not to move.
    #[error("it is not {0}'s turn")]
    NotYourTurn(Color),
    /// A swap decision is pending, not a move (or a move is pending, not a decision).
    #[error("a colour choice is pending")]
    ChoicePending,
    /// No decision is pending, or this one is not allowed now.
    #[error("no such choice is open now")]
    NoChoiceOpen,
    /// Black's forbidden point under renju, with [`ForbiddenPolicy::Refuse`].
    #[error("{0} is forbidden to black ({1})")]
    Forbidden(String, Forbidden),
    /// The opening rule does not allow the point yet.
    #[error("{0} breaks the opening rule: {1}")]
    Opening(String, &'static str),
}

/// What a [`Game`] waits for next.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Pending {
    /// A stone of `color`, placed by `seat`.
    Move {
        /// The colour of the next stone.
        color: Color,
        /// The player who places it.
        seat: Seat,
    },
    /// `seat` must choose a colour, or (`may_place_two`) to place two more stones.
    Choice {
        /// The player choosing.
        seat: Seat,
        /// Whether placing two more stones is one of the options.
        may_place_two: bool,
    },
    /// Nothing: the game is over.
    Over,
}

/// A game of five in a row under one rule.
///
/// ```
/// use tengen_rules::{BoardSize, Color, EndReason, Game, Point, Rule};
/// let mut g = Game::new(BoardSize::STANDARD, Rule::Freestyle);
/// for i in 0..4 {
///     g.play(Point::new(i, 0))?; // black along the top row
///     g.play(Point::new(i, 1))?; // white below
/// }
/// g.play(Point::new(4, 0))?;
/// let out = g.outcome().expect("black has five");
/// assert_eq!((out.winner, out.reason), (Some(Color::Black), EndReason::Five));
/// assert!(g.play(Point::new(9, 9)).is_err());
/// g.undo();
/// assert!(g.outcome().is_none());
/// # Ok::<(), tengen_rules::PlayError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Game {
    board: Board,
    rule: Rule,
    opening: OpeningRule,
    policy: ForbiddenPolicy,
    move_limit: Option<u32>,
    moves: Vec<Point>,
    // The phase before each action (a move or a choice), so that undo restores it.
    history: Vec<(Action, Phase)>,
    phase: Phase,
    outcome: Option<Outcome>,
    // The colour of the first move played (white when a set-up position has white to move).
    first: Color,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Action {
    Move,
    Choose,
}

impl Game {
    /// A new game with the free opening, where a forbidden move loses.
    pub fn new(size: BoardSize, rule: Rule) -> Game {
        Game::with_opening(size, rule, OpeningRule::Free)
    }

    /// A new game with the given opening rule.
    pub fn with_opening(size: BoardSize, rule: Rule, opening: OpeningRule) -> Game {
        Game {
            board: Board::new(size),
            rule,
            opening,
            policy: ForbiddenPolicy::default(),
            move_limit: None,
            moves: Vec::new(),
            history: Vec::new(),
            phase: opening.first_phase(),
            outcome: None,
            first: Color::Black,
        }
    }

    /// A game that goes on from a set-up position: the stones of `board`, with `to_move` to
    /// play (free opening). The set-up stones are not moves: [`Game::moves`] starts empty and
    /// undo never takes them back.
    ///
    /// ```
    /// use tengen_rules::{Board, BoardSize, Color, Game, Point, Rule};
    /// let mut board = Board::new(BoardSize::STANDARD);
    /// board.place(Point::new(7, 7), Color::Black)?;
    /// board.place(Point::new(8, 8), Color::Black)?;
    /// let game = Game::from_position(board, Rule::Renju, Color::Black);
    /// assert_eq!(game.to_move(), Some(Color::Black));
    /// assert!(game.moves().is_empty());
    /// # Ok::<(), tengen_rules::PlaceError>(())
    /// ```
    pub fn from_position(board: Board, rule: Rule, to_move: Color) -> Game {
        let mut game = Game::new(board.size(), rule);
        game.board = board;
        game.first = to_move;
        game.check_draw();
        game
    }

    /// Sets what a forbidden move by black does (it loses, by default).
    pub fn set_forbidden_policy(&mut self, policy: ForbiddenPolicy) {
        self.policy = policy;
    }

    /// Ends the game in a draw once `limit` stones are on the board (`None`: no limit).
    pub fn set_move_limit(&mut self, limit: Option<u32>) {
        self.move_limit = limit;
        if self.outcome.is_none() {
            self.check_draw();
        }
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The rule.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The opening rule.
    pub fn opening(&self) -> OpeningRule {
        self.opening
    }

    /// The forbidden-move policy.
    pub fn forbidden_policy(&self) -> ForbiddenPolicy {
        self.policy
    }

    /// The move limit, if any.
    pub fn move_limit(&self) -> Option<u32> {
        self.move_limit
    }

    /// The moves so far, black's first.
    pub fn moves(&self) -> &[Point] {
        &self.moves
    }

    /// The last move played.
    pub fn last_move(&self) -> Option<Point> {
        self.moves.last().copied()
    }

    /// The opening phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// How the game ended, or `None` while it goes on.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// The colour of the next stone, or `None` when the game is over.
    pub fn to_move(&self) -> Option<Color> {
        self.outcome.is_none().then(|| {
            if self.moves.len() % 2 == 0 {
                self.first
            } else {
                self.first.opponent()
            }
        })
    }

    /// What the game waits for.
    pub fn pending(&self) -> Pending {
        let Some(color) = self.to_move() else {
            return Pending::Over;
        };
        match self.phase {
            Phase::Choosing { by, may_place_two } => Pending::Choice {
                seat: by,
                may_place_two,
            },
            phase => Pending::Move {
                color,
                seat: phase.mover(color).unwrap_or(Seat::First),
            },
        }
    }

    /// The player with black, once colours are settled.
    pub fn black_seat(&self) -> Option<Seat> {
        match self.phase {
            Phase::Settled { black } => Some(black),
            _ => None,
        }
    }

    /// Black's forbidden points now, when black is to move under renju; otherwise none.
    pub fn forbidden_points(&self) -> Vec<(Point, Forbidden)> {
        if self.rule.has_forbidden() && self.to_move() == Some(Color::Black) {
            crate::forbidden_points(&self.board)
        } else {
            Vec::new()
        }
    }

    /// Why `p` is forbidden to the side to move, if it is (only black under renju).
    pub fn forbidden_at(&self, p: Point) -> Option<Forbidden> {
        (self.rule.has_forbidden() && self.to_move() == Some(Color::Black))
            .then(|| forbidden(&self.board, p))
            .flatten()
    }

    /// Plays `p` for whichever colour is to move.
    pub fn play(&mut self, p: Point) -> Result<Option<&Outcome>, PlayError> {
        let color = self.to_move().ok_or(PlayError::GameOver)?;
        self.play_as(color, p)
    }

    /// Plays `p` for `color`, refusing it if `color` is not to move.
    pub fn play_as(&mut self, color: Color, p: Point) -> Result<Option<&Outcome>, PlayError> {
        let to_move = self.to_move().ok_or(PlayError::GameOver)?;
        if color != to_move {
            return Err(PlayError::NotYourTurn(color));
        }
        if matches!(self.phase, Phase::Choosing { .. }) {
            return Err(PlayError::ChoicePending);
        }
        let size = self.board.size();
        let name = || crate::point_name(size, p);
        if !self.board.contains(p) {
            return Err(PlayError::OffBoard(name()));
        }
        if !self.board.is_empty_at(p) {
            return Err(PlayError::Occupied(name()));
        }
        if let Some(why) = self
            .opening
            .restriction(self.board.size(), self.moves.len(), p)
        {
            return Err(PlayError::Opening(name(), why));
        }
        let foul = if self.rule.has_forbidden() && color == Color::Black {
            forbidden(&self.board, p)
        } else {
            None
        };
        if let (Some(kind), ForbiddenPolicy::Refuse) = (foul, self.policy) {
            return Err(PlayError::Forbidden(name(), kind));
        }
        self.board.place(p, color).map_err(|e| match e {
            PlaceError::TooFar(_) => PlayError::TooFar(name()),
            PlaceError::OffBoard(_) => PlayError::OffBoard(name()),
            PlaceError::Occupied(_) | PlaceError::Empty(_) => PlayError::Occupied(name()),
        })?;
        self.history.push((Action::Move, self.phase));
        self.moves.push(p);
        if let Phase::Placing { by, until } = self.phase {
            self.phase = self
                .opening
                .after_placing(by, until, self.board.stone_count());
        }
        self.outcome = match foul {
            Some(kind) => Some(Outcome {
                winner: Some(Color::White),
                reason: EndReason::Forbidden(kind),
                lines: Vec::new(),
            }),
            None => {
                let lines = self.rule.fives(&self.board, p, color);
                (!lines.is_empty()).then_some(Outcome {
                    winner: Some(color),
                    reason: EndReason::Five,
                    lines,
                })
            }
        };
        if self.outcome.is_none() {
            self.check_draw();
        }
        Ok(self.outcome.as_ref())
    }

    fn check_draw(&mut self) {
        let reason = if self.board.is_full() {
            EndReason::BoardFull
        } else if self
            .move_limit
            .is_some_and(|l| self.moves.len() as u32 >= l)
        {
            EndReason::MoveLimit
        } else if self.rule.has_forbidden()
            && self.to_move() == Some(Color::Black)
            && !crate::black_can_move(&self.board)
        {
            EndReason::NoLegalMove
        } else {
            return;
        };
        self.outcome = Some(Outcome {
            winner: None,
            reason,
            lines: Vec::new(),
        });
    }

    /// Takes a swap decision for the player who must choose.
    pub fn choose(&mut self, choice: Choice) -> Result<(), PlayError> {
        if self.outcome.is_some() {
            return Err(PlayError::GameOver);
        }
        let Phase::Choosing { by, may_place_two } = self.phase else {
            return Err(PlayError::NoChoiceOpen);
        };
        let next = match choice {
            Choice::Black => Phase::Settled { black: by },
            Choice::White => Phase::Settled { black: by.other() },
            Choice::PlaceTwo if may_place_two => Phase::Placing {
                by,
                until: self.board.stone_count() + 2,
            },
            Choice::PlaceTwo => return Err(PlayError::NoChoiceOpen),
        };
        self.history.push((Action::Choose, self.phase));
        self.phase = next;
        Ok(())
    }

    /// Takes back the last action (a move or a swap decision), reopening a finished game.
    /// Returns the move taken back, or `None` for a decision or when there was nothing to undo.
    pub fn undo(&mut self) -> Option<Point> {
        let (action, phase) = self.history.pop()?;
        self.phase = phase;
        self.outcome = None;
        match action {
            Action::Choose => None,
            Action::Move => {
                let p = self.moves.pop()?;
                // The point was played, so it holds a stone: removal cannot fail.
                self.board.remove(p).ok();
                Some(p)
            }
        }
    }

    /// Ends the game: `color` resigns.
    pub fn resign(&mut self, color: Color) -> Result<(), PlayError> {
        self.end(Some(color.opponent()), EndReason::Resignation)
    }

    /// Ends the game: `color` ran out of time.
    pub fn lose_on_time(&mut self, color: Color) -> Result<(), PlayError> {
        self.end(Some(color.opponent()), EndReason::Timeout)
    }

    /// Ends the game: `color` left and the opponent claimed the win.
    pub fn abandon(&mut self, color: Color) -> Result<(), PlayError> {
        self.end(Some(color.opponent()), EndReason::Abandonment)
    }

    /// Ends the game in a draw both players agreed to.
    pub fn agree_draw(&mut self) -> Result<(), PlayError> {
        self.end(None, EndReason::Agreement)
    }

    fn end(&mut self, winner: Option<Color>, reason: EndReason) -> Result<(), PlayError> {
        if self.outcome.is_some() {
            return Err(PlayError::GameOver);
        }
        self.outcome = Some(Outcome {
            winner,
            reason,
            lines: Vec::new(),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_point;

    fn game(rule: Rule, moves: &str) -> Game {
        let mut g = Game::new(BoardSize::STANDARD, rule);
        for m in moves.split_whitespace() {
            let p = parse_point(BoardSize::STANDARD, m).expect("valid coordinate");
            g.play(p).expect("legal move");
        }
        g
    }

    #[test]
    fn forbidden_move_loses_or_is_refused() {
        // Black g8, i8, h9, h7 with white far away; h8 is a double-three.
        let mut g = game(Rule::Renju, "g8 a1 i8 a3 h9 a5 h7 a7");
        let h8 = Point::new(7, 7);
        assert_eq!(g.forbidden_at(h8), Some(Forbidden::DoubleThree));
        let mut friendly = g.clone();
        friendly.set_forbidden_policy(ForbiddenPolicy::Refuse);
        let before = friendly.clone();
        assert!(matches!(
            friendly.play(h8),
            Err(PlayError::Forbidden(_, Forbidden::DoubleThree))
        ));
        assert_eq!(friendly, before);
        let out = g.play(h8).expect("legal under the losing policy").cloned();
        assert_eq!(
            out.map(|o| (o.winner, o.reason)),
            Some((
                Some(Color::White),
                EndReason::Forbidden(Forbidden::DoubleThree)
            ))
        );
    }

    #[test]
    fn freestyle_ignores_forbidden_points() {
        let mut g = game(Rule::Freestyle, "g8 a1 i8 a3 h9 a5 h7 a7");
        assert!(g.forbidden_points().is_empty());
        assert_eq!(g.play(Point::new(7, 7)), Ok(None));
    }

    #[test]
    fn errors_change_nothing() {
        let mut g = game(Rule::Freestyle, "h8 h9");
        let before = g.clone();
        assert!(matches!(
            g.play(Point::new(7, 7)),
            Err(PlayError::Occupied(_))
        ));
        assert!(matches!(
            g.play(Point::new(15, 7)),
            Err(PlayError::OffBoard(_))
        ));
        assert_eq!(
            g.play_as(Color::White, Point::new(0, 0)),
            Err(PlayError::NotYourTurn(Color::White))
        );
        assert_eq!(g.choose(Choice::Black), Err(PlayError::NoChoiceOpen));
        assert_eq!(g, before);
    }

    #[test]
    fn beginner_opening_restricts_the_first_three_stones() {
        let mut g = Game::with_opening(BoardSize::STANDARD, Rule::Renju, OpeningRule::Beginner);
        assert!(matches!(
            g.play(Point::new(0, 0)),
            Err(PlayError::Opening(..))
        ));
        g.play(Point::new(7, 7)).expect("centre");
        assert!(matches!(
            g.play(Point::new(9, 7)),
            Err(PlayError::Opening(..))
        ));
        g.play(Point::new(8, 8)).expect("touching");
        assert!(matches!(
            g.play(Point::new(10, 7)),
            Err(PlayError::Opening(..))
        ));
        g.play(Point::new(9, 5)).expect("inside the 5x5");
        g.play(Point::new(0, 0)).expect("free from move four");
    }

    #[test]
    fn swap2_with_two_more_stones() {
        let mut g = Game::with_opening(BoardSize::STANDARD, Rule::Freestyle, OpeningRule::Swap2);
        for (i, p) in [(7, 7), (7, 6), (8, 8)].into_iter().enumerate() {
            assert_eq!(
                g.pending(),
                Pending::Move {
                    color: Color::of_ply(i),
                    seat: Seat::First
                }
            );
            g.play(Point::new(p.0, p.1)).expect("free");
        }
        assert_eq!(
            g.pending(),
            Pending::Choice {
                seat: Seat::Second,
                may_place_two: true
            }
        );
        assert_eq!(g.play(Point::new(0, 0)), Err(PlayError::ChoicePending));
        g.choose(Choice::PlaceTwo).expect("open");
        g.play(Point::new(6, 6)).expect("free");
        g.play(Point::new(9, 9)).expect("free");
        assert_eq!(
            g.pending(),
            Pending::Choice {
                seat: Seat::First,
                may_place_two: false
            }
        );
        assert_eq!(g.choose(Choice::PlaceTwo), Err(PlayError::NoChoiceOpen));
        g.choose(Choice::White).expect("open");
        assert_eq!(g.black_seat(), Some(Seat::Second));
        assert_eq!(
            g.pending(),
            Pending::Move {
                color: Color::White,
                seat: Seat::First
            }
        );
        // Undo walks back through the decisions too.
        assert_eq!(g.undo(), None);
        assert_eq!(
            g.pending(),
            Pending::Choice {
                seat: Seat::First,
                may_place_two: false
            }
        );
        assert_eq!(g.undo(), Some(Point::new(9, 9)));
    }

    #[test]
    fn swap_lets_the_second_player_choose() {
        let mut g = Game::with_opening(BoardSize::STANDARD, Rule::Renju, OpeningRule::Swap);
        for p in [(7, 7), (7, 6), (8, 8)] {
            g.play(Point::new(p.0, p.1)).expect("free");
        }
        assert_eq!(
            g.pending(),
            Pending::Choice {
                seat: Seat::Second,
                may_place_two: false
            }
        );
        g.choose(Choice::Black).expect("open");
        assert_eq!(
            g.pending(),
            Pending::Move {
                color: Color::White,
                seat: Seat::First
            }
        );
    }

    #[test]
    fn full_board_and_move_limit_draw() {
        let size = BoardSize::square(5).expect("valid");
        let mut g = Game::new(size, Rule::Freestyle);
        // Columns filled in pairs so no five forms: pattern by (x + 2y) mod 4.
        let mut order: Vec<Point> = size.points().collect();
        order.sort_by_key(|p| ((p.x + 2 * p.y) % 4 < 2, p.y, p.x));
        let (blacks, whites) = order.split_at(13);
        for i in 0..25 {
            let p = if i % 2 == 0 {
                blacks[i / 2]
            } else {
                whites[i / 2]
            };
            if g.play(p).expect("legal").is_some() {
                break;
            }
        }
        let out = g.outcome().expect("ended");
        assert_eq!((out.winner, out.reason), (None, EndReason::BoardFull));

        let mut g = game(Rule::Freestyle, "h8 h9");
        g.set_move_limit(Some(3));
        g.play(Point::new(0, 0)).expect("legal");
        assert_eq!(g.outcome().map(|o| o.reason), Some(EndReason::MoveLimit));
    }
    #[test]
    fn black_with_only_forbidden_points_left_is_a_draw() {
        // A 6x6 renju game (found by probing the web server): after white's c4 the two free
        // points, d6 and d1, are both overlines for black. Before this rule the game stood
        // with black to move and no move to make.
        let size = BoardSize::square(6).expect("valid");
        let record = "b6 e3 c2 e4 c1 a2 b5 d4 f4 a3 d3 c5 b4 b3 c6 e2 e6 c3 d5 e5 a6 f3 b1 a4 \
                      f1 d2 a1 b2 f6 a5 f5 f2 e1 c4";
        for policy in [ForbiddenPolicy::Lose, ForbiddenPolicy::Refuse] {
            let mut g = Game::new(size, Rule::Renju);
            g.set_forbidden_policy(policy);
            let moves: Vec<Point> = record
                .split_whitespace()
                .map(|m| parse_point(size, m).expect("valid coordinate"))
                .collect();
            let (last, before) = moves.split_last().expect("moves");
            for &p in before {
                assert_eq!(g.play(p).expect("legal"), None);
            }
            assert!(crate::black_can_move(g.board()));
            let out = g.play(*last).expect("legal").cloned().expect("ended");
            assert_eq!((out.winner, out.reason), (None, EndReason::NoLegalMove));
            assert_eq!(
                out.to_string(),
                "Draw: every free point is forbidden to black"
            );
            assert_eq!(g.forbidden_points().len(), 0, "the game is over");
            assert!(!crate::black_can_move(g.board()));
        }
        // The same board under freestyle goes on: white's c4 leaves black two points.
        let mut g = Game::new(size, Rule::Freestyle);
        for m in record.split_whitespace() {
            g.play(parse_point(size, m).expect("valid")).expect("legal");
        }
        assert_eq!(g.outcome(), None);
    }
}
