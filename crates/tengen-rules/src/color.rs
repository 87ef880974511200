//! The two colours.

use std::fmt;
use std::str::FromStr;

use crate::excerpt::excerpt;

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

/// A colour's name Tengen does not know.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("unknown colour {0:?} (expected black or white)")]
pub struct ColorError(pub String);

/// Reads a colour by its [`name`](Color::name), in any case, spaces around ignored.
///
/// ```
/// use tengen_rules::Color;
/// assert_eq!(" White ".parse::<Color>(), Ok(Color::White));
/// assert_eq!(Color::Black.to_string().parse::<Color>(), Ok(Color::Black));
/// assert!("red".parse::<Color>().is_err());
/// ```
impl FromStr for Color {
    type Err = ColorError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "black" => Ok(Color::Black),
            "white" => Ok(Color::White),
            _ => Err(ColorError(excerpt(s))),
        }
    }
}
