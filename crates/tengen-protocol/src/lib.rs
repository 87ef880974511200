//! The Gomocup (Piskvork) protocol, in which a manager drives a "brain" over pipes: its syntax
//! ([`command`]), Tengen's brain loop ([`brain`], run by the `pbrain-tengen` binary) and a
//! client that drives any brain process ([`client`], for the match runner and tests).
//!
//! `docs/protocol.md` describes the dialect Tengen speaks, Yixin-Board's extensions included.
//!
//! ```
//! use tengen_protocol::command::{Command, Response};
//! use tengen_rules::Point;
//! assert_eq!("TURN 7,8".parse::<Command>()?, Command::Turn(Point::new(7, 8)));
//! assert_eq!(Response::Move(Point::new(8, 8)).to_string(), "8,8");
//! # Ok::<(), tengen_protocol::command::ParseError>(())
//! ```

pub mod brain;
pub mod client;
pub mod command;
pub mod lines;
