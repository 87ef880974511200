//! The protocol's syntax: manager-to-brain [`Command`]s and brain-to-manager [`Response`]s, read
//! from and printed to text lines. Nothing here knows what a command means; the brain loop and
//! the client give them meaning.
//!
//! Commands are case-insensitive on input (Piskvork sends `START`, Yixin-Board `INFO
//! TIMEOUT_TURN`) and printed upper-case, INFO keys lower-case. Coordinates are Gomocup's `x,y`:
//! column from the left, row from the top, both from 0, exactly as [`Point`].
//!
//! ```
//! use tengen_protocol::command::{Command, CommandParser, Field, Stone};
//! use tengen_rules::Point;
//!
//! let mut parser = CommandParser::new();
//! assert_eq!(parser.feed("BOARD"), None); // a block: nothing yet
//! assert_eq!(parser.feed("7,7,1"), None);
//! let board = parser.feed("DONE").expect("complete").expect("valid");
//! assert_eq!(board, Command::Board(vec![Stone::new(Point::new(7, 7), Field::Own)]));
//! assert_eq!(board.to_string(), "BOARD\n7,7,1\nDONE");
//! ```

use std::fmt;
use std::str::FromStr;

use tengen_rules::Point;

/// The most stone lines one block (BOARD, YXBOARD, SWAP2BOARD) may hold: a full 100x100 board.
/// More is refused rather than collected without end.
pub const MAX_BLOCK_LINES: usize = 10_000;

/// Who a stone of a `BOARD` or `YXBOARD` block belongs to, seen from the brain that reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// `1`: the brain's own stone.
    Own,
    /// `2`: the opponent's stone.
    Opponent,
    /// `3`: sent only in Piskvork's "continuous game" mode, a stone that is part of a finished
    /// winning line (or a black stone played on a forbidden point under renju): occupied, but in
    /// play for neither side.
    Marked,
}

impl Field {
    /// The protocol's number for this field: 1, 2 or 3.
    pub const fn code(self) -> u8 {
        match self {
            Field::Own => 1,
            Field::Opponent => 2,
            Field::Marked => 3,
        }
    }

    /// The field a protocol number names.
    pub const fn from_code(code: u8) -> Option<Field> {
        match code {
            1 => Some(Field::Own),
            2 => Some(Field::Opponent),
            3 => Some(Field::Marked),
            _ => None,
        }
    }
}

/// One line of a `BOARD` or `YXBOARD` block: `x,y,field`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stone {
    /// Where the stone is.
    pub point: Point,
    /// Whose it is.
    pub field: Field,
}

impl Stone {
    /// A stone on `point` belonging to `field`.
    pub const fn new(point: Point, field: Field) -> Stone {
        Stone { point, field }
    }
}

/// An `INFO key value` line. Keys are matched case-insensitively; an unknown key is kept as
/// [`Info::Other`] (the protocol says a brain ignores what it does not know).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Info {
    /// `timeout_turn`: the most milliseconds one move may take (0: play as fast as possible).
    TimeoutTurn(u64),
    /// `timeout_match`: milliseconds for the whole match (0: no limit).
    TimeoutMatch(u64),
    /// `time_left`: milliseconds left on the brain's match clock; negative when overdrawn,
    /// 2147483647 when unlimited.
    TimeLeft(i64),
    /// `max_memory`: bytes the brain may use (0: no limit).
    MaxMemory(u64),
    /// `game_type`: 0 human opponent, 1 brain, 2 tournament, 3 network tournament.
    GameType(u32),
    /// `rule`: a bit set, 1 exactly five, 2 continuous game, 4 renju, 8 caro (alone caro with
    /// overlines, with 1 caro).
    Rule(u32),
    /// `evaluate`: where the mouse is (for debug builds of a brain).
    Evaluate(Point),
    /// `folder`: a folder for persistent files.
    Folder(String),
    /// `max_node` (Yixin-Board): the most nodes one search may visit (0: no limit; a negative
    /// value, Yixin-Board's -1, is read as 0).
    MaxNode(u64),
    /// `max_depth` (Yixin-Board): the deepest one search may go (0: no limit).
    MaxDepth(u32),
    /// `thread_num` (Yixin-Board): threads to use.
    ThreadNum(u32),
    /// `caution_factor` (Yixin-Board).
    CautionFactor(i64),
    /// `hash_size` (Yixin-Board): transposition table size in kilobytes.
    HashSize(u64),
    /// `show_detail` (Yixin-Board): how much to report while thinking.
    ShowDetail(u32),
    /// `level` (a Tengen extension): the playing strength by name, `beginner` to `master`, as
    /// sent (the brain knows its levels; the syntax does not).
    Level(String),
    /// Any other key, lower-cased, with its value as sent.
    Other {
        /// The key, lower-case.
        key: String,
        /// The rest of the line.
        value: String,
    },
}

impl Info {
    /// The key as printed (lower-case).
    pub fn key(&self) -> &str {
        match self {
            Info::TimeoutTurn(_) => "timeout_turn",
            Info::TimeoutMatch(_) => "timeout_match",
            Info::TimeLeft(_) => "time_left",
            Info::MaxMemory(_) => "max_memory",
            Info::GameType(_) => "game_type",
            Info::Rule(_) => "rule",
            Info::Evaluate(_) => "evaluate",
            Info::Folder(_) => "folder",
            Info::MaxNode(_) => "max_node",
            Info::MaxDepth(_) => "max_depth",
            Info::ThreadNum(_) => "thread_num",
            Info::CautionFactor(_) => "caution_factor",
            Info::HashSize(_) => "hash_size",
            Info::ShowDetail(_) => "show_detail",
            Info::Level(_) => "level",
            Info::Other { key, .. } => key,
        }
    }

