//! What a state shows of a position besides its stones (forbidden points, threats), kept per
//! position: every state sent (each request, broadcast and connection) shows them, and on the
//! unbounded board with stones far apart they take tens of milliseconds and more to compute.

use std::sync::Mutex;

use tengen_rules::{Color, Game, Point};

/// The marks of the last position asked about, with that position (its moves and the side to
/// move: a takeback followed by another move is another position).
#[derive(Default)]
pub struct Marks<T>(Mutex<Option<Kept<T>>>);

/// A position (its moves and the side to move) and its marks.
type Kept<T> = (Vec<Point>, Option<Color>, T);

impl<T: Clone> Marks<T> {
    /// The marks of `game`'s position: from the cache when it holds that position, else from
    /// `compute`, then kept.
    pub fn of(&self, game: &Game, compute: impl FnOnce(&Game) -> T) -> T {
        let mut cached = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, _, marks)) = cached
            .as_ref()
            .filter(|(moves, to_move, _)| *to_move == game.to_move() && moves == game.moves())
        {
            return marks.clone();
        }
        let marks = compute(game);
        *cached = Some((game.moves().to_vec(), game.to_move(), marks.clone()));
        marks
    }
}

impl<T: Clone> Clone for Marks<T> {
    fn clone(&self) -> Marks<T> {
        Marks(Mutex::new(
            self.0.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        ))
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
}
