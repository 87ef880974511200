//! Test-only faults: a move written `fault:panic` makes the code handling it panic, as a bug in
//! the rules would. The tests use it to check that a failing request is answered and its game
//! stays reachable, whatever bug the rules may have or not have today.
//!
//! The hook needs the `fault-injection` feature *and* debug assertions. The feature alone is not
//! enough: the crate's own dev-dependency turns it on, and Cargo unifies features across one
//! build, so `cargo build --release --all-targets` or `cargo test --release` would otherwise link
//! it into `target/release/tengen`. A release profile has no debug assertions, so there the hook
//! is compiled out whatever the features say.

/// Whether the hook is compiled in.
pub const ENABLED: bool = cfg!(all(feature = "fault-injection", debug_assertions));

/// The move text that triggers a panic.
pub const PANIC_MOVE: &str = "fault:panic";

/// Panics when `text` asks for it and the hook is compiled in.
pub fn check(text: &str) {
    if ENABLED && text.trim() == PANIC_MOVE {
        panic!("fault injected for a test");
    }
}
