//! Tengen as a Gomocup brain: the loop that reads the manager's commands, keeps the position,
//! thinks on a thread of its own and answers.
//!
//! The loop is generic over its input and output so that tests drive it in-process; the
//! `pbrain-tengen` binary runs it on standard input and output. A thread of its own reads the
//! commands, so `YXSTOP` (answer now) and `END` (quit now) reach the search at once, however many
//! commands wait before them; `INFO`, `ABOUT` and `YXSHOWINFO` are handled at once too, and every
//! other command (and the answer to a line that cannot be read) waits for the move being thought
//! about to be answered first.
//!
//! A search that panics (a bug in the engine) is still answered, with a legal move found without
//! one, and reported in a `MESSAGE`; the next search starts from a fresh engine.
//!
//! The transposition table is sized by `INFO max_memory` and `INFO hash_size` within what
//! [`hash_limit_mb`] allows (a larger size is refused in a `MESSAGE`), and allocated at the first
//! search, then again at the first search after the size asked for changes. The engine allocates
//! it zeroed, so its pages are only taken as the search touches them and even a table of
//! gigabytes costs the move no time. A table the system refuses is reported in a `MESSAGE`, and the
//! brain keeps the one it had (at the first search: [`DEFAULT_HASH_MB`], else 1 MB).
//!
//! ```
//! use tengen_brain::{run, BrainOptions};
//! // At the end of the input the search under way still answers (END would cut it short).
//! let input = "START 15\nINFO timeout_turn 200\nBEGIN\n";
//! let mut output = Vec::new();
//! run(input.as_bytes(), &mut output, &BrainOptions::default())?;
//! let text = String::from_utf8(output)?;
//! let replies: Vec<&str> = text.lines().filter(|l| !l.starts_with("MESSAGE")).collect();
//! assert_eq!(replies, ["OK", "7,7"]); // the centre opens the game
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::io::{self, BufRead, Write};
use std::ops::ControlFlow;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle, Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

use tengen_engine::decide::{self, playable};
use tengen_engine::{Engine, EvalWeights, Level, Limits, Score, SearchInfo, TimeControl};
use tengen_rules::{Board, BoardSize, Choice, Color, Game, Point, Rule, forbidden_points};

use tengen_protocol::command::{
    Command, CommandParser, Field, Info, ParseError, PointText, ReportedScore, Response,
    SearchReport, Stone,
};
use tengen_protocol::lines::LineReader;

pub mod fault;

/// The brain's name in `ABOUT`.
pub const NAME: &str = "Tengen";
/// The brain's version in `ABOUT` (the crate's).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The largest hash table sized from `max_memory`, in megabytes.
const MAX_HASH_FROM_MEMORY_MB: u64 = 256;
/// The table size (in megabytes) when nothing says otherwise, and the one the first search falls
/// back to when the system refuses the size asked for.
pub const DEFAULT_HASH_MB: usize = 64;
/// Commands read ahead of the loop at most (each line is at most `lines::MAX_LINE` bytes).
const QUEUED_COMMANDS: usize = 1024;
/// The machine's memory assumed when the system does not say (no `/proc/meminfo`).
const FALLBACK_MACHINE_MB: u64 = 4096;
/// `time_left` at or above this means an unlimited match clock (the protocol sends 2147483647).
const UNLIMITED_TIME_LEFT: i64 = i32::MAX as i64;
/// The most lines `YXNBEST` reports.
const MAX_NBEST: u32 = 64;

/// How the brain plays when the manager says nothing about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrainOptions {
    /// Playing strength until `INFO level` says otherwise.
    pub level: Level,
    /// Drives the lower levels' human-like choices, so that a game repeats from its seed.
    pub seed: u64,
    /// Transposition table size in megabytes until `INFO max_memory` or `INFO hash_size`.
    pub hash_mb: usize,
    /// Evaluation weights to play with instead of the engine's built-in ones (trying out a
    /// refit before it is built in).
    pub eval_weights: Option<EvalWeights>,
    /// Search threads until `INFO thread_num` says otherwise (and when it says 0). One by
    /// default: a match manager runs two brains on one machine and says when it wants more.
    pub threads: usize,
}

impl Default for BrainOptions {
    fn default() -> Self {
        BrainOptions {
            level: Level::Master,
            seed: 0,
            hash_mb: DEFAULT_HASH_MB,
            eval_weights: None,
            threads: 1,
        }
    }
}

/// The line Tengen answers to `ABOUT`.
///
/// ```
/// let about = tengen_brain::about();
/// assert!(about.starts_with("name=\"Tengen\", version=\""));
/// ```
pub fn about() -> String {
    format!(
        "name=\"{NAME}\", version=\"{VERSION}\", author=\"Tengen developers\", \
         country=\"International\", www=\"{}\"",
        env!("CARGO_PKG_REPOSITORY")
    )
}

/// Runs the brain on standard input and output until `END` or the end of the input.
pub fn run_stdio(options: &BrainOptions) -> io::Result<()> {
    run(io::BufReader::new(io::stdin()), io::stdout(), options)
}

/// The largest transposition table the brain takes, in megabytes: half of `max_memory` when the
/// manager states it (the rest is the brain's own), else a quarter of the machine's memory.
///
/// ```
/// use tengen_brain::hash_limit_mb;
/// assert_eq!(hash_limit_mb(Some(100 << 20)), 50);
/// assert!(hash_limit_mb(None) >= 1);
/// ```
pub fn hash_limit_mb(max_memory: Option<u64>) -> u64 {
    let mb = match max_memory {
        Some(bytes) => (bytes / 2) >> 20,
        None => machine_memory_mb() / 4,
    };
    mb.max(1)
}

// The machine's memory in megabytes: MemTotal from /proc/meminfo (Linux), else a guess.
fn machine_memory_mb() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_total_kb(&text))
        .map_or(FALLBACK_MACHINE_MB, |kb| kb >> 10)
}

