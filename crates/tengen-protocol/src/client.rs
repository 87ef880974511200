//! Driving any Gomocup brain (Tengen's or another's) as a child process over pipes.
//!
//! Every call that waits for an answer takes a timeout: a reader thread forwards the brain's
//! lines through a channel, so a brain that stalls costs at most the timeout, never a hang.
//! `MESSAGE`, `DEBUG`, `ERROR` and `UNKNOWN` lines are skipped while waiting; `MESSAGE` texts are
//! kept ([`Client::messages`]) and the last one that reads as a search report is parsed
//! ([`Client::last_report`]). A brain's `SUGGEST x,y` is answered with `PLAY x,y`, as a manager
//! does. Dropping the client kills the process and reaps it.
//!
//! After a [`ClientError::Timeout`] the brain may still answer late, and that answer would be
//! taken for the reply to the next command: treat a brain that timed out as lost.
//!
//! ```no_run
//! use std::time::Duration;
//! use tengen_protocol::client::Client;
//! use tengen_protocol::command::Info;
//! use tengen_rules::{BoardSize, Point};
//!
//! let mut brain = Client::spawn("./pbrain-tengen", &["--level", "expert"])?;
//! brain.start(BoardSize::STANDARD, Duration::from_secs(5))?;
//! brain.info(&Info::TimeoutTurn(1000))?;
//! let reply = brain.turn(Point::new(7, 7), Duration::from_millis(1500))?;
//! println!("the brain answers {},{}; it said {:?}", reply.x, reply.y, brain.last_report());
//! brain.end(Duration::from_secs(1))?;
//! # Ok::<(), tengen_protocol::client::ClientError>(())
//! ```

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io::{self, BufReader, Write};
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use tengen_rules::{BoardSize, Point};

use crate::command::{Command, Info, Response, SearchReport, Stone};
use crate::lines::LineReader;

/// How many `MESSAGE` texts and stderr lines are kept (the most recent).
const KEEP_LINES: usize = 200;
/// How many of the brain's lines may wait unread; past that its output pipe fills and it stalls.
const QUEUED_LINES: usize = 4096;
/// How long to wait for a closed brain's exit status before calling it unknown.
const REAP_WAIT: Duration = Duration::from_millis(200);

/// What went wrong talking to a brain.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The process could not be started.
    #[error("cannot start the brain: {0}")]
    Spawn(#[source] io::Error),
    /// The process exited (or closed its output) while an answer was due.
    #[error("the brain exited ({}){}", status_text(.status), stderr_text(.stderr))]
    Crashed {
        /// Its exit status, if it could be had.
        status: Option<ExitStatus>,
        /// The last lines it wrote to its standard error.
        stderr: String,
    },
    /// No answer within the time allowed.
    #[error("the brain did not answer within {0:?}")]
    Timeout(Duration),
    /// A line that is not a valid answer here.
    #[error("the brain answered {0:?}, which is not a valid answer here")]
    Garbage(String),
    /// The brain answered `ERROR` (or `UNKNOWN`) to a command that needs `OK`.
    #[error("the brain refused: {0}")]
    Refused(String),
    /// Writing to the brain failed while it was still running.
    #[error("cannot write to the brain: {0}")]
    Io(#[source] io::Error),
}

fn status_text(status: &Option<ExitStatus>) -> String {
    status.map_or_else(|| "status unknown".to_string(), |s| s.to_string())
}

fn stderr_text(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("; its last words: {stderr}")
    }
}

/// A brain's answer to `SWAP2BOARD`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Swap2Answer {
    /// `SWAP`: the brain takes black.
    Swap,
    /// One move: the brain takes white and plays it (after 3 or 5 stones).
    Move(Point),
    /// Several stones: the opening's first three (after 0 stones), or a white and a black
    /// stone handing the choice of colour back (after 3).
    Stones(Vec<Point>),
}

// What the reader thread forwards.
#[derive(Debug)]
enum Event {
    Line(String),
    Closed,
}

