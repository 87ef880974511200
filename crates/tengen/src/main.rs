//! The `tengen` command line: parses arguments and calls the library.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use tengen_rules::{BoardSize, RecordFormat, Rule};

#[derive(Parser)]
#[command(
    name = "tengen",
    version,
    about = "Gomoku and Renju: rules, engine and app",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// What to do (default: `serve`, the web app).
    #[command(subcommand)]
    command: Option<Command>,
    /// With no command, `tengen` serves the web app and takes `serve`'s options.
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Run the web app: play in the browser against the computer or a friend.
    Serve(ServeArgs),
    /// Judge a game record: who won and why, whose turn it is, black's forbidden points.
    Referee(RefereeArgs),
    /// Play in the terminal: against the computer, two people at one keyboard, or the computer
    /// against itself.
    Play(PlayArgs),
    /// Analyse the position a record reaches: best move, evaluation, best line, N best.
    Analyze(AnalyzeArgs),
    /// Search a fixed set of positions to a fixed depth; the node count is the search's signature.
    Bench(BenchArgs),
    /// Play engines against each other: matches, round robins, gauntlets, SPRT.
    Match(MatchArgs),
    /// Print random openings the engine judges balanced, one a line, for `match --openings`.
    Openings(OpeningsArgs),
    /// Play a seat of an online game with the engine or a Gomocup brain.
    Bot(BotArgs),
    /// Load-test a server's online play: N games at once of random moves, over loopback.
    Loadtest(LoadtestArgs),
}

#[derive(clap::Args)]
struct PlayArgs {
    /// freestyle, standard, renju, caro or caro-overlines (default: a loaded record's own rule,
    /// else freestyle).
    #[arg(long)]
    rule: Option<Rule>,
    /// Board size: 15, 20, 16x14 (any side from 5 to 100) or unbounded.
    #[arg(long, default_value = "15")]
    size: BoardSize,
    /// Opening rule: free, beginner (centre first), swap or swap2.
    #[arg(long, default_value = "free")]
    opening: tengen_rules::OpeningRule,
    /// The computer's level: beginner, intermediate, expert or master.
    #[arg(long, default_value = "expert")]
    level: tengen_engine::Level,
    /// The side you play: black, white, both (two people) or none (the computer plays itself).
    /// Under swap openings black is the first player, who places the opening stones.
    #[arg(long, default_value = "black")]
    you: tengen::play::Players,
    /// The computer's time for a move, in milliseconds (its level may take less).
    #[arg(long, default_value_t = 3_000)]
    time: u64,
    /// The computer's search threads (default: every core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=tengen_engine::MAX_THREADS as i64))]
    threads: Option<u16>,
    /// Seed of the lower levels' human-like choices (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Go on from the game in this record (plain move list, .psq or .sgf).
    #[arg(long)]
    load: Option<PathBuf>,
}

