//! `tengen play`: a game in the terminal, against the computer, between two people at one
//! keyboard, or the computer against itself. The board is drawn as text after each change; moves
//! are typed in the notation `tengen analyze` prints (`h8`, or `x,y` on the unbounded board).

use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use tengen_engine::{Engine, Level, Limits, Score, TimeControl, decide};
use tengen_rules::{
    BoardSize, Choice, Color, ForbiddenPolicy, Game, OpeningRule, Outcome, Pending, Point, Record,
    RecordFormat, Rule, Seat, column_letters, parse_point, point_name,
};

/// Which seats the person at the keyboard plays; the computer plays the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Players {
    /// The first seat: black, or under swap openings the player who places the first stones.
    First,
    /// The second seat.
    Second,
    /// Both seats: two people at one keyboard.
    Both,
    /// Neither: the computer plays itself, and the game runs to its end without input.
    Neither,
}

impl FromStr for Players {
    type Err = String;

    /// `black` (or `first`), `white` (or `second`), `both` or `none`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "black" | "first" => Ok(Players::First),
            "white" | "second" => Ok(Players::Second),
            "both" => Ok(Players::Both),
            "none" | "neither" => Ok(Players::Neither),
            other => Err(format!(
                "unknown side {other:?} (expected black, white, both or none)"
            )),
        }
    }
}

impl Players {
    fn person_sits(self, seat: Seat) -> bool {
        match self {
            Players::First => seat == Seat::First,
            Players::Second => seat == Seat::Second,
            Players::Both => true,
            Players::Neither => false,
        }
    }
}

/// How a terminal game is set up.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The board.
    pub size: BoardSize,
    /// The rule.
    pub rule: Rule,
    /// The opening rule of a new game (a loaded record goes on without one).
    pub opening: OpeningRule,
    /// The computer's level.
    pub level: Level,
    /// The seats the person plays.
    pub players: Players,
    /// The computer's time for a move (its level may take less).
    pub move_time: Duration,
    /// The computer's search threads.
    pub threads: usize,
    /// Seed of the lower levels' human-like choices and of the opening stones.
    pub seed: u64,
    /// A game to go on from instead of an empty board.
    pub record: Option<Record>,
}

/// Why a terminal game could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// The record given to go on from has an illegal move.
    #[error("the record cannot be replayed")]
    Replay(#[from] tengen_rules::ReplayError),
    /// Reading a command or drawing the board failed.
    #[error("terminal input or output failed")]
    Io(#[from] std::io::Error),
}

/// One thing done in the game, kept for undo and redo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Move(Point),
    Choose(Choice),
}

/// What a line typed at the prompt asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Command {
    Move(String),
    Choose(Choice),
    Undo,
    Redo,
    Hint,
    Board,
    Save(String),
    Resign,
    New,
    Help,
    Quit,
}

impl Command {
    /// Reads a command: its syntax only; whether a move is legal is the game's to say.
    fn parse(line: &str) -> Option<Command> {
        let line = line.trim();
        let (word, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(w, r)| (w, r.trim()));
        let command = match word.to_ascii_lowercase().as_str() {
            "" => return None,
            "undo" | "u" | "back" => Command::Undo,
            "redo" | "r" => Command::Redo,
            "hint" | "h?" | "?" => Command::Hint,
            "board" | "b" => Command::Board,
            "save" => Command::Save(rest.to_string()),
            "resign" => Command::Resign,
            "new" => Command::New,
            "help" => Command::Help,
            "quit" | "exit" | "q" => Command::Quit,
            "black" | "white" | "place_two" | "place-two" => {
                Command::Choose(word.replace('-', "_").parse().ok()?)
            }
            _ => Command::Move(line.to_string()),
        };
        Some(command)
    }
}