/// A brain process and the pipes to it.
#[derive(Debug)]
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Event>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    stderr_reader: Option<thread::JoinHandle<()>>,
    messages: VecDeque<String>,
    errors: VecDeque<String>,
    last_report: Option<SearchReport>,
    closed: bool,
}

fn push_bounded(queue: &mut VecDeque<String>, line: String) {
    if queue.len() == KEEP_LINES {
        queue.pop_front();
    }
    queue.push_back(line);
}

impl Client {
    /// Starts `program` with `args`, its standard input and output piped to the client and its
    /// standard error kept (the last lines, for [`ClientError::Crashed`]).
    pub fn spawn<S: AsRef<OsStr>>(
        program: impl AsRef<OsStr>,
        args: &[S],
    ) -> Result<Client, ClientError> {
        let mut command = std::process::Command::new(program);
        command.args(args);
        Client::spawn_command(command)
    }

    /// Starts a prepared command (for a working directory or environment of its own). Its
    /// standard input, output and error are replaced by pipes.
    pub fn spawn_command(mut command: std::process::Command) -> Result<Client, ClientError> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().map_err(ClientError::Spawn)?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            // Cannot happen with all three piped; clean up rather than leave a process.
            child.kill().ok();
            child.wait().ok();
            return Err(ClientError::Spawn(io::Error::other(
                "no pipes to the brain",
            )));
        };
        // Bounded, so that a brain which writes without end fills the pipe and stalls instead of
        // the client's memory.
        let (tx, rx) = mpsc::sync_channel(QUEUED_LINES);
        // The reader threads end by themselves when the process closes its pipes (at its exit
        // at the latest) or the client is dropped, so they are never joined.
        thread::spawn(move || {
            let mut reader = LineReader::new(BufReader::new(stdout));
            while let Ok(Some(line)) = reader.read_line() {
                if tx.send(Event::Line(line)).is_err() {
                    return;
                }
            }
            tx.send(Event::Closed).ok();
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail_writer = Arc::clone(&tail);
        let stderr_reader = thread::spawn(move || {
            let mut reader = LineReader::new(BufReader::new(stderr));
            while let Ok(Some(line)) = reader.read_line() {
                let mut q = tail_writer.lock().unwrap_or_else(|e| e.into_inner());
                push_bounded(&mut q, line);
            }
        });
        Ok(Client {
            child,
            stdin: Some(stdin),
            lines: rx,
            stderr: tail,
            stderr_reader: Some(stderr_reader),
            messages: VecDeque::new(),
            errors: VecDeque::new(),
            last_report: None,
            closed: false,
        })
    }

    /// The process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The `MESSAGE` texts received so far (the last 200), oldest first.
    pub fn messages(&self) -> impl Iterator<Item = &str> {
        self.messages.iter().map(String::as_str)
    }

    /// The `ERROR` and `UNKNOWN` lines received so far (the last 200), oldest first.
    pub fn errors(&self) -> impl Iterator<Item = &str> {
        self.errors.iter().map(String::as_str)
    }

    /// The last `MESSAGE` that read as a search report (depth, evaluation, ...).
    pub fn last_report(&self) -> Option<&SearchReport> {
        self.last_report.as_ref()
    }

    /// Forgets the messages, errors and report received so far.
    pub fn clear_messages(&mut self) {
        self.messages.clear();
        self.errors.clear();
        self.last_report = None;
    }

    /// Sends one command (a block spans several lines) without waiting for anything.
    pub fn send(&mut self, command: &Command) -> Result<(), ClientError> {
        self.send_line(&command.to_string())
    }

    /// Sends raw text as one line (for commands this crate does not model).
    pub fn send_line(&mut self, line: &str) -> Result<(), ClientError> {
        let Some(stdin) = &mut self.stdin else {
            return Err(self.crashed());
        };
        let result = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        match result {
            Ok(()) => Ok(()),
            Err(e) => {
                // A write fails when the brain is gone: report that rather than the pipe.
                if matches!(self.child.try_wait(), Ok(Some(_)))
                    || e.kind() == io::ErrorKind::BrokenPipe
                {
                    Err(self.crashed())
                } else {
                    Err(ClientError::Io(e))
                }
            }
        }
    }

    fn crashed(&mut self) -> ClientError {
        self.closed = true;
        let deadline = Instant::now() + REAP_WAIT;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
                _ => break None,
            }
        };
        // The brain's last words may still be in the pipe: give the reader a moment to take
        // them once the process is gone (it then sees the end of the pipe and finishes).
        if status.is_some() {
            if let Some(reader) = self.stderr_reader.take() {
                let deadline = Instant::now() + REAP_WAIT;
                while !reader.is_finished() && Instant::now() < deadline {
                    thread::sleep(Duration::from_millis(5));
                }
                if reader.is_finished() {
                    reader.join().ok();
                }
            }
        }
        let stderr = {
            let q = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
            q.iter().cloned().collect::<Vec<_>>().join(" | ")
        };
        ClientError::Crashed { status, stderr }
    }

    /// The next line that is not `MESSAGE`, `DEBUG`, `ERROR` or `UNKNOWN`, those being recorded
    /// on the way; `SUGGEST` is answered with `PLAY` and skipped too.
    pub fn next_answer(&mut self, timeout: Duration) -> Result<String, ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.closed {
                return Err(self.crashed());
            }
            let line = self.line_before(deadline, timeout)?;
            match Response::parse(&line) {
                Some(Response::Message(text)) => {
                    if let Some(r) = SearchReport::parse(&text) {
                        self.last_report = Some(r);
                    }
                    push_bounded(&mut self.messages, text);
                }
                Some(Response::Debug(_)) => {}
                Some(Response::Error(_) | Response::Unknown(_)) => {
                    push_bounded(&mut self.errors, line.trim().to_string());
                }
                Some(Response::Suggest(p)) => self.send(&Command::Play(p))?,
                _ if line.trim().is_empty() => {}
                _ => return Ok(line.trim().to_string()),
            }
        }
    }

    // The brain's next line, or a timeout (of the whole wait, `timeout`) once `deadline` has
    // passed. The deadline is checked before each line, even one already queued, so that a brain
    // that keeps writing lines the waits skip (MESSAGE, DEBUG, OK...) still runs out of time.
    fn line_before(&mut self, deadline: Instant, timeout: Duration) -> Result<String, ClientError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ClientError::Timeout(timeout));
        }
        match self.lines.recv_timeout(left) {
            Ok(Event::Line(line)) => Ok(line),
            Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => Err(self.crashed()),
            Err(RecvTimeoutError::Timeout) => Err(ClientError::Timeout(timeout)),
        }
    }

    // Waits for a move, skipping a stray OK (some brains acknowledge INFO).
    fn wait_move(&mut self, timeout: Duration) -> Result<Point, ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            // Past the deadline `next_answer` times out before reading (see `line_before`).
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.next_answer(left).map_err(|e| match e {
                ClientError::Timeout(_) => ClientError::Timeout(timeout),
                e => e,
            })?;
            match Response::parse(&line) {
                Some(Response::Move(p)) => return Ok(p),
                Some(Response::Ok) => {}
                _ => return Err(ClientError::Garbage(line)),
            }
        }
    }

    // Waits for OK; ERROR or UNKNOWN is a refusal.
    fn wait_ok(&mut self, timeout: Duration) -> Result<(), ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            let line = self.line_before(deadline, timeout)?;
            match Response::parse(&line) {
                Some(Response::Ok) => return Ok(()),
                Some(Response::Error(why) | Response::Unknown(why)) => {
                    push_bounded(&mut self.errors, line.trim().to_string());
                    return Err(ClientError::Refused(why));
                }
                Some(Response::Message(text)) => push_bounded(&mut self.messages, text),
                Some(Response::Debug(_)) => {}
                _ if line.trim().is_empty() => {}
                _ => return Err(ClientError::Garbage(line.trim().to_string())),
            }
        }
    }

    /// `START n` (square boards) or `RECTSTART w,h`; waits for `OK`. An `ERROR` answer (the
    /// brain does not play that size) is [`ClientError::Refused`].
    pub fn start(&mut self, size: BoardSize, timeout: Duration) -> Result<(), ClientError> {
        let command = match (size.width(), size.height()) {
            (Some(w), Some(h)) if w == h => Command::Start(w),
            (Some(width), Some(height)) => Command::RectStart { width, height },
            // The protocol has no unbounded board.
            _ => {
                return Err(ClientError::Refused(
                    "the Gomocup protocol has no unbounded board".into(),
                ));
            }
        };
        self.send(&command)?;
        self.wait_ok(timeout)
    }

    /// `RESTART`; waits for `OK`.
    pub fn restart(&mut self, timeout: Duration) -> Result<(), ClientError> {
        self.send(&Command::Restart)?;
        self.wait_ok(timeout)
    }

    /// `INFO key value`; nothing is awaited.
    pub fn info(&mut self, info: &Info) -> Result<(), ClientError> {
        self.send(&Command::Info(info.clone()))
    }

    /// `BEGIN`; waits for the brain's opening move.
    pub fn begin(&mut self, timeout: Duration) -> Result<Point, ClientError> {
        self.send(&Command::Begin)?;
        self.wait_move(timeout)
    }

    /// `TURN x,y` (the opponent's move); waits for the brain's move.
    pub fn turn(&mut self, opponent: Point, timeout: Duration) -> Result<Point, ClientError> {
        self.send(&Command::Turn(opponent))?;
        self.wait_move(timeout)
    }

    /// `BOARD` with `stones` (fields from the brain's point of view) then `DONE`; waits for the
    /// brain's move.
    pub fn board(&mut self, stones: &[Stone], timeout: Duration) -> Result<Point, ClientError> {
        self.send(&Command::Board(stones.to_vec()))?;
        self.wait_move(timeout)
    }

    /// `TAKEBACK x,y`; waits for `OK`.
    pub fn takeback(&mut self, p: Point, timeout: Duration) -> Result<(), ClientError> {
        self.send(&Command::Takeback(p))?;
        self.wait_ok(timeout)
    }

    /// `ABOUT`; the brain's answer line (`name="...", version="...", ...`).
    pub fn about(&mut self, timeout: Duration) -> Result<String, ClientError> {
        self.send(&Command::About)?;
        self.next_answer(timeout)
    }

    /// `SWAP2BOARD` with the stones so far (0, 3 or 5, black first) then `DONE`; the answer.
    pub fn swap2board(
        &mut self,
        stones: &[Point],
        timeout: Duration,
    ) -> Result<Swap2Answer, ClientError> {
        self.send(&Command::Swap2Board(stones.to_vec()))?;
        let line = self.next_answer(timeout)?;
        match Response::parse(&line) {
            Some(Response::Swap) => Ok(Swap2Answer::Swap),
            Some(Response::Move(p)) => Ok(Swap2Answer::Move(p)),
            Some(Response::Moves(ps)) => Ok(Swap2Answer::Stones(ps)),
            _ => Err(ClientError::Garbage(line)),
        }
    }

    /// `END`, then waits up to `grace` for the brain to exit, killing it if it does not.
    /// Returns its exit status (`None` when it had to be killed).
    pub fn end(&mut self, grace: Duration) -> Result<Option<ExitStatus>, ClientError> {
        // A brain that is already gone needs no END; it is reaped all the same.
        let sent = self.send(&Command::End);
        // Closing the pipe lets a brain that waits for input see the end of it.
        self.stdin = None;
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.closed = true;
                    return Ok(Some(status));
                }
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
                Ok(None) => {
                    self.child.kill().ok();
                    self.child.wait().ok();
                    self.closed = true;
                    return Ok(None);
                }
                Err(e) => {
                    sent?;
                    return Err(ClientError::Io(e));
                }
            }
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.stdin = None;
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            self.child.kill().ok();
        }
        // Reap it, so that no zombie is left behind.
        self.child.wait().ok();
    }
}