#[derive(clap::Args)]
struct AnalyzeArgs {
    #[command(flatten)]
    record: RecordArgs,
    /// Think for this many milliseconds (default 3000 unless --nodes or --depth is given).
    #[arg(long)]
    time: Option<u64>,
    /// Stop after this many nodes (repeatable results).
    #[arg(long)]
    nodes: Option<u64>,
    /// Search to this depth (repeatable results).
    #[arg(long)]
    depth: Option<u32>,
    /// Report this many best moves (at least 1).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    multipv: u16,
    /// Search threads (default: every core, but 1 with --nodes or --depth, whose results then
    /// repeat exactly).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=tengen_engine::MAX_THREADS as i64))]
    threads: Option<u16>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct OpeningsArgs {
    /// The rule the openings are judged under.
    #[arg(long, default_value = "freestyle")]
    rule: Rule,
    /// Board size: 15, 20 or WxH.
    #[arg(long, default_value = "15")]
    size: BoardSize,
    /// How many openings.
    #[arg(long, default_value_t = 100)]
    count: u32,
    /// Seed of the first opening (the next ones take the following seeds).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The search budget that judges each candidate.
    #[arg(long, default_value_t = tengen_engine::opening_set::JUDGE_NODES)]
    nodes: u64,
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Depth of every bench search.
    // Eight, so that the signature covers the steps that start at six plies left (the singular
    // extension and the multi-cut).
    #[arg(long, default_value_t = 8)]
    depth: u32,
}

#[derive(clap::Args)]
struct RecordArgs {
    /// The record file (plain move list, .psq or .sgf); standard input when absent or `-`.
    file: Option<PathBuf>,
    /// freestyle, standard, renju, caro or caro-overlines (default: the record's own rule, else
    /// freestyle).
    #[arg(long)]
    rule: Option<Rule>,
    /// Board size for plain move lists: 15, 16x14 or unbounded.
    #[arg(long, default_value = "15")]
    size: BoardSize,
    /// plain, psq or sgf (default: detected from the text; a plain list when in doubt).
    #[arg(long)]
    format: Option<RecordFormat>,
}

#[derive(clap::Args)]
struct RefereeArgs {
    #[command(flatten)]
    record: RecordArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve(cli.serve)) {
        Command::Serve(args) => serve(args),
        Command::Referee(args) => referee(args),
        Command::Play(args) => play(args),
        Command::Analyze(args) => analyze(args),
        Command::Bench(args) => bench(args),
        Command::Match(args) => run_match(args),
        Command::Openings(args) => openings(args),
        Command::Bot(args) => bot(args),
        Command::Loadtest(args) => loadtest(args),
    }
}

/// Writes `text` to standard output and flushes it.
fn write_out(text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Standard output could not be written, told apart from a command's other failures.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the output: {0}")]
struct OutputError(std::io::Error);

/// How a command ends when its output could not be written: quietly and successfully when the
/// reader went away (a closed pipe, as `| head` leaves it), as other command-line tools do;
/// otherwise (a full disk) with the reason and a failure.
fn output_failed(command: &str, e: &std::io::Error) -> ExitCode {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    eprintln!(
        "tengen {command}: cannot write the output: {}",
        tengen::io_words(e)
    );
    ExitCode::FAILURE
}

/// Writes a command's output: on failure, the command's exit status (see [`output_failed`]).
fn emit(command: &str, text: &str) -> Result<(), ExitCode> {
    write_out(text).map_err(|e| output_failed(command, &e))
}

/// Writes a command's last output and ends it: success, or as [`output_failed`] says.
fn emit_last(command: &str, text: &str) -> ExitCode {
    emit(command, text).map_or_else(|code| code, |()| ExitCode::SUCCESS)
}

// --- serve -------------------------------------------------------------------------------

#[derive(clap::Args)]
struct ServeArgs {
    /// The port to listen on (0 for any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Open the app in the browser once the server listens.
    #[arg(long)]
    open: bool,
    /// Where the results database lives (default: the user's data folder, e.g.
    /// ~/.local/share/tengen).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// A database URL, overriding --data-dir: sqlite:/path/file.db, or
    /// postgres://user:password@host/database (an existing database; the tables are made).
    #[arg(long)]
    database: Option<String>,
    /// How many engine searches may run at once (default: the number of cores).
    #[arg(long)]
    engine_threads: Option<usize>,
    /// How many of the engine threads hints and analyses may hold at once (default: all but
    /// one, so computer moves always find one).
    #[arg(long)]
    analysis_threads: Option<usize>,
    /// How long a player of an online game may be gone before the opponent may claim the win.
    #[arg(long, default_value_t = 120)]
    grace_secs: u64,
    /// Seconds a client has to send a request's head once it starts one, and its body.
    #[arg(long, default_value_t = 10)]
    read_timeout_secs: u64,
    /// Seconds a connection may stay open with nothing moving and no request being handled.
    #[arg(long, default_value_t = 60)]
    idle_timeout_secs: u64,
    /// Open connections per client address (0: no cap).
    #[arg(long, default_value_t = 256)]
    connections_per_client: u32,
    /// API requests per client address per second, once its burst is spent (0: no limit).
    #[arg(long, default_value_t = 30)]
    requests_per_second: u32,
    /// API requests a client address may make at once before --requests-per-second applies
    /// (0: no limit).
    #[arg(long, default_value_t = 300)]
    request_burst: u32,
    /// New games per client address per minute (0: no limit).
    #[arg(long, default_value_t = 30)]
    games_per_minute: u32,
    /// Seconds of engine time for hints and analyses per client address per minute (0: no
    /// limit).
    #[arg(long, default_value_t = 60)]
    analysis_secs_per_minute: u32,
    /// Hours an online game nobody joined stays open.
    #[arg(long, default_value_t = 24.0)]
    unjoined_expiry_hours: f64,
    /// No per-client limits (connections, requests, new games, analysis time): for a load
    /// test from this machine, or behind a proxy that limits clients itself.
    #[arg(long)]
    no_client_limits: bool,
    /// A message bus (redis://host:port) shared with other nodes serving the same site from
    /// the same PostgreSQL --database: players on different nodes play the same games
    /// (docs/deploy.md).
    #[arg(long)]
    bus: Option<String>,
    /// This node's name among the others (default: the host's name and random digits).
    #[arg(long)]
    node: Option<String>,
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs {
            port: 8080,
            host: "127.0.0.1".into(),
            open: false,
            data_dir: None,
            database: None,
            engine_threads: None,
            analysis_threads: None,
            grace_secs: 120,
            read_timeout_secs: 10,
            idle_timeout_secs: 60,
            connections_per_client: 256,
            requests_per_second: 30,
            request_burst: 300,
            games_per_minute: 30,
            analysis_secs_per_minute: 60,
            unjoined_expiry_hours: 24.0,
            no_client_limits: false,
            bus: None,
            node: None,
        }
    }
}

