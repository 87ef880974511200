//! `pbrain-tengen`: Tengen as a Gomocup (Piskvork) brain on standard input and output.
//! Thin: reads the command line and runs the protocol library's brain loop. See
//! `docs/protocol.md` for the commands it understands.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Parser;
use tengen_engine::Level;
use tengen_protocol::brain::{self, BrainOptions};

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
    let options = BrainOptions {
        level: args.level,
        seed,
        hash_mb: args.hash.max(1),
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
