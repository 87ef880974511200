//! One game between two brains: fresh processes, the clock, and the rules' verdict on every move.

use std::time::{Duration, Instant};

use serde::Serialize;
use tengen_protocol::client::{Client, ClientError};
use tengen_protocol::command::{Field, Info, Stone};
use tengen_rules::{BoardSize, Color, EndReason, ForbiddenPolicy, Game, Point, Rule, point_name};

use crate::config::{EngineSpec, TimeControl};

/// How long a brain may take to start and answer `START` (interpreters start slowly on a busy
/// machine; a brain that never answers still costs only this).
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a brain may take to exit after `END` before it is killed.
const END_GRACE: Duration = Duration::from_millis(300);

/// The settings every game of a match shares.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// The board.
    pub size: BoardSize,
    /// The rule.
    pub rule: Rule,
    /// The clock.
    pub tc: TimeControl,
    /// How far over its time a brain may go before it loses on time, milliseconds (pipes and
    /// process scheduling cost a little, and a loss should be the brain's fault).
    pub margin_ms: u64,
    /// `INFO max_node`, if set.
    pub nodes: Option<u64>,
    /// `INFO max_depth`, if set.
    pub depth: Option<u32>,
    /// A draw after this many moves (stones, the opening's included).
    pub max_moves: Option<u32>,
}

/// Why a game ended.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum Reason {
    /// A row of five.
    Five,
    /// Black played a forbidden point under renju (the kind: double-three, ...).
    Forbidden(String),
    /// No free point was left.
    BoardFull,
    /// The move limit was reached.
    MoveLimit,
    /// Under renju, every free point was forbidden to black, who was to move.
    NoLegalMove,
    /// The loser did not move within its time (plus the margin).
    Timeout(String),
    /// The loser's process exited, or its pipes broke.
    Crash(String),
    /// The loser played a point the rules refuse (occupied, off the board).
    IllegalMove(String),
    /// The loser answered something that is not a move.
    Garbage(String),
    /// The loser refused a command (`ERROR` to `START`: e.g. it does not play the board size).
    Refused(String),
    /// The loser could not be started at all.
    Spawn(String),
}

impl Reason {
    /// A short key: `five`, `forbidden`, `full`, `move_limit`, `no_move`, `timeout`, `crash`,
    /// `illegal`, `garbage`, `refused` or `spawn`.
    pub fn key(&self) -> &'static str {
        match self {
            Reason::Five => "five",
            Reason::Forbidden(_) => "forbidden",
            Reason::BoardFull => "full",
            Reason::MoveLimit => "move_limit",
            Reason::NoLegalMove => "no_move",
            Reason::Timeout(_) => "timeout",
            Reason::Crash(_) => "crash",
            Reason::IllegalMove(_) => "illegal",
            Reason::Garbage(_) => "garbage",
            Reason::Refused(_) => "refused",
            Reason::Spawn(_) => "spawn",
        }
    }

    /// Whether the game ended by a brain's failure rather than by play.
    pub fn is_failure(&self) -> bool {
        !matches!(
            self,
            Reason::Five
                | Reason::Forbidden(_)
                | Reason::BoardFull
                | Reason::MoveLimit
                | Reason::NoLegalMove
        )
    }

    fn from_client(e: ClientError) -> Reason {
        let text = e.to_string();
        match e {
            ClientError::Crashed { .. } | ClientError::Io(_) => Reason::Crash(text),
            ClientError::Timeout(_) => Reason::Timeout(text),
            ClientError::Garbage(_) => Reason::Garbage(text),
            ClientError::Refused(_) => Reason::Refused(text),
            ClientError::Spawn(_) => Reason::Spawn(text),
        }
    }

    /// One line for people: `"five in a row"`, `"white crashed: ..."`.
    pub fn describe(&self, loser: Option<Color>) -> String {
        let who = loser.map_or("", |c| if c == Color::Black { "black" } else { "white" });
        match self {
            Reason::Five => "five in a row".into(),
            Reason::Forbidden(kind) => format!("black played a forbidden point ({kind})"),
            Reason::BoardFull => "the board is full".into(),
            Reason::MoveLimit => "the move limit was reached".into(),
            Reason::NoLegalMove => "every free point was forbidden to black".into(),
            Reason::Timeout(d) => format!("{who} lost on time: {d}"),
            Reason::Crash(d) => format!("{who} crashed: {d}"),
            Reason::IllegalMove(d) => format!("{who} played an illegal move: {d}"),
            Reason::Garbage(d) => format!("{who} answered garbage: {d}"),
            Reason::Refused(d) => format!("{who} refused: {d}"),
            Reason::Spawn(d) => format!("{who} could not be started: {d}"),
        }
    }
}

