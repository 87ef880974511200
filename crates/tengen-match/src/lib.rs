//! Engine-vs-engine matches and tournaments for Gomocup brains (`tengen match`).
//!
//! Each game starts fresh brain processes ([`game::play_game`]), so one brain's crash or stall
//! never carries over; every move is judged by `tengen-rules`, and any failure of a brain
//! (crash, time-out, illegal or occupied point, garbage) loses the game with the reason
//! recorded. Games run on `concurrency` threads; the results feed the tables (score, W/L/D,
//! Elo with its 95% margin, LOS, average depth and time per move) and the SPRT.
//!
//! ```no_run
//! use tengen_match::{EngineSpec, MatchConfig, run};
//! let a = EngineSpec::parse(&["cmd=./pbrain-tengen", "arg=--level", "arg=expert", "name=expert"])?;
//! let b = EngineSpec::parse(&["cmd=python3 classicbot.py expert", "name=classic"])?;
//! let summary = run(&MatchConfig::new(vec![a, b]), &mut |p| eprintln!("{}", p.line))?;
//! print!("{}", summary.table());
//! # Ok::<(), tengen_match::MatchError>(())
//! ```

pub mod config;
pub mod game;
pub mod openings;
pub mod report;
pub mod stats;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;

use serde::Serialize;
use tengen_rules::{BoardSize, Color, Rule};

pub use config::{EngineSpec, TimeControl, parse_sprt, shell_split};
pub use game::{GameOutcome, GameSettings, Reason, play_game};
pub use openings::{Opening, Rng};
pub use report::{GameReport, MatchSummary, Progress};
pub use stats::{Sprt, SprtDecision, Wld};

/// What can stop a match from being set up or recorded. (A brain's failure is no error: it
/// loses the game.)
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// An engine's `key=value` words do not describe an engine.
    #[error("bad engine: {0}")]
    Engine(String),
    /// A time control that cannot be read.
    #[error(
        "bad time control {0:?} (expected milliseconds per move, like 1000, or seconds+increment, like 60+1)"
    )]
    TimeControl(String),
    /// SPRT settings that cannot be read or make no sense.
    #[error("bad SPRT setting {0:?} (expected elo0=0 elo1=5 alpha=0.05 beta=0.05)")]
    Sprt(String),
    /// An opening that cannot be read or played.
    #[error("opening {line}: {why}")]
    Opening {
        /// The line (the entry, for built-in sets), from 1.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// A board the runner cannot use.
    #[error("{0}")]
    Board(String),
    /// A match that cannot be set up as asked.
    #[error("{0}")]
    Setup(String),
    /// Reading openings or writing records failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being read or written.
        what: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// Who plays whom.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tournament {
    /// Two engines head to head (the default with two engines).
    #[default]
    Match,
    /// Every engine against every other.
    RoundRobin,
    /// The first engine against each of the others.
    Gauntlet,
}

impl std::str::FromStr for Tournament {
    type Err = MatchError;
    fn from_str(s: &str) -> Result<Tournament, MatchError> {
        match s {
            "match" => Ok(Tournament::Match),
            "round-robin" | "roundrobin" | "rr" => Ok(Tournament::RoundRobin),
            "gauntlet" => Ok(Tournament::Gauntlet),
            _ => Err(MatchError::Setup(format!(
                "unknown tournament {s:?} (expected round-robin or gauntlet)"
            ))),
        }
    }
}

/// Where openings come from.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub enum OpeningSource {
    /// None: every game from the empty board.
    #[default]
    None,
    /// These openings, in turn.
    List(Vec<Opening>),
    /// A new random opening near the centre for every pair of games (not judged for balance:
    /// see `balanced` in [`OpeningSource::from_arg`]).
    Random,
}