fn mem_total_kb(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Why a transposition table size is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HashError {
    /// More than [`hash_limit_mb`] allows.
    #[error("a {asked} MB table is more than the {limit} MB allowed ({why})")]
    TooLarge {
        /// The size asked for, in megabytes.
        asked: u64,
        /// The most allowed, in megabytes.
        limit: u64,
        /// What sets the limit.
        why: &'static str,
    },
}

/// Checks a table size (in megabytes) against [`hash_limit_mb`].
pub fn check_hash_mb(mb: u64, max_memory: Option<u64>) -> Result<(), HashError> {
    let limit = hash_limit_mb(max_memory);
    if mb <= limit {
        Ok(())
    } else {
        Err(HashError::TooLarge {
            asked: mb,
            limit,
            why: if max_memory.is_some() {
                "half of max_memory"
            } else {
                "a quarter of this machine's memory"
            },
        })
    }
}

/// Runs the brain: reads commands from `input`, writes answers to `output` (one line each,
/// flushed at once), until `END` or the end of the input. A search still running at the end of
/// the input is allowed to finish and answer. Returns an error only when reading or writing
/// fails; bad input is answered with `ERROR` or `UNKNOWN` (a bad `INFO`, which has no answer,
/// with a `MESSAGE`) and never ends the loop.
///
/// `input` is read on a thread of its own. It has read its last line when the loop ends on
/// `END`, the end of the input or a read error, and is waited for; after a failed write it may
/// be blocked in a read, and is left behind: hence `'static`.
pub fn run<R: BufRead + Send + 'static, W: Write + Send>(
    input: R,
    output: W,
    options: &BrainOptions,
) -> io::Result<()> {
    let out = Output::new(output);
    let control = Arc::new(Control::default());
    let (commands, reader) = spawn_reader(input, Arc::clone(&control));
    let (result, reader_done) = thread::scope(|scope| {
        let mut brain = Brain::new(&out, options.clone(), &control);
        let (result, reader_done) = loop {
            let (number, parsed) = match commands.recv() {
                Ok(Read::Command(number, parsed)) => (number, parsed),
                Ok(Read::Failed(e)) => break (Err(e), true),
                // The reader is done: the end of the input.
                Err(_) => break (Ok(()), true),
            };
            match parsed {
                // Answered in turn: after the move being thought about, as any command that
                // waits, so that a manager never reads this for that move.
                Err(ParseError::Unknown(text)) => {
                    brain.wait();
                    out.send(&Response::Unknown(echo(&text)));
                }
                // INFO has no answer: a manager does not read after it, and takes the next line
                // for the answer to its next command (Piskvork reads an ERROR here as a move
                // that is not one, and the brain loses). A MESSAGE it skips wherever it comes.
                Err(
                    e @ (ParseError::BadInfoValue { .. } | ParseError::MissingArgument("INFO")),
                ) => out.send(&info_note(e)),
                Err(e) => {
                    brain.wait();
                    out.send(&Response::Error(e.to_string()));
                }
                Ok(command) => {
                    let flow = brain.handle(number, command, scope);
                    if flow.is_break() {
                        // END: the reader stops right after it.
                        break (Ok(()), true);
                    }
                }
            }
            if let Some(e) = out.take_error() {
                break (Err(e), false);
            }
        };
        brain.wait();
        (result, reader_done)
    });
    // A thread still running when the caller goes on would outlive the brain it served (and
    // its input, which the caller may expect closed).
    if reader_done {
        reader.join().ok();
    }
    result
}

// What the reader thread passes to the loop: each command (or unreadable line) numbered in the
// order read, or the read error that ended the input.
enum Read {
    Command(u64, Result<Command, ParseError>),
    Failed(io::Error),
}

// Reads and parses the input on a thread of its own, so that YXSTOP and END act on the search
// the moment they are read, not when the loop gets to them behind a command that waits.
fn spawn_reader<R: BufRead + Send + 'static>(
    input: R,
    control: Arc<Control>,
) -> (mpsc::Receiver<Read>, JoinHandle<()>) {
    // Bounded, so that a flood of commands queues no more than this much memory; a manager
    // waits for answers long before, and YXSTOP and END act when read, queued or not.
    let (tx, rx) = mpsc::sync_channel(QUEUED_COMMANDS);
    let handle = thread::spawn(move || {
        let mut reader = LineReader::new(input);
        let mut parser = CommandParser::new();
        let mut number = 0u64;
        loop {
            let line = match reader.read_line() {
                Ok(Some(line)) => line,
                Ok(None) => return,
                Err(e) => {
                    tx.send(Read::Failed(e)).ok();
                    return;
                }
            };
            let Some(parsed) = parser.feed(&line) else {
                continue;
            };
            number += 1;
            let end = matches!(parsed, Ok(Command::End));
            match parsed {
                Ok(Command::YxStop) => control.stop_before(number),
                Ok(Command::End) => control.end(),
                _ => {}
            }
            if tx.send(Read::Command(number, parsed)).is_err() || end {
                return;
            }
        }
    });
    (rx, handle)
}

// Shared by the reader thread and the loop: which searches YXSTOP and END have stopped.
#[derive(Default)]
struct Control {
    state: Mutex<ControlState>,
    // END was read: every search stops, no new one starts, and none answers (the manager reads
    // nothing after END). The other commands before END are still answered.
    ending: AtomicBool,
}

#[derive(Default)]
struct ControlState {
    // Searches started by a command numbered below this are to stop (the last YXSTOP's number).
    stop_below: u64,
    // The search under way: the number of the command that started it, and its stop flag.
    current: Option<(u64, Arc<AtomicBool>)>,
}

impl Control {
    fn lock(&self) -> MutexGuard<'_, ControlState> {
        // The state stays consistent whatever panicked while holding the lock.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    // A YXSTOP numbered `number`: stop the search of any command before it.
    fn stop_before(&self, number: u64) {
        let mut s = self.lock();
        s.stop_below = s.stop_below.max(number);
        if let Some((started_by, stop)) = &s.current {
            if *started_by < number {
                stop.store(true, Ordering::Relaxed);
            }
        }
    }

    fn end(&self) {
        // Under the lock, so that a search beginning meanwhile sees either the flag or its stop.
        let s = self.lock();
        self.ending.store(true, Ordering::Relaxed);
        if let Some((_, stop)) = &s.current {
            stop.store(true, Ordering::Relaxed);
        }
    }

    fn ending(&self) -> bool {
        self.ending.load(Ordering::Relaxed)
    }

    // A search for command `number` begins: its stop flag, already set when a YXSTOP or END
    // after that command has been read.
    fn begin(&self, number: u64) -> Arc<AtomicBool> {
        let mut s = self.lock();
        let stop = Arc::new(AtomicBool::new(self.ending() || number < s.stop_below));
        s.current = Some((number, Arc::clone(&stop)));
        stop
    }

    fn finished(&self) {
        self.lock().current = None;
    }
}

// The output, shared by the loop and the thinking thread: one whole line at a time.
struct Output<W> {
    writer: Mutex<W>,
    error: Mutex<Option<io::Error>>,
}

impl<W: Write> Output<W> {
    fn new(writer: W) -> Output<W> {
        Output {
            writer: Mutex::new(writer),
            error: Mutex::new(None),
        }
    }

    fn send(&self, response: &Response) {
        // A panic elsewhere while holding the lock leaves the writer usable: take it anyway.
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let result = writeln!(w, "{response}").and_then(|()| w.flush());
        if let Err(e) = result {
            let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(e);
        }
    }