/// One engine's side of a finished game.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SideStats {
    /// The process ids used (to check none is left behind).
    pub pids: Vec<u32>,
    /// Moves the engine made.
    pub moves: u32,
    /// Their total wall time, milliseconds, as the runner measured it.
    pub time_ms: u64,
    /// The sum of the depths it reported, and how many moves had a report.
    pub depth_sum: u64,
    /// Moves with a depth report.
    pub depth_moves: u32,
}

/// A finished game.
#[derive(Clone, Debug, Serialize)]
pub struct GameOutcome {
    /// The winner, `None` for a draw (in JSON, the report's `winner` names it).
    #[serde(skip)]
    pub winner: Option<Color>,
    /// Why it ended (in JSON `reason_detail`: the report's `reason` is its key).
    #[serde(rename = "reason_detail")]
    pub reason: Reason,
    /// The moves (the opening's first); in JSON as Gomocup `x,y` strings.
    #[serde(serialize_with = "gomocup_points")]
    pub moves: Vec<Point>,
    /// Each move's time in ms (0 for the opening's stones).
    pub times_ms: Vec<u32>,
    /// Black's side (in JSON `black_side`: the report's `black` is the engine).
    #[serde(rename = "black_side")]
    pub black: SideStats,
    /// White's side (in JSON `white_side`).
    #[serde(rename = "white_side")]
    pub white: SideStats,
}

fn gomocup_points<S: serde::Serializer>(points: &[Point], ser: S) -> Result<S::Ok, S::Error> {
    ser.collect_seq(points.iter().map(|p| format!("{},{}", p.x, p.y)))
}

struct Side {
    client: Option<Client>,
    stats: SideStats,
    // Whether the brain has been given the position (by BOARD or BEGIN) yet.
    synced: bool,
    clock_ms: i64,
}

fn spawn(spec: &EngineSpec) -> Result<Client, ClientError> {
    let mut command = std::process::Command::new(&spec.program);
    command.args(&spec.args);
    if let Some(dir) = &spec.dir {
        command.current_dir(dir);
    }
    Client::spawn_command(command)
}

fn setup(client: &mut Client, spec: &EngineSpec, s: &GameSettings) -> Result<(), ClientError> {
    client.start(s.size, START_TIMEOUT)?;
    let mut infos = vec![
        Info::GameType(1),
        Info::Rule(s.rule.gomocup_bits()),
        Info::MaxMemory(0),
    ];
    match s.tc {
        TimeControl::PerMove { ms } => {
            infos.push(Info::TimeoutTurn(ms));
            infos.push(Info::TimeoutMatch(0));
        }
        TimeControl::Increment { base_ms, inc_ms } => {
            // The protocol has no increment: the turn limit is the most one move can have.
            infos.push(Info::TimeoutTurn(base_ms + inc_ms));
            infos.push(Info::TimeoutMatch(base_ms));
        }
    }
    if let Some(n) = s.nodes {
        infos.push(Info::MaxNode(n));
    }
    if let Some(d) = s.depth {
        infos.push(Info::MaxDepth(d));
    }
    for (key, value) in &spec.options {
        infos.push(Info::Other {
            key: key.clone(),
            value: value.clone(),
        });
    }
    for info in &infos {
        client.info(info)?;
    }
    Ok(())
}

