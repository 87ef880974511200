//! Game records: a game's board, rule, players, moves and result as text.
//!
//! Three formats, each carrying a different part of a [`Record`]:
//!
//! | format | size | rule | names | times | result |
//! |---|---|---|---|---|---|
//! | [`RecordFormat::Plain`] move list (`h8 i9 j10`) | from the caller | – | – | – | – |
//! | [`RecordFormat::Psq`], Piskvork and Gomocup | yes, up to 100 | – | yes | yes | – |
//! | [`RecordFormat::Sgf`], `GM[4]` | yes, up to 52 | yes | yes | – | yes |
//!
//! [`Record::normalized`] drops what a format cannot carry, so that for every record `r` and format
//! `f`, when [`Record::write`] succeeds, `Record::parse(&r.write(f)?, f, r.size)` gives back
//! `r.normalized(f)`. Reading checks the syntax and that every move is on the board; whether the
//! moves make a legal game is [`Record::replay`]'s business.

mod plain;
mod psq;
mod sgf;

use std::fmt;
use std::str::FromStr;

use crate::excerpt::excerpt;
use crate::{
    BoardSize, Color, Coord, CoordError, ForbiddenPolicy, Game, PlayError, Point, Rule, SizeError,
    point_name,
};

/// A text format for game records.
///
/// ```
/// use tengen_rules::RecordFormat;
/// assert_eq!("SGF".parse::<RecordFormat>()?, RecordFormat::Sgf);
/// assert_eq!(RecordFormat::detect("Piskvorky 15x15, 11:11, 0\n8,8,0\n"), RecordFormat::Psq);
/// assert_eq!(RecordFormat::detect(" (;GM[4]SZ[15];B[hh])"), RecordFormat::Sgf);
/// assert_eq!(RecordFormat::detect("h8 i9"), RecordFormat::Plain);
/// # Ok::<(), tengen_rules::RecordError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RecordFormat {
    /// A list of moves in either notation, `h8 i9 j10` or `7,7 8,6 9,5`, with optional move
    /// numbers (`1.`) and `#` comments. It carries the moves only.
    Plain,
    /// Piskvork's `.psq`, the format of Gomocup games: a `Piskvorky WxH, ...` header, one
    /// `x,y,ms` line per move (1-based), then optionally the engines' names.
    Psq,
    /// Smart Game Format with `GM[4]` (gomoku): size, rule, names, result and the main line.
    Sgf,
}

impl RecordFormat {
    /// Every format.
    pub const ALL: [RecordFormat; 3] = [RecordFormat::Plain, RecordFormat::Psq, RecordFormat::Sgf];

    /// `"plain"`, `"psq"` or `"sgf"`.
    pub const fn name(self) -> &'static str {
        match self {
            RecordFormat::Plain => "plain",
            RecordFormat::Psq => "psq",
            RecordFormat::Sgf => "sgf",
        }
    }

    /// The usual file extension: `"txt"`, `"psq"` or `"sgf"`.
    pub const fn extension(self) -> &'static str {
        match self {
            RecordFormat::Plain => "txt",
            RecordFormat::Psq => "psq",
            RecordFormat::Sgf => "sgf",
        }
    }

    /// Guesses the format of `text`: a `Piskvorky` header means psq, `(` followed by `;` means
    /// SGF, anything else is read as a plain move list. Leading whitespace (and a byte-order mark)
    /// is skipped.
    pub fn detect(text: &str) -> RecordFormat {
        let t = strip_bom(text).trim_start();
        let psq = t
            .get(..psq::MAGIC.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(psq::MAGIC));
        if psq {
            RecordFormat::Psq
        } else if t
            .strip_prefix('(')
            .is_some_and(|rest| rest.trim_start().starts_with(';'))
        {
            RecordFormat::Sgf
        } else {
            RecordFormat::Plain
        }
    }
}

impl fmt::Display for RecordFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RecordFormat {
    type Err = RecordError;

    /// Reads `plain` (or `txt`), `psq` or `sgf`, in any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "plain" | "txt" => Ok(RecordFormat::Plain),
            "psq" => Ok(RecordFormat::Psq),
            "sgf" => Ok(RecordFormat::Sgf),
            _ => Err(RecordError::UnknownFormat(excerpt(s))),
        }
    }
}

/// How a recorded game ended, as far as the record says.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RecordResult {
    /// Black won.
    Black,
    /// White won.
    White,
    /// Nobody won.
    Draw,
}

