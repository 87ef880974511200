//! Test-only faults: with the `fault-injection` feature (never in a release build), a move
//! written `fault:panic` makes the code handling it panic, as a bug in the rules would. The
//! tests use it to check that a failing request is answered and its game stays reachable,
//! whatever bug the rules may have or not have today.

/// The move text that triggers a panic.
pub const PANIC_MOVE: &str = "fault:panic";

/// Panics when `text` asks for it and the feature is on.
pub fn check(text: &str) {
    if cfg!(feature = "fault-injection") && text.trim() == PANIC_MOVE {
        panic!("fault injected for a test");
    }
}