    fn take_error(&self) -> Option<io::Error> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

// What the manager has told us with INFO.
#[derive(Clone, Debug)]
struct ManagerSettings {
    timeout_turn: Option<u64>,
    timeout_match: Option<u64>,
    time_left: Option<i64>,
    max_memory: Option<u64>,
    hash_kb: Option<u64>,
    max_node: Option<u64>,
    max_depth: Option<u32>,
    // INFO thread_num, when not 0.
    threads: Option<usize>,
    rule: Rule,
    level: Level,
}

impl ManagerSettings {
    // Nothing said by the manager yet: freestyle at `level`, no limits.
    fn at(level: Level) -> ManagerSettings {
        ManagerSettings {
            timeout_turn: None,
            timeout_match: None,
            time_left: None,
            max_memory: None,
            hash_kb: None,
            max_node: None,
            max_depth: None,
            threads: None,
            rule: Rule::Freestyle,
            level,
        }
    }
}

// A search under way on its own thread.
struct Running<'scope> {
    handle: ScopedJoinHandle<'scope, Finished>,
}

// What a search leaves behind: the engine (with its table) and the stones it answered. No
// engine after a search that panicked: it may be inconsistent, and the next search makes one.
struct Finished {
    engine: Option<Engine>,
    place: Vec<(Point, Color)>,
    own: Option<Color>,
    elapsed: Duration,
}

struct Brain<'scope, 'env, W> {
    out: &'env Output<W>,
    options: BrainOptions,
    settings: ManagerSettings,
    board: Option<Board>,
    // The brain's colour when known: set by BEGIN, TURN, BOARD and the swap2 answers.
    own: Option<Color>,
    // None before the first search, and while a search has it.
    engine: Option<Engine>,
    // The size of `engine`'s table, in megabytes.
    engine_mb: usize,
    // The size last asked of the engine, had or refused: a refused size is not asked again
    // (nor the MESSAGE repeated) until the size asked for changes.
    asked_mb: usize,
    search: Option<Running<'scope>>,
    control: &'env Control,
    // Thinking time this match, for a match clock stated by timeout_match alone.
    used_ms: u64,
}