const HELP: &str = "\
Commands:
  h8 (or x,y on the unbounded board)   play there
  black | white | place_two            a swap decision, when one is asked for
  undo | redo                          take back your last move (and the reply) / play it again
  hint                                 the computer's suggestion and its evaluation
  board                                draw the board again
  save FILE                            write the game (.psq, .sgf, else a plain move list)
  resign | new | quit                  give up / start again / leave
";

/// The terminal game itself: the game, the computer, and what undo and redo need.
struct Table<'a> {
    options: &'a PlayOptions,
    game: Game,
    engine: Engine,
    done: Vec<Action>,
    undone: Vec<Action>,
}

impl Table<'_> {
    /// Sets up the game to play: the options' opening on an empty board, or the record to go
    /// on from (whose moves undo can take back).
    fn start(&mut self) -> Result<(), PlayError> {
        let options = self.options;
        let mut game = match &options.record {
            Some(record) => record.replay(options.rule, ForbiddenPolicy::Lose)?,
            None => Game::with_opening(options.size, options.rule, options.opening),
        };
        // A forbidden point is refused, with the reason, rather than lost on: a friendly board.
        game.set_forbidden_policy(ForbiddenPolicy::Refuse);
        self.done = game.moves().iter().map(|&p| Action::Move(p)).collect();
        self.undone.clear();
        self.game = game;
        Ok(())
    }

    fn computer_to_act(&self) -> bool {
        match self.game.pending() {
            Pending::Move { seat, .. } | Pending::Choice { seat, .. } => {
                !self.options.players.person_sits(seat)
            }
            Pending::Over => false,
        }
    }

    fn apply(&mut self, action: Action) -> Result<(), String> {
        match action {
            Action::Move(p) => self.game.play(p).map(|_| ()),
            Action::Choose(c) => self.game.choose(c),
        }
        .map_err(|e| e.to_string())?;
        self.done.push(action);
        Ok(())
    }

    /// Takes back the last action, and then the computer's ones before it, so that the person
    /// is to act again. Returns how many were taken back.
    fn undo(&mut self) -> usize {
        let mut n = 0;
        while let Some(action) = self.done.pop() {
            self.game.undo();
            self.undone.push(action);
            n += 1;
            if !self.computer_to_act() {
                break;
            }
        }
        n
    }

    /// Plays again what [`Table::undo`] took back, up to the person's next turn.
    fn redo(&mut self) -> usize {
        let mut n = 0;
        while let Some(action) = self.undone.pop() {
            if self.apply(action).is_err() {
                self.undone.clear();
                break;
            }
            n += 1;
            if !self.computer_to_act() || self.undone.is_empty() {
                break;
            }
        }
        n
    }

    fn name(&self, p: Point) -> String {
        point_name(self.game.board().size(), p)
    }

    /// The computer acts once; returns what it did, as a sentence.
    fn computer_acts(&mut self) -> String {
        let stop = AtomicBool::new(false);
        let tc = TimeControl {
            per_move: Some(self.options.move_time.as_millis() as u64),
            left: None,
            increment: 0,
        };
        let who = self.game.to_move().map_or("", Color::name);
        let started = std::time::Instant::now();
        let act = decide::act(
            &mut self.engine,
            &self.game,
            self.options.level,
            &tc,
            self.options.seed,
            &stop,
        );
        match act {
            Some(decide::Act::Stone(Some(p))) => match self.apply(Action::Move(p)) {
                Ok(()) => format!(
                    "{} plays {} ({:.1} s).",
                    capitalised(who),
                    self.name(p),
                    started.elapsed().as_secs_f64()
                ),
                Err(e) => self.computer_gives_up(&format!("its move was refused: {e}")),
            },
            Some(decide::Act::Choose(c)) => match self.apply(Action::Choose(c)) {
                Ok(()) => format!("The computer takes {}.", choice_words(c)),
                Err(e) => self.computer_gives_up(&format!("its choice was refused: {e}")),
            },
            Some(decide::Act::Resign) => self.computer_gives_up("it sees a forced loss"),
            Some(decide::Act::Stone(None)) | None => self.computer_gives_up("it found no move"),
        }
    }

    /// The computer resigns (a proven loss, or nothing it may play).
    fn computer_gives_up(&mut self, why: &str) -> String {
        match self.game.to_move() {
            Some(c) => {
                self.game.resign(c).ok();
                format!("{} resigns: {why}.", capitalised(c.name()))
            }
            None => String::new(),
        }
    }

    /// The computer's suggestion for the side to move.
    fn hint(&mut self) -> String {
        if self.game.outcome().is_some() {
            return "The game is over.".into();
        }
        let stop = AtomicBool::new(false);
        let limits = Limits {
            time: Some(self.options.move_time.min(Duration::from_secs(3))),
            ..Limits::default()
        };
        let result = self
            .engine
            .search_game(&self.game, &limits, &stop, &mut |_| {});
        match result.lines.first() {
            Some(line) => {
                let moves: Vec<String> = line.moves.iter().map(|&p| self.name(p)).collect();
                format!(
                    "Hint: {} ({}; line {}).",
                    moves.first().map_or("-", String::as_str),
                    score_words(line.score),
                    moves.join(" ")
                )
            }
            None => "No hint: nothing to play.".into(),
        }
    }

    fn save(&self, path: &str) -> String {
        if path.is_empty() {
            return "Save where? Type save FILE (.psq, .sgf, else a plain move list).".into();
        }
        let format = match path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()) {
            Some(e) if e == "psq" => RecordFormat::Psq,
            Some(e) if e == "sgf" => RecordFormat::Sgf,
            _ => RecordFormat::Plain,
        };
        let written = Record::from_game(&self.game)
            .write(format)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                std::fs::write(path, text)
                    .map_err(|e| format!("cannot write {path}: {}", crate::io_words(&e)))
            });
        let n = self.game.moves().len();
        match written {
            Ok(()) => {
                // Piskvork's format has no place for the rule: say so, or a renju game would
                // come back as freestyle without a word.
                let lost = if format == RecordFormat::Psq && self.game.rule() != Rule::Freestyle {
                    format!(
                        " The .psq format does not keep the rule ({}): load it with --rule.",
                        self.game.rule().name()
                    )
                } else {
                    String::new()
                };
                format!(
                    "Saved {n} {} to {path} ({format}).{lost}",
                    if n == 1 { "move" } else { "moves" }
                )
            }
            Err(e) => format!("Not saved: {e}."),
        }
    }

    /// What the prompt asks for, or `None` once the game is over.
    fn prompt(&self) -> String {
        let you = |seat: Seat| {
            if self.options.players == Players::Both {
                ""
            } else if self.options.players.person_sits(seat) {
                " (you)"
            } else {
                ""
            }
        };
        match self.game.pending() {
            Pending::Move { color, seat } => {
                format!("{} to move{}> ", capitalised(color.name()), you(seat))
            }
            Pending::Choice {
                may_place_two,
                seat,
            } => format!(
                "Choose a colour{}: black, white{}> ",
                you(seat),
                if may_place_two { " or place_two" } else { "" }
            ),
            Pending::Over => "Game over: undo, new, save FILE or quit> ".into(),
        }
    }
}

