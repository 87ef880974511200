//! `tengen referee`: judge a game record.

use serde::Serialize;
use tengen_rules::{
    BoardSize, Color, ForbiddenPolicy, Game, Record, RecordFormat, Rule, point_name,
};

/// The judgement of a record, as `tengen referee --json` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Judgement {
    /// The rule the record was judged under.
    pub rule: &'static str,
    /// The board, as `15`, `16x14` or `unbounded`.
    pub size: String,
    /// Number of moves played.
    pub moves: usize,
    /// `"ongoing"`, `"black"`, `"white"` or `"draw"`.
    pub result: &'static str,
    /// Why the game ended (`"five"`, `"forbidden"`, `"full"`, ...), or `None` while it goes on.
    pub reason: Option<&'static str>,
    /// For a forbidden move, which kind (`"double_three"`, `"double_four"`, `"overline"`).
    pub forbidden_kind: Option<&'static str>,
    /// The first winning row, in notation.
    pub winning_line: Option<Vec<String>>,
    /// Every winning row (a move may complete two).
    pub winning_lines: Vec<Vec<String>>,
    /// `"black"` or `"white"`, or `None` when the game is over.
    pub to_move: Option<&'static str>,
    /// Black's forbidden points when black is to move under renju.
    pub forbidden: Vec<ForbiddenPoint>,
    /// The result line for a person, e.g. "Black wins: five in a row".
    pub summary: String,
}

/// One forbidden point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ForbiddenPoint {
    /// In notation, e.g. `"h8"`.
    pub point: String,
    /// `"double_three"`, `"double_four"` or `"overline"`.
    pub reason: &'static str,
}

/// Replays `text` (a record in `format`, or detected when `None`) under `rule` (or the record's
/// own rule, else freestyle) and judges the position reached. A forbidden move by black under
/// renju is legal in a record: black lost by it.
pub fn judge_text(
    text: &str,
    format: Option<RecordFormat>,
    size: BoardSize,
    rule: Option<Rule>,
) -> Result<Judgement, RefereeError> {
    let format = format.unwrap_or_else(|| RecordFormat::detect(text));
    let record = Record::parse(text, format, size)?;
    let rule = rule.or(record.rule).unwrap_or_default();
    let game = record.replay(rule, ForbiddenPolicy::Lose)?;
    Ok(judge(&game))
}

/// Why a record could not be judged. The details are the error's source, not part of its own
/// message, so that printing the chain (`{:#}`) says each thing once.
#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    /// The text is not a record.
    #[error("cannot read the record")]
    Record(#[from] tengen_rules::RecordError),
    /// A move of the record is illegal.
    #[error("illegal move")]
    Illegal(#[from] tengen_rules::ReplayError),
}

/// The judgement of the position `game` has reached.
pub fn judge(game: &Game) -> Judgement {
    let size = game.board().size();
    let name = |p| point_name(size, p);
    let outcome = game.outcome();
    let result = match outcome {
        None => "ongoing",
        Some(o) => match o.winner {
            Some(Color::Black) => "black",
            Some(Color::White) => "white",
            None => "draw",
        },
    };
    let winning_lines: Vec<Vec<String>> = outcome
        .map(|o| {
            o.lines
                .iter()
                .map(|l| l.iter().map(|&p| name(p)).collect())
                .collect()
        })
        .unwrap_or_default();
    let forbidden_kind = outcome.and_then(|o| match o.reason {
        tengen_rules::EndReason::Forbidden(kind) => Some(kind.key()),
        _ => None,
    });
    let summary = match (outcome, game.to_move()) {
        (Some(o), _) => o.to_string(),
        (None, Some(c)) => format!(
            "{} to move",
            if c == Color::Black { "Black" } else { "White" }
        ),
        (None, None) => String::new(),
    };
    Judgement {
        rule: game.rule().name(),
        size: size.to_string(),
        moves: game.moves().len(),
        result,
        reason: outcome.map(|o| o.reason.key()),
        forbidden_kind,
        winning_line: winning_lines.first().cloned(),
        winning_lines,
        to_move: game.to_move().map(Color::name),
        forbidden: game
            .forbidden_points()
            .into_iter()
            .map(|(p, f)| ForbiddenPoint {
                point: name(p),
                reason: f.key(),
            })
            .collect(),
        summary,
    }
}

impl Judgement {
    /// The judgement as lines for a person.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "Rule: {}, board {}, {} move{}\n{}\n",
            self.rule,
            self.size,
            self.moves,
            if self.moves == 1 { "" } else { "s" },
            self.summary
        );
        for line in &self.winning_lines {
            out += &format!("Winning line: {}\n", line.join(" "));
        }
        if !self.forbidden.is_empty() {
            let list: Vec<String> = self
                .forbidden
                .iter()
                .map(|f| format!("{} ({})", f.point, f.reason.replace('_', "-")))
                .collect();
            out += &format!("Forbidden for black: {}\n", list.join(", "));
        }
        out
    }
}