    fn parse(key: &str, value: &str) -> Result<Info, ParseError> {
        let key = key.to_ascii_lowercase();
        let bad = || ParseError::BadInfoValue {
            key: key.clone(),
            value: value.to_string(),
        };
        fn num<T: FromStr>(v: &str, bad: impl Fn() -> ParseError) -> Result<T, ParseError> {
            v.parse().map_err(|_| bad())
        }
        Ok(match key.as_str() {
            "timeout_turn" => Info::TimeoutTurn(num(value, bad)?),
            "timeout_match" => Info::TimeoutMatch(num(value, bad)?),
            "time_left" => Info::TimeLeft(num(value, bad)?),
            "max_memory" => Info::MaxMemory(num(value, bad)?),
            "game_type" => Info::GameType(num(value, bad)?),
            "rule" => Info::Rule(num(value, bad)?),
            "evaluate" => Info::Evaluate(parse_point(value).ok_or_else(bad)?),
            "folder" => Info::Folder(value.to_string()),
            // Yixin-Board sends -1 for no limit.
            "max_node" => match value.parse::<i64>() {
                Ok(n) if n < 0 => Info::MaxNode(0),
                _ => Info::MaxNode(num(value, bad)?),
            },
            "max_depth" => Info::MaxDepth(num(value, bad)?),
            "thread_num" => Info::ThreadNum(num(value, bad)?),
            "caution_factor" => Info::CautionFactor(num(value, bad)?),
            "hash_size" => Info::HashSize(num(value, bad)?),
            "show_detail" => Info::ShowDetail(num(value, bad)?),
            "level" => Info::Level(value.to_string()),
            _ => Info::Other {
                key,
                value: value.to_string(),
            },
        })
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = self.key();
        match self {
            Info::TimeoutTurn(v) | Info::TimeoutMatch(v) | Info::MaxMemory(v) => {
                write!(f, "INFO {key} {v}")
            }
            Info::MaxNode(v) | Info::HashSize(v) => write!(f, "INFO {key} {v}"),
            Info::TimeLeft(v) | Info::CautionFactor(v) => write!(f, "INFO {key} {v}"),
            Info::GameType(v)
            | Info::Rule(v)
            | Info::MaxDepth(v)
            | Info::ThreadNum(v)
            | Info::ShowDetail(v) => write!(f, "INFO {key} {v}"),
            Info::Evaluate(p) => write!(f, "INFO {key} {}", PointText(*p)),
            Info::Folder(s) => write!(f, "INFO {key} {s}"),
            Info::Level(l) => write!(f, "INFO {key} {l}"),
            Info::Other { value, .. } => write!(f, "INFO {key} {value}"),
        }
    }
}

/// One manager-to-brain command, blocks (`BOARD` ... `DONE`) included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `START n`: a new game on an n x n board.
    Start(u32),
    /// `RECTSTART w,h`: a new game on a w x h board.
    RectStart {
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
    },
    /// `RESTART`: a new game on the same board.
    Restart,
    /// `BEGIN`: the brain opens the game; it answers a move.
    Begin,
    /// `TURN x,y`: the opponent played there; the brain answers a move.
    Turn(Point),
    /// `BOARD` ... `DONE`: a whole position; the brain answers a move.
    Board(Vec<Stone>),
    /// `YXBOARD` ... `DONE` (Yixin): a whole position, no answer.
    YxBoard(Vec<Stone>),
    /// `INFO key value`: a setting; no answer.
    Info(Info),
    /// `TAKEBACK x,y`: the stone there is taken back; the brain answers `OK`.
    Takeback(Point),
    /// `END`: the brain exits.
    End,
    /// `ABOUT`: the brain describes itself.
    About,
    /// `PLAY x,y`: the brain plays there (after it suggested it) and answers the point.
    Play(Point),
    /// `SWAP2BOARD` ... `DONE`: the swap2 opening with 0, 3 or 5 stones so far (black first,
    /// alternating); the answer depends on the count.
    Swap2Board(Vec<Point>),
    /// `YXSTOP` (Yixin): answer the best move found so far at once.
    YxStop,
    /// `YXNBEST n` (Yixin): report the n best moves, then play the best.
    YxNBest(u32),
    /// `YXHASHCLEAR` (Yixin): forget what earlier searches learnt.
    YxHashClear,
    /// `YXSHOWFORBID` (Yixin): list black's forbidden points.
    YxShowForbid,
    /// `YXSHOWINFO` (Yixin-Board, at start-up): the brain states its limits in `MESSAGE INFO
    /// MAX_THREAD_NUM n` and `MESSAGE INFO MAX_HASH_SIZE k` lines.
    YxShowInfo,
}

impl fmt::Display for Command {
    /// The command as the manager sends it; blocks span several lines joined by `\n`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Start(n) => write!(f, "START {n}"),
            Command::RectStart { width, height } => write!(f, "RECTSTART {width},{height}"),
            Command::Restart => f.write_str("RESTART"),
            Command::Begin => f.write_str("BEGIN"),
            Command::Turn(p) => write!(f, "TURN {}", PointText(*p)),
            Command::Board(stones) | Command::YxBoard(stones) => {
                let head = if matches!(self, Command::Board(_)) {
                    "BOARD"
                } else {
                    "YXBOARD"
                };
                f.write_str(head)?;
                for s in stones {
                    write!(f, "\n{},{}", PointText(s.point), s.field.code())?;
                }
                f.write_str("\nDONE")
            }
            Command::Info(info) => info.fmt(f),
            Command::Takeback(p) => write!(f, "TAKEBACK {}", PointText(*p)),
            Command::End => f.write_str("END"),
            Command::About => f.write_str("ABOUT"),
            Command::Play(p) => write!(f, "PLAY {}", PointText(*p)),
            Command::Swap2Board(points) => {
                f.write_str("SWAP2BOARD")?;
                for p in points {
                    write!(f, "\n{}", PointText(*p))?;
                }
                f.write_str("\nDONE")
            }
            Command::YxStop => f.write_str("YXSTOP"),
            Command::YxNBest(n) => write!(f, "YXNBEST {n}"),
            Command::YxHashClear => f.write_str("YXHASHCLEAR"),
            Command::YxShowForbid => f.write_str("YXSHOWFORBID"),
            Command::YxShowInfo => f.write_str("YXSHOWINFO"),
        }
    }
}

