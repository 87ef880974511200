//! Reads the tuning's game list on standard input (one game a line: `RULE RESULT MOVES...`, see
//! `scripts/tune/records_to_games.py`) and writes, for every position from the fifth stone on
//! whose played move is among the generator's candidates, one 32-byte record per candidate to
//! standard output (little-endian): position number (u32), weight table (u8), whether the
//! moves answer an open three (u8), whether this is the move played (u8), the side to move's
//! result times two (u8), then the candidate's table indices (12 × u16). Read by
//! `scripts/tune/fit_order.py`.

use std::io::Write;

#[path = "shared/game_list.rs"]
mod game_list;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let mut position: u32 = 0;
    game_list::for_each_game(|game| {
        let moves = &game.moves;
        for i in 4..moves.len() {
            let Some(sample) = tengen_engine::features::order_sample(
                tengen_rules::BoardSize::STANDARD,
                game.rule,
                &moves[..i],
            ) else {
                continue;
            };
            let Some(played) = sample.moves.iter().position(|&m| m == moves[i]) else {
                continue;
            };
            let score = if i % 2 == 0 {
                game.black_score
            } else {
                1.0 - game.black_score
            };
            for (k, f) in sample.features.iter().enumerate() {
                out.write_all(&position.to_le_bytes())?;
                out.write_all(&[
                    sample.table as u8,
                    sample.forced as u8,
                    (k == played) as u8,
                    (score * 2.0).round() as u8,
                ])?;
                for x in f {
                    out.write_all(&x.to_le_bytes())?;
                }
            }
            position += 1;
        }
        Ok(())
    })?;
    out.flush()?;
    Ok(())
}
