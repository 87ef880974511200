//! What a state shows of a position besides its stones (forbidden points, threats), kept per
//! position: every state sent (each request, broadcast and connection) shows them, and on the
//! unbounded board with stones far apart they take tens of milliseconds and more to compute, so
//! the async code computes them on a blocking thread ([`Marks::ready`]) before it builds a state,
//! which then only reads them here.

use std::sync::Mutex;

use tengen_rules::{Color, Game, Point};

/// The marks of the last position asked about, with that position (its moves and the side to
/// move: a takeback followed by another move is another position).
#[derive(Default)]
pub struct Marks<T>(Mutex<Option<Kept<T>>>);

/// A position (its moves and the side to move) and its marks.
type Kept<T> = (Vec<Point>, Option<Color>, T);

impl<T: Clone> Marks<T> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Kept<T>>> {
        // The cache is replaced whole under the lock: a poisoned one is still whole.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The marks kept, if they are `game`'s position's.
    fn kept(&self, game: &Game) -> Option<T> {
        self.lock()
            .as_ref()
            .filter(|(moves, to_move, _)| *to_move == game.to_move() && moves == game.moves())
            .map(|(_, _, marks)| marks.clone())
    }

    fn keep(&self, game: &Game, marks: T) {
        *self.lock() = Some((game.moves().to_vec(), game.to_move(), marks));
    }

    /// The marks of `game`'s position: from the cache when it holds that position, else from
    /// `compute`, then kept. On the async runtime the cache must have been filled by
    /// [`Marks::ready`] first: debug builds panic rather than compute there, so that the tests
    /// catch a path that would hold a runtime thread for the computation.
    pub fn of(&self, game: &Game, compute: impl FnOnce(&Game) -> T) -> T {
        if let Some(marks) = self.kept(game) {
            return marks;
        }
        debug_assert!(
            tokio::runtime::Handle::try_current().is_err(),
            "the marks of a position computed on the async runtime: call Marks::ready first"
        );
        let marks = compute(game);
        self.keep(game, marks.clone());
        marks
    }
}

impl<T: Clone + Send + 'static> Marks<T> {
    /// Fills the cache with `game`'s position's marks, computed by `compute` on a blocking
    /// thread (not on the async runtime, which the computation would hold for as long), unless
    /// it holds them already.
    pub async fn ready(&self, game: &Game, compute: impl FnOnce(&Game) -> T + Send + 'static) {
        if self.kept(game).is_some() {
            return;
        }
        let owned = game.clone();
        match tokio::task::spawn_blocking(move || compute(&owned)).await {
            Ok(marks) => self.keep(game, marks),
            // A panic goes on where it would have happened had the marks been computed here.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            // The runtime is shutting down: nothing will be sent.
            Err(_) => {}
        }
    }
}

impl<T: Clone> Clone for Marks<T> {
    fn clone(&self) -> Marks<T> {
        Marks(Mutex::new(self.lock().clone()))
    }
}

impl<T> std::fmt::Debug for Marks<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Marks")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_rules::{BoardSize, Rule};

    #[test]
    fn marks_are_computed_once_per_position() {
        let marks: Marks<usize> = Marks::default();
        let mut game = Game::new(BoardSize::STANDARD, Rule::Freestyle);
        let mut computed = 0;
        let mut look = |g: &Game| {
            marks.of(g, |g| {
                computed += 1;
                g.moves().len()
            })
        };
        assert_eq!(look(&game), 0);
        assert_eq!(look(&game), 0);
        game.play(Point::new(7, 7)).expect("legal");
        assert_eq!(look(&game), 1);
        // Back to the first position, then to another one of the same length.
        game.undo();
        assert_eq!(look(&game), 0);
        game.play(Point::new(8, 8)).expect("legal");
        assert_eq!(look(&game), 1);
        assert_eq!(computed, 4);
    }

    #[tokio::test]
    async fn ready_computes_off_the_runtime_thread_and_of_then_reads_the_cache() {
        let marks: Marks<usize> = Marks::default();
        let mut game = Game::new(BoardSize::STANDARD, Rule::Freestyle);
        game.play(Point::new(7, 7)).expect("legal");
        // A current-thread runtime: its one thread is this test's.
        let here = std::thread::current().id();
        marks
            .ready(&game, move |g| {
                assert_ne!(std::thread::current().id(), here, "computed on the runtime");
                g.moves().len()
            })
            .await;
        assert_eq!(marks.of(&game, |_| unreachable!("kept by ready")), 1);
        // Kept: not computed again.
        marks.ready(&game, |_| unreachable!("kept already")).await;
    }

    #[cfg(debug_assertions)]
    #[tokio::test]
    #[should_panic(expected = "computed on the async runtime")]
    async fn computing_on_the_runtime_is_caught_in_debug_builds() {
        let marks: Marks<usize> = Marks::default();
        let game = Game::new(BoardSize::STANDARD, Rule::Freestyle);
        marks.of(&game, |g| g.moves().len());
    }
}
