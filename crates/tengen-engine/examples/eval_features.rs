//! Reads the tuning's game list on standard input (one game a line: `RULE RESULT MOVES...`,
//! RESULT being black's score; see `scripts/tune/records_to_games.py`) and prints one CSV line
//! per quiet position: the side to move's result (1, 0.5 or 0), the rule (0 freestyle,
//! 1 renju, 2 other), whether black is to move, then the evaluation's features.

use std::io::BufRead;

use tengen_rules::{Board, BoardSize, Color, Rule, parse_point};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "result,rule,black_to_move,{}",
        tengen_engine::features::names().join(",")
    );
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let mut words = line.split_whitespace();
        let (Some(rule), Some(black_score)) = (words.next(), words.next()) else {
            continue;
        };
        let rule: Rule = rule.parse()?;
        let black_score: f64 = black_score.parse()?;
        let rule_code = match rule {
            Rule::Freestyle => 0,
            Rule::Renju => 1,
            _ => 2,
        };
        let size = BoardSize::STANDARD;
        let mut board = Board::new(size);
        let mut side = Color::Black;
        for (i, m) in words.enumerate() {
            // The random opening's stones say nothing about the players.
            if i >= 4 {
                if let Some(f) = tengen_engine::features::features(&board, rule, side) {
                    let y = if side == Color::Black {
                        black_score
                    } else {
                        1.0 - black_score
                    };
                    let f: Vec<String> = f.iter().map(i32::to_string).collect();
                    let black = (side == Color::Black) as u8;
                    println!("{y},{rule_code},{black},{}", f.join(","));
                }
            }
            board.place(parse_point(size, m)?, side)?;
            side = side.opponent();
        }
    }
    Ok(())
}
