//! Opening rules: who places the first stones and when a player picks a colour.

use std::fmt;
use std::str::FromStr;

use crate::excerpt::excerpt;
use crate::{BoardSize, Color, Point};

/// How a game opens.
///
/// The phases are data ([`Phase`]), so professional openings with more steps (Soosorv-8,
/// Taraguchi-10) can be added as new variants without changing how a [`Game`](crate::Game) runs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[non_exhaustive]
pub enum OpeningRule {
    /// No restriction: the first player is black and plays anywhere.
    #[default]
    Free,
    /// The first stone on the centre, the second touching it, the third inside the central 5x5.
    Beginner,
    /// The first player places three stones (black, white, black); the second picks a colour.
    Swap,
    /// The first player places three stones; the second picks black or white, or places two more
    /// (white, black) and leaves the choice of colour to the first.
    Swap2,
}

/// An opening rule name Tengen does not know.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("unknown opening rule {0:?} (expected free, beginner, swap or swap2)")]
pub struct OpeningRuleError(pub String);

impl OpeningRule {
    /// Every opening rule.
    pub const ALL: [OpeningRule; 4] = [
        OpeningRule::Free,
        OpeningRule::Beginner,
        OpeningRule::Swap,
        OpeningRule::Swap2,
    ];

    /// `"free"`, `"beginner"`, `"swap"` or `"swap2"`.
    pub const fn name(self) -> &'static str {
        match self {
            OpeningRule::Free => "free",
            OpeningRule::Beginner => "beginner",
            OpeningRule::Swap => "swap",
            OpeningRule::Swap2 => "swap2",
        }
    }

    /// The phase a new game starts in.
    pub(crate) const fn first_phase(self) -> Phase {
        match self {
            OpeningRule::Free | OpeningRule::Beginner => Phase::Settled { black: Seat::First },
            OpeningRule::Swap | OpeningRule::Swap2 => Phase::Placing {
                by: Seat::First,
                until: 3,
            },
        }
    }

    /// The phase after the stone that brought the game to `stones` stones, while `Placing`.
    pub(crate) const fn after_placing(self, by: Seat, until: u32, stones: u32) -> Phase {
        if stones < until {
            return Phase::Placing { by, until };
        }
        match (self, until) {
            (OpeningRule::Swap2, 3) => Phase::Choosing {
                by: Seat::Second,
                may_place_two: true,
            },
            _ => Phase::Choosing {
                by: by.other(),
                may_place_two: false,
            },
        }
    }

    /// Where the stone of move `ply` (0-based) may go, if this rule restricts it.
    pub(crate) fn restriction(self, size: BoardSize, ply: usize, p: Point) -> Option<&'static str> {
        if self != OpeningRule::Beginner {
            return None;
        }
        let d = p.chebyshev(size.center());
        match ply {
            0 if d != 0 => Some("the first stone must be on the centre"),
            1 if d != 1 => Some("the second stone must touch the centre stone"),
            2 if d > 2 => Some("the third stone must be inside the central 5x5"),
            _ => None,
        }
    }
}

impl fmt::Display for OpeningRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for OpeningRule {
    type Err = OpeningRuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        OpeningRule::ALL
            .into_iter()
            .find(|o| o.name() == t)
            .ok_or_else(|| OpeningRuleError(excerpt(s)))
    }
}

/// One of the two players, by the order they sat down: the first places the first stone.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Seat {
    /// The player who starts.
    First,
    /// The other player.
    Second,
}

impl Seat {
    /// The other player.
    pub const fn other(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }
}

/// A decision taken during a swap opening.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Choice {
    /// Take black.
    Black,
    /// Take white.
    White,
    /// Swap2 only: place two more stones (white, then black) and let the opponent choose.
    PlaceTwo,
}

/// A swap decision's name Tengen does not know.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("unknown choice {0:?} (black, white or place_two)")]
pub struct ChoiceError(pub String);

impl Choice {
    /// Every decision.
    pub const ALL: [Choice; 3] = [Choice::Black, Choice::White, Choice::PlaceTwo];

    /// `"black"`, `"white"` or `"place_two"`.
    pub const fn name(self) -> &'static str {
        match self {
            Choice::Black => "black",
            Choice::White => "white",
            Choice::PlaceTwo => "place_two",
        }
    }

    /// The decisions open to a player choosing: both colours, and placing two more stones
    /// when `may_place_two`.
    ///
    /// ```
    /// use tengen_rules::Choice;
    /// assert_eq!(Choice::offered(false), [Choice::Black, Choice::White]);
    /// assert_eq!(Choice::offered(true), Choice::ALL);
    /// ```
    pub fn offered(may_place_two: bool) -> &'static [Choice] {
        if may_place_two {
            &Choice::ALL
        } else {
            &Choice::ALL[..2]
        }
    }

    /// The decision of exactly this name (the online wire's strict reading: no case folding,
    /// no spaces; [`FromStr`] is the lenient one).
    pub fn by_name(name: &str) -> Option<Choice> {
        Choice::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads a decision by its [`name`](Choice::name), in any case, spaces around ignored.
///
/// ```
/// use tengen_rules::Choice;
/// assert_eq!(" Place_Two ".parse::<Choice>(), Ok(Choice::PlaceTwo));
/// assert_eq!(Choice::White.to_string().parse::<Choice>(), Ok(Choice::White));
/// assert!("pass".parse::<Choice>().is_err());
/// ```
impl FromStr for Choice {
    type Err = ChoiceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        Choice::ALL
            .into_iter()
            .find(|c| c.name() == t)
            .ok_or_else(|| ChoiceError(excerpt(s)))
    }
}

/// Where a game is in its opening.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    /// `by` places stones of both colours, alternating from black, until there are `until`.
    Placing {
        /// The player placing them.
        by: Seat,
        /// Stones on the board when this phase ends.
        until: u32,
    },
    /// `by` must choose a colour (or, when `may_place_two`, to place two more stones).
    Choosing {
        /// The player choosing.
        by: Seat,
        /// Whether [`Choice::PlaceTwo`] is allowed.
        may_place_two: bool,
    },
    /// Colours are settled: `black` plays black from here on.
    Settled {
        /// The player with black.
        black: Seat,
    },
}

impl Phase {
    /// Who places the stone of `color` now, or `None` while a choice is pending.
    pub const fn mover(self, color: Color) -> Option<Seat> {
        match self {
            Phase::Placing { by, .. } => Some(by),
            Phase::Choosing { .. } => None,
            Phase::Settled { black } => Some(match color {
                Color::Black => black,
                Color::White => black.other(),
            }),
        }
    }
}