/// Log lines on standard error: `RUST_LOG` chooses what (default: `info`; `debug` adds every
/// request).
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colours only for a person at a terminal, not in a log file.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn serve(args: ServeArgs) -> ExitCode {
    let mut config = tengen_server::Config::new(
        args.data_dir
            .unwrap_or_else(tengen_server::default_data_dir),
    );
    config.host = args.host;
    config.port = args.port;
    config.database = args.database;
    config.bus = args.bus;
    config.node = args.node;
    config.engine_threads = args.engine_threads;
    config.analysis_threads = args.analysis_threads;
    config.grace_secs = args.grace_secs;
    config.read_timeout = Duration::from_secs(args.read_timeout_secs.max(1));
    config.idle_timeout = Duration::from_secs(args.idle_timeout_secs.max(1));
    config.connections_per_client = args.connections_per_client;
    config.requests_per_second = args.requests_per_second;
    config.request_burst = args.request_burst;
    config.games_per_minute = args.games_per_minute;
    config.analysis_secs_per_minute = args.analysis_secs_per_minute;
    config.unjoined_expiry =
        Duration::try_from_secs_f64(args.unjoined_expiry_hours.max(0.0) * 3600.0)
            .unwrap_or(Duration::MAX);
    if args.no_client_limits {
        config = config.without_client_limits();
    }
    init_logging();
    // Every online player holds a connection: allow as many open files as the system lets us.
    if let Ok(limit) = rlimit::increase_nofile_limit(u64::MAX) {
        if limit < 4096 {
            eprintln!(
                "tengen serve: at most {limit} open files; online games are limited to about {} players",
                limit.saturating_sub(64)
            );
        }
    }
    let open = args.open;
    let run = tengen_server::run_blocking(&config, |addr| {
        let url = format!("http://{addr}/");
        // The address line is what scripts wait for: out at once. Nobody reading it is no
        // reason to stop serving.
        let _ = write_out(&format!("Tengen is listening on {url}\n"));
        if open && !tengen_server::open_browser(&url) {
            eprintln!("tengen serve: could not open a browser; visit {url}");
        }
    });
    match run {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tengen serve: {:#}", anyhow::Error::from(e));
            ExitCode::FAILURE
        }
    }
}

// --- end of serve --------------------------------------------------------------------------

/// The most a record given to `referee` or `analyze` may weigh. A game on the largest board
/// takes well under a megabyte in any format; this leaves room for SGF collections (only their
/// first game is read) while keeping a runaway input from taking all memory.
const MAX_INPUT_BYTES: u64 = 64 << 20;