impl<'scope, 'env: 'scope, W: Write + Send> Brain<'scope, 'env, W> {
    fn new(out: &'env Output<W>, options: BrainOptions, control: &'env Control) -> Self {
        let settings = ManagerSettings::at(options.level);
        // The table is allocated lazily, at the first search, so that INFO max_memory (sent
        // before or after START) sizes it before any memory is taken.
        Brain {
            out,
            options,
            settings,
            board: None,
            own: None,
            engine: None,
            engine_mb: 0,
            asked_mb: 0,
            search: None,
            control,
            used_ms: 0,
        }
    }

    fn send(&self, response: Response) {
        self.out.send(&response);
    }

    fn error(&self, why: impl Into<String>) {
        self.send(Response::Error(why.into()));
    }

    // What the brain has to say while it goes on with its work, before the answer to the
    // command: a MESSAGE, since the manager takes any other line for the answer itself (an
    // ERROR before a move, for Piskvork, is a move that is not one, and the game lost).
    fn note(&self, what: impl Into<String>) {
        self.send(Response::Message(what.into()));
    }

    // Handles the command numbered `number` in the input.
    fn handle(
        &mut self,
        number: u64,
        command: Command,
        scope: &'scope Scope<'scope, 'env>,
    ) -> ControlFlow<()> {
        // Commands that must not wait for the search.
        match command {
            // The reader thread has stopped the search already, when it read the command.
            Command::YxStop => return ControlFlow::Continue(()),
            Command::End => {
                self.wait();
                return ControlFlow::Break(());
            }
            Command::Info(info) => {
                self.info(info);
                return ControlFlow::Continue(());
            }
            Command::About => {
                self.send(Response::About(about()));
                return ControlFlow::Continue(());
            }
            Command::YxShowInfo => {
                self.show_info();
                return ControlFlow::Continue(());
            }
            _ => {}
        }
        self.wait();
        match command {
            Command::Start(n) => self.start(BoardSize::square(n)),
            Command::RectStart { width, height } => self.start(BoardSize::rect(width, height)),
            Command::Restart => match &self.board {
                Some(b) => {
                    self.board = Some(Board::new(b.size()));
                    self.own = None;
                    self.used_ms = 0;
                    self.send(Response::Ok);
                }
                None => self.error("RESTART before START"),
            },
            Command::Begin => {
                if let Some(board) = &self.board {
                    self.own = Some(Color::of_ply(board.stone_count() as usize));
                    self.think(number, Job::Move, scope);
                } else {
                    self.error("BEGIN before START");
                }
            }
            Command::Turn(p) => self.turn(number, p, scope),
            Command::Board(stones) => {
                if self.set_board(&stones, "BOARD", true) {
                    self.think(number, Job::Move, scope);
                }
            }
            Command::YxBoard(stones) => {
                self.set_board(&stones, "YXBOARD", false);
            }
            Command::Takeback(p) => self.takeback(p),
            Command::Play(p) => self.play(p),
            Command::Swap2Board(points) => self.swap2(number, points, scope),
            Command::YxNBest(n) => {
                if self.board.is_some() {
                    self.think(number, Job::NBest(n.clamp(1, MAX_NBEST)), scope);
                } else {
                    self.error("YXNBEST before START");
                }
            }
            Command::YxHashClear => {
                if let Some(engine) = &mut self.engine {
                    engine.clear_hash();
                }
            }
            Command::YxShowForbid => match &self.board {
                Some(board) => {
                    let points = if self.settings.rule.has_forbidden() {
                        forbidden_points(board)
                            .into_iter()
                            .map(|(p, _)| p)
                            .collect()
                    } else {
                        Vec::new()
                    };
                    self.send(Response::Forbid(points));
                }
                None => self.error("YXSHOWFORBID before START"),
            },
            // Handled above.
            Command::YxStop
            | Command::End
            | Command::Info(_)
            | Command::About
            | Command::YxShowInfo => {}
        }
        ControlFlow::Continue(())
    }

    // Waits for a running search and takes its results into the position.
    fn wait(&mut self) {
        let Some(running) = self.search.take() else {
            return;
        };
        let joined = running.handle.join();
        self.control.finished();
        match joined {
            Ok(finished) => {
                self.engine = finished.engine;
                if let Some(board) = &mut self.board {
                    for (p, color) in finished.place {
                        // The thread checked each point against this very board.
                        board.place(p, color).ok();
                    }
                }
                self.own = finished.own;
                self.used_ms = self
                    .used_ms
                    .saturating_add(finished.elapsed.as_millis() as u64);
            }
            Err(_) => {
                // A bug in the engine: say so, and go on with a fresh engine rather than die.
                self.error("internal error while thinking");
            }
        }
    }

    fn info(&mut self, info: Info) {
        let s = &mut self.settings;
        match info {
            Info::TimeoutTurn(t) => s.timeout_turn = Some(t),
            Info::TimeoutMatch(t) => s.timeout_match = (t > 0).then_some(t),
            Info::TimeLeft(t) => s.time_left = Some(t),
            Info::MaxMemory(m) => s.max_memory = (m > 0).then_some(m),
            Info::HashSize(0) => s.hash_kb = None,
            Info::HashSize(kb) => {
                if let Err(e) = check_hash_mb(kb >> 10, s.max_memory) {
                    // Refused: the size set before stays.
                    let keep = self.hash_mb();
                    self.note(format!(
                        "INFO hash_size {kb}: {e}; the table stays at {keep} MB"
                    ));
                } else {
                    s.hash_kb = Some(kb);
                }
            }
            Info::MaxNode(n) => s.max_node = (n > 0).then_some(n),
            Info::MaxDepth(d) => s.max_depth = (d > 0).then_some(d),
            Info::Rule(bits) => s.rule = rule_from_info(bits),
            Info::Level(name) => match name.parse() {
                Ok(level) => s.level = level,
                Err(e) => self.send(info_note(format_args!("INFO level: {e}"))),
            },
            // The engine clamps a number past its most threads.
            Info::ThreadNum(0) => s.threads = None,
            Info::ThreadNum(n) => s.threads = usize::try_from(n).ok(),
            // Nothing to do: no persistent files, no debug window.
            Info::GameType(_)
            | Info::Evaluate(_)
            | Info::Folder(_)
            | Info::CautionFactor(_)
            | Info::ShowDetail(_)
            | Info::Other { .. } => {}
        }
    }

    // YXSHOWINFO: the limits Yixin-Board sets its thread and hash sliders by (without them it
    // offers one thread). Its hash slider's value k asks for a table of 2^k kilobytes.
    fn show_info(&self) {
        let threads = machine_cores().min(tengen_engine::MAX_THREADS);
        let hash_kb = hash_limit_mb(self.settings.max_memory).saturating_mul(1024);
        self.send(Response::Message(format!("INFO MAX_THREAD_NUM {threads}")));
        self.send(Response::Message(format!(
            "INFO MAX_HASH_SIZE {}",
            hash_kb.ilog2()
        )));
    }

    fn start(&mut self, size: Result<BoardSize, tengen_rules::SizeError>) {
        match size {
            Ok(size) => {
                self.board = Some(Board::new(size));
                self.own = None;
                self.used_ms = 0;
                self.send(Response::Ok);
            }
            Err(e) => self.error(format!("unsupported size: {e}")),
        }
    }

    // The point must be on the board and free, else ERROR (and nothing changes).
    fn free_point(&self, p: Point, command: &str) -> Option<&Board> {
        let Some(board) = &self.board else {
            self.error(format!("{command} before START"));
            return None;
        };
        if !board.contains(p) {
            self.error(format!("{command}: {},{} is off the board", p.x, p.y));
            return None;
        }
        if !board.is_empty_at(p) {
            self.error(format!("{command}: {},{} is taken", p.x, p.y));
            return None;
        }
        Some(board)
    }

    fn turn(&mut self, number: u64, p: Point, scope: &'scope Scope<'scope, 'env>) {
        let Some(board) = self.free_point(p, "TURN") else {
            return;
        };
        // The stone would take the last free point, leaving no move to answer with: ERROR,
        // and the position stays as it was.
        if is_full_with(board, 1) {
            self.error("the board is full");
            return;
        }
        let theirs = match self.own {
            Some(own) => own.opponent(),
            None => Color::of_ply(board.stone_count() as usize),
        };
        if let Some(board) = &mut self.board {
            board.place(p, theirs).ok();
        }
        self.own = Some(theirs.opponent());
        self.think(number, Job::Move, scope);
    }

    fn play(&mut self, p: Point) {
        let Some(board) = self.free_point(p, "PLAY") else {
            return;
        };
        let mine = self
            .own
            .unwrap_or_else(|| Color::of_ply(board.stone_count() as usize));
        if let Some(board) = &mut self.board {
            board.place(p, mine).ok();
        }
        self.own = Some(mine);
        self.send(Response::Move(p));
    }

    fn takeback(&mut self, p: Point) {
        let Some(board) = &mut self.board else {
            self.error("TAKEBACK before START");
            return;
        };
        if board.get(p).is_none() {
            self.error(format!("TAKEBACK: no stone on {},{}", p.x, p.y));
            return;
        }
        board.remove(p).ok();
        self.send(Response::Ok);
    }

    // Replaces the position by a BOARD or YXBOARD block; false (after an ERROR) when the block
    // does not fit the board, or fills it while a move is asked for (`to_move`): the position
    // then stays as it was.
    fn set_board(&mut self, stones: &[Stone], command: &str, to_move: bool) -> bool {
        let Some(old) = &self.board else {
            self.error(format!("{command} before START"));
            return false;
        };
        let own_count = stones.iter().filter(|s| s.field == Field::Own).count();
        let their_count = stones.iter().filter(|s| s.field == Field::Opponent).count();
        let marked_count = stones.len() - own_count - their_count;
        // The brain is the side to move, and black moves first. Without marked stones: to move
        // with fewer stones than the opponent makes it white, with as many (or more) black.
        // Marked stones (continuous game) belong to either side, so their owner's count is
        // unknown: counted with the opponent's, a finished five of black's made the brain white
        // when black was to move (and under renju it then played black's forbidden points).
        // Every stone was played in turn, marked or not: black is to move after an even number.
        let own = if marked_count > 0 {
            Color::of_ply(stones.len())
        } else if their_count > own_count {
            Color::White
        } else {
            Color::Black
        };
        let marked: Vec<Point> = stones
            .iter()
            .filter(|s| s.field == Field::Marked)
            .map(|s| s.point)
            .collect();
        let marked = colour_marked(&marked, own.opponent());
        let mut board = Board::new(old.size());
        for s in stones {
            let color = match s.field {
                Field::Own => own,
                Field::Opponent => own.opponent(),
                Field::Marked => marked.get(&s.point).copied().unwrap_or(own.opponent()),
            };
            if let Err(e) = board.place(s.point, color) {
                self.error(format!(
                    "{command}: {},{} cannot take a stone ({e})",
                    s.point.x, s.point.y
                ));
                return false;
            }
        }
        if to_move && is_full_with(&board, 0) {
            self.error("the board is full");
            return false;
        }
        self.board = Some(board);
        self.own = Some(own);
        true
    }

    fn swap2(&mut self, number: u64, points: Vec<Point>, scope: &'scope Scope<'scope, 'env>) {
        let Some(old) = &self.board else {
            self.error("SWAP2BOARD before START");
            return;
        };
        if ![0, 3, 5].contains(&points.len()) {
            self.error(format!(
                "SWAP2BOARD: expected 0, 3 or 5 stones, got {}",
                points.len()
            ));
            return;
        }
        let mut board = Board::new(old.size());
        for (i, &p) in points.iter().enumerate() {
            if let Err(e) = board.place(p, Color::of_ply(i)) {
                self.error(format!("SWAP2BOARD: {},{}: {e}", p.x, p.y));
                return;
            }
        }
        self.board = Some(board);
        self.own = None;
        self.think(number, Job::Swap2(points.len()), scope);
    }

    fn hash_mb(&self) -> usize {
        hash_mb(&self.settings, self.options.hash_mb, machine_limit_mb())
    }

    // The engine for the next search, with a table of the size asked for when the system has
    // the memory: made at the first search, resized at the first search after the size asked
    // for changes. Neither costs the move any time, the table's pages being taken only as the
    // search fills them. A size refused leaves the table as it was (at the first search: the
    // default size, else 1 MB), said in a MESSAGE.
    fn engine_for_search(&mut self) -> Engine {
        let mut engine = self.engine_sized();
        engine.set_threads(search_threads(
            self.settings.threads,
            self.options.threads,
            machine_cores(),
        ));
        engine
    }

    // The engine, its table resized to what the manager last asked for.
    fn engine_sized(&mut self) -> Engine {
        let want = self.hash_mb();
        let asked = std::mem::replace(&mut self.asked_mb, want);
        match self.engine.take() {
            Some(mut engine) => {
                if want != asked {
                    match engine.try_set_hash_size(want) {
                        Ok(()) => self.engine_mb = want,
                        Err(e) => {
                            let mb = self.engine_mb;
                            self.note(format!("{e}; the table stays at {mb} MB"));
                        }
                    }
                }
                engine
            }
            None => {
                let mut engine = match Engine::try_new(want) {
                    Ok(engine) => {
                        self.engine_mb = want;
                        engine
                    }
                    Err(e) => {
                        let (engine, mb) = [DEFAULT_HASH_MB, 1]
                            .into_iter()
                            .filter(|&mb| mb < want)
                            .find_map(|mb| Engine::try_new(mb).ok().map(|engine| (engine, mb)))
                            // Not even 1 MB: the abort any allocation would meet.
                            .unwrap_or_else(|| (Engine::new(1), 1));
                        self.engine_mb = mb;
                        self.note(format!("{e}; the table is {mb} MB instead"));
                        engine
                    }
                };
                engine.set_eval_weights(self.options.eval_weights.clone());
                engine
            }
        }
    }

    fn time_control(&self) -> TimeControl {
        time_control(&self.settings, self.used_ms)
    }

    fn think(&mut self, number: u64, job: Job, scope: &'scope Scope<'scope, 'env>) {
        // END is on its way: no search, and no answer it would not read.
        if self.control.ending() {
            return;
        }
        let Some(board) = self.board.clone() else {
            return;
        };
        if is_full_with(&board, 0) {
            self.error("the board is full");
            return;
        }
        let side = self
            .own
            .unwrap_or_else(|| Color::of_ply(board.stone_count() as usize));
        let engine = self.engine_for_search();
        let tc = self.time_control();
        let level = self.settings.level;
        let mut limits = level.limits(tc.plan());
        if let Some(n) = self.settings.max_node {
            limits.nodes = Some(limits.nodes.map_or(n, |m| m.min(n)));
        }
        if let Some(d) = self.settings.max_depth {
            limits.depth = Some(limits.depth.map_or(d, |m| m.min(d)));
        }
        let seed = self
            .options
            .seed
            .wrapping_add(u64::from(board.stone_count()));
        let task = Task {
            job,
            board,
            rule: self.settings.rule,
            side,
            level,
            tc,
            limits,
            seed,
            hard_stop: hard_stop(&tc),
        };
        let stop = self.control.begin(number);
        let (out, quiet) = (self.out, &self.control.ending);
        let handle = scope.spawn(move || task.run(engine, out, &stop, quiet));
        self.search = Some(Running { handle });
    }
}