impl OpeningSource {
    /// Reads `--openings`: `balanced`, `renju26`, `random`, or a file (see
    /// [`openings::parse_openings`]).
    pub fn from_arg(arg: &str, size: BoardSize, rule: Rule) -> Result<OpeningSource, MatchError> {
        match arg {
            "none" => Ok(OpeningSource::None),
            "random" => Ok(OpeningSource::Random),
            "balanced" => Ok(OpeningSource::List(openings::balanced(size, rule)?)),
            "renju26" => Ok(OpeningSource::List(openings::renju26(size, rule)?)),
            path => {
                let text = std::fs::read_to_string(path).map_err(|source| MatchError::Io {
                    what: format!("cannot read {path}"),
                    source,
                })?;
                Ok(OpeningSource::List(openings::parse_openings(
                    &text, size, rule,
                )?))
            }
        }
    }
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The engines (two for a match or an SPRT).
    pub engines: Vec<EngineSpec>,
    /// Who plays whom.
    pub tournament: Tournament,
    /// Games per pairing; when `None`, `2 * rounds` (every round a colour-swapped pair).
    pub games: Option<u32>,
    /// Rounds, when `games` is not given.
    pub rounds: u32,
    /// Board, rule, clock and limits.
    pub settings: GameSettings,
    /// Openings.
    pub openings: OpeningSource,
    /// Whether to apply a random symmetry of the board to each opening (the same for both
    /// games of a pair).
    pub rotate: bool,
    /// The seed for random openings and symmetries.
    pub seed: u64,
    /// Games at once.
    pub concurrency: usize,
    /// The SPRT (two engines only).
    pub sprt: Option<Sprt>,
    /// Where to write each game's `.psq` and `.txt`.
    pub out: Option<PathBuf>,
}

impl MatchConfig {
    /// A two-game match of `engines` on 15x15 freestyle at 1 s a move, no openings.
    pub fn new(engines: Vec<EngineSpec>) -> MatchConfig {
        MatchConfig {
            engines,
            tournament: Tournament::Match,
            games: None,
            rounds: 1,
            settings: GameSettings {
                size: BoardSize::STANDARD,
                rule: Rule::Freestyle,
                tc: TimeControl::PerMove { ms: 1000 },
                margin_ms: 100,
                nodes: None,
                depth: None,
                max_moves: None,
            },
            openings: OpeningSource::None,
            rotate: false,
            seed: 0,
            concurrency: 1,
            sprt: None,
            out: None,
        }
    }
}

/// One game to play.
#[derive(Clone, Debug)]
struct Job {
    id: usize,
    pairing: usize,
    black: usize,
    white: usize,
    opening: Option<Opening>,
}

