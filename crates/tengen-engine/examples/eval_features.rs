//! Reads game records (the `.txt` files `tengen match --out` writes), one path a line on
//! standard input, and prints one CSV line per quiet position: the side to move's result
//! (1, 0.5 or 0), the rule (0 freestyle, 1 renju, 2 other), whether black is to move, then the evaluation's features.

use std::io::BufRead;

use tengen_rules::{Board, BoardSize, Color, Rule, parse_point};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "result,rule,black_to_move,{}",
        tengen_engine::features::NAMES.join(",")
    );
    for path in std::io::stdin().lock().lines() {
        let path = path?;
        let text = std::fs::read_to_string(&path)?;
        let mut rule = Rule::Freestyle;
        let mut black_score = None;
        let mut moves = "";
        for line in text.lines() {
            if let Some(r) = line.strip_prefix("# rule: ") {
                rule = r.split(',').next().unwrap_or("").parse()?;
            } else if let Some(r) = line.strip_prefix("# result: ") {
                black_score = match r.trim() {
                    "1-0" => Some(1.0),
                    "0-1" => Some(0.0),
                    "1/2-1/2" => Some(0.5),
                    _ => None,
                };
            } else if !line.starts_with('#') && !line.trim().is_empty() {
                moves = line;
            }
        }
        let Some(black_score) = black_score else {
            continue;
        };
        let rule_code = match rule {
            Rule::Freestyle => 0,
            Rule::Renju => 1,
            _ => 2,
        };
        let size = BoardSize::STANDARD;
        let mut board = Board::new(size);
        let mut side = Color::Black;
        for (i, m) in moves.split_whitespace().enumerate() {
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