/// The rule an `INFO rule` value names. Gomocup's bits (1 exactly five, 2 continuous game, 4
/// renju, 8 caro: 8 alone is Piskvork's caro with overlines, 9 its caro), except 2 alone:
/// Yixin-Board's renju (the Yixin protocol gave up the continuous game and took 2 for renju;
/// Rapfi reads it so too). Piskvork sends 2 only for a freestyle continuous game, and there
/// playing renju costs little (black keeps off forbidden points, all of them legal in
/// freestyle), whereas freestyle in a renju game lets black play a forbidden point and lose.
/// Otherwise bit 2 only changes what the manager does after a five.
fn rule_from_info(bits: u32) -> Rule {
    const YIXIN_RENJU: u32 = 2;
    if bits == YIXIN_RENJU {
        Rule::Renju
    } else {
        Rule::from_gomocup_bits(bits)
    }
}

/// The clock as the manager set it, `used_ms` being the brain's own thinking time so far.
fn time_control(s: &ManagerSettings, used_ms: u64) -> TimeControl {
    let left = match s.time_left {
        Some(t) if t >= UNLIMITED_TIME_LEFT => None,
        Some(t) => Some(t.max(0) as u64),
        // The protocol requires time_left when the match is timed; without it, count our own
        // thinking time against timeout_match.
        None => s.timeout_match.map(|m| m.saturating_sub(used_ms)),
    };
    TimeControl {
        per_move: s.timeout_turn,
        left,
        increment: 0,
    }
}

/// The transposition table size: `INFO hash_size` (kilobytes, Yixin) when sent, never above
/// half of `max_memory`; else a quarter of `max_memory` up to 256 MB; else the default. Never
/// above `machine_mb` (a quarter of the machine's memory) either.
fn hash_mb(s: &ManagerSettings, default_mb: usize, machine_mb: u64) -> usize {
    let mb = match (s.hash_kb, s.max_memory) {
        (Some(kb), Some(mem)) => (kb >> 10).min((mem / 2) >> 20),
        (Some(kb), None) => kb >> 10,
        (None, Some(mem)) => ((mem / 4) >> 20).min(MAX_HASH_FROM_MEMORY_MB),
        (None, None) => default_mb as u64,
    };
    usize::try_from(mb.min(machine_mb))
        .unwrap_or(usize::MAX)
        .max(1)
}

