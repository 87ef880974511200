//! Results: per game, per pairing and per engine; the live progress line, the final table, the
//! JSON summary, and each game's records on disk.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use tengen_rules::{Color, Record, RecordFormat, RecordResult, point_name};

use crate::game::GameOutcome;
use crate::stats::{Sprt, SprtDecision, Wld};
use crate::{MatchConfig, MatchError, TimeControl, color_name};

/// One finished game, as the summary keeps it.
#[derive(Clone, Debug, Serialize)]
pub struct GameReport {
    /// The game's number, from 1, in schedule order.
    pub id: usize,
    /// The pairing it belongs to (an index into [`MatchSummary::pairings`]).
    pub pairing: usize,
    /// Black's engine (an index into [`MatchSummary::engines`]).
    pub black: usize,
    /// White's engine.
    pub white: usize,
    /// The opening's name, if there was one.
    pub opening: Option<String>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// The winning colour, if any.
    pub winner: Option<&'static str>,
    /// The reason's key (`five`, `timeout`, `crash`, ...).
    pub reason: &'static str,
    /// The reason for people.
    pub reason_text: String,
    /// The game itself.
    #[serde(flatten)]
    pub outcome: GameOutcome,
}

impl GameReport {
    pub(crate) fn new(
        id: usize,
        pairing: usize,
        (black, white): (usize, usize),
        opening: Option<String>,
        outcome: GameOutcome,
    ) -> GameReport {
        let result = match outcome.winner {
            Some(Color::Black) => "1-0",
            Some(Color::White) => "0-1",
            None => "1/2-1/2",
        };
        GameReport {
            id,
            pairing,
            black,
            white,
            opening,
            result,
            winner: outcome.winner.map(color_name),
            reason: outcome.reason.key(),
            reason_text: outcome.reason.describe(outcome.winner.map(Color::opponent)),
            outcome,
        }
    }

    /// The engine that won, if any.
    pub fn winner_engine(&self) -> Option<usize> {
        self.outcome.winner.map(|c| match c {
            Color::Black => self.black,
            Color::White => self.white,
        })
    }
}

/// One pairing's tally.
#[derive(Clone, Debug, Serialize)]
pub struct PairingStats {
    /// The first engine (the table takes its view).
    pub a: usize,
    /// The second engine.
    pub b: usize,
    /// Names, for readers of the JSON.
    pub names: (String, String),
    /// `a`'s wins, losses and draws.
    pub wld: Wld,
    /// `a`'s Elo advantage (logistic), if finite games were played.
    pub elo: Option<f64>,
    /// Its 95% margin.
    pub elo_margin: Option<f64>,
    /// Likelihood that `a` is the stronger.
    pub los: Option<f64>,
}

/// One engine's totals over the whole match.
#[derive(Clone, Debug, Serialize)]
pub struct EngineTotals {
    /// The name.
    pub name: String,
    /// Wins, losses and draws against everyone.
    pub wld: Wld,
    /// Games lost by its own failure (crash, time-out, illegal move, garbage, ...).
    pub failures: u32,
    /// Moves it made.
    pub moves: u64,
    /// Their total time, ms.
    pub time_ms: u64,
    /// The sum of reported depths.
    pub depth_sum: u64,
    /// Moves with a reported depth.
    pub depth_moves: u64,
    /// Elo against the field (from its total score), when finite.
    pub elo: Option<f64>,
    /// Its 95% margin.
    pub elo_margin: Option<f64>,
}

impl EngineTotals {
    /// The average reported depth, if it reported any.
    pub fn avg_depth(&self) -> Option<f64> {
        (self.depth_moves > 0).then(|| self.depth_sum as f64 / self.depth_moves as f64)
    }

    /// The average time per move, ms.
    pub fn avg_ms(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.time_ms as f64 / self.moves as f64)
    }
}