fn read_input(file: Option<&PathBuf>) -> anyhow::Result<String> {
    let (reader, name): (Box<dyn Read>, String) = match file {
        Some(path) if path.as_os_str() != "-" => (
            Box::new(std::fs::File::open(path).map_err(|e| {
                anyhow::anyhow!("cannot read {}: {}", path.display(), tengen::io_words(&e))
            })?),
            path.display().to_string(),
        ),
        _ => (Box::new(std::io::stdin()), "standard input".to_string()),
    };
    // One byte more than allowed tells a long input from one of exactly the limit.
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot read {name}: {}", tengen::io_words(&e)))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        anyhow::bail!(
            "{name} is longer than {} MiB, more than any game record",
            MAX_INPUT_BYTES >> 20
        );
    }
    Ok(text_of(bytes))
}

/// A record's text: UTF-8, or else Latin-1 (ISO 8859-1, what an SGF's `CA[ISO-8859-1]` names and
/// older Windows managers write), where every byte is a character. A record's moves and
/// keywords are ASCII either way; only names and comments read differently.
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes)
        .unwrap_or_else(|e| e.into_bytes().into_iter().map(char::from).collect())
}

fn referee(args: RefereeArgs) -> ExitCode {
    let r = &args.record;
    let judged = read_input(r.file.as_ref()).and_then(|text| {
        tengen::referee::judge_text(&text, r.format, r.size, r.rule).map_err(Into::into)
    });
    report("referee", judged, args.json, |j| j.to_text())
}

fn analyze(args: AnalyzeArgs) -> ExitCode {
    let r = &args.record;
    let fixed = args.nodes.is_some() || args.depth.is_some();
    let limits = tengen_engine::Limits {
        time: args
            .time
            .or((!fixed).then_some(3_000))
            .map(std::time::Duration::from_millis),
        nodes: args.nodes,
        depth: args.depth,
        multipv: usize::from(args.multipv),
        soft_time: None,
    };
    let threads = args.threads.map_or_else(
        || {
            if fixed { 1 } else { all_cores() }
        },
        usize::from,
    );
    // Each finished depth on a terminal, so a long search is seen to progress; scripts reading
    // standard error through a pipe get only the errors.
    let on_terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut progress = |line: &str| {
        if on_terminal {
            eprintln!("{line}");
        }
    };
    let analysed = read_input(r.file.as_ref()).and_then(|text| {
        tengen::analyze::analyze_text(
            &text,
            r.format,
            r.size,
            r.rule,
            &limits,
            threads,
            &mut progress,
        )
        .map_err(Into::into)
    });
    report("analyze", analysed, args.json, |a| a.to_text())
}

fn play(args: PlayArgs) -> ExitCode {
    let record = match &args.load {
        None => None,
        Some(path) => match read_input(Some(path)).and_then(|text| {
            tengen_rules::Record::parse_auto(&text, args.size)
                .with_context(|| format!("cannot read the record {}", path.display()))
        }) {
            Ok(r) => Some(r),
            Err(e) => {
                eprintln!("tengen play: {e:#}");
                return ExitCode::FAILURE;
            }
        },
    };
    let options = tengen::play::PlayOptions {
        size: record.as_ref().map_or(args.size, |r| r.size),
        rule: args
            .rule
            .or(record.as_ref().and_then(|r| r.rule))
            .unwrap_or_default(),
        opening: args.opening,
        level: args.level,
        players: args.you,
        move_time: Duration::from_millis(args.time),
        threads: args.threads.map_or_else(all_cores, usize::from),
        seed: args.seed.unwrap_or_else(clock_seed),
        record,
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match tengen::play::play(&options, &mut input, &mut out) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tengen play: {:#}", anyhow::Error::from(e));
            ExitCode::FAILURE
        }
    }
}

/// Every core the machine offers (1 when it cannot say).
fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A seed that differs from run to run: the clock's nanoseconds.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn bench(args: BenchArgs) -> ExitCode {
    let r = tengen_engine::bench::bench(args.depth);
    let text = format!(
        "positions {}\ndepth {}\nnodes {}\ntime {} ms\nnps {}\n",
        r.positions,
        args.depth,
        r.nodes,
        r.elapsed.as_millis(),
        r.nps()
    );
    emit_last("bench", &text)
}