/// Plays a game in the terminal: reads commands from `input`, draws on `out`, until the person
/// quits or the input ends (or, when the computer plays both sides, the game ends). Returns how
/// the last game ended, if it did.
pub fn play(
    options: &PlayOptions,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<Option<Outcome>, PlayError> {
    let mut engine = Engine::new(64);
    engine.set_threads(options.threads);
    let mut table = Table {
        options,
        game: Game::new(options.size, options.rule),
        engine,
        done: Vec::new(),
        undone: Vec::new(),
    };
    table.start()?;
    let who = match options.players {
        Players::Both => "two players at one keyboard".to_string(),
        _ => format!("the computer at {} level", options.level),
    };
    writeln!(
        out,
        "Tengen: {} on {}, {} opening, {who}. Type help for commands.",
        options.rule.name(),
        size_words(options.size),
        opening_words(table.game.opening()),
    )?;
    let mut shown = false;
    loop {
        if table.computer_to_act() {
            if options.players != Players::Neither {
                if !shown {
                    write!(out, "{}", render(&table.game))?;
                }
                writeln!(out, "The computer is thinking...")?;
                out.flush()?;
            }
            let said = table.computer_acts();
            table.undone.clear();
            writeln!(out, "{said}")?;
            shown = false;
            continue;
        }
        if !shown {
            write!(out, "{}", render(&table.game))?;
            if let Some(o) = table.game.outcome() {
                writeln!(out, "{}", outcome_words(&table.game, o))?;
            }
            shown = true;
        }
        if options.players == Players::Neither {
            return Ok(table.game.outcome().cloned());
        }
        write!(out, "{}", table.prompt())?;
        out.flush()?;
        // Read as bytes: a line that is not UTF-8 is one more unreadable command, not the end
        // of the session.
        let mut bytes = Vec::new();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            writeln!(out)?;
            return Ok(table.game.outcome().cloned());
        }
        let line = String::from_utf8_lossy(&bytes);
        let Some(command) = Command::parse(&line) else {
            continue;
        };
        match command {
            Command::Move(text) => {
                let said = match parse_point(table.game.board().size(), &text) {
                    Err(e) => Some(format!("Not a move: {e}. Type help for commands.")),
                    Ok(p) => table.apply(Action::Move(p)).err().map(|e| format!("{e}.")),
                };
                match said {
                    Some(refused) => writeln!(out, "{refused}")?,
                    None => {
                        table.undone.clear();
                        shown = false;
                    }
                }
            }
            Command::Choose(c) => match table.apply(Action::Choose(c)) {
                Ok(()) => {
                    table.undone.clear();
                    writeln!(out, "You take {}.", choice_words(c))?;
                    shown = false;
                }
                Err(e) => writeln!(out, "{e}.")?,
            },
            Command::Undo => match table.undo() {
                0 => writeln!(out, "Nothing to take back.")?,
                n => {
                    writeln!(out, "Took back {n}.")?;
                    shown = false;
                }
            },
            Command::Redo => match table.redo() {
                0 => writeln!(out, "Nothing to play again.")?,
                n => {
                    writeln!(out, "Played again {n}.")?;
                    shown = false;
                }
            },
            Command::Hint => {
                writeln!(out, "Thinking...")?;
                out.flush()?;
                let said = table.hint();
                writeln!(out, "{said}")?;
            }
            Command::Board => shown = false,
            Command::Save(path) => writeln!(out, "{}", table.save(&path))?,
            Command::Resign => match table.game.to_move() {
                Some(c) => {
                    table.game.resign(c).ok();
                    shown = false;
                }
                None => writeln!(out, "The game is over.")?,
            },
            Command::New => {
                table.start()?;
                table.engine.clear_hash();
                writeln!(out, "A new game.")?;
                shown = false;
            }
            Command::Help => write!(out, "{HELP}")?,
            Command::Quit => return Ok(table.game.outcome().cloned()),
        }
    }
}

