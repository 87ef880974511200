//! The library behind the `tengen` command line: each subcommand's work, apart from argument
//! parsing and printing, so that it can be tested without a process.

pub mod analyze;
pub mod play;
pub mod referee;
