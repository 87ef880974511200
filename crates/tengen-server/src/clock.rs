//! The one clock of every game the server keeps: games in one browser (`session`) and online
//! games (`online::table`). No I/O: the caller says what time it is.
//!
//! What it does, chosen once for both kinds of game:
//! - A clock belongs to a player (a seat), not to a colour, so in swap openings the time spent
//!   placing stones is charged to whoever placed them.
//! - In one browser nobody's clock runs before the first stone; online the clock of the player
//!   to act runs from the moment both seats are taken (so a player who sits still loses on time
//!   rather than holding the game for ever). From then on the clock of the player to act (a
//!   stone or a swap decision) runs, and stops when the game ends.
//! - A total clock adds its increment after each stone of the player (Fischer, as the big online
//!   sites do), the first and the winning one included; not after a swap decision, which is a
//!   choice, not a move (and so it was online already).
//! - Any other action that ends a turn (a decision, a takeback, an undo, the end of the game)
//!   charges the running clock the time it ran.
//! - A fallen flag reads zero, under a per-move clock too.
//! - The readings stored with each event are the times left when the next turn starts: a total
//!   clock's times, a per-move clock's full move time (zero for a fallen flag). A per-move
//!   clock's readings are never read back: its state follows from the game (who lost on time),
//!   so the online logs stored before this form (zeros) replay as they did.

use std::time::{Duration, Instant};

use tengen_rules::{Color, EndReason, Game, Seat};
use tengen_wire::ClockSpec;

use crate::error::ApiError;

/// Checks a clock's times: between 1 second and 24 hours, an increment of at most an hour.
pub fn check_clock(clock: ClockSpec) -> Result<(), ApiError> {
    let in_range = |ms: u64| (1_000..=24 * 3_600_000).contains(&ms);
    match clock {
        ClockSpec::PerMove { ms } | ClockSpec::Total { ms, .. } if !in_range(ms) => Err(
            ApiError::BadRequest("clock time must be between 1 second and 24 hours".into()),
        ),
        ClockSpec::Total { increment_ms, .. } if increment_ms > 3_600_000 => Err(
            ApiError::BadRequest("the increment must be at most an hour".into()),
        ),
        _ => Ok(()),
    }
}

fn idx(seat: Seat) -> usize {
    match seat {
        Seat::First => 0,
        Seat::Second => 1,
    }
}

fn ms_between(from: Instant, to: Instant) -> u64 {
    u64::try_from(to.saturating_duration_since(from).as_millis()).unwrap_or(u64::MAX)
}

/// The seat that plays `color` in `game`: as settled by the opening, else the first player is
/// black (before a swap decision, colours belong to nobody yet).
pub fn seat_of(game: &Game, color: Color) -> Seat {
    match (game.black_seat(), color) {
        (Some(black), Color::Black) => black,
        (Some(black), Color::White) => black.other(),
        (None, Color::Black) => Seat::First,
        (None, Color::White) => Seat::Second,
    }
}

/// The colour `seat` plays in `game`: as settled by the opening, else black for the first
/// player (the inverse of [`seat_of`]).
pub fn color_of(game: &Game, seat: Seat) -> Color {
    if seat_of(game, Color::Black) == seat {
        Color::Black
    } else {
        Color::White
    }
}

/// The seat that lost `game` on time, if it did.
pub fn flag_fell(game: &Game) -> Option<Seat> {
    let outcome = game.outcome()?;
    if outcome.reason != EndReason::Timeout {
        return None;
    }
    Some(seat_of(game, outcome.winner?.opponent()))
}

/// When a game's clocks start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// At the first stone (a game in one browser).
    FirstStone,
    /// Now: an online game with both seats taken.
    Now,
    /// Not yet: an online game still waits for its second player.
    NotYet,
}

/// The seat whose clock runs in `game` once a turn starts: the player to act, from the start
/// (`start`) on, until the end.
pub fn to_run(game: &Game, start: Start) -> Option<Seat> {
    let started = match start {
        Start::FirstStone => !game.moves().is_empty(),
        Start::Now => true,
        Start::NotYet => false,
    };
    if !started {
        return None;
    }
    match game.pending() {
        tengen_rules::Pending::Move { seat, .. } | tengen_rules::Pending::Choice { seat, .. } => {
            Some(seat)
        }
        tengen_rules::Pending::Over => None,
    }
}

/// How a turn ended, for the readings after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnEnd {
    /// `seat` placed a stone: the running clock is charged, and `seat` gets the increment.
    Stone(Seat),
    /// Anything else that ends or rewinds a turn (a decision, a takeback, a resignation, a draw,
    /// a claim): the running clock is charged, without an increment.
    Other,
    /// The running clock's flag fell.
    Flag,
}