// hash_limit_mb(None), read from the system once.
fn machine_limit_mb() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| hash_limit_mb(None))
}

/// When to stop a search whatever the engine's own clock says: a little before `timeout_turn`
/// (10%, at least 30 ms, left for the answer to reach the manager) and never past half the
/// match time left.
fn hard_stop(tc: &TimeControl) -> Option<Duration> {
    let turn = tc.per_move.map(|t| t.saturating_sub((t / 10).max(30)));
    let match_cap = tc.left.map(|l| l / 2);
    let ms = match (turn, match_cap) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    ms.map(|ms| Duration::from_millis(ms.max(tc.floor_ms())))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Job {
    // Answer one move (BEGIN, TURN, BOARD).
    Move,
    // Report the n best moves, then answer the best (YXNBEST).
    NBest(u32),
    // Answer the swap2 opening with this many stones on the board.
    Swap2(usize),
}

// Everything a search needs, moved onto its thread.
struct Task {
    job: Job,
    board: Board,
    rule: Rule,
    side: Color,
    level: Level,
    tc: TimeControl,
    limits: Limits,
    seed: u64,
    hard_stop: Option<Duration>,
}

// The engine's score as the protocol reports it.
fn reported(score: Score) -> ReportedScore {
    match score {
        Score::Eval(v) => ReportedScore::Eval(v),
        Score::Win(n) => ReportedScore::Win(n),
        Score::Loss(n) => ReportedScore::Loss(n),
    }
}

// A search's progress as a MESSAGE.
fn report(info: &SearchInfo) -> SearchReport {
    let best = info.lines.first();
    let micros = info.elapsed.as_micros().max(1);
    SearchReport {
        depth: Some(info.depth),
        seldepth: Some(info.seldepth),
        eval: best.map(|l| reported(l.score)),
        nodes: Some(info.nodes),
        nps: Some(u64::try_from(u128::from(info.nodes) * 1_000_000 / micros).unwrap_or(u64::MAX)),
        time_ms: Some(info.elapsed.as_millis() as u64),
        pv: best.map(|l| l.moves.clone()).unwrap_or_default(),
    }
}

/// The brain's word on an INFO it cannot follow: a MESSAGE, never a protocol answer (INFO has
/// none), and the setting stays as it was.
fn info_note(why: impl fmt::Display) -> Response {
    Response::Message(format!("{why}; ignored"))
}

/// What UNKNOWN repeats of a line it could not read: its first 80 characters (a line may be
/// up to 64 KiB), enough for a person reading the log to see which it was.
fn echo(line: &str) -> String {
    const ECHOED: usize = 80;
    match line.char_indices().nth(ECHOED) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_string(),
    }
}

/// The threads a search runs: `INFO thread_num`'s number when it sent one, else the command
/// line's. The manager's number is a most: past the machine's cores, threads only take turns on
/// them (64 threads on 2 cores answered 30% past a 200 ms turn), so it is cut to the cores.
fn search_threads(info: Option<usize>, command_line: usize, cores: usize) -> usize {
    match info {
        Some(n) => n.min(cores.max(1)),
        None => command_line,
    }
}

/// The cores this process may run on (1 when the system does not say).
fn machine_cores() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

// Answers `chosen` as `side`'s move, or ERROR when there is none; the stones to place and
// the brain's colour.
fn answer_with(
    chosen: Option<Point>,
    side: Color,
    say: &dyn Fn(Response),
) -> (Vec<(Point, Color)>, Option<Color>) {
    match chosen {
        Some(p) => {
            say(Response::Move(p));
            (vec![(p, side)], Some(side))
        }
        None => {
            say(Response::Error("no legal move".into()));
            (Vec::new(), Some(side))
        }
    }
}

// Answers swap2's opening stones (black, white, black...); the opponent then picks a colour.
fn answer_opening(
    stones: Vec<Point>,
    say: &dyn Fn(Response),
) -> (Vec<(Point, Color)>, Option<Color>) {
    let place = stones
        .iter()
        .enumerate()
        .map(|(i, &p)| (p, Color::of_ply(i)))
        .collect();
    say(Response::Moves(stones));
    (place, None)
}

/// Colours for the marked stones of a continuous game (field 3: finished lines, which belong
/// to neither side). The board knows only two colours, and one colour for them all would make
/// each finished line a five of that side's, which the engine would take for a threat to
/// extend (an overline wins under freestyle) or to block. So along each line they alternate:
/// every point taken in `(y, x)` order gets the colour opposite to a neighbour's already
/// coloured, `first` where it has none. A straight line of them then holds no two adjacent
/// stones of one colour, and each still blocks the other colour's lines through it.
fn colour_marked(points: &[Point], first: Color) -> std::collections::HashMap<Point, Color> {
    let mut sorted = points.to_vec();
    sorted.sort_by_key(|p| (p.y, p.x));
    let mut colours = std::collections::HashMap::with_capacity(sorted.len());
    for p in sorted {
        let neighbour = (-1..=1)
            .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
            .filter(|&d| d != (0, 0))
            .find_map(|(dx, dy)| colours.get(&p.offset(dx, dy)).copied());
        colours.insert(p, neighbour.map_or(first, Color::opponent));
    }
    colours
}

// A panic's message, for the log.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}

/// Whether `board` has no free point once `more` stones are added (never, unbounded).
fn is_full_with(board: &Board, more: u32) -> bool {
    board
        .size()
        .area()
        .is_some_and(|a| board.stone_count() + more >= a)
}

// A legal move when the search has none (stopped before its first iteration, or a position
// it cannot read): next to a stone, else the centre, else the free point nearest the centre.
fn fallback(board: &Board, rule: Rule, side: Color) -> Option<Point> {
    let ok = |p: Point| playable(board, rule, side, p);
    for (s, _) in board.stones() {
        for (dx, dy) in [
            (1, 0),
            (0, 1),
            (1, 1),
            (-1, 1),
            (-1, 0),
            (0, -1),
            (-1, -1),
            (1, -1),
        ] {
            if ok(s.offset(dx, dy)) {
                return Some(s.offset(dx, dy));
            }
        }
    }
    let centre = board.size().center();
    if ok(centre) {
        return Some(centre);
    }
    board
        .size()
        .points()
        .filter(|&p| ok(p))
        .min_by_key(|p| p.chebyshev(centre))
}