/// Plays one game: `black` and `white` are started as new processes, given the opening with
/// `BOARD` (the side to move first; the other when its turn comes) and play it out. Every move
/// is judged by the rules; a brain that fails in any way loses. Both processes are ended (killed
/// if need be) before this returns.
pub fn play_game(
    black: &EngineSpec,
    white: &EngineSpec,
    opening: &[Point],
    s: &GameSettings,
) -> GameOutcome {
    let mut game = Game::new(s.size, s.rule);
    game.set_forbidden_policy(ForbiddenPolicy::Lose);
    game.set_move_limit(s.max_moves);
    let start_clock = match s.tc {
        TimeControl::Increment { base_ms, .. } => base_ms as i64,
        TimeControl::PerMove { .. } => 0,
    };
    let mut sides = [black, white].map(|_| Side {
        client: None,
        stats: SideStats::default(),
        synced: false,
        clock_ms: start_clock,
    });
    let mut times = Vec::new();
    let finish = |game: &Game, sides: [Side; 2], times: Vec<u32>, winner, reason| {
        let [mut b, mut w] = sides;
        for side in [&mut b, &mut w] {
            if let Some(mut c) = side.client.take() {
                c.end(END_GRACE).ok();
            }
        }
        GameOutcome {
            winner,
            reason,
            moves: game.moves().to_vec(),
            times_ms: times,
            black: b.stats,
            white: w.stats,
        }
    };

    // Start both brains first: one that cannot start loses before any move.
    for (i, spec) in [black, white].into_iter().enumerate() {
        let color = if i == 0 { Color::Black } else { Color::White };
        let started = spawn(spec).and_then(|mut c| {
            sides[i].stats.pids.push(c.id());
            setup(&mut c, spec, s).map(|()| c)
        });
        match started {
            Ok(c) => sides[i].client = Some(c),
            Err(e) => {
                let reason = Reason::from_client(e);
                return finish(&game, sides, times, Some(color.opponent()), reason);
            }
        }
    }
    for &p in opening {
        if let Err(e) = game.play(p) {
            // Openings are checked when read; this is a safeguard, not a path taken.
            let reason = Reason::IllegalMove(format!("opening stone: {e}"));
            return finish(&game, sides, times, None, reason);
        }
        times.push(0);
    }

    while let Some(color) = game.to_move() {
        let i = usize::from(color == Color::White);
        let margin = Duration::from_millis(s.margin_ms);
        let side = &mut sides[i];
        let Some(client) = side.client.as_mut() else {
            break;
        };
        let limit = match s.tc {
            TimeControl::PerMove { ms } => Duration::from_millis(ms),
            TimeControl::Increment { .. } => {
                if let Err(e) = client.info(&Info::TimeLeft(side.clock_ms)) {
                    let reason = Reason::from_client(e);
                    return finish(&game, sides, times, Some(color.opponent()), reason);
                }
                Duration::from_millis(side.clock_ms.max(0) as u64)
            }
        };
        client.clear_messages();
        let started = Instant::now();
        let answer = if side.synced {
            // The opponent's last move (there is one: the brain has moved before).
            let last = game.last_move().unwrap_or(Point::new(0, 0));
            client.turn(last, limit + margin)
        } else if game.moves().is_empty() {
            client.begin(limit + margin)
        } else {
            // The position so far, from this brain's point of view, in the order played.
            let stones: Vec<Stone> = game
                .moves()
                .iter()
                .enumerate()
                .map(|(k, &p)| {
                    let mover = if k % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    };
                    let field = if mover == color {
                        Field::Own
                    } else {
                        Field::Opponent
                    };
                    Stone::new(p, field)
                })
                .collect();
            client.board(&stones, limit + margin)
        };
        let elapsed = started.elapsed();
        side.synced = true;
        let p = match answer {
            Ok(p) => p,
            Err(e) => {
                let reason = Reason::from_client(e);
                return finish(&game, sides, times, Some(color.opponent()), reason);
            }
        };
        if let Some(r) = client.last_report() {
            if let Some(d) = r.depth {
                side.stats.depth_sum += u64::from(d);
                side.stats.depth_moves += 1;
            }
        }
        let ms = elapsed.as_millis() as u64;
        side.stats.moves += 1;
        side.stats.time_ms += ms;
        times.push(ms.min(u64::from(u32::MAX)) as u32);
        if let TimeControl::Increment { inc_ms, .. } = s.tc {
            side.clock_ms -= ms as i64;
            // The client's timeout already enforces this; the check keeps the rule explicit.
            if side.clock_ms < -(s.margin_ms as i64) {
                let reason = Reason::Timeout(format!("the clock fell to {} ms", side.clock_ms));
                return finish(&game, sides, times, Some(color.opponent()), reason);
            }
            side.clock_ms += inc_ms as i64;
        }
        match game.play(p) {
            Ok(None) => {}
            Ok(Some(out)) => {
                let (winner, reason) = (out.winner, out.reason);
                let reason = match reason {
                    EndReason::Five => Reason::Five,
                    EndReason::Forbidden(kind) => Reason::Forbidden(kind.to_string()),
                    EndReason::BoardFull => Reason::BoardFull,
                    EndReason::NoLegalMove => Reason::NoLegalMove,
                    _ => Reason::MoveLimit,
                };
                return finish(&game, sides, times, winner, reason);
            }
            Err(e) => {
                // The refused point is not on the board: keep it out of the record, but name it.
                times.pop();
                let name = if game.board().contains(p) {
                    point_name(s.size, p)
                } else {
                    format!("{},{}", p.x, p.y)
                };
                let reason = Reason::IllegalMove(format!("{name}: {e}"));
                return finish(&game, sides, times, Some(color.opponent()), reason);
            }
        }
    }
    // Not reached: the loop ends only through a finished game.
    finish(&game, sides, times, None, Reason::MoveLimit)
}