/// Two players' clocks: what is left of each, and whose runs since when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    spec: ClockSpec,
    // Time left for each seat when its turn starts (see the module's notes).
    left: [u64; 2],
    running: Option<(Seat, Instant)>,
}

impl Clock {
    /// A clock under `spec`, stopped, or none for `ClockSpec::None`.
    pub fn new(spec: ClockSpec) -> Option<Clock> {
        let full = match spec {
            ClockSpec::None => return None,
            ClockSpec::PerMove { ms } | ClockSpec::Total { ms, .. } => ms,
        };
        Some(Clock {
            spec,
            left: [full, full],
            running: None,
        })
    }

    /// The clock's kind and settings.
    pub fn spec(&self) -> ClockSpec {
        self.spec
    }

    /// The seat whose clock runs.
    pub fn running(&self) -> Option<Seat> {
        self.running.map(|(s, _)| s)
    }

    /// The readings to store: time left for the first and second seats.
    pub fn readings(&self) -> [u64; 2] {
        self.left
    }

    /// Time left for `seat` at `now`.
    pub fn remaining(&self, seat: Seat, now: Instant) -> u64 {
        let used = match self.running {
            Some((s, since)) if s == seat => ms_between(since, now),
            _ => 0,
        };
        self.left[idx(seat)].saturating_sub(used)
    }

    /// When the running clock's flag falls.
    pub fn deadline(&self) -> Option<Instant> {
        let (seat, since) = self.running?;
        Some(since + Duration::from_millis(self.left[idx(seat)]))
    }

    /// The seat whose flag has fallen by `now`, if any.
    pub fn fallen(&self, now: Instant) -> Option<Seat> {
        let seat = self.running()?;
        (self.remaining(seat, now) == 0).then_some(seat)
    }

    /// The readings after a turn ended at `now` as `end` says; the clock is unchanged.
    pub fn after(&self, end: TurnEnd, now: Instant) -> [u64; 2] {
        let mut left = self.left;
        match self.spec {
            ClockSpec::None => {}
            ClockSpec::PerMove { ms } => {
                // The next turn gets the whole move time again.
                left = [ms, ms];
                if let (TurnEnd::Flag, Some(seat)) = (end, self.running()) {
                    left[idx(seat)] = 0;
                }
            }
            ClockSpec::Total { increment_ms, .. } => {
                if let Some((seat, since)) = self.running {
                    let i = idx(seat);
                    left[i] = match end {
                        TurnEnd::Flag => 0,
                        _ => left[i].saturating_sub(ms_between(since, now)),
                    };
                }
                if let TurnEnd::Stone(seat) = end {
                    let i = idx(seat);
                    left[i] = left[i].saturating_add(increment_ms);
                }
            }
        }
        left
    }

    /// The running clock's time left at `now`, to store when the server stops: the clocks do
    /// not run while it is down, and [`Clock::resume_at`] takes the turn up from there.
    pub fn paused(&self, now: Instant) -> Option<u64> {
        let seat = self.running()?;
        Some(self.remaining(seat, now))
    }

    /// Takes the running turn up where a stop of the server left it: `left_ms` remain, counted
    /// from when the turn was set running (the replay). Never adds time.
    pub fn resume_at(&mut self, left_ms: u64) {
        if let Some((seat, _)) = self.running {
            let i = idx(seat);
            self.left[i] = self.left[i].min(left_ms);
        }
    }