impl FromStr for Command {
    type Err = ParseError;

    /// Reads exactly one command, which may be a whole block over several lines.
    ///
    /// ```
    /// use tengen_protocol::command::{Command, Info};
    /// assert_eq!("turn 3, 4".parse::<Command>()?, Command::Turn(tengen_rules::Point::new(3, 4)));
    /// assert_eq!("INFO TIMEOUT_TURN 500".parse::<Command>()?, Command::Info(Info::TimeoutTurn(500)));
    /// assert!("FLY 1,2".parse::<Command>().is_err());
    /// # Ok::<(), tengen_protocol::command::ParseError>(())
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parser = CommandParser::new();
        let mut found = None;
        for line in s.lines() {
            if let Some(result) = parser.feed(line) {
                if found.is_some() {
                    return Err(ParseError::Trailing(line.trim().to_string()));
                }
                found = Some(result?);
            }
        }
        if parser.in_block() {
            return Err(ParseError::UnfinishedBlock);
        }
        found.ok_or(ParseError::Empty)
    }
}

/// Why a line is not a command.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A command word Tengen does not know (the brain answers `UNKNOWN`).
    #[error("{0}")]
    Unknown(String),
    /// A command without its argument.
    #[error("{0} needs an argument")]
    MissingArgument(&'static str),
    /// A command whose argument cannot be read.
    #[error("{command}: cannot read {argument:?} (expected {expected})")]
    BadArgument {
        /// The command.
        command: &'static str,
        /// What came with it.
        argument: String,
        /// What was expected.
        expected: &'static str,
    },
    /// An `INFO` line whose value does not fit its key.
    #[error("INFO {key}: cannot read value {value:?}")]
    BadInfoValue {
        /// The key, lower-case.
        key: String,
        /// The value sent.
        value: String,
    },
    /// A block line that is not `x,y,field` (or `x,y` in `SWAP2BOARD`).
    #[error("{block}: cannot read stone line {line:?}")]
    BadStone {
        /// The block.
        block: &'static str,
        /// The line.
        line: String,
    },
    /// A block of more than [`MAX_BLOCK_LINES`] stones.
    #[error("{0}: too many stones")]
    BlockTooLong(&'static str),
    /// `DONE` outside a block.
    #[error("DONE without BOARD, YXBOARD or SWAP2BOARD")]
    StrayDone,
    /// Text with no command in it.
    #[error("no command")]
    Empty,
    /// A block that is not closed with `DONE`.
    #[error("block not closed with DONE")]
    UnfinishedBlock,
    /// More text after a complete command.
    #[error("more text after the command: {0:?}")]
    Trailing(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKind {
    Board,
    YxBoard,
    Swap2,
}

impl BlockKind {
    const fn name(self) -> &'static str {
        match self {
            BlockKind::Board => "BOARD",
            BlockKind::YxBoard => "YXBOARD",
            BlockKind::Swap2 => "SWAP2BOARD",
        }
    }
}

#[derive(Clone, Debug)]
struct Block {
    kind: BlockKind,
    stones: Vec<Stone>,
    points: Vec<Point>,
    // The first bad line, reported at DONE: the block is read to its end either way so that
    // its remaining lines are not taken for commands.
    error: Option<ParseError>,
}

/// Reads commands line by line, collecting blocks until their `DONE`.
///
/// Feed it every line the manager sends; it returns `None` for empty lines and for lines inside
/// a block, and the command (or why it is not one) otherwise. `END` inside a block abandons the
/// block and is returned, so that a manager that gives up mid-block can still stop the brain.
#[derive(Clone, Debug, Default)]
pub struct CommandParser {
    block: Option<Block>,
}

impl CommandParser {
    /// A parser outside any block.
    pub fn new() -> CommandParser {
        CommandParser::default()
    }

    /// Whether a block is open (lines are stones until `DONE`).
    pub fn in_block(&self) -> bool {
        self.block.is_some()
    }

    /// Takes one line (line ending, surrounding blanks and a byte-order mark, which a manager
    /// on Windows may put before its first line, are ignored).
    pub fn feed(&mut self, line: &str) -> Option<Result<Command, ParseError>> {
        let line = line.trim().trim_start_matches('\u{feff}').trim();
        if line.is_empty() {
            return None;
        }
        if let Some(block) = &mut self.block {
            if line.eq_ignore_ascii_case("DONE") {
                let block = self.block.take()?;
                return Some(finish_block(block));
            }
            if line.eq_ignore_ascii_case("END") {
                self.block = None;
                return Some(Ok(Command::End));
            }
            block_line(block, line);
            return None;
        }
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        let word = word.to_ascii_uppercase();
        let open = |kind| Block {
            kind,
            stones: Vec::new(),
            points: Vec::new(),
            error: None,
        };
        let command = match word.as_str() {
            "BOARD" => Err(open(BlockKind::Board)),
            "YXBOARD" => Err(open(BlockKind::YxBoard)),
            "SWAP2BOARD" => Err(open(BlockKind::Swap2)),
            _ => Ok(parse_simple(&word, rest, line)),
        };
        match command {
            Ok(result) => Some(result),
            Err(block) => {
                self.block = Some(block);
                None
            }
        }
    }
}

fn block_line(block: &mut Block, line: &str) {
    if block.error.is_some() {
        return;
    }
    if block.stones.len() + block.points.len() >= MAX_BLOCK_LINES {
        block.error = Some(ParseError::BlockTooLong(block.kind.name()));
        return;
    }
    let bad = || ParseError::BadStone {
        block: block.kind.name(),
        line: line.to_string(),
    };
    let numbers: Option<Vec<i64>> = line.split(',').map(|t| t.trim().parse().ok()).collect();
    let to_i32 = |v: i64| i32::try_from(v).ok();
    match (block.kind, numbers.as_deref()) {
        (BlockKind::Swap2, Some(&[x, y] | &[x, y, _])) => match (to_i32(x), to_i32(y)) {
            (Some(x), Some(y)) => block.points.push(Point::new(x, y)),
            _ => block.error = Some(bad()),
        },
        (BlockKind::Board | BlockKind::YxBoard, Some(&[x, y, c])) => {
            let field = u8::try_from(c).ok().and_then(Field::from_code);
            match (to_i32(x), to_i32(y), field) {
                (Some(x), Some(y), Some(field)) => {
                    block.stones.push(Stone::new(Point::new(x, y), field))
                }
                _ => block.error = Some(bad()),
            }
        }
        _ => block.error = Some(bad()),
    }
}

fn finish_block(block: Block) -> Result<Command, ParseError> {
    if let Some(e) = block.error {
        return Err(e);
    }
    Ok(match block.kind {
        BlockKind::Board => Command::Board(block.stones),
        BlockKind::YxBoard => Command::YxBoard(block.stones),
        BlockKind::Swap2 => Command::Swap2Board(block.points),
    })
}

fn parse_simple(word: &str, rest: &str, line: &str) -> Result<Command, ParseError> {
    let point = |command: &'static str| -> Result<Point, ParseError> {
        if rest.is_empty() {
            return Err(ParseError::MissingArgument(command));
        }
        parse_point(rest).ok_or_else(|| ParseError::BadArgument {
            command,
            argument: rest.to_string(),
            expected: "x,y",
        })
    };
    let no_argument = |command: Command| -> Result<Command, ParseError> {
        // Extra words after an argument-less command are tolerated: some managers append
        // comments, and refusing them would gain nothing.
        Ok(command)
    };
    match word {
        "START" => {
            if rest.is_empty() {
                return Err(ParseError::MissingArgument("START"));
            }
            let bad = || ParseError::BadArgument {
                command: "START",
                argument: rest.to_string(),
                expected: "a board size",
            };
            // Yixin-Board sends `START width height` (`start 15 15`) for every board, square
            // or not.
            let numbers: Option<Vec<u32>> =
                rest.split_whitespace().map(|t| t.parse().ok()).collect();
            match *numbers.ok_or_else(bad)?.as_slice() {
                [n] => Ok(Command::Start(n)),
                [width, height] if width == height => Ok(Command::Start(width)),
                [width, height] => Ok(Command::RectStart { width, height }),
                _ => Err(bad()),
            }
        }
        "RECTSTART" => {
            if rest.is_empty() {
                return Err(ParseError::MissingArgument("RECTSTART"));
            }
            let pair = rest
                .split_once(',')
                .and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
            pair.map(|(width, height)| Command::RectStart { width, height })
                .ok_or_else(|| ParseError::BadArgument {
                    command: "RECTSTART",
                    argument: rest.to_string(),
                    expected: "width,height",
                })
        }
        "RESTART" => no_argument(Command::Restart),
        "BEGIN" => no_argument(Command::Begin),
        "TURN" => point("TURN").map(Command::Turn),
        "TAKEBACK" => point("TAKEBACK").map(Command::Takeback),
        "PLAY" => point("PLAY").map(Command::Play),
        "END" => no_argument(Command::End),
        "ABOUT" => no_argument(Command::About),
        "YXSTOP" => no_argument(Command::YxStop),
        "YXHASHCLEAR" => no_argument(Command::YxHashClear),
        "YXSHOWFORBID" => no_argument(Command::YxShowForbid),
        "YXSHOWINFO" => no_argument(Command::YxShowInfo),
        "YXNBEST" => {
            if rest.is_empty() {
                return Err(ParseError::MissingArgument("YXNBEST"));
            }
            rest.parse()
                .map(Command::YxNBest)
                .map_err(|_| ParseError::BadArgument {
                    command: "YXNBEST",
                    argument: rest.to_string(),
                    expected: "a number of moves",
                })
        }
        "INFO" => {
            if rest.is_empty() {
                return Err(ParseError::MissingArgument("INFO"));
            }
            let (key, value) = match rest.split_once(char::is_whitespace) {
                Some((k, v)) => (k, v.trim()),
                None => (rest, ""),
            };
            Info::parse(key, value).map(Command::Info)
        }
        "DONE" => Err(ParseError::StrayDone),
        _ => Err(ParseError::Unknown(line.to_string())),
    }
}

/// Reads Gomocup's `x,y` (blanks around the numbers are allowed).
///
/// ```
/// use tengen_protocol::command::parse_point;
/// use tengen_rules::Point;
/// assert_eq!(parse_point("10,11"), Some(Point::new(10, 11)));
/// assert_eq!(parse_point(" 3 , 4 "), Some(Point::new(3, 4)));
/// assert_eq!(parse_point("3;4"), None);
/// ```
pub fn parse_point(s: &str) -> Option<Point> {
    let (x, y) = s.split_once(',')?;
    Some(Point::new(x.trim().parse().ok()?, y.trim().parse().ok()?))
}

/// Writes a point as Gomocup's `x,y`.
///
/// ```
/// use tengen_protocol::command::PointText;
/// assert_eq!(PointText(tengen_rules::Point::new(7, 8)).to_string(), "7,8");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointText(pub Point);

impl fmt::Display for PointText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.0.x, self.0.y)
    }
}