/// The pairings (engine indices; the first is the one whose view the table takes).
fn pairings(config: &MatchConfig) -> Result<Vec<(usize, usize)>, MatchError> {
    let n = config.engines.len();
    if n < 2 {
        return Err(MatchError::Setup(
            "a match needs at least two engines".into(),
        ));
    }
    let pairs = match config.tournament {
        Tournament::Match if n == 2 => vec![(0, 1)],
        Tournament::Match => {
            return Err(MatchError::Setup(format!(
                "{n} engines: choose --tournament round-robin or gauntlet"
            )));
        }
        Tournament::RoundRobin => (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect(),
        Tournament::Gauntlet => (1..n).map(|j| (0, j)).collect(),
    };
    Ok(pairs)
}

/// The games in playing order: each opening twice, colours swapped, interleaved across the
/// pairings so that a tournament cut short is still balanced.
fn schedule(config: &MatchConfig, pairs: &[(usize, usize)]) -> Result<Vec<Job>, MatchError> {
    let per_pairing = config.games.unwrap_or(2 * config.rounds.max(1)) as usize;
    let mut rng = Rng::new(config.seed);
    let mut jobs = Vec::new();
    let mut base = None;
    for k in 0..per_pairing {
        let pair = k / 2;
        // Draw the pair's opening once, at its first game, so both colours play the same one:
        // random openings often favour one colour heavily, and only the swap cancels that.
        if k % 2 == 0 {
            base = match &config.openings {
                OpeningSource::None => None,
                OpeningSource::List(list) => Some(list[pair % list.len()].clone()),
                OpeningSource::Random => Some(openings::random_opening(
                    config.settings.size,
                    config.settings.rule,
                    &mut rng,
                )?),
            };
        }
        for (pi, &(a, b)) in pairs.iter().enumerate() {
            let opening = base.as_ref().map(|o| {
                if config.rotate {
                    // One symmetry per pair and pairing, drawn at the pair's first game.
                    let sym = Rng::new(config.seed ^ ((pair as u64) << 20) ^ pi as u64).below(8);
                    openings::transform(o, config.settings.size, sym)
                } else {
                    o.clone()
                }
            });
            let (black, white) = if k % 2 == 0 { (a, b) } else { (b, a) };
            jobs.push(Job {
                id: jobs.len() + 1,
                pairing: pi,
                black,
                white,
                opening,
            });
        }
    }
    Ok(jobs)
}

/// Plays the match: schedules the games, runs them on `concurrency` threads, writes the
/// records, and calls `progress` after every game (for a live line). Stops early when the SPRT
/// decides (games already under way are finished and counted).
pub fn run(
    config: &MatchConfig,
    progress: &mut dyn FnMut(&Progress),
) -> Result<MatchSummary, MatchError> {
    let pairs = pairings(config)?;
    if config.sprt.is_some() && config.engines.len() != 2 {
        return Err(MatchError::Setup(
            "the SPRT needs exactly two engines".into(),
        ));
    }
    if config.settings.size.width().is_none() {
        return Err(MatchError::Board(
            "matches need a bounded board (the Gomocup protocol has no unbounded one)".into(),
        ));
    }
    if let Some(dir) = &config.out {
        std::fs::create_dir_all(dir).map_err(|source| MatchError::Io {
            what: format!("cannot create {}", dir.display()),
            source,
        })?;
    }
    let jobs = Arc::new(schedule(config, &pairs)?);
    let total = jobs.len();
    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<(usize, GameOutcome)>();
    let mut summary = MatchSummary::new(config, &pairs, total);
    thread::scope(|scope| -> Result<(), MatchError> {
        for _ in 0..config.concurrency.clamp(1, total.max(1)) {
            let (jobs, next, stop, tx) = (
                Arc::clone(&jobs),
                Arc::clone(&next),
                Arc::clone(&stop),
                tx.clone(),
            );
            scope.spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { break };
                    let moves = job.opening.as_ref().map_or(&[][..], |o| &o.moves[..]);
                    let outcome = play_game(
                        &config.engines[job.black],
                        &config.engines[job.white],
                        moves,
                        &config.settings,
                    );
                    if tx.send((i, outcome)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut first_error = None;
        for (i, outcome) in rx {
            let job = &jobs[i];
            let report = GameReport::new(
                job.id,
                job.pairing,
                (job.black, job.white),
                job.opening.as_ref().map(|o| o.name.clone()),
                outcome,
            );
            if let (Some(dir), None) = (&config.out, &first_error) {
                if let Err(e) = report::write_records(dir, config, &report) {
                    // Recording is what the user asked for: stop scheduling, report at the end.
                    stop.store(true, Ordering::SeqCst);
                    first_error = Some(e);
                }
            }
            summary.add(report);
            if let Some(sprt) = &config.sprt {
                if summary.sprt_decision.is_none() {
                    let wld = summary.pairings[0].wld;
                    let decision = sprt.decide(wld);
                    if decision != SprtDecision::Continue {
                        summary.sprt_decision = Some((decision, sprt.llr(wld), wld.games()));
                        stop.store(true, Ordering::SeqCst);
                    }
                }
            }
            progress(&summary.progress());
        }
        first_error.map_or(Ok(()), Err)
    })?;
    summary.finish();
    Ok(summary)
}

/// The colour's name in records and tables.
pub(crate) fn color_name(c: Color) -> &'static str {
    if c == Color::Black { "black" } else { "white" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_games_of_a_pair_share_a_random_opening_with_colours_swapped() -> Result<(), MatchError>
    {
        let engine = |name: &str| EngineSpec {
            name: name.into(),
            program: name.into(),
            args: Vec::new(),
            dir: None,
            options: Vec::new(),
        };
        let mut config = MatchConfig::new(vec![engine("a"), engine("b")]);
        config.games = Some(20);
        config.openings = OpeningSource::Random;
        config.seed = 61;
        let jobs = schedule(&config, &pairings(&config)?)?;
        assert_eq!(jobs.len(), 20);
        let mut distinct = std::collections::HashSet::new();
        for pair in jobs.chunks(2) {
            let (first, second) = (&pair[0], &pair[1]);
            let moves = |j: &Job| format!("{:?}", j.opening.as_ref().map(|o| &o.moves));
            assert_eq!(
                moves(first),
                moves(second),
                "games {} and {}",
                first.id,
                second.id
            );
            assert_eq!((first.black, first.white), (second.white, second.black));
            distinct.insert(moves(first));
        }
        // Each pair draws its own opening.
        assert!(distinct.len() > 5, "only {} openings", distinct.len());
        Ok(())
    }
}
