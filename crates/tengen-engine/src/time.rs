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
        const MARGIN_MS: u64 = 80;
        let mut ms = u64::MAX;
        if let Some(left) = self.left {
            let share = left / 25 + self.increment * 3 / 4;
            // Never plan to use more than a third of what is left.
            ms = ms.min(share.min(left / 3));
        }
        if let Some(turn) = self.per_move {
            // A tenth of the turn, and at least MARGIN_MS, stays unused: setting up the search,
            // a busy machine and the reply's way back all take time.
            ms = ms.min(turn.saturating_sub((turn / 10).max(MARGIN_MS)));
        }
        if ms == u64::MAX {
            ms = 5_000;
        }
        Duration::from_millis(ms.max(10))
    }
}