/// One brain-to-manager line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// `OK`: the answer to `START`, `RECTSTART`, `RESTART` and `TAKEBACK`.
    Ok,
    /// `ERROR text`: a command the brain cannot carry out.
    Error(String),
    /// `UNKNOWN text`: a command the brain does not know.
    Unknown(String),
    /// `MESSAGE text`: something for the user to read.
    Message(String),
    /// `DEBUG text`: something for the brain's author to read.
    Debug(String),
    /// `SUGGEST x,y`: the brain proposes a move; the manager answers `PLAY`.
    Suggest(Point),
    /// `x,y`: the brain's move.
    Move(Point),
    /// `x1,y1 x2,y2 ...`: several stones, in a swap2 answer.
    Moves(Vec<Point>),
    /// `SWAP`: in a swap2 answer, the brain takes black.
    Swap,
    /// `FORBID xxyy...` + `.` (Yixin): black's forbidden points, each as two-digit x and y.
    Forbid(Vec<Point>),
    /// The answer to `ABOUT`: `name="...", version="...", ...` as one line.
    About(String),
}

impl Response {
    /// Classifies one line from a brain; `None` when it is none of the forms above.
    ///
    /// ```
    /// use tengen_protocol::command::Response;
    /// use tengen_rules::Point;
    /// assert_eq!(Response::parse("7,8"), Some(Response::Move(Point::new(7, 8))));
    /// assert_eq!(Response::parse("MESSAGE depth 3"), Some(Response::Message("depth 3".into())));
    /// assert_eq!(Response::parse("FORBID 07080910."), Some(Response::Forbid(vec![
    ///     Point::new(7, 8), Point::new(9, 10)])));
    /// assert_eq!(Response::parse("hello"), None);
    /// ```
    pub fn parse(line: &str) -> Option<Response> {
        let line = line.trim();
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        let upper = word.to_ascii_uppercase();
        match upper.as_str() {
            "OK" if rest.is_empty() => return Some(Response::Ok),
            "SWAP" if rest.is_empty() => return Some(Response::Swap),
            "ERROR" => return Some(Response::Error(rest.to_string())),
            "UNKNOWN" => return Some(Response::Unknown(rest.to_string())),
            "MESSAGE" => return Some(Response::Message(rest.to_string())),
            "DEBUG" => return Some(Response::Debug(rest.to_string())),
            "SUGGEST" => return parse_point(rest).map(Response::Suggest),
            "FORBID" => return parse_forbid(rest).map(Response::Forbid),
            _ => {}
        }
        if line
            .get(..5)
            .is_some_and(|w| w.eq_ignore_ascii_case("name="))
        {
            return Some(Response::About(line.to_string()));
        }
        let points: Option<Vec<Point>> = line.split_whitespace().map(parse_point).collect();
        match points? {
            p if p.len() == 1 => Some(Response::Move(p[0])),
            p if p.len() > 1 => Some(Response::Moves(p)),
            _ => None,
        }
    }
}