impl Task {
    fn run<W: Write>(
        self,
        mut engine: Engine,
        out: &Output<W>,
        stop: &AtomicBool,
        quiet: &AtomicBool,
    ) -> Finished {
        let started = Instant::now();
        let ((place, own), engine_sound) = thread::scope(|s| {
            // The hard stop: a timer that sets the stop flag unless the search ends first
            // (dropping `done` wakes it).
            let (done, wake) = mpsc::channel::<()>();
            if let Some(limit) = self.hard_stop {
                s.spawn(move || {
                    if wake.recv_timeout(limit) == Err(RecvTimeoutError::Timeout) {
                        stop.store(true, Ordering::Relaxed);
                    }
                });
            }
            let say = |r: Response| {
                if !quiet.load(Ordering::Relaxed) {
                    out.send(&r);
                }
            };
            // A bug in the engine must not cost the game: the manager waits for an answer, and
            // a brain that gives none loses on time. So a search that panics is answered as one
            // stopped before its first iteration would be.
            let searched = panic::catch_unwind(AssertUnwindSafe(|| {
                fault::check_search();
                match self.job {
                    Job::Move | Job::NBest(_) => self.answer_move(&mut engine, stop, &say),
                    Job::Swap2(n) => self.answer_swap2(n, &mut engine, stop, &say),
                }
            }));
            drop(done);
            match searched {
                Ok(answer) => (answer, true),
                Err(panic) => {
                    say(Response::Message(format!(
                        "internal error while thinking ({}); answering without a search",
                        panic_text(panic.as_ref())
                    )));
                    (self.answer_unsearched(&say), false)
                }
            }
        });
        Finished {
            engine: engine_sound.then_some(engine),
            place,
            own,
            elapsed: started.elapsed(),
        }
    }

    // The answer when the search failed: a legal move next to the stones (see `fallback`),
    // under swap2 the first of the balanced openings, or staying white with such a move.
    fn answer_unsearched(&self, say: &dyn Fn(Response)) -> (Vec<(Point, Color)>, Option<Color>) {
        let (board, rule) = (&self.board, self.rule);
        let side = match self.job {
            Job::Swap2(0) => {
                if let Some(three) = decide::balanced_opening_candidates(board.size())
                    .into_iter()
                    .next()
                {
                    return answer_opening(three, say);
                }
                Color::White
            }
            Job::Swap2(_) => Color::White,
            Job::Move | Job::NBest(_) => self.side,
        };
        answer_with(fallback(board, rule, side), side, say)
    }

    fn answer_move(
        &self,
        engine: &mut Engine,
        stop: &AtomicBool,
        say: &dyn Fn(Response),
    ) -> (Vec<(Point, Color)>, Option<Color>) {
        let (board, rule, side) = (&self.board, self.rule, self.side);
        let best = if let (Level::Beginner | Level::Intermediate, Job::Move) =
            (self.level, self.job)
        {
            // The lower levels' human-like choices live in Engine::play.
            let game = Game::from_position(board.clone(), rule, side);
            engine.play(&game, self.level, &self.tc, self.seed, stop)
        } else {
            let mut limits = self.limits;
            if let Job::NBest(n) = self.job {
                limits.multipv = n as usize;
            }
            let mut on_info = |info: &SearchInfo| say(Response::Message(report(info).to_string()));
            let result = engine.search(board, rule, side, &limits, stop, &mut on_info);
            if let Job::NBest(n) = self.job {
                // A search cut short mid-iteration may promote a line whose first move another
                // line already has: each move is reported once, at its best.
                let mut seen: Vec<Point> = Vec::new();
                let lines: Vec<&tengen_engine::Line> = result
                    .lines
                    .iter()
                    .filter(|l| match l.moves.first() {
                        Some(&p) if !seen.contains(&p) => {
                            seen.push(p);
                            true
                        }
                        _ => false,
                    })
                    .collect();
                for (i, line) in lines.iter().enumerate() {
                    let r = SearchReport {
                        depth: Some(result.depth),
                        eval: Some(reported(line.score)),
                        pv: line.moves.clone(),
                        ..SearchReport::default()
                    };
                    say(Response::Message(format!("nbest {}/{n} {r}", i + 1)));
                }
            }
            result.best()
        };
        let chosen = best
            .filter(|&p| playable(board, rule, side, p))
            .or_else(|| fallback(board, rule, side));
        answer_with(chosen, side, say)
    }

    // The brain's limits with a share of the time, for a decision made of several searches.
    fn limits_shared(&self, share: u32) -> Limits {
        let mut limits = self.limits;
        limits.time = limits.time.map(|t| t / share.max(1));
        limits
    }

