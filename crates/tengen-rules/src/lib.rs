//! The rules of five in a row: boards of every size (and unbounded), the freestyle, standard,
//! renju, caro and caro-with-overlines rules, black's forbidden points, opening rules, notation
//! and game records.
//!
//! No I/O, no threads, no `unsafe`; illegal input is a typed error, never a panic.
//!
//! ```
//! use tengen_rules::{BoardSize, Game, Rule, parse_point};
//! let mut game = Game::new(BoardSize::STANDARD, Rule::Renju);
//! game.play(parse_point(BoardSize::STANDARD, "h8")?)?;
//! assert_eq!(game.moves().len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod board;
mod color;
mod excerpt;
mod forbidden;
mod game;
mod line;
mod notation;
mod opening;
mod point;
mod record;
mod rule;

pub use board::{
    Board, BoardSize, MAX_SIDE, MAX_UNBOUNDED_COORD, MAX_UNBOUNDED_EXTENT, MIN_SIDE, PlaceError,
    RowsError, SizeError,
};
pub use color::{Color, ColorError};
pub use forbidden::{Forbidden, black_can_move, forbidden, forbidden_points};
pub use game::{EndReason, ForbiddenPolicy, Game, Outcome, Pending, PlayError};
pub use notation::{Coord, CoordError, column_letters, parse_point, point_name};
pub use opening::{Choice, ChoiceError, OpeningRule, OpeningRuleError, Phase, Seat};
pub use point::{Direction, Point};
pub use record::{Record, RecordError, RecordFormat, RecordResult, ReplayError};
pub use rule::{Rule, RuleError};