/// The board as text: black `X`, white `O`, the last stone in brackets, black's forbidden
/// points (when black is to move under renju) `*`, a five's stones `#` and `@`, rows numbered
/// and columns lettered as in the notation (longer names read downwards). The unbounded board
/// shows the stones' area and four points around it, columns and rows by their x and y.
pub fn render(game: &Game) -> String {
    let board = game.board();
    let size = board.size();
    let (lo, hi) = match (size.width(), size.height()) {
        (Some(w), Some(h)) => (Point::new(0, 0), Point::new(w as i32 - 1, h as i32 - 1)),
        _ => {
            let (a, b) = board
                .extent()
                .unwrap_or((Point::new(0, 0), Point::new(0, 0)));
            (a.offset(-4, -4), b.offset(4, 4))
        }
    };
    let forbidden: Vec<Point> = game
        .forbidden_points()
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let last = game.last_move();
    let win: Vec<Point> = game.outcome().map(|o| o.lines.concat()).unwrap_or_default();
    let label = |y: i32| -> String {
        match size.height() {
            Some(h) => (h as i32 - y).to_string(),
            None => y.to_string(),
        }
    };
    let margin = (lo.y..=hi.y).map(|y| label(y).len()).max().unwrap_or(1);
    let mut s = String::new();
    let header = |s: &mut String| {
        let names: Vec<String> = (lo.x..=hi.x)
            .map(|x| match size.width() {
                Some(_) => column_letters(x as u32),
                None => x.to_string(),
            })
            .collect();
        let rows = names.iter().map(String::len).max().unwrap_or(1);
        for r in 0..rows {
            s.push_str(&" ".repeat(margin + 1));
            for n in &names {
                // Longer names stack downwards, right-aligned like numbers.
                let pad = rows - n.len();
                let c = if r < pad {
                    ' '
                } else {
                    n.as_bytes()[r - pad] as char
                };
                s.push(' ');
                s.push(c);
            }
            s.push('\n');
        }
    };
    if size.is_unbounded() {
        let _ = writeln!(
            s,
            "(columns x = {} to {}, rows y = {} to {}; moves as x,y)",
            lo.x, hi.x, lo.y, hi.y
        );
    }
    header(&mut s);
    for y in lo.y..=hi.y {
        let _ = write!(s, "{:>margin$} ", label(y));
        let mut after_last = false;
        for x in lo.x..=hi.x {
            let p = Point::new(x, y);
            let is_last = last == Some(p);
            s.push(if is_last {
                '['
            } else if after_last {
                ']'
            } else {
                ' '
            });
            after_last = is_last;
            s.push(match board.get(p) {
                Some(Color::Black) if win.contains(&p) => '#',
                Some(Color::White) if win.contains(&p) => '@',
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
                None if forbidden.contains(&p) => '*',
                None => '.',
            });
        }
        s.push(if after_last { ']' } else { ' ' });
        let _ = writeln!(s, "{}", label(y));
    }
    header(&mut s);
    let mut legend = vec!["X black", "O white"];
    if last.is_some() {
        legend.push("[ ] last stone");
    }
    if !forbidden.is_empty() {
        legend.push("* forbidden to black");
    }
    if !win.is_empty() {
        legend.push("#/@ the five");
    }
    let _ = writeln!(s, "{}", legend.join(", "));
    s
}