fn parse_forbid(rest: &str) -> Option<Vec<Point>> {
    let digits = rest.strip_suffix('.')?.trim();
    if digits.len() % 4 != 0 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // All ASCII digits, so slicing at any byte is slicing at a character boundary.
    (0..digits.len() / 4)
        .map(|i| {
            let x = digits[i * 4..i * 4 + 2].parse().ok()?;
            let y = digits[i * 4 + 2..i * 4 + 4].parse().ok()?;
            Some(Point::new(x, y))
        })
        .collect()
}

// One line per response: newlines inside free text would be read as further responses.
// A response is one line of text: line breaks and every other control character (a NUL
// echoed from the input, say) print as spaces.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

impl fmt::Display for Response {
    /// The line the brain prints (without the line ending).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Ok => f.write_str("OK"),
            Response::Error(s) => write!(f, "ERROR {}", one_line(s)),
            Response::Unknown(s) => write!(f, "UNKNOWN {}", one_line(s)),
            Response::Message(s) => write!(f, "MESSAGE {}", one_line(s)),
            Response::Debug(s) => write!(f, "DEBUG {}", one_line(s)),
            Response::Suggest(p) => write!(f, "SUGGEST {}", PointText(*p)),
            Response::Move(p) => PointText(*p).fmt(f),
            Response::Moves(points) => {
                for (i, p) in points.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    PointText(*p).fmt(f)?;
                }
                Ok(())
            }
            Response::Swap => f.write_str("SWAP"),
            Response::Forbid(points) => {
                f.write_str("FORBID ")?;
                for p in points {
                    // Boards are at most 100 wide, so two digits hold every coordinate.
                    write!(f, "{:02}{:02}", p.x, p.y)?;
                }
                f.write_str(".")
            }
            Response::About(s) => f.write_str(&one_line(s)),
        }
    }
}

/// What Tengen reports in its `MESSAGE` lines while it thinks, and what the client reads back
/// from any brain's `MESSAGE` lines as far as it can.
///
/// Printed as `depth 7 seldepth 13 eval +35 nodes 120000 nps 240000 time 500 pv 7,7 8,8`,
/// leaving out what is unknown. `eval` is from the side to move's point of view: a number for a
/// heuristic evaluation, `+M5` for a proven win in 5 plies, `-M4` for a proven loss in 4 (the
/// notation Yixin-Board shows). `pv` is the best line in `x,y` points, the move to play first.
///
/// ```
/// use tengen_protocol::command::{ReportedScore, SearchReport};
/// use tengen_rules::Point;
/// let r = SearchReport::parse("depth 5-9 eval +M3 nodes 1000 pv 7,7 8,8").expect("a report");
/// assert_eq!(r.depth, Some(5));
/// assert_eq!(r.eval, Some(ReportedScore::Win(3)));
/// assert_eq!(r.pv, vec![Point::new(7, 7), Point::new(8, 8)]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchReport {
    /// Nominal depth completed.
    pub depth: Option<u32>,
    /// Deepest ply reached.
    pub seldepth: Option<u32>,
    /// Evaluation for the side to move.
    pub eval: Option<ReportedScore>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Speed in nodes per second.
    pub nps: Option<u64>,
    /// Milliseconds since the search began.
    pub time_ms: Option<u64>,
    /// The best line.
    pub pv: Vec<Point>,
}