    /// Sets the clock after an event, live or replayed: `readings` as stored with it, and the
    /// clock of `game`'s player to act running from `now` once the game has started (`start`).
    /// A per-move clock takes nothing from `readings`: each turn has the whole move time, and a
    /// fallen flag (the game lost on time) reads zero.
    pub fn set(&mut self, readings: [u64; 2], game: &Game, start: Start, now: Instant) {
        self.left = match self.spec {
            ClockSpec::None => readings,
            ClockSpec::PerMove { ms } => {
                let mut left = [ms, ms];
                if let Some(seat) = flag_fell(game) {
                    left[idx(seat)] = 0;
                }
                left
            }
            ClockSpec::Total { .. } => readings,
        };
        self.running = to_run(game, start).map(|s| (s, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_rules::{BoardSize, OpeningRule, Point, Rule};

    fn at(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    #[test]
    fn a_total_clock_adds_the_increment_after_stones_only() {
        let spec = ClockSpec::Total {
            ms: 10_000,
            increment_ms: 1_000,
        };
        let mut clock = Clock::new(spec).expect("a clock");
        let mut game = Game::with_opening(BoardSize::STANDARD, Rule::Freestyle, OpeningRule::Swap);
        let t0 = Instant::now();
        // Swap: the first player places three stones; the first is not timed.
        let mut now = t0;
        for (i, p) in [(7, 7), (7, 8), (8, 7)].into_iter().enumerate() {
            let readings = clock.after(TurnEnd::Stone(Seat::First), now);
            game.play(Point::new(p.0, p.1)).expect("legal");
            clock.set(readings, &game, Start::FirstStone, now);
            assert_eq!(
                clock.running(),
                Some(if i < 2 { Seat::First } else { Seat::Second })
            );
            now = at(now, 2_000);
        }
        // 10 s + 3 increments - 4 s used by the second and third stones.
        assert_eq!(clock.readings(), [9_000, 10_000]);
        // The second player decides in 3 s: charged, no increment.
        let readings = clock.after(TurnEnd::Other, at(now, 1_000));
        assert_eq!(readings, [9_000, 7_000]);
        game.choose(tengen_rules::Choice::White)
            .expect("a decision");
        clock.set(readings, &game, Start::FirstStone, now);
        assert_eq!(clock.running(), Some(Seat::Second));
        // Its flag falls at 7 s.
        assert_eq!(clock.deadline(), Some(at(now, 7_000)));
        assert_eq!(clock.fallen(at(now, 6_999)), None);
        assert_eq!(clock.fallen(at(now, 7_000)), Some(Seat::Second));
        assert_eq!(clock.after(TurnEnd::Flag, at(now, 7_000)), [9_000, 0]);
    }

    #[test]
    fn a_paused_turn_resumes_with_the_time_it_had_left() {
        for spec in [
            ClockSpec::PerMove { ms: 5_000 },
            ClockSpec::Total {
                ms: 5_000,
                increment_ms: 0,
            },
        ] {
            let mut clock = Clock::new(spec).expect("a clock");
            let mut game = Game::new(BoardSize::STANDARD, Rule::Freestyle);
            let t0 = Instant::now();
            assert_eq!(clock.paused(t0), None);
            game.play(Point::new(7, 7)).expect("legal");
            clock.set(
                clock.after(TurnEnd::Stone(Seat::First), t0),
                &game,
                Start::FirstStone,
                t0,
            );
            let left = clock.paused(at(t0, 1_200)).expect("running");
            assert_eq!(left, 3_800);
            // After the restart: the turn starts again, with what was left.
            let t1 = at(t0, 60_000);
            clock.set(clock.readings(), &game, Start::FirstStone, t1);
            clock.resume_at(left);
            assert_eq!(clock.remaining(Seat::Second, at(t1, 800)), 3_000);
            assert_eq!(clock.deadline(), Some(at(t1, 3_800)));
            // The move charges the time from the restart on top.
            let after = clock.after(TurnEnd::Stone(Seat::Second), at(t1, 800));
            match spec {
                ClockSpec::Total { .. } => assert_eq!(after, [5_000, 3_000]),
                _ => assert_eq!(after, [5_000, 5_000]),
            }
        }
    }

    #[test]
    fn a_per_move_clock_gives_each_turn_the_whole_time_and_a_flag_reads_zero() {
        let spec = ClockSpec::PerMove { ms: 5_000 };
        let mut clock = Clock::new(spec).expect("a clock");
        let mut game = Game::new(BoardSize::STANDARD, Rule::Freestyle);
        let t0 = Instant::now();
        assert_eq!(clock.running(), None);
        game.play(Point::new(7, 7)).expect("legal");
        clock.set(
            clock.after(TurnEnd::Stone(Seat::First), t0),
            &game,
            Start::FirstStone,
            t0,
        );
        assert_eq!(clock.running(), Some(Seat::Second));
        assert_eq!(clock.remaining(Seat::Second, at(t0, 1_500)), 3_500);
        assert_eq!(clock.remaining(Seat::First, at(t0, 1_500)), 5_000);
        assert_eq!(clock.fallen(at(t0, 5_000)), Some(Seat::Second));
        let readings = clock.after(TurnEnd::Flag, at(t0, 5_000));
        assert_eq!(readings, [5_000, 0]);
        game.lose_on_time(Color::White).expect("over");
        // The online logs stored zeros for a per-move clock: the game, not the readings, says
        // whose flag fell.
        for stored in [readings, [0, 0]] {
            clock.set(stored, &game, Start::FirstStone, at(t0, 9_000));
            assert_eq!(clock.running(), None);
            assert_eq!(clock.readings(), [5_000, 0]);
        }
    }
}
