//! Lazy SMP's speed-up: the time one thread and N threads take to reach the same depth, over a
//! list of positions, each searched `REPEATS` times by each engine.
//!
//! ```text
//! cargo run --release -p tengen-engine --example time_to_depth -- 2 3 \
//!     < crates/tengen-engine/tests/data/middlegames.txt
//! ```
//!
//! Each line of the list is `RULE DEPTH MOVES...` (moves in renju notation on 15x15). The table
//! is cleared before each search, which writes every page of it: a fresh table's first search
//! pays a page fault for each page it writes, which costs a short search more than its second
//! thread gains (a process per search, as `tengen analyze` is, measures mostly that).

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use tengen_engine::{Engine, Limits};
use tengen_rules::{BoardSize, Game, Rule, parse_point};

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse()
                .expect("usage: time_to_depth THREADS REPEATS < LIST")
        })
        .collect();
    let [threads, repeats] = args[..] else {
        panic!("usage: time_to_depth THREADS REPEATS < LIST");
    };
    let list = std::io::read_to_string(std::io::stdin()).expect("a list on standard input");
    let (mut log_one, mut log_many, mut positions) = (0.0, 0.0, 0);
    for line in list
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let mut words = line.split_whitespace();
        let rule: Rule = words.next().and_then(|r| r.parse().ok()).expect("a rule");
        let depth: u32 = words.next().and_then(|d| d.parse().ok()).expect("a depth");
        let mut game = Game::new(BoardSize::STANDARD, rule);
        for m in words {
            let point = parse_point(BoardSize::STANDARD, m).expect("a point");
            game.play(point).expect("a legal move");
        }
        let one = mean_ms(&game, depth, 1, repeats);
        let many = mean_ms(&game, depth, threads, repeats);
        println!("{rule} depth {depth}: 1 thread {one:.0} ms, {threads} threads {many:.0} ms");
        log_one += one.ln();
        log_many += many.ln();
        positions += 1;
    }
    let speedup = ((log_one - log_many) / f64::from(positions)).exp();
    println!("time-to-depth speed-up (geometric mean over {positions} positions): {speedup:.2}");
}

/// The mean time, in milliseconds, an engine with `threads` threads takes to search `game` to
/// `depth`, from an empty table each time.
fn mean_ms(game: &Game, depth: u32, threads: usize, repeats: usize) -> f64 {
    let mut engine = Engine::new(64);
    engine.set_threads(threads);
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut total = 0.0;
    for _ in 0..repeats {
        engine.clear_hash();
        let start = Instant::now();
        engine.search_game(game, &limits, &AtomicBool::new(false), &mut |_| {});
        total += start.elapsed().as_secs_f64() * 1000.0;
    }
    total / repeats.max(1) as f64
}
