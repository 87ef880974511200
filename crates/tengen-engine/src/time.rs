//! Time management: how long to think about one move.

use std::time::Duration;

/// The clock as a game manager states it (all in milliseconds; `None` when not set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeControl {
    /// At most this long for one move.
    pub per_move: Option<u64>,
    /// Time left on this player's clock for the rest of the game.
    pub left: Option<u64>,
    /// Added to the clock after each move.
    pub increment: u64,
}

impl TimeControl {
    /// The time to spend on the next move: a share of the time left (as if some 25 more moves
    /// were to come, since games rarely last longer), plus most of the increment, never above
    /// the per-move limit, less a safety margin for the reply to travel.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tengen_engine::TimeControl;
    /// let tc = TimeControl { per_move: Some(5_000), left: Some(60_000), increment: 0 };
    /// let t = tc.budget();
    /// assert!(t < Duration::from_millis(5_000) && t > Duration::from_millis(1_000));
    /// ```
    pub fn budget(&self) -> Duration {
        let mut ms = u64::MAX;
        if let Some(left) = self.left {
            let share = left / 25 + self.increment * 3 / 4;
            // Never plan to use more than a third of what is left.
            ms = ms.min(share.min(left / 3));
        }
        if let Some(turn) = self.per_move {
            ms = ms.min(usable_turn_ms(turn));
        }
        if ms == u64::MAX {
            ms = 5_000;
        }
        Duration::from_millis(ms.max(self.floor_ms()))
    }

    /// The least time a search gets: 10 ms, enough for a few plies, unless the clock has less
    /// than 40 ms left, when a quarter of it (a move from the first ply or the move generator
    /// alone, rather than a loss on time).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tengen_engine::TimeControl;
    /// let tc = |left| TimeControl { per_move: Some(1_000), left, increment: 0 };
    /// assert_eq!(tc(None).floor_ms(), 10);
    /// assert_eq!(tc(Some(12)).floor_ms(), 3);
    /// assert_eq!(tc(Some(0)).plan().hard, Duration::ZERO);
    /// ```
    pub fn floor_ms(&self) -> u64 {
        self.left.map_or(10, |left| (left / 4).min(10))
    }

    /// The time plan for the next move: `soft`, the time a search expects to take, which it
    /// stretches when the best move keeps changing or the score falls and shortens when the
    /// best move has held for several iterations or only one move is legal; and `hard`, the
    /// most it may take, which it never passes. With a per-move limit alone there is no clock
    /// to save time for, so both are the whole turn (less the margin). With a game clock, the
    /// hard limit is up to three times the share, never more than a fifth of what is left.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tengen_engine::TimeControl;
    /// let turn = TimeControl { per_move: Some(500), left: None, increment: 0 };
    /// assert_eq!(turn.plan().soft, turn.plan().hard);
    /// let game = TimeControl { per_move: Some(30_000), left: Some(100_000), increment: 0 };
    /// let plan = game.plan();
    /// assert_eq!(plan.soft, Duration::from_millis(4_000));
    /// assert_eq!(plan.hard, Duration::from_millis(12_000));
    /// ```
    pub fn plan(&self) -> TimePlan {
        let soft = self.budget();
        let Some(left) = self.left else {
            return TimePlan { soft, hard: soft };
        };
        let mut hard = (soft * 3).min(Duration::from_millis(left / 5)).max(soft);
        if let Some(turn) = self.per_move {
            hard = hard.min(Duration::from_millis(
                usable_turn_ms(turn).max(self.floor_ms()),
            ));
        }
        TimePlan {
            soft: soft.min(hard),
            hard,
        }
    }
}

/// The part of a `turn` (milliseconds) a search may use: a tenth of it, and at least 80 ms, stays
/// unused, since setting up the search, a busy machine and the reply's way back all take time.
fn usable_turn_ms(turn: u64) -> u64 {
    const MARGIN_MS: u64 = 80;
    turn.saturating_sub((turn / 10).max(MARGIN_MS))
}

/// How long one move's search expects to take and may take at most (see
/// [`TimeControl::plan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimePlan {
    /// The expected time, stretched or shortened by how settled the search is.
    pub soft: Duration,
    /// Never passed.
    pub hard: Duration,
}
