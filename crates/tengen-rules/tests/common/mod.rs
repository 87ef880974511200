//! What the property tests share.

use proptest::prelude::ProptestConfig;
use proptest::test_runner::FileFailurePersistence;

/// Proptest's settings with `cases` cases. Failing inputs are kept next to the test file, in
/// `NAME.proptest-regressions`, and replayed first on the next run; proptest's default looks for
/// the crate's `lib.rs` from here, which an integration test cannot find, and warns.
pub fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}
