//! `pbrain-tengen`: Tengen as a Gomocup (Piskvork) brain on standard input and output.
//! Thin: reads the command line and runs the brain crate's loop. See
//! `docs/protocol.md` for the commands it understands.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Parser;
use tengen_brain::{self as brain, BrainOptions};
use tengen_engine::{EvalWeights, Level};

#[derive(Parser)]
#[command(
    name = "pbrain-tengen",
    version,
    about = "Tengen as a Gomocup brain: speaks the Piskvork protocol on standard input and output"
)]
struct Args {
    /// Playing strength: beginner, intermediate, expert or master (`INFO level` overrides it).
    #[arg(long, default_value = "master")]
    level: Level,
    /// Seed for the lower levels' human-like choices (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Hash table size in megabytes when the manager sends no `INFO max_memory` (at most a
    /// quarter of the machine's memory).
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// Play with the evaluation weights in this file (the form `scripts/tune/fit.py` writes)
    /// instead of the built-in ones, under every rule: how a refit is tried in games.
    #[arg(long, value_name = "FILE")]
    eval: Option<PathBuf>,
    /// Search threads when the manager sends no `INFO thread_num` (or sends 0).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=tengen_engine::MAX_THREADS as i64))]
    threads: u16,
}

fn main() -> ExitCode {
    let args = Args::parse();
    // Refused here rather than met with an abort at the first search.
    if let Err(e) = brain::check_hash_mb(args.hash as u64, None) {
        eprintln!("pbrain-tengen: --hash {}: {e}", args.hash);
        return ExitCode::from(2);
    }
    // A clock-based seed varies the lower levels' games; the nanoseconds are plenty of entropy
    // for choosing among near-equal moves.
    let seed = args.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let eval_weights = match &args.eval {
        None => None,
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| text.parse::<EvalWeights>().map_err(|e| e.to_string()))
        {
            Ok(w) => Some(w),
            Err(e) => {
                eprintln!("pbrain-tengen: --eval {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
    };
    let options = BrainOptions {
        level: args.level,
        seed,
        hash_mb: args.hash.max(1),
        eval_weights,
        threads: usize::from(args.threads),
    };
    match brain::run_stdio(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The manager is gone (a closed pipe) or unreadable: nothing more to say to it.
            eprintln!("pbrain-tengen: {e}");
            ExitCode::FAILURE
        }
    }
}
