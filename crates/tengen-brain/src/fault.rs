//! Test-only faults: with `TENGEN_FAULT=search-panic` in the environment, every search panics
//! as a bug in the engine would. The tests use it to check that the brain still answers each
//! move, whatever bug the engine may have or not have today.
//!
//! The hook needs the `fault-injection` feature *and* debug assertions. The feature alone is not
//! enough: the crate's own dev-dependency turns it on, and Cargo unifies features across one
//! build, so `cargo build --release --all-targets` would otherwise link it into the release
//! `pbrain-tengen`. A release profile has no debug assertions, so there the hook is compiled out
//! whatever the features say.

/// Whether the hook is compiled in.
pub const ENABLED: bool = cfg!(all(feature = "fault-injection", debug_assertions));

/// The environment variable that asks for a fault, and its value that makes searches panic.
pub const VARIABLE: &str = "TENGEN_FAULT";
pub const SEARCH_PANIC: &str = "search-panic";

/// Panics when the environment asks for it and the hook is compiled in.
pub(crate) fn check_search() {
    if ENABLED && std::env::var(VARIABLE).is_ok_and(|v| v == SEARCH_PANIC) {
        panic!("fault injected for a test");
    }
}