    // Swap2 (the Gomocup SWAP2BOARD convention), decided by `tengen_engine::decide`: with no
    // stones, place three (black, white, black) that leave the game as balanced as the engine
    // can tell, since the opponent then picks a side. With three, white is to move: stay white
    // and answer a move when white stands clearly better, answer SWAP (take black) when black
    // does, and otherwise place a white and a black stone that keep the balance, handing the
    // choice back. With five, take the better side: a move as white, or SWAP for black.
    fn answer_swap2(
        &self,
        stones: usize,
        engine: &mut Engine,
        stop: &AtomicBool,
        say: &dyn Fn(Response),
    ) -> (Vec<(Point, Color)>, Option<Color>) {
        let (board, rule) = (&self.board, self.rule);
        let swap = || {
            say(Response::Swap);
            (Vec::new(), Some(Color::Black))
        };
        let stay_white = |w: Point| {
            say(Response::Move(w));
            (vec![(w, Color::White)], Some(Color::White))
        };
        if stones == 0 {
            let size = board.size();
            let share = decide::balanced_opening_candidates(size).len() as u32 + 1;
            let mut on_candidate = |pts: &[Point], score: Score| {
                say(Response::Message(format!(
                    "swap2: opening {} white to move, eval {}",
                    pts.iter()
                        .map(|&p| PointText(p).to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                    reported(score)
                )));
            };
            let picked = decide::balanced_opening(
                engine,
                size,
                rule,
                &self.limits_shared(share),
                stop,
                &mut on_candidate,
            );
            return answer_opening(picked, say);
        }
        // Three stones: a third of the time for this look and a third for black's stone.
        let share = if stones == 3 { 3 } else { 1 };
        let limits = self.limits_shared(share);
        let judged = decide::judge(engine, board, rule, Color::White, &limits, stop);
        let Some(w) = judged.best.or_else(|| fallback(board, rule, Color::White)) else {
            return swap();
        };
        say(Response::Message(format!(
            "swap2: white to move, eval {}",
            reported(judged.score)
        )));
        match decide::choice(judged.black_value, stones == 3) {
            Choice::White => stay_white(w),
            Choice::Black => swap(),
            Choice::PlaceTwo => {
                // White's best move and the black reply that keeps it closest to even; the
                // opponent chooses next.
                let mut after = board.clone();
                after.place(w, Color::White).ok();
                match decide::balancing_stone(engine, &after, rule, Color::Black, &limits, stop) {
                    Some(b) => {
                        say(Response::Moves(vec![w, b]));
                        (vec![(w, Color::White), (b, Color::Black)], None)
                    }
                    None if judged.black_value <= 0 => stay_white(w),
                    None => swap(),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_rule_reads_piskvorks_values_and_yixins_renju() {
        // Yixin Board's 2 is renju; every other value reads as the rules crate's Gomocup bits
        // (their table of values is tested there).
        assert_eq!(rule_from_info(2), Rule::Renju);
        for bits in (0..16).filter(|&b| b != 2) {
            assert_eq!(
                rule_from_info(bits),
                Rule::from_gomocup_bits(bits),
                "INFO rule {bits}"
            );
        }
        assert_eq!(rule_from_info(8), Rule::CaroOverlines);
        assert_eq!(rule_from_info(9), Rule::Caro);
    }

    #[test]
    fn hard_stop_leaves_a_margin() {
        let tc = |per_move, left| TimeControl {
            per_move,
            left,
            increment: 0,
        };
        assert_eq!(hard_stop(&tc(None, None)), None);
        assert_eq!(
            hard_stop(&tc(Some(1000), None)),
            Some(Duration::from_millis(900))
        );
        assert_eq!(
            hard_stop(&tc(Some(300), None)),
            Some(Duration::from_millis(270))
        );
        assert_eq!(
            hard_stop(&tc(Some(0), None)),
            Some(Duration::from_millis(10))
        );
        assert_eq!(
            hard_stop(&tc(Some(10_000), Some(4_000))),
            Some(Duration::from_millis(2_000))
        );
        // A clock about to run out: half of what is left, no 10 ms floor past it.
        assert_eq!(
            hard_stop(&tc(Some(1000), Some(12))),
            Some(Duration::from_millis(6))
        );
        assert_eq!(
            hard_stop(&tc(None, Some(0))),
            Some(Duration::from_millis(0))
        );
    }

    fn settings() -> ManagerSettings {
        ManagerSettings::at(Level::Master)
    }

    #[test]
    fn the_match_clock_and_the_turn_bound_each_search() {
        // One second for the match, no turn limit, nothing said of time_left: a small share of
        // what is left after the brain's own thinking, and a hard stop at half of it.
        let mut s = settings();
        s.timeout_match = Some(1_000);
        let tc = time_control(&s, 0);
        assert_eq!(tc.left, Some(1_000));
        assert!(tc.budget() <= Duration::from_millis(100), "{tc:?}");
        assert_eq!(hard_stop(&tc), Some(Duration::from_millis(500)));
        assert_eq!(time_control(&s, 400).left, Some(600));
        // time_left, when sent, is the reading; the protocol's "unlimited" is none.
        s.time_left = Some(1_500);
        assert_eq!(time_control(&s, 400).left, Some(1_500));
        s.time_left = Some(i64::from(i32::MAX));
        assert_eq!(time_control(&s, 0).left, None);
        // A 250 ms turn: the search plans for less, and is stopped before the turn ends.
        let mut s = settings();
        s.timeout_turn = Some(250);
        let tc = time_control(&s, 0);
        assert!(tc.budget() < Duration::from_millis(250), "{tc:?}");
        assert_eq!(hard_stop(&tc), Some(Duration::from_millis(220)));
    }

    #[test]
    fn hash_follows_max_memory_and_hash_size() {
        let mut s = settings();
        let machine = 1 << 20;
        assert_eq!(hash_mb(&s, 64, machine), 64);
        s.max_memory = Some(83_886_080); // 80 MB
        assert_eq!(hash_mb(&s, 64, machine), 20);
        s.max_memory = Some(4 << 30);
        assert_eq!(hash_mb(&s, 64, machine), 256);
        s.max_memory = Some(1 << 20);
        assert_eq!(hash_mb(&s, 64, machine), 1);
        s.hash_kb = Some(128 << 10);
        s.max_memory = None;
        assert_eq!(hash_mb(&s, 64, machine), 128);
        s.max_memory = Some(100 << 20);
        assert_eq!(hash_mb(&s, 64, machine), 50);
        // Never more than the machine allows, whatever was asked.
        s.max_memory = None;
        s.hash_kb = Some(u64::MAX);
        assert_eq!(hash_mb(&s, 64, 300), 300);
        s.hash_kb = None;
        assert_eq!(hash_mb(&s, 1_000_000, 300), 300);
    }

    #[test]
    fn hash_sizes_are_checked_against_max_memory_or_the_machine() {
        assert_eq!(check_hash_mb(50, Some(100 << 20)), Ok(()));
        assert_eq!(
            check_hash_mb(51, Some(100 << 20)),
            Err(HashError::TooLarge {
                asked: 51,
                limit: 50,
                why: "half of max_memory"
            })
        );
        let machine = hash_limit_mb(None);
        assert_eq!(check_hash_mb(machine, None), Ok(()));
        assert!(check_hash_mb(machine + 1, None).is_err());
        assert!(check_hash_mb(u64::MAX >> 10, None).is_err());
        assert_eq!(
            mem_total_kb("MemTotal:       24684084 kB\nMemFree: 1 kB\n"),
            Some(24_684_084)
        );
        assert_eq!(mem_total_kb("nothing here"), None);
    }

    #[test]
    fn unknown_lines_are_echoed_up_to_80_characters() {
        assert_eq!(echo("FLY 1,2"), "FLY 1,2");
        let long = "é".repeat(100);
        assert_eq!(echo(&long), format!("{}...", "é".repeat(80)));
        assert_eq!(echo(&"x".repeat(80)), "x".repeat(80));
    }

    #[test]
    fn the_managers_thread_count_is_cut_to_the_cores_and_the_command_lines_is_not() {
        assert_eq!(search_threads(Some(1000), 1, 2), 2);
        assert_eq!(search_threads(Some(2), 1, 8), 2);
        assert_eq!(search_threads(Some(4), 1, 0), 1);
        assert_eq!(search_threads(None, 3, 2), 3);
    }

    #[test]
    fn fallback_finds_a_legal_point() {
        let size = BoardSize::square(5).expect("5 is a valid size");
        let mut b = Board::new(size);
        assert_eq!(
            fallback(&b, Rule::Freestyle, Color::Black),
            Some(size.center())
        );
        b.place(Point::new(0, 0), Color::White).expect("free");
        let p = fallback(&b, Rule::Freestyle, Color::Black).expect("a point");
        assert_eq!(p.chebyshev(Point::new(0, 0)), 1);
        for p in size.points() {
            b.place(p, Color::Black).ok();
        }
        assert_eq!(fallback(&b, Rule::Freestyle, Color::Black), None);
    }
}
