//! The tuning's game list, shared by the feature examples: one finished game a line,
//! `RULE RESULT MOVES...` (RESULT black's score: 1, 0.5 or 0; see
//! `scripts/tune/records_to_games.py`).

use std::io::BufRead;

use tengen_rules::{BoardSize, Point, Rule, parse_point};

/// One game of the list: its rule, black's score and its moves (black first).
pub struct ListedGame {
    pub rule: Rule,
    pub black_score: f64,
    pub moves: Vec<Point>,
}

/// Calls `each` with every game on standard input; lines without a rule and a result are
/// skipped, and the first malformed line or failed call ends the reading with its error.
pub fn for_each_game(
    mut each: impl FnMut(ListedGame) -> Result<(), Box<dyn std::error::Error>>,
) -> Result<(), Box<dyn std::error::Error>> {
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let mut words = line.split_whitespace();
        let (Some(rule), Some(black_score)) = (words.next(), words.next()) else {
            continue;
        };
        let moves = words
            .map(|m| parse_point(BoardSize::STANDARD, m))
            .collect::<Result<_, _>>()?;
        each(ListedGame {
            rule: rule.parse()?,
            black_score: black_score.parse()?,
            moves,
        })?;
    }
    Ok(())
}
