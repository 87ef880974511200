//! `tengen analyze`: the engine's view of the position a record reaches.

use std::sync::atomic::AtomicBool;

use serde::Serialize;
use tengen_engine::{Engine, Limits, Score};
use tengen_rules::{BoardSize, ForbiddenPolicy, Record, RecordFormat, Rule, point_name};

use crate::referee::RefereeError;

/// One candidate move and its line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// The move, in notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// The evaluation for the side to move (proven results as +-30000 less the plies).
    pub eval: i32,
    /// Plies to a proven win for the side to move, if proven.
    pub win_in: Option<u32>,
    /// Plies to a proven loss for the side to move, if proven.
    pub loss_in: Option<u32>,
    /// The principal variation, in notation.
    pub pv: Vec<String>,
}

/// The analysis, as `tengen analyze --json` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// The rule.
    pub rule: &'static str,
    /// `"black"` or `"white"`: the side the analysis is for.
    pub to_move: Option<&'static str>,
    /// The best move, in notation (`None` when the game is over or no move is legal).
    pub best: Option<String>,
    /// Its evaluation.
    pub eval: Option<i32>,
    /// Plies to a proven win for the side to move.
    pub win_in: Option<u32>,
    /// Plies to a proven loss for the side to move.
    pub loss_in: Option<u32>,
    /// The principal variation.
    pub pv: Vec<String>,
    /// The N best moves, best first.
    pub lines: Vec<Candidate>,
    /// How many best moves were asked for: `lines` holds fewer when the position leaves fewer
    /// moves worth searching.
    pub multipv: usize,
    /// Depth completed.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds taken.
    pub time_ms: u64,
}

/// Replays the record `text` and searches the position it reaches with `threads` threads;
/// `progress` hears of each completed iteration (its depth, best move and verdict, nodes, time).
pub fn analyze_text(
    text: &str,
    format: Option<RecordFormat>,
    size: BoardSize,
    rule: Option<Rule>,
    limits: &Limits,
    threads: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Analysis, RefereeError> {
    let format = format.unwrap_or_else(|| RecordFormat::detect(text));
    let record = Record::parse(text, format, size)?;
    let rule = rule.or(record.rule).unwrap_or_default();
    let game = record.replay(rule, ForbiddenPolicy::Lose)?;
    let size = game.board().size();
    let name = |p| point_name(size, p);
    let mut out = Analysis {
        rule: rule.name(),
        to_move: game.to_move().map(|c| c.name()),
        best: None,
        eval: None,
        win_in: None,
        loss_in: None,
        pv: Vec::new(),
        lines: Vec::new(),
        multipv: limits.multipv.max(1),
        depth: 0,
        nodes: 0,
        time_ms: 0,
    };
    if game.outcome().is_some() {
        return Ok(out);
    }
    let mut engine = Engine::new(64);
    engine.set_threads(threads);
    let result = engine.search_game(&game, limits, &AtomicBool::new(false), &mut |info| {
        if let Some(line) = info.lines.first() {
            let best = line.moves.first().map(|&p| name(p)).unwrap_or_default();
            progress(&format!(
                "depth {}: {best} ({}), {} nodes, {} ms",
                info.depth,
                verdict_of(line.score),
                info.nodes,
                info.elapsed.as_millis()
            ));
        }
    });
    out.lines = result
        .lines
        .iter()
        .filter_map(|l| {
            Some(Candidate {
                mv: name(*l.moves.first()?),
                eval: l.score.value(),
                win_in: match l.score {
                    Score::Win(n) => Some(n),
                    _ => None,
                },
                loss_in: match l.score {
                    Score::Loss(n) => Some(n),
                    _ => None,
                },
                pv: l.moves.iter().map(|&p| name(p)).collect(),
            })
        })
        .collect();
    if let Some(first) = out.lines.first() {
        out.best = Some(first.mv.clone());
        out.eval = Some(first.eval);
        out.win_in = first.win_in;
        out.loss_in = first.loss_in;
        out.pv = first.pv.clone();
    }
    out.depth = result.depth;
    out.nodes = result.nodes;
    out.time_ms = result.elapsed.as_millis() as u64;
    Ok(out)
}

/// A score in words: a forced win or loss and its plies, else the evaluation.
fn verdict_of(score: Score) -> String {
    match score {
        Score::Win(n) => verdict(Some(n), None, 0),
        Score::Loss(n) => verdict(None, Some(n), 0),
        other => verdict(None, None, other.value()),
    }
}

/// A line's verdict as the text shows it, from a candidate's fields.
fn verdict(win_in: Option<u32>, loss_in: Option<u32>, eval: i32) -> String {
    match (win_in, loss_in) {
        (Some(n), _) => format!("forced win in {n}"),
        (_, Some(n)) => format!("forced loss in {n}"),
        _ => format!("{eval:+}"),
    }
}

impl Analysis {
    /// The analysis as lines for a person.
    pub fn to_text(&self) -> String {
        let Some(best) = &self.best else {
            return "No move to analyse: the game is over\n".to_string();
        };
        let verdict = |c: &Candidate| verdict(c.win_in, c.loss_in, c.eval);
        let mut out = format!(
            "Best move: {best} ({}), depth {}, {} nodes, {} ms\n",
            self.lines.first().map(verdict).unwrap_or_default(),
            self.depth,
            self.nodes,
            self.time_ms
        );
        for (i, c) in self.lines.iter().enumerate() {
            out += &format!(
                "{:>2}. {:<5} {:<16} {}\n",
                i + 1,
                c.mv,
                verdict(c),
                c.pv.join(" ")
            );
        }
        if self.lines.len() < self.multipv {
            let n = self.lines.len();
            out += &format!(
                "Only {n} {} worth searching here: the others lose at once or lie far from the stones.\n",
                if n == 1 { "move is" } else { "moves are" }
            );
        }
        out
    }
}