fn openings(args: OpeningsArgs) -> ExitCode {
    use std::sync::atomic::AtomicBool;
    let stop = AtomicBool::new(false);
    let centre = args.size.center();
    let mut given = 0;
    let openings = tengen_engine::opening_set::distinct_balanced_openings(
        args.size, args.rule, args.seed, args.nodes, &stop,
    );
    for (seed, o) in openings.take(args.count as usize) {
        given += 1;
        // Piskvork's offsets from the centre, y down, as `match --openings FILE` reads them.
        let offsets: Vec<String> = o
            .moves
            .iter()
            .map(|p| format!("{},{}", p.x - centre.x, p.y - centre.y))
            .collect();
        let line = format!(
            "{}  # seed {seed}, black {:+}\n",
            offsets.join(", "),
            o.black_value
        );
        // Each opening as it is found: the search for the next may take a while.
        if let Err(code) = emit("openings", &line) {
            return code;
        }
    }
    if given < args.count {
        eprintln!(
            "tengen openings: {given} of {} found; the next seed found no balanced opening",
            args.count
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Prints a command's result as JSON or text; a failure to read or replay the record exits 2.
fn report<T: serde::Serialize>(
    command: &str,
    result: anyhow::Result<T>,
    json: bool,
    text: impl Fn(&T) -> String,
) -> ExitCode {
    match result {
        Ok(v) if json => match serde_json::to_string(&v) {
            Ok(s) => emit_last(command, &format!("{s}\n")),
            Err(e) => {
                eprintln!("tengen {command}: {e}");
                ExitCode::FAILURE
            }
        },
        Ok(v) => emit_last(command, &text(&v)),
        Err(e) => {
            eprintln!("tengen {command}: {e:#}");
            ExitCode::from(2)
        }
    }
}

// ---- `tengen match` (crates/tengen-match) -------------------------------------------------

/// The engine syntax, shown after `tengen match --help`.
const MATCH_HELP: &str = "\
ENGINES: --engine cmd=PROGRAM [arg=ARG]... [name=NAME] [dir=DIR] [option=KEY=VALUE]...
  cmd= is split like a shell would: cmd=\"python3 bot.py expert\" is a program and two arguments;
  arg= adds one argument verbatim (spaces kept); option=KEY=VALUE is sent as INFO KEY VALUE.
Example:
  tengen match --engine cmd=target/release/pbrain-tengen arg=--level arg=expert name=expert \\
    --engine cmd=\"python3 classicbot.py expert\" name=classic --games 10 --tc 500";

/// `tengen match`: engine-vs-engine games between Gomocup brains.
#[derive(clap::Args)]
#[command(after_help = MATCH_HELP)]
struct MatchArgs {
    /// An engine: cmd=PROGRAM [arg=ARG]... [name=NAME] [dir=DIR] [option=KEY=VALUE]... (repeat
    /// --engine for each engine).
    #[arg(long, required = true, num_args = 1.., value_name = "KEY=VALUE",
          action = clap::ArgAction::Append)]
    engine: Vec<String>,
    /// round-robin or gauntlet (the first engine against the others); default: a match of two.
    #[arg(long)]
    tournament: Option<String>,
    /// Games per pairing (default: 2 per round, colours swapped).
    #[arg(long)]
    games: Option<u32>,
    /// Rounds; each is one colour-swapped pair of games per pairing.
    #[arg(long, default_value_t = 1)]
    rounds: u32,
    /// freestyle, standard, renju, caro or caro-overlines.
    #[arg(long, default_value = "freestyle")]
    rule: Rule,
    /// Board size: 15, 20 or WxH.
    #[arg(long, default_value = "15")]
    size: BoardSize,
    /// Time control: MS per move (1000) or SECONDS+INCREMENT (60+1).
    #[arg(long, default_value = "1000")]
    tc: String,
    /// Milliseconds a brain may go over its time before it loses on time.
    #[arg(long, default_value_t = 100)]
    timemargin: u64,
    /// INFO max_node: the most nodes per search.
    #[arg(long)]
    nodes: Option<u64>,
    /// INFO max_depth: the deepest search.
    #[arg(long)]
    depth: Option<u32>,
    /// A draw after this many moves (stones on the board, the opening's included).
    #[arg(long)]
    maxmoves: Option<u32>,
    /// balanced (100 openings judged even by the engine, see `tengen openings`), renju26,
    /// random (near the centre, not judged), or a file (Piskvork offsets `dx,dy, ...` or move
    /// lists `h8 i9`, one opening a line); each opening is played twice, colours swapped.
    #[arg(long)]
    openings: Option<String>,
    /// Apply a random symmetry of the board to each opening.
    #[arg(long)]
    rotate: bool,
    /// Seed for random openings and symmetries (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Sequential test (two engines): elo0=0 elo1=5 alpha=0.05 beta=0.05; stops at a bound.
    #[arg(long, num_args = 0.., value_name = "KEY=VALUE")]
    sprt: Option<Vec<String>>,
    /// Write every game as NNNN-black-vs-white.psq and .txt into this folder.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print one JSON summary on standard output (the table goes to standard error).
    #[arg(long)]
    json: bool,
}

fn run_match(args: MatchArgs) -> ExitCode {
    match match_inner(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => match e.downcast_ref::<OutputError>() {
            // The summary could not be written (the games were played).
            Some(OutputError(io)) => output_failed("match", io),
            None => {
                eprintln!("tengen match: {e:#}");
                ExitCode::from(2)
            }
        },
    }
}

fn match_inner(args: MatchArgs) -> anyhow::Result<()> {
    use std::io::Write as _;
    use tengen_match::{EngineSpec, MatchConfig, OpeningSource, Tournament};

    let engines = engine_groups(std::env::args().skip(1), &args.engine)
        .iter()
        .map(|words| EngineSpec::parse(words))
        .collect::<Result<Vec<_>, _>>()?;
    let mut config = MatchConfig::new(engines);
    config.tournament = match &args.tournament {
        Some(t) => t.parse()?,
        None => Tournament::Match,
    };
    config.games = args.games;
    config.rounds = args.rounds;
    config.settings.size = args.size;
    config.settings.rule = args.rule;
    config.settings.tc = args.tc.parse()?;
    config.settings.margin_ms = args.timemargin;
    config.settings.nodes = args.nodes;
    config.settings.depth = args.depth;
    config.settings.max_moves = args.maxmoves;
    if let Some(o) = &args.openings {
        config.openings = OpeningSource::from_arg(o, args.size, args.rule)?;
    }
    config.rotate = args.rotate;
    // Any varying value will do: the seed only picks random openings and symmetries.
    config.seed = args.seed.unwrap_or_else(clock_seed);
    config.concurrency = args.concurrency.max(1);
    config.sprt = args
        .sprt
        .as_deref()
        .map(tengen_match::parse_sprt)
        .transpose()?;
    config.out = args.out.clone();

    let mut width = 0;
    let summary = tengen_match::run(&config, &mut |p| {
        // One line rewritten in place; padded so a shorter line leaves no tail behind.
        width = width.max(p.line.len());
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{:<width$}", p.line);
        let _ = err.flush();
    })?;
    eprintln!();
    if args.json {
        // The table still goes to the terminal; standard output stays pure JSON.
        eprint!("{}", summary.table());
        write_out(&format!("{}\n", serde_json::to_string(&summary)?)).map_err(OutputError)?;
    } else {
        write_out(&summary.table()).map_err(OutputError)?;
    }
    Ok(())
}

/// The words of each `--engine` occurrence. clap's derive flattens repeated multi-value options
/// into one list, so the grouping is read back from the raw arguments: each `--engine` takes the
/// words after it up to the next option. `flat` (clap's list) is the check that both agree.
fn engine_groups(raw: impl Iterator<Item = String>, flat: &[String]) -> Vec<Vec<String>> {
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut inside = false;
    for arg in raw {
        if arg == "--" {
            break;
        } else if arg == "--engine" {
            groups.push(Vec::new());
            inside = true;
        } else if let Some(word) = arg.strip_prefix("--engine=") {
            groups.push(vec![word.to_string()]);
            inside = true;
        } else if arg.starts_with("--") {
            inside = false;
        } else if inside {
            if let Some(g) = groups.last_mut() {
                g.push(arg);
            }
        }
    }
    if groups.concat() == flat {
        groups
    } else {
        vec![flat.to_vec()]
    }
}

// ---- end of `tengen match` -----------------------------------------------------------------

// ---- `tengen bot` and `tengen loadtest` (online play) -----------------------------------------

#[derive(clap::Args)]
struct BotArgs {
    /// The server: http://host:port.
    #[arg(long)]
    server: String,
    /// The game's id (the part after #online= in the invitation link).
    #[arg(long)]
    game: String,
    /// Act for the seat this token holds (from creating or joining the game) instead of
    /// joining the free seat.
    #[arg(long)]
    token: Option<String>,
    /// The name to join under (default: "Tengen (LEVEL)" or the brain's file name).
    #[arg(long)]
    name: Option<String>,
    /// Tengen's engine at this level: beginner, intermediate, expert or master.
    #[arg(long, default_value = "expert", conflicts_with = "brain")]
    level: tengen_engine::Level,
    /// A Gomocup brain to play instead: its command line, split like a shell would.
    #[arg(long)]
    brain: Option<String>,
    /// Ask for or accept up to this many rematches after the game.
    #[arg(long, default_value_t = 0)]
    rematch: u32,
}

fn bot(args: BotArgs) -> ExitCode {
    let config = tengen_client::bot::BotConfig {
        server: args.server,
        game: args.game,
        token: args.token,
        name: args.name,
        player: match args.brain {
            Some(command) => tengen_client::bot::Player::Brain(command),
            None => tengen_client::bot::Player::Engine(args.level),
        },
        rematch: args.rematch,
    };
    // Whoever watches the bot (a script, a test) sees each line as it happens; a watcher gone
    // does not stop the game.
    let run = tengen_client::bot::run(&config, &mut |event| {
        let _ = write_out(&format!("{}\n", event.to_text()));
    });
    match run {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tengen bot: {:#}", anyhow::Error::from(e));
            ExitCode::FAILURE
        }
    }
}

#[derive(clap::Args)]
struct LoadtestArgs {
    /// The server: http://host:port (on this machine); several, comma-separated, for nodes
    /// serving one site: each game is made on one and joined through the next.
    #[arg(long, value_delimiter = ',', required = true)]
    server: Vec<String>,
    /// Games kept in play at once (two WebSockets each).
    #[arg(long)]
    games: usize,
    /// Mean think time before each move, in milliseconds (each drawn from ±50% of it).
    #[arg(long, default_value_t = 1000)]
    think_ms: u64,
    /// How long to play, in seconds, from the first game's start.
    #[arg(long, default_value_t = 60)]
    duration_secs: u64,
    /// Start the games evenly over this many seconds (at most half the duration).
    #[arg(long, default_value_t = 10)]
    ramp_secs: u64,
    /// The board size: 15, 19, 16x14 or unbounded.
    #[arg(long, default_value = "15")]
    size: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn loadtest(args: LoadtestArgs) -> ExitCode {
    let config = tengen_client::loadtest::LoadConfig {
        servers: args.server,
        games: args.games,
        think_ms: args.think_ms,
        duration: std::time::Duration::from_secs(args.duration_secs),
        ramp: std::time::Duration::from_secs(args.ramp_secs),
        size: args.size,
    };
    let report = tengen_client::loadtest::run(&config).map_err(anyhow::Error::from);
    report_online("loadtest", report, args.json, |r| r.to_text())
}

/// Like [`report`], with exit status 1 for a failure (no record is involved).
fn report_online<T: serde::Serialize>(
    command: &str,
    result: anyhow::Result<T>,
    json: bool,
    text: impl Fn(&T) -> String,
) -> ExitCode {
    match result {
        Err(e) => {
            eprintln!("tengen {command}: {e:#}");
            ExitCode::FAILURE
        }
        ok => report(command, ok, json, text),
    }
}

// ---- end of online play ----------------------------------------------------------------------
