//! The Gomocup (Piskvork) protocol, in which a manager drives a "brain" over pipes: its syntax
//! ([`command`]) and a client that drives any brain process ([`client`], for the match runner
//! and tests). Tengen's own brain loop is the `tengen-brain` crate; this one knows no engine.
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

pub mod client;
pub mod command;
pub mod lines;