impl RecordResult {
    /// The result with this winner (`None`: a draw).
    pub const fn from_winner(winner: Option<Color>) -> RecordResult {
        match winner {
            Some(Color::Black) => RecordResult::Black,
            Some(Color::White) => RecordResult::White,
            None => RecordResult::Draw,
        }
    }

    /// The winner, or `None` for a draw.
    pub const fn winner(self) -> Option<Color> {
        match self {
            RecordResult::Black => Some(Color::Black),
            RecordResult::White => Some(Color::White),
            RecordResult::Draw => None,
        }
    }
}

/// A game as a record holds it: moves and what is known around them.
///
/// Reading checks each move is on the board; [`Record::replay`] then checks the game is legal
/// under a rule.
///
/// ```
/// use tengen_rules::{BoardSize, ForbiddenPolicy, Record, RecordFormat, RecordResult, Rule};
/// let text = "(;GM[4]FF[4]SZ[15]RU[renju]PB[Alice]PW[Bob]RE[W+];B[hh];W[ih];B[ii])";
/// let record = Record::parse_auto(text, BoardSize::STANDARD)?;
/// assert_eq!(record.rule, Some(Rule::Renju));
/// assert_eq!(record.black.as_deref(), Some("Alice"));
/// assert_eq!(record.result, Some(RecordResult::White));
/// assert_eq!(record.write(RecordFormat::Plain)?, "h8 i8 i7\n");
///
/// let game = record.replay(Rule::Renju, ForbiddenPolicy::Lose)?;
/// assert_eq!(game.moves(), &record.moves[..]);
/// assert_eq!(Record::from_game(&game).moves, record.moves);
///
/// // Each format reads back what it writes.
/// let psq = record.write(RecordFormat::Psq)?;
/// assert!(psq.starts_with("Piskvorky 15x15, 11:11, 0\n8,8,0\n"));
/// let again = Record::parse(&psq, RecordFormat::Psq, BoardSize::STANDARD)?;
/// assert_eq!(again, record.normalized(RecordFormat::Psq));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Record {
    /// The board.
    pub size: BoardSize,
    /// The rule, when the record names one.
    pub rule: Option<Rule>,
    /// The moves, black's first, colours alternating.
    pub moves: Vec<Point>,
    /// Each move's thinking time in milliseconds, where the format carries it (psq); as long as
    /// `moves`.
    pub times_ms: Vec<Option<u32>>,
    /// Black's player or engine.
    pub black: Option<String>,
    /// White's player or engine.
    pub white: Option<String>,
    /// The result, when the record states one.
    pub result: Option<RecordResult>,
}

impl Record {
    /// An empty record for a board of `size`.
    pub fn new(size: BoardSize) -> Record {
        Record {
            size,
            ..Record::default()
        }
    }

    /// The record of `game`: its size, rule, moves and, once it is over, result.
    pub fn from_game(game: &Game) -> Record {
        Record {
            size: game.board().size(),
            rule: Some(game.rule()),
            moves: game.moves().to_vec(),
            times_ms: vec![None; game.moves().len()],
            black: None,
            white: None,
            result: game.outcome().map(|o| RecordResult::from_winner(o.winner)),
        }
    }

    /// Reads a record in `format`. `size` is the board for formats that do not state it (the
    /// plain list, and an SGF without `SZ` if `size` fits SGF; otherwise SGF's 15x15).
    pub fn parse(text: &str, format: RecordFormat, size: BoardSize) -> Result<Record, RecordError> {
        let text = strip_bom(text);
        match format {
            RecordFormat::Plain => plain::parse(text, size),
            RecordFormat::Psq => psq::parse(text),
            RecordFormat::Sgf => sgf::parse(text, size),
        }
    }

    /// Reads a record in the format [`RecordFormat::detect`] guesses.
    pub fn parse_auto(text: &str, size: BoardSize) -> Result<Record, RecordError> {
        Record::parse(text, RecordFormat::detect(text), size)
    }

    /// Writes the record in `format`: what [`Record::normalized`] keeps of it.
    ///
    /// Fails when the format cannot hold the board (psq and SGF have no unbounded board, SGF no
    /// side longer than 52) or a move is off the board.
    pub fn write(&self, format: RecordFormat) -> Result<String, RecordError> {
        let r = self.normalized(format);
        match format {
            RecordFormat::Plain => plain::write(&r),
            RecordFormat::Psq => psq::write(&r),
            RecordFormat::Sgf => sgf::write(&r),
        }
    }

