//! The `tengen` command line: parses arguments and calls the library.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use tengen_rules::{BoardSize, RecordFormat, Rule};

#[derive(Parser)]
#[command(
    name = "tengen",
    version,
    about = "Gomoku and Renju: rules, engine and app"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Judge a game record: who won and why, whose turn it is, black's forbidden points.
    Referee(RefereeArgs),
}

#[derive(clap::Args)]
struct RefereeArgs {
    /// The record file (plain move list, .psq or .sgf); standard input when absent or `-`.
    file: Option<PathBuf>,
    /// freestyle, standard, renju or caro (default: the record's own rule, else freestyle).
    #[arg(long)]
    rule: Option<Rule>,
    /// Board size for plain move lists: 15, 16x14 or unbounded.
    #[arg(long, default_value = "15")]
    size: BoardSize,
    /// plain, psq or sgf (default: detected from the text; a plain list when in doubt).
    #[arg(long)]
    format: Option<RecordFormat>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Referee(args) => referee(args),
    }
}

fn read_input(file: Option<&PathBuf>) -> anyhow::Result<String> {
    match file {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
        }
        _ => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read standard input")?;
            Ok(text)
        }
    }
}

fn referee(args: RefereeArgs) -> ExitCode {
    let judged = read_input(args.file.as_ref()).and_then(|text| {
        tengen::referee::judge_text(&text, args.format, args.size, args.rule).map_err(Into::into)
    });
    match judged {
        Ok(j) if args.json => match serde_json::to_string(&j) {
            Ok(s) => {
                println!("{s}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("tengen referee: {e}");
                ExitCode::FAILURE
            }
        },
        Ok(j) => {
            print!("{}", j.to_text());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("tengen referee: {e:#}");
            ExitCode::from(2)
        }
    }
}