/// The live state after a game.
#[derive(Clone, Debug)]
pub struct Progress {
    /// Games finished.
    pub done: usize,
    /// Games scheduled.
    pub total: usize,
    /// One line for a terminal: games, score, Elo so far.
    pub line: String,
}

/// The whole match.
#[derive(Clone, Debug, Serialize)]
pub struct MatchSummary {
    /// Engine names.
    pub engines: Vec<String>,
    /// The rule's name.
    pub rule: &'static str,
    /// The board, as `15x15`.
    pub size: String,
    /// The clock.
    pub tc: TimeControl,
    /// Games scheduled.
    pub scheduled: usize,
    /// Per pairing.
    pub pairings: Vec<PairingStats>,
    /// Per engine.
    pub totals: Vec<EngineTotals>,
    /// Every game played, in the order they finished.
    pub games: Vec<GameReport>,
    /// The SPRT settings, if one ran.
    pub sprt: Option<Sprt>,
    /// Its decision, the LLR at that moment and the games it took; `None` if no bound was
    /// crossed.
    pub sprt_decision: Option<(SprtDecision, f64, u32)>,
    /// The final LLR (counting games that finished after the decision).
    pub sprt_llr: Option<f64>,
}

impl MatchSummary {
    pub(crate) fn new(config: &MatchConfig, pairs: &[(usize, usize)], total: usize) -> Self {
        let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
        MatchSummary {
            pairings: pairs
                .iter()
                .map(|&(a, b)| PairingStats {
                    a,
                    b,
                    names: (names[a].clone(), names[b].clone()),
                    wld: Wld::default(),
                    elo: None,
                    elo_margin: None,
                    los: None,
                })
                .collect(),
            totals: names
                .iter()
                .map(|n| EngineTotals {
                    name: n.clone(),
                    wld: Wld::default(),
                    failures: 0,
                    moves: 0,
                    time_ms: 0,
                    depth_sum: 0,
                    depth_moves: 0,
                    elo: None,
                    elo_margin: None,
                })
                .collect(),
            engines: names,
            rule: config.settings.rule.name(),
            size: size_text(config.settings.size),
            tc: config.settings.tc,
            scheduled: total,
            games: Vec::new(),
            sprt: config.sprt,
            sprt_decision: None,
            sprt_llr: None,
        }
    }

    pub(crate) fn add(&mut self, g: GameReport) {
        let pairing = &mut self.pairings[g.pairing];
        let winner = g.winner_engine();
        let tally = |wld: &mut Wld, me: usize| match winner {
            None => wld.draws += 1,
            Some(w) if w == me => wld.wins += 1,
            Some(_) => wld.losses += 1,
        };
        tally(&mut pairing.wld, pairing.a);
        for (engine, side) in [(g.black, &g.outcome.black), (g.white, &g.outcome.white)] {
            let t = &mut self.totals[engine];
            tally(&mut t.wld, engine);
            t.moves += u64::from(side.moves);
            t.time_ms += side.time_ms;
            t.depth_sum += side.depth_sum;
            t.depth_moves += u64::from(side.depth_moves);
            if g.outcome.reason.is_failure() && winner.is_some_and(|w| w != engine) {
                t.failures += 1;
            }
        }
        self.games.push(g);
        self.finish();
    }

    /// Fills in the derived numbers (Elo, margins, LOS, LLR).
    pub(crate) fn finish(&mut self) {
        for p in &mut self.pairings {
            p.elo = p.wld.elo();
            p.elo_margin = p.wld.elo_margin();
            p.los = p.wld.los();
        }
        for t in &mut self.totals {
            t.elo = t.wld.elo();
            t.elo_margin = t.wld.elo_margin();
        }
        self.sprt_llr = self.sprt.map(|s| s.llr(self.pairings[0].wld));
    }

