//! Reads the tuning's game list on standard input (one game a line: `RULE RESULT MOVES...`,
//! RESULT being black's score; see `scripts/tune/records_to_games.py`) and prints one CSV line
//! per quiet position: the side to move's result (1, 0.5 or 0), the rule (0 freestyle,
//! 1 renju, 2 standard, 3 caro), whether black is to move, then the evaluation's features.
//!
//! `--search-nodes N` adds a last column, `search`: the engine's own score of the position for
//! the side to move after a search of N nodes on one thread (a proven win or loss as ±3000,
//! twenty times a logit at the evaluation's scale), so that a fit can learn what a search would
//! say as well as who won; `--eval FILE` has those searches use a weights file instead of the
//! built-in weights. `--part I/K` reads only every K-th game from the I-th (counting from 0), to
//! split that slow work between processes. `--minus-parent` prints each position's features
//! less those of the position before it (for the evaluation with the `minus_parent` weight).

use std::sync::atomic::AtomicBool;

use tengen_engine::{Engine, EvalWeights, Limits};
use tengen_rules::{Board, BoardSize, Color, Rule};

#[path = "shared/game_list.rs"]
mod game_list;

/// A proven result in the `search` column.
const DECIDED: i32 = 3000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut search_nodes = None;
    let mut minus_parent = false;
    let mut weights = None;
    let (mut part, mut parts) = (0usize, 1usize);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--minus-parent" {
            minus_parent = true;
            continue;
        }
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--search-nodes" => search_nodes = Some(value.parse::<u64>()?),
            "--eval" => {
                let text = std::fs::read_to_string(&value)?;
                weights = Some(
                    text.parse::<EvalWeights>()
                        .map_err(|e| format!("{value}: {e}"))?,
                );
            }
            "--part" => {
                let (i, k) = value.split_once('/').ok_or("--part takes I/K")?;
                (part, parts) = (i.parse()?, k.parse()?);
                if parts == 0 || part >= parts {
                    return Err("--part I/K needs I < K".into());
                }
            }
            _ => return Err(format!("unknown argument {arg}").into()),
        }
    }
    let mut engine = Engine::new(16);
    engine.set_eval_weights(weights);
    let stop = AtomicBool::new(false);
    println!(
        "result,rule,black_to_move,{}{}",
        tengen_engine::features::names().join(","),
        if search_nodes.is_some() {
            ",search"
        } else {
            ""
        }
    );
    let mut index = 0usize;
    game_list::for_each_game(|game| {
        index += 1;
        if (index - 1) % parts != part {
            return Ok(());
        }
        let (rule, black_score) = (game.rule, game.black_score);
        let rule_code = match rule {
            Rule::Freestyle => 0,
            Rule::Renju => 1,
            Rule::Standard => 2,
            Rule::Caro | Rule::CaroOverlines => 3,
        };
        // Each game's searches start from an empty table, so a part's output does not depend
        // on which games came before it.
        engine.clear_hash();
        let mut board = Board::new(BoardSize::STANDARD);
        let mut before = board.clone();
        let mut side = Color::Black;
        for (i, &m) in game.moves.iter().enumerate() {
            // The random opening's stones say nothing about the players.
            if i >= 4 {
                let f = if minus_parent {
                    tengen_engine::features::features_minus_parent(&before, &board, rule, side)
                } else {
                    tengen_engine::features::features(&board, rule, side)
                };
                if let Some(f) = f {
                    let y = if side == Color::Black {
                        black_score
                    } else {
                        1.0 - black_score
                    };
                    let f: Vec<String> = f.iter().map(i32::to_string).collect();
                    let black = (side == Color::Black) as u8;
                    let search = match search_nodes {
                        Some(nodes) => {
                            let limits = Limits {
                                nodes: Some(nodes),
                                ..Limits::default()
                            };
                            let result =
                                engine.search(&board, rule, side, &limits, &stop, &mut |_| {});
                            // A proven result's value (about ±30,000) clamps to ±DECIDED.
                            let score = result
                                .score()
                                .map_or(0, |s| s.value().clamp(-DECIDED, DECIDED));
                            format!(",{score}")
                        }
                        None => String::new(),
                    };
                    println!("{y},{rule_code},{black},{}{search}", f.join(","));
                }
            }
            before = board.clone();
            board.place(m, side)?;
            side = side.opponent();
        }
        Ok(())
    })
}
