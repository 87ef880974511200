//! Reads the tuning's game list on standard input (one game a line: `RULE RESULT MOVES...`,
//! RESULT being black's score; see `scripts/tune/records_to_games.py`) and prints one CSV line
//! per quiet position: the side to move's result (1, 0.5 or 0), the rule (0 freestyle,
//! 1 renju, 2 other), whether black is to move, then the evaluation's features.

use tengen_rules::{Board, BoardSize, Color, Rule};

#[path = "shared/game_list.rs"]
mod game_list;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "result,rule,black_to_move,{}",
        tengen_engine::features::names().join(",")
    );
    game_list::for_each_game(|game| {
        let (rule, black_score) = (game.rule, game.black_score);
        let rule_code = match rule {
            Rule::Freestyle => 0,
            Rule::Renju => 1,
            _ => 2,
        };
        let mut board = Board::new(BoardSize::STANDARD);
        let mut side = Color::Black;
        for (i, &m) in game.moves.iter().enumerate() {
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
            board.place(m, side)?;
            side = side.opponent();
        }
        Ok(())
    })
}