    /// The live line: games done, the score and Elo (of the first pairing in a match; the
    /// leader in a tournament).
    pub fn progress(&self) -> Progress {
        let done = self.games.len();
        let mut line = format!("games {done}/{}", self.scheduled);
        if self.pairings.len() == 1 {
            let p = &self.pairings[0];
            let _ = write!(
                line,
                "  {} {} - {} {}  (+{} -{} ={})  Elo {}",
                p.names.0,
                p.wld.points(),
                p.wld.flipped().points(),
                p.names.1,
                p.wld.wins,
                p.wld.losses,
                p.wld.draws,
                elo_text(p.elo, p.elo_margin)
            );
            if let Some(llr) = self.sprt_llr {
                let _ = write!(line, "  LLR {llr:.2}");
            }
        } else if let Some(best) = self
            .totals
            .iter()
            .max_by(|a, b| a.wld.points().total_cmp(&b.wld.points()))
        {
            let _ = write!(
                line,
                "  leader {} {}/{}",
                best.name,
                best.wld.points(),
                best.wld.games()
            );
        }
        Progress {
            done,
            total: self.scheduled,
            line,
        }
    }

    /// The results as a text table.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let tc = match self.tc {
            TimeControl::PerMove { ms } => format!("{ms} ms/move"),
            TimeControl::Increment { base_ms, inc_ms } => {
                format!("{}+{} s", base_ms as f64 / 1000.0, inc_ms as f64 / 1000.0)
            }
        };
        let _ = writeln!(
            out,
            "Results: {} on {}, {tc}, {} of {} games played",
            self.rule,
            self.size,
            self.games.len(),
            self.scheduled
        );
        let w = self
            .engines
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        let _ = writeln!(out, "\nPairings (the first engine's view)");
        let _ = writeln!(
            out,
            "{:<w$}  {:<w$}  {:>5}  {:>6}  {:>4} {:>4} {:>4}  {:>17}  {:>6}",
            "engine", "opponent", "games", "score", "W", "L", "D", "Elo (95%)", "LOS"
        );
        for p in &self.pairings {
            let _ = writeln!(
                out,
                "{:<w$}  {:<w$}  {:>5}  {:>6}  {:>4} {:>4} {:>4}  {:>17}  {:>6}",
                p.names.0,
                p.names.1,
                p.wld.games(),
                p.wld.points(),
                p.wld.wins,
                p.wld.losses,
                p.wld.draws,
                elo_text(p.elo, p.elo_margin),
                percent(p.los)
            );
        }
        let _ = writeln!(out, "\nEngines (against the field)");
        let _ = writeln!(
            out,
            "{:<w$}  {:>5}  {:>6}  {:>4} {:>4} {:>4}  {:>17}  {:>9}  {:>11}  {:>8}",
            "engine",
            "games",
            "score",
            "W",
            "L",
            "D",
            "Elo (95%)",
            "avg depth",
            "avg ms/move",
            "failures"
        );
        let mut order: Vec<&EngineTotals> = self.totals.iter().collect();
        order.sort_by(|a, b| {
            let s = |t: &EngineTotals| t.wld.score().unwrap_or(0.0);
            s(b).total_cmp(&s(a))
        });
        for t in order {
            let _ = writeln!(
                out,
                "{:<w$}  {:>5}  {:>6}  {:>4} {:>4} {:>4}  {:>17}  {:>9}  {:>11}  {:>8}",
                t.name,
                t.wld.games(),
                t.wld.points(),
                t.wld.wins,
                t.wld.losses,
                t.wld.draws,
                elo_text(t.elo, t.elo_margin),
                t.avg_depth().map_or("-".into(), |d| format!("{d:.1}")),
                t.avg_ms().map_or("-".into(), |m| format!("{m:.0}")),
                t.failures
            );
        }
        let mut reasons: Vec<(&str, u32)> = Vec::new();
        for g in &self.games {
            match reasons.iter_mut().find(|(k, _)| *k == g.reason) {
                Some((_, n)) => *n += 1,
                None => reasons.push((g.reason, 1)),
            }
        }
        let list: Vec<String> = reasons.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let _ = writeln!(out, "\nEndings: {}", list.join(", "));
        if let Some(s) = &self.sprt {
            let _ = write!(
                out,
                "SPRT elo0={} elo1={} alpha={} beta={} (bounds {:.2}, {:.2}): ",
                s.elo0,
                s.elo1,
                s.alpha,
                s.beta,
                s.lower_bound(),
                s.upper_bound()
            );
            match self.sprt_decision {
                Some((d, llr, games)) => {
                    let h = if d == SprtDecision::H1 {
                        "H1 accepted"
                    } else {
                        "H0 accepted"
                    };
                    let _ = writeln!(out, "{h} after {games} games, LLR {llr:.3}");
                }
                None => {
                    let _ = writeln!(out, "no decision, LLR {:.3}", self.sprt_llr.unwrap_or(0.0));
                }
            }
        }
        out
    }
}