impl SearchReport {
    /// Reads a report from the text of a `MESSAGE` line; `None` when it names neither a depth
    /// nor an evaluation. Lenient: a number may carry a suffix (`depth 5-9` is depth 5), and
    /// `ev`/`speed` are taken for `eval`/`nps`.
    pub fn parse(text: &str) -> Option<SearchReport> {
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let mut r = SearchReport::default();
        let lead = |t: &str| -> Option<u64> {
            let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        };
        let mut i = 0;
        while i < tokens.len() {
            let key = tokens[i].trim_end_matches([':', '=']).to_ascii_lowercase();
            let next = tokens.get(i + 1).copied().unwrap_or("");
            match key.as_str() {
                "depth" => r.depth = lead(next).and_then(|v| u32::try_from(v).ok()),
                "seldepth" => r.seldepth = lead(next).and_then(|v| u32::try_from(v).ok()),
                "eval" | "ev" => r.eval = next.parse().ok(),
                "nodes" => r.nodes = lead(next),
                "nps" | "speed" => r.nps = lead(next),
                "time" => r.time_ms = lead(next),
                "pv" => {
                    r.pv = tokens[i + 1..]
                        .iter()
                        .map_while(|t| parse_point(t))
                        .collect();
                    i += r.pv.len();
                }
                _ => {}
            }
            i += 1;
        }
        (r.depth.is_some() || r.eval.is_some()).then_some(r)
    }
}

/// An evaluation as a brain reports it, for the side to move: a heuristic number, or a proven
/// win or loss in so many plies.
///
/// ```
/// use tengen_protocol::command::ReportedScore;
/// assert_eq!(ReportedScore::Eval(35).to_string(), "+35");
/// assert_eq!(ReportedScore::Loss(4).to_string(), "-M4");
/// assert_eq!("+M5".parse(), Ok(ReportedScore::Win(5)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportedScore {
    /// A heuristic evaluation, positive when the side to move stands better.
    Eval(i32),
    /// A proven win in this many plies.
    Win(u32),
    /// A proven loss in this many plies.
    Loss(u32),
}

/// An evaluation that is none of `+35`, `-12`, `+M5`, `-M4`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not an evaluation: {0:?}")]
pub struct ReportedScoreError(pub String);

impl FromStr for ReportedScore {
    type Err = ReportedScoreError;

    /// Reads an evaluation as [`SearchReport`] prints it: `+35`, `-12`, `+M5`, `-M4`.
    fn from_str(t: &str) -> Result<ReportedScore, ReportedScoreError> {
        let bad = || ReportedScoreError(t.to_string());
        if let Some(n) = t.strip_prefix("+M").or_else(|| t.strip_prefix("M")) {
            return n.parse().map(ReportedScore::Win).map_err(|_| bad());
        }
        if let Some(n) = t.strip_prefix("-M") {
            return n.parse().map(ReportedScore::Loss).map_err(|_| bad());
        }
        t.strip_prefix('+')
            .unwrap_or(t)
            .parse()
            .map(ReportedScore::Eval)
            .map_err(|_| bad())
    }
}

impl fmt::Display for ReportedScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ReportedScore::Eval(s) => write!(f, "{s:+}"),
            ReportedScore::Win(n) => write!(f, "+M{n}"),
            ReportedScore::Loss(n) => write!(f, "-M{n}"),
        }
    }
}