    /// The record as `format` carries it: what reading back [`Record::write`]'s text gives.
    ///
    /// `times_ms` is made as long as `moves`. The plain list keeps only the size and moves; psq
    /// drops the rule and result, writes unknown times as 0 and keeps names that are text on one
    /// line (not numbers, not `?`, which it uses for a missing name); SGF drops times. Names are
    /// trimmed, and an empty name is no name.
    pub fn normalized(&self, format: RecordFormat) -> Record {
        let mut r = self.clone();
        r.times_ms.resize(r.moves.len(), None);
        match format {
            RecordFormat::Plain => {
                r.rule = None;
                r.times_ms.fill(None);
                r.black = None;
                r.white = None;
                r.result = None;
            }
            RecordFormat::Psq => {
                r.rule = None;
                r.result = None;
                for t in &mut r.times_ms {
                    *t = Some(t.unwrap_or(0));
                }
                r.black = r.black.as_deref().and_then(psq::clean_name);
                r.white = r.white.as_deref().and_then(psq::clean_name);
            }
            RecordFormat::Sgf => {
                r.times_ms.fill(None);
                r.black = r.black.as_deref().and_then(clean_name);
                r.white = r.white.as_deref().and_then(clean_name);
            }
        }
        r
    }

    /// Plays the moves into a new game under `rule` (on the record's board), with forbidden
    /// moves handled by `policy`. Fails on the first move the game refuses, including any move
    /// after the game has ended.
    pub fn replay(&self, rule: Rule, policy: ForbiddenPolicy) -> Result<Game, ReplayError> {
        let mut game = Game::new(self.size, rule);
        game.set_forbidden_policy(policy);
        for (i, &p) in self.moves.iter().enumerate() {
            if let Err(error) = game.play(p) {
                return Err(ReplayError {
                    move_number: i + 1,
                    point: point_name(self.size, p),
                    ended: game.outcome().cloned(),
                    error,
                });
            }
        }
        Ok(game)
    }
}

/// A recorded move the game refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ReplayError {
    /// The move's number, from 1.
    pub move_number: usize,
    /// The point as named on the board (`h8`, or `x,y` on the unbounded board).
    pub point: String,
    /// Why the game refused it.
    pub error: PlayError,
    /// How the game had ended, when it had (the move before this one ended it).
    pub ended: Option<crate::Outcome>,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {} ({}): ", self.move_number, self.point)?;
        match &self.ended {
            Some(outcome) => write!(
                f,
                "the game was already over at move {} ({outcome})",
                self.move_number - 1
            ),
            None => write!(f, "{}", self.error),
        }
    }
}

impl std::error::Error for ReplayError {}

/// A record that cannot be read or written.
///
/// Lines are counted from 1; `move_number` counts moves from 1 (for a plain list, the coordinate
/// tokens, move numbers and comments aside).
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum RecordError {
    /// A format name other than plain, txt, psq or sgf.
    #[error("unknown record format {0:?} (expected plain, txt, psq or sgf)")]
    UnknownFormat(String),
    /// Text that does not follow the format.
    #[error("line {line}: {message}")]
    Syntax {
        /// Where.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A move that is not a coordinate, or is off the board.
    #[error("line {line}, move {move_number}: {error}")]
    Coord {
        /// Where.
        line: usize,
        /// Which move.
        move_number: usize,
        /// What is wrong with it.
        error: CoordError,
    },
    /// A board size that cannot be read or is out of range.
    #[error("line {line}: {error}")]
    Size {
        /// Where.
        line: usize,
        /// What is wrong with it.
        error: SizeError,
    },
    /// A move by the colour not to move (an SGF record's moves must alternate from black).
    #[error("line {line}, move {move_number}: {} moved, but it was {expected}'s turn", expected.opponent())]
    OutOfTurn {
        /// Where.
        line: usize,
        /// Which move.
        move_number: usize,
        /// The colour that should have moved.
        expected: Color,
    },
    /// An SGF game other than gomoku (`GM[4]`).
    #[error("line {line}: the SGF game type GM[{game}] is not gomoku (GM[4])")]
    NotGomoku {
        /// Where.
        line: usize,
        /// The `GM` value.
        game: String,
    },
    /// An SGF rule (`RU`) that names none of the rules played here: read as another rule, the
    /// record's moves would mean another game.
    #[error(
        "line {line}: the SGF rule RU[{rule}] is not one played here (freestyle, standard, renju, caro or caro-overlines)"
    )]
    UnknownRule {
        /// Where.
        line: usize,
        /// The `RU` value.
        rule: String,
    },
    /// SGF setup stones (`AB`, `AW`, `AE`), which a record of moves cannot hold.
    #[error("line {line}: setup stones ({property}) are not supported, only moves")]
    SetupStones {
        /// Where.
        line: usize,
        /// The property.
        property: String,
    },
    /// A board the format cannot hold.
    #[error("{}", unsupported_board(*.format, *.size))]
    UnsupportedBoard {
        /// The format.
        format: RecordFormat,
        /// The board.
        size: BoardSize,
    },
    /// On writing, a move off the record's board.
    #[error(
        "move {move_number} ({}) is off the {} board",
        Coord::numeric(*.point),
        size.dimensions()
    )]
    MoveOffBoard {
        /// Which move.
        move_number: usize,
        /// The move.
        point: Point,
        /// The board.
        size: BoardSize,
    },
}