/// `15x15`, `20x14`.
fn size_text(size: tengen_rules::BoardSize) -> String {
    match (size.width(), size.height()) {
        (Some(w), Some(h)) => format!("{w}x{h}"),
        _ => size.to_string(),
    }
}

fn elo_text(elo: Option<f64>, margin: Option<f64>) -> String {
    let num = |v: f64| {
        if v.is_finite() {
            format!("{v:+.1}")
        } else if v > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    };
    match (elo, margin) {
        (Some(e), Some(m)) if m.is_finite() => format!("{} ± {m:.1}", num(e)),
        (Some(e), _) => format!("{} ± inf", num(e)),
        _ => "-".into(),
    }
}

fn percent(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:.1}%", v * 100.0))
}

/// A name safe in a file name.
fn file_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes a game as `NNNN-black-vs-white.psq` (moves, times, engine names) and `.txt` (the
/// plain move list, with `#` comment lines naming the engines, the result and the reason).
pub(crate) fn write_records(
    dir: &Path,
    config: &MatchConfig,
    g: &GameReport,
) -> Result<(), MatchError> {
    let (black, white) = (&config.engines[g.black].name, &config.engines[g.white].name);
    let size = config.settings.size;
    let record = Record {
        rule: Some(config.settings.rule),
        moves: g.outcome.moves.clone(),
        times_ms: g.outcome.times_ms.iter().map(|&t| Some(t)).collect(),
        black: Some(black.clone()),
        white: Some(white.clone()),
        result: Some(RecordResult::from_winner(g.outcome.winner)),
        ..Record::new(size)
    };
    let io = |what: String| move |source| MatchError::Io { what, source };
    let bad = |e: tengen_rules::RecordError| MatchError::Setup(format!("game {}: {e}", g.id));
    let stem = format!("{:04}-{}-vs-{}", g.id, file_part(black), file_part(white));
    let psq = record.write(RecordFormat::Psq).map_err(bad)?;
    let path = dir.join(format!("{stem}.psq"));
    std::fs::write(&path, psq).map_err(io(format!("cannot write {}", path.display())))?;

    let mut txt = String::new();
    let _ = writeln!(txt, "# black: {black}");
    let _ = writeln!(txt, "# white: {white}");
    let _ = writeln!(
        txt,
        "# rule: {}, board {}",
        config.settings.rule.name(),
        size_text(size)
    );
    if let Some(o) = &g.opening {
        let _ = writeln!(txt, "# opening: {o}");
    }
    let _ = writeln!(txt, "# result: {}", g.result);
    let _ = writeln!(txt, "# reason: {}", g.reason_text.replace('\n', " "));
    let moves: Vec<String> = g
        .outcome
        .moves
        .iter()
        .map(|&p| point_name(size, p))
        .collect();
    let _ = writeln!(txt, "{}", moves.join(" "));
    let path = dir.join(format!("{stem}.txt"));
    std::fs::write(&path, txt).map_err(io(format!("cannot write {}", path.display())))?;
    Ok(())
}