impl fmt::Display for SearchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let num = |key: &str, v: Option<u64>| v.map(|v| format!("{key} {v}"));
        let mut parts: Vec<String> = [
            num("depth", self.depth.map(u64::from)),
            num("seldepth", self.seldepth.map(u64::from)),
            self.eval.map(|e| format!("eval {e}")),
            num("nodes", self.nodes),
            num("nps", self.nps),
            num("time", self.time_ms),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !self.pv.is_empty() {
            let pv: Vec<String> = self.pv.iter().map(|p| PointText(*p).to_string()).collect();
            parts.push(format!("pv {}", pv.join(" ")));
        }
        f.write_str(&parts.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: i32, y: i32) -> Point {
        Point::new(x, y)
    }

    #[test]
    fn simple_commands_parse() {
        let cases: Vec<(&str, Command)> = vec![
            ("START 15", Command::Start(15)),
            ("start 20\r", Command::Start(20)),
            // A byte-order mark before the first line is no part of the command.
            ("\u{feff}START 15\r\n", Command::Start(15)),
            // Yixin-Board's form: width and height.
            ("start 15 15", Command::Start(15)),
            (
                "START 20 15",
                Command::RectStart {
                    width: 20,
                    height: 15,
                },
            ),
            (
                "RECTSTART 20,15",
                Command::RectStart {
                    width: 20,
                    height: 15,
                },
            ),
            ("RESTART", Command::Restart),
            ("BEGIN", Command::Begin),
            ("TURN 10,11", Command::Turn(p(10, 11))),
            ("TURN 10, 11", Command::Turn(p(10, 11))),
            ("TAKEBACK 1,2", Command::Takeback(p(1, 2))),
            ("PLAY 3,4", Command::Play(p(3, 4))),
            ("END", Command::End),
            ("ABOUT", Command::About),
            ("YXSTOP", Command::YxStop),
            ("yxnbest 3", Command::YxNBest(3)),
            ("YXHASHCLEAR", Command::YxHashClear),
            ("YXSHOWFORBID", Command::YxShowForbid),
            ("yxshowinfo", Command::YxShowInfo),
        ];
        for (line, want) in cases {
            assert_eq!(line.parse::<Command>(), Ok(want), "{line}");
        }
    }

    #[test]
    fn info_keys_parse() {
        let cases: Vec<(&str, Info)> = vec![
            ("INFO timeout_turn 1000", Info::TimeoutTurn(1000)),
            ("INFO TIMEOUT_MATCH 0", Info::TimeoutMatch(0)),
            ("INFO time_left -50", Info::TimeLeft(-50)),
            ("INFO max_memory 83886080", Info::MaxMemory(83_886_080)),
            ("INFO game_type 1", Info::GameType(1)),
            ("INFO rule 4", Info::Rule(4)),
            ("INFO evaluate 3,4", Info::Evaluate(p(3, 4))),
            (
                "INFO folder C:\\My Brains\\x",
                Info::Folder("C:\\My Brains\\x".into()),
            ),
            ("INFO max_node 100000", Info::MaxNode(100_000)),
            ("INFO max_node -1", Info::MaxNode(0)),
            ("INFO MAX_DEPTH 12", Info::MaxDepth(12)),
            ("INFO thread_num 2", Info::ThreadNum(2)),
            ("INFO caution_factor 4", Info::CautionFactor(4)),
            ("INFO hash_size 65536", Info::HashSize(65_536)),
            ("INFO show_detail 1", Info::ShowDetail(1)),
            ("INFO level expert", Info::Level("expert".into())),
            (
                "INFO Pondering 1",
                Info::Other {
                    key: "pondering".into(),
                    value: "1".into(),
                },
            ),
        ];
        for (line, want) in cases {
            assert_eq!(line.parse::<Command>(), Ok(Command::Info(want)), "{line}");
        }
    }

    #[test]
    fn malformed_commands_are_errors() {
        assert_eq!(
            "TURN".parse::<Command>(),
            Err(ParseError::MissingArgument("TURN"))
        );
        assert!(matches!(
            "TURN a,b".parse::<Command>(),
            Err(ParseError::BadArgument { .. })
        ));
        for bad in ["START fifteen", "START 15 15 15", "START 15 x", "START -15"] {
            assert!(
                matches!(bad.parse::<Command>(), Err(ParseError::BadArgument { .. })),
                "{bad}"
            );
        }
        assert!(matches!(
            "INFO timeout_turn soon".parse::<Command>(),
            Err(ParseError::BadInfoValue { .. })
        ));
        assert_eq!(
            "JUMP 1".parse::<Command>(),
            Err(ParseError::Unknown("JUMP 1".into()))
        );
        assert_eq!("DONE".parse::<Command>(), Err(ParseError::StrayDone));
        assert_eq!("".parse::<Command>(), Err(ParseError::Empty));
        assert_eq!(
            "BOARD\n1,1,1".parse::<Command>(),
            Err(ParseError::UnfinishedBlock)
        );
        assert!(matches!(
            "TURN 99999999999,1".parse::<Command>(),
            Err(ParseError::BadArgument { .. })
        ));
    }

    #[test]
    fn blocks_collect_until_done() {
        let mut parser = CommandParser::new();
        assert_eq!(parser.feed("BOARD"), None);
        assert!(parser.in_block());
        assert_eq!(parser.feed("10,10,1"), None);
        assert_eq!(parser.feed(""), None);
        assert_eq!(parser.feed("10,11,2"), None);
        assert_eq!(parser.feed("11,11,3"), None);
        assert_eq!(
            parser.feed("done"),
            Some(Ok(Command::Board(vec![
                Stone::new(p(10, 10), Field::Own),
                Stone::new(p(10, 11), Field::Opponent),
                Stone::new(p(11, 11), Field::Marked),
            ])))
        );
        assert!(!parser.in_block());

        assert_eq!(
            "SWAP2BOARD\n7,7\n8,7\n9,9\nDONE".parse::<Command>(),
            Ok(Command::Swap2Board(vec![p(7, 7), p(8, 7), p(9, 9)]))
        );
        assert_eq!(
            "SWAP2BOARD\nDONE".parse::<Command>(),
            Ok(Command::Swap2Board(vec![]))
        );
        assert_eq!(
            "YXBOARD\n1,2,2\nDONE".parse::<Command>(),
            Ok(Command::YxBoard(vec![Stone::new(p(1, 2), Field::Opponent)]))
        );
    }

    #[test]
    fn a_bad_block_line_spoils_the_block_but_not_the_stream() {
        let mut parser = CommandParser::new();
        parser.feed("BOARD");
        parser.feed("1,1,4");
        // Lines after the bad one are still part of the block, not commands.
        assert_eq!(parser.feed("BEGIN"), None);
        assert!(matches!(
            parser.feed("DONE"),
            Some(Err(ParseError::BadStone { .. }))
        ));
        assert_eq!(parser.feed("BEGIN"), Some(Ok(Command::Begin)));
    }

    #[test]
    fn end_abandons_a_block() {
        let mut parser = CommandParser::new();
        parser.feed("BOARD");
        parser.feed("1,1,1");
        assert_eq!(parser.feed("END"), Some(Ok(Command::End)));
        assert!(!parser.in_block());
    }

    #[test]
    fn commands_print_as_sent() {
        let cases: Vec<(Command, &str)> = vec![
            (Command::Start(20), "START 20"),
            (
                Command::RectStart {
                    width: 30,
                    height: 20,
                },
                "RECTSTART 30,20",
            ),
            (Command::Turn(p(1, 2)), "TURN 1,2"),
            (
                Command::Board(vec![
                    Stone::new(p(1, 2), Field::Own),
                    Stone::new(p(3, 4), Field::Opponent),
                ]),
                "BOARD\n1,2,1\n3,4,2\nDONE",
            ),
            (Command::YxBoard(vec![]), "YXBOARD\nDONE"),
            (Command::Swap2Board(vec![p(7, 7)]), "SWAP2BOARD\n7,7\nDONE"),
            (
                Command::Info(Info::TimeoutTurn(500)),
                "INFO timeout_turn 500",
            ),
            (
                Command::Info(Info::Level("beginner".into())),
                "INFO level beginner",
            ),
            (Command::YxNBest(4), "YXNBEST 4"),
        ];
        for (cmd, want) in cases {
            assert_eq!(cmd.to_string(), want);
            assert_eq!(want.parse::<Command>(), Ok(cmd));
        }
    }

    #[test]
    fn responses_print_and_parse() {
        let cases: Vec<(Response, &str)> = vec![
            (Response::Ok, "OK"),
            (Response::Error("bad size".into()), "ERROR bad size"),
            (Response::Unknown("FLY".into()), "UNKNOWN FLY"),
            (Response::Message("a\nb".into()), "MESSAGE a b"),
            (Response::Debug("x".into()), "DEBUG x"),
            (Response::Suggest(p(1, 2)), "SUGGEST 1,2"),
            (Response::Move(p(7, 8)), "7,8"),
            (Response::Moves(vec![p(7, 8), p(9, 9)]), "7,8 9,9"),
            (Response::Swap, "SWAP"),
            (Response::Forbid(vec![]), "FORBID ."),
            (
                Response::Forbid(vec![p(7, 8), p(10, 0)]),
                "FORBID 07081000.",
            ),
            (
                Response::About("name=\"Tengen\", version=\"1\"".into()),
                "name=\"Tengen\", version=\"1\"",
            ),
        ];
        for (r, want) in cases {
            assert_eq!(r.to_string(), want);
            if !matches!(r, Response::Message(_)) {
                assert_eq!(Response::parse(want), Some(r));
            }
        }
        // Control characters print as spaces: a response stays one line of text.
        assert_eq!(
            Response::Unknown("T\0URN\t1".into()).to_string(),
            "UNKNOWN T URN 1"
        );
        assert_eq!(Response::parse("7,8 x"), None);
        assert_eq!(Response::parse("FORBID 070."), None);
        assert_eq!(Response::parse(""), None);
    }

    fn any_point() -> impl proptest::strategy::Strategy<Value = Point> {
        use proptest::prelude::*;
        (-5i32..120, -5i32..120).prop_map(|(x, y)| Point::new(x, y))
    }

    fn any_command() -> impl proptest::strategy::Strategy<Value = Command> {
        use proptest::prelude::*;
        fn stone() -> impl Strategy<Value = Stone> {
            (any_point(), 1u8..=3)
                .prop_map(|(p, c)| Stone::new(p, Field::from_code(c).expect("1 to 3 are fields")))
        }
        prop_oneof![
            any::<u32>().prop_map(Command::Start),
            (any::<u32>(), any::<u32>())
                .prop_map(|(width, height)| Command::RectStart { width, height }),
            Just(Command::Restart),
            Just(Command::Begin),
            any_point().prop_map(Command::Turn),
            proptest::collection::vec(stone(), 0..6).prop_map(Command::Board),
            proptest::collection::vec(stone(), 0..6).prop_map(Command::YxBoard),
            any::<u64>().prop_map(|v| Command::Info(Info::TimeoutTurn(v))),
            any::<i64>().prop_map(|v| Command::Info(Info::TimeLeft(v))),
            any::<u32>().prop_map(|v| Command::Info(Info::Rule(v))),
            any_point().prop_map(|p| Command::Info(Info::Evaluate(p))),
            "[a-z]{1,8}( [a-z]{1,8})?".prop_map(|f| Command::Info(Info::Folder(f))),
            any_point().prop_map(Command::Takeback),
            Just(Command::End),
            Just(Command::About),
            any_point().prop_map(Command::Play),
            proptest::collection::vec(any_point(), 0..6).prop_map(Command::Swap2Board),
            Just(Command::YxStop),
            any::<u32>().prop_map(Command::YxNBest),
            Just(Command::YxHashClear),
            Just(Command::YxShowForbid),
            Just(Command::YxShowInfo),
        ]
    }

    proptest::proptest! {
        #[test]
        fn printed_commands_read_back(cmd in any_command()) {
            proptest::prop_assert_eq!(cmd.to_string().parse::<Command>(), Ok(cmd));
        }

        #[test]
        fn any_text_parses_without_panic(text in "(?s).{0,60}") {
            let mut parser = CommandParser::new();
            for line in text.lines() {
                let _ = parser.feed(line);
            }
            let _ = Response::parse(&text);
            let _ = SearchReport::parse(&text);
        }
    }

    #[test]
    fn reports_round_trip() {
        let r = SearchReport {
            depth: Some(7),
            seldepth: Some(13),
            eval: Some(ReportedScore::Eval(-35)),
            nodes: Some(120_000),
            nps: Some(240_000),
            time_ms: Some(500),
            pv: vec![p(7, 7), p(8, 8)],
        };
        let text = r.to_string();
        assert_eq!(
            text,
            "depth 7 seldepth 13 eval -35 nodes 120000 nps 240000 time 500 pv 7,7 8,8"
        );
        assert_eq!(SearchReport::parse(&text), Some(r));
        assert_eq!(SearchReport::parse("hello world"), None);
        assert_eq!(
            SearchReport::parse("Depth 3 | Eval 120 | Time 40ms").map(|r| (r.depth, r.eval)),
            Some((Some(3), Some(ReportedScore::Eval(120))))
        );
    }
}