fn outcome_words(game: &Game, o: &Outcome) -> String {
    let size = game.board().size();
    let lines: Vec<String> = o
        .lines
        .iter()
        .map(|l| {
            l.iter()
                .map(|&p| point_name(size, p))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    if lines.is_empty() {
        format!("{o}.")
    } else {
        format!("{o} ({}).", lines.join("; "))
    }
}

fn score_words(score: Score) -> String {
    match score {
        Score::Eval(v) => format!("evaluation {v:+} for the side to move"),
        Score::Win(n) => format!("a forced win in {n} plies"),
        Score::Loss(n) => format!("lost in {n} plies whatever is played"),
    }
}

fn choice_words(c: Choice) -> &'static str {
    match c {
        Choice::Black => "black",
        Choice::White => "white",
        Choice::PlaceTwo => "to place two more stones",
    }
}

fn opening_words(o: OpeningRule) -> &'static str {
    match o {
        OpeningRule::Beginner => "centre-first",
        OpeningRule::Swap => "swap",
        OpeningRule::Swap2 => "swap2",
        _ => "free",
    }
}

fn size_words(size: BoardSize) -> String {
    match (size.width(), size.height()) {
        (Some(w), Some(h)) => format!("{w}x{h}"),
        _ => "the unbounded board".into(),
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(players: Players, rule: Rule) -> PlayOptions {
        PlayOptions {
            size: BoardSize::STANDARD,
            rule,
            opening: OpeningRule::Free,
            level: Level::Beginner,
            players,
            move_time: Duration::from_millis(200),
            threads: 1,
            seed: 7,
            record: None,
        }
    }

    fn run(options: &PlayOptions, input: &str) -> (String, Option<Outcome>) {
        let mut out = Vec::new();
        let outcome = play(options, &mut input.as_bytes(), &mut out).expect("the game runs");
        (String::from_utf8(out).expect("text"), outcome)
    }

    #[test]
    fn two_people_play_to_a_five_and_the_board_shows_it() {
        let moves = "h8\nh9\ni8\ni9\nj8\nj9\nk8\nk9\nl8\n";
        let (out, outcome) = run(&options(Players::Both, Rule::Freestyle), moves);
        let o = outcome.expect("black made five");
        assert_eq!(o.winner, Some(Color::Black));
        assert!(
            out.contains("Black wins: five in a row (h8 i8 j8 k8 l8)."),
            "{out}"
        );
        // The five drawn with #, the last stone bracketed.
        assert!(out.contains(" # # # #[#]"), "{out}");
    }

    #[test]
    fn bad_input_is_refused_and_the_game_stays_as_it_was() {
        let (out, _) = run(
            &options(Players::Both, Rule::Freestyle),
            "h8\nh8\nz99\nfly\nblack\nh9\nundo\nundo\nundo\nredo\n",
        );
        assert!(out.contains("h8 is already occupied."), "{out}");
        assert!(out.contains("Not a move"), "{out}");
        assert!(out.contains("Took back 1."), "{out}");
        assert!(out.contains("Nothing to take back."), "{out}");
        assert!(out.contains("Played again 1."), "{out}");
        // After the redo, black's h8 stands again and white is to move.
        assert!(out.trim_end().ends_with("White to move>"), "{out}");
    }

    #[test]
    fn renju_refuses_black_a_forbidden_point_and_marks_it() {
        // Black's open threes on row 8 and column h cross at h8: a double three.
        let record = Record::parse(
            "i8 a1 j8 o1 h9 a15 h10 o15",
            RecordFormat::Plain,
            BoardSize::STANDARD,
        )
        .expect("a record");
        let mut o = options(Players::Both, Rule::Renju);
        o.record = Some(record);
        let (out, outcome) = run(&o, "h8\n");
        assert!(outcome.is_none());
        assert!(out.contains("forbidden"), "{out}");
        assert!(out.contains('*'), "{out}");
        assert!(out.trim_end().ends_with("Black to move>"), "{out}");
    }

    #[test]
    fn the_computer_answers_and_undo_takes_back_both_moves() {
        let (out, _) = run(&options(Players::First, Rule::Freestyle), "h8\nundo\n");
        assert!(out.contains("White plays "), "{out}");
        assert!(out.contains("Took back 2."), "{out}");
        assert!(out.trim_end().ends_with("Black to move (you)>"), "{out}");
    }

    #[test]
    fn the_computer_against_itself_plays_to_the_end() {
        let mut o = options(Players::Neither, Rule::Freestyle);
        o.size = BoardSize::square(7).expect("a size");
        o.move_time = Duration::from_millis(50);
        let (out, outcome) = run(&o, "");
        let o = outcome.expect("the game ends");
        assert!(out.contains(&o.to_string()), "{out}");
    }

    #[test]
    fn commands_read_apart_from_moves() {
        assert_eq!(Command::parse("  UNDO "), Some(Command::Undo));
        assert_eq!(
            Command::parse("save  my game.psq"),
            Some(Command::Save("my game.psq".into()))
        );
        assert_eq!(
            Command::parse("place-two"),
            Some(Command::Choose(Choice::PlaceTwo))
        );
        assert_eq!(Command::parse("h8"), Some(Command::Move("h8".into())));
        assert_eq!(Command::parse("   "), None);
    }
}