fn unsupported_board(format: RecordFormat, size: BoardSize) -> String {
    if size.is_unbounded() {
        format!("{format} records cannot hold the unbounded board")
    } else {
        format!(
            "{format} records cannot hold a {} board (SGF coordinates reach 52 per side)",
            size.dimensions()
        )
    }
}

fn syntax(line: usize, message: impl Into<String>) -> RecordError {
    RecordError::Syntax {
        line,
        message: message.into(),
    }
}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

// Names are for people: surrounding whitespace means nothing, and an empty name is no name.
fn clean_name(name: &str) -> Option<String> {
    let t = name.trim();
    (!t.is_empty()).then(|| t.to_string())
}

// A move to write, checked against the record's board: its fields are public, so a record may
// hold anything, and text naming a point off the board would not read back.
fn checked(r: &Record, i: usize, p: Point) -> Result<Point, RecordError> {
    if r.size.contains(p) {
        Ok(p)
    } else {
        Err(RecordError::MoveOffBoard {
            move_number: i + 1,
            point: p,
            size: r.size,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EndReason, parse_point};

    fn pts(size: BoardSize, names: &str) -> Vec<Point> {
        names
            .split_whitespace()
            .map(|n| parse_point(size, n).expect("valid point"))
            .collect()
    }

    #[test]
    fn format_names() {
        for f in RecordFormat::ALL {
            assert_eq!(f.name().parse::<RecordFormat>(), Ok(f));
            assert_eq!(f.to_string().to_uppercase().parse::<RecordFormat>(), Ok(f));
        }
        assert_eq!("TXT".parse::<RecordFormat>(), Ok(RecordFormat::Plain));
        assert!(matches!(
            "pgn".parse::<RecordFormat>(),
            Err(RecordError::UnknownFormat(_))
        ));
    }

    #[test]
    fn detection() {
        assert_eq!(
            RecordFormat::detect("\u{feff}piskvorky 20x20, 11:11, 0"),
            RecordFormat::Psq
        );
        assert_eq!(RecordFormat::detect("\n (\n ;B[aa])"), RecordFormat::Sgf);
        assert_eq!(RecordFormat::detect("(h8)"), RecordFormat::Plain);
        assert_eq!(RecordFormat::detect(""), RecordFormat::Plain);
        assert_eq!(RecordFormat::detect("Pisk"), RecordFormat::Plain);
        // A multi-byte character where the header would end must not upset the check.
        assert_eq!(RecordFormat::detect("Piskvork\u{e9}"), RecordFormat::Plain);
    }

    #[test]
    fn from_game_takes_the_result() {
        let mut g = Game::new(BoardSize::STANDARD, Rule::Freestyle);
        for i in 0..4 {
            g.play(Point::new(i, 0)).expect("legal");
            g.play(Point::new(i, 1)).expect("legal");
        }
        let r = Record::from_game(&g);
        assert_eq!((r.moves.len(), r.times_ms.len(), r.result), (8, 8, None));
        g.play(Point::new(4, 0)).expect("legal");
        let r = Record::from_game(&g);
        assert_eq!(r.result, Some(RecordResult::Black));
        assert_eq!(r.rule, Some(Rule::Freestyle));
        let back = r
            .replay(Rule::Freestyle, ForbiddenPolicy::Lose)
            .expect("legal");
        assert_eq!(back.outcome().map(|o| o.reason), Some(EndReason::Five));
        let mut g = Game::new(BoardSize::STANDARD, Rule::Freestyle);
        g.agree_draw().expect("not over");
        assert_eq!(Record::from_game(&g).result, Some(RecordResult::Draw));
    }

    #[test]
    fn replay_names_the_first_bad_move() {
        let size = BoardSize::STANDARD;
        let mut r = Record::new(size);
        r.moves = pts(size, "h8 i9 j10 h8");
        let e = r
            .replay(Rule::Renju, ForbiddenPolicy::Lose)
            .expect_err("h8 twice");
        assert_eq!(e.move_number, 4);
        assert_eq!(e.point, "h8");
        assert_eq!(e.error, PlayError::Occupied("h8".into()));
        assert_eq!(e.to_string(), "move 4 (h8): h8 is already occupied");

        // Black's five ends the game: a move after it is refused.
        r.moves = pts(size, "a1 a2 b1 b2 c1 c2 d1 d2 e1 e2");
        let e = r
            .replay(Rule::Freestyle, ForbiddenPolicy::Lose)
            .expect_err("over");
        assert_eq!((e.move_number, &e.error), (10, &PlayError::GameOver));
        assert_eq!(
            e.to_string(),
            "move 10 (e2): the game was already over at move 9 (Black wins: five in a row)"
        );
        r.moves.pop();
        assert!(r.replay(Rule::Freestyle, ForbiddenPolicy::Lose).is_ok());

        // Off the board (the fields are public, so a record may hold anything).
        r.moves = vec![Point::new(15, 0)];
        let e = r
            .replay(Rule::Freestyle, ForbiddenPolicy::Lose)
            .expect_err("off");
        assert_eq!(e.point, "15,0");
        assert!(matches!(e.error, PlayError::OffBoard(_)));
    }

    #[test]
    fn replay_applies_the_forbidden_policy() {
        let size = BoardSize::STANDARD;
        let mut r = Record::new(size);
        // Black's double three at h8 (f8 g8 . and h6 h7 .), white far away.
        r.moves = pts(size, "f8 a1 g8 a3 h6 a5 h7 a7 h8");
        let e = r
            .replay(Rule::Renju, ForbiddenPolicy::Refuse)
            .expect_err("forbidden");
        assert_eq!(e.move_number, 9);
        assert!(matches!(e.error, PlayError::Forbidden(..)));
        let g = r
            .replay(Rule::Renju, ForbiddenPolicy::Lose)
            .expect("stands");
        assert_eq!(g.outcome().and_then(|o| o.winner), Some(Color::White));
        assert!(r.replay(Rule::Freestyle, ForbiddenPolicy::Refuse).is_ok());
    }

    #[test]
    fn normalization_per_format() {
        let size = BoardSize::STANDARD;
        let r = Record {
            size,
            rule: Some(Rule::Caro),
            moves: pts(size, "h8 i9"),
            times_ms: vec![Some(5)],
            black: Some("  Alice ".into()),
            white: Some("".into()),
            result: Some(RecordResult::Draw),
        };
        let plain = r.normalized(RecordFormat::Plain);
        assert_eq!(
            plain,
            Record {
                moves: r.moves.clone(),
                times_ms: vec![None, None],
                ..Record::new(size)
            }
        );
        let psq = r.normalized(RecordFormat::Psq);
        assert_eq!(psq.times_ms, vec![Some(5), Some(0)]);
        assert_eq!((psq.rule, psq.result), (None, None));
        assert_eq!(
            (psq.black.as_deref(), psq.white.as_deref()),
            (Some("Alice"), None)
        );
        let sgf = r.normalized(RecordFormat::Sgf);
        assert_eq!(sgf.times_ms, vec![None, None]);
        assert_eq!(
            (sgf.rule, sgf.result),
            (Some(Rule::Caro), Some(RecordResult::Draw))
        );
        for f in RecordFormat::ALL {
            let text = r.write(f).expect("writable");
            assert_eq!(Record::parse(&text, f, size), Ok(r.normalized(f)), "{f}");
            assert_eq!(r.normalized(f).normalized(f), r.normalized(f));
        }
    }

    #[test]
    fn writing_refuses_boards_and_moves_it_cannot_hold() {
        let mut r = Record::new(BoardSize::UNBOUNDED);
        r.moves = vec![Point::new(-5, 3)];
        assert_eq!(r.write(RecordFormat::Plain).as_deref(), Ok("-5,3\n"));
        for f in [RecordFormat::Psq, RecordFormat::Sgf] {
            let e = r.write(f).expect_err("unbounded");
            assert_eq!(
                e,
                RecordError::UnsupportedBoard {
                    format: f,
                    size: BoardSize::UNBOUNDED
                }
            );
            assert!(e.to_string().contains("unbounded"));
        }
        let mut r = Record::new(BoardSize::STANDARD);
        r.moves = vec![Point::new(7, 7), Point::new(15, 3)];
        for f in RecordFormat::ALL {
            let e = r.write(f).expect_err("off the board");
            assert_eq!(e.to_string(), "move 2 (15,3) is off the 15x15 board");
        }
    }
}
