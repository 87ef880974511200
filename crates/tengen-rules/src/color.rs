//! The two colours.

use std::fmt;

/// A stone colour; black moves first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Color {
    /// The first player's colour.
    Black,
    /// The second player's colour.
    White,
}

impl Color {
    /// The other colour.
    ///
    /// ```
    /// use tengen_rules::Color;
    /// assert_eq!(Color::Black.opponent(), Color::White);
    /// ```
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The colour that plays move number `ply` (0-based) when colours alternate from black.
    pub const fn of_ply(ply: usize) -> Color {
        if ply % 2 == 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// `"black"` or `"white"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
