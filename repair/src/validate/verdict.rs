//! The verdict on one candidate patch: one typed state, ordered from best to worst.
//!
//! [`crate::validate::Validator::validate`] produces only the first four verdicts
//! ([`Verdict::Plausible`], [`Verdict::TestFailure`], [`Verdict::CompileError`],
//! [`Verdict::Timeout`]): it judges code that was built and run. The last two are for the
//! repair loop, about candidates that never reached validation: [`Verdict::PatchRefused`]
//! (the answer did not apply to the file) and [`Verdict::Duplicate`] (the same change was
//! already validated).
//!
//! # Order
//! Verdicts are totally ordered by how close the candidate came to a fix, best first:
//!
//! `plausible > test_failure > timeout > compile_error > patch_refused > duplicate`
//!
//! A test failure ran the tests (the code builds), a timeout built and ran but did not end
//! (it says nothing about correctness, yet the code compiles), a compile error did not get
//! that far, a refused patch did not change the code, and a duplicate adds nothing new. So
//! `verdicts.iter().max()` is the best candidate's verdict. This is fixdex's one candidate
//! order: [`crate::validate::rank`] (best-of-N selection, TraceRepair §3.3; UniDebugger's
//! choice between two patches) is this order with fewer failing tests first among test
//! failures.
//!
//! # Names
//! Serialized (serde, [`Verdict::as_str`], [`std::fmt::Display`], [`std::str::FromStr`]) as
//! `plausible`, `test_failure`, `compile_error`, `timeout`, `patch_refused`, `duplicate`: the
//! names reports have always used. `Debug` prints the variant name (`TestFailure`), which
//! validation feedback shows the model and so must not change.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

/// The outcome class of one candidate patch (module docs: order and names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Built and every test passed.
    Plausible,
    /// The build failed (or a test-only run shows a compile error signature).
    CompileError,
    /// Built, and the test command failed.
    TestFailure,
    /// The build or the tests ran past the timeout.
    Timeout,
    /// The patch did not apply to the file (never produced by validation).
    PatchRefused,
    /// The same change was already validated (never produced by validation).
    Duplicate,
}

/// Every verdict, best first (the order of [`Verdict::cmp`], descending).
pub const VERDICTS_BEST_FIRST: [Verdict; 6] = [
    Verdict::Plausible,
    Verdict::TestFailure,
    Verdict::Timeout,
    Verdict::CompileError,
    Verdict::PatchRefused,
    Verdict::Duplicate,
];

/// A verdict name that [`Verdict::from_str`](std::str::FromStr::from_str) does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown verdict `{0}`: expected one of plausible, test_failure, compile_error, timeout, patch_refused, duplicate"
)]
pub struct UnknownVerdict(pub String);

impl Verdict {
    /// Whether a candidate with this verdict cost a validation (it was built and tested:
    /// plausible, test failure, compile error, timeout; not a refused patch or a duplicate).
    #[must_use]
    pub fn validated(self) -> bool {
        matches!(self, Verdict::Plausible | Verdict::TestFailure | Verdict::CompileError | Verdict::Timeout)
    }

    /// The serde name: `plausible`, `test_failure`, `compile_error`, `timeout`,
    /// `patch_refused` or `duplicate`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Plausible => "plausible",
            Verdict::TestFailure => "test_failure",
            Verdict::CompileError => "compile_error",
            Verdict::Timeout => "timeout",
            Verdict::PatchRefused => "patch_refused",
            Verdict::Duplicate => "duplicate",
        }
    }

    /// 5 for [`Verdict::Plausible`] down to 0 for [`Verdict::Duplicate`]: the total order
    /// (module docs, "Order").
    pub(crate) fn rank(self) -> u8 {
        match self {
            Verdict::Plausible => 5,
            Verdict::TestFailure => 4,
            Verdict::Timeout => 3,
            Verdict::CompileError => 2,
            Verdict::PatchRefused => 1,
            Verdict::Duplicate => 0,
        }
    }
}

/// Better verdicts are greater: `Plausible > TestFailure > Timeout > CompileError >
/// PatchRefused > Duplicate` (module docs, "Order").
impl Ord for Verdict {
    fn cmp(&self, other: &Verdict) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for Verdict {
    fn partial_cmp(&self, other: &Verdict) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Verdict {
    type Err = UnknownVerdict;

    /// The verdict named `s` ([`Verdict::as_str`]'s names, exactly).
    fn from_str(s: &str) -> Result<Verdict, UnknownVerdict> {
        VERDICTS_BEST_FIRST.into_iter().find(|v| v.as_str() == s).ok_or_else(|| UnknownVerdict(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_ordered_best_first() {
        for pair in VERDICTS_BEST_FIRST.windows(2) {
            assert!(pair[0] > pair[1], "{} > {}", pair[0], pair[1]);
        }
        assert!(Verdict::Plausible > Verdict::TestFailure);
        assert!(Verdict::TestFailure > Verdict::Timeout);
        assert!(Verdict::Timeout > Verdict::CompileError);
        assert!(Verdict::CompileError > Verdict::PatchRefused);
        assert!(Verdict::PatchRefused > Verdict::Duplicate);
        let mut shuffled = [Verdict::Timeout, Verdict::Duplicate, Verdict::Plausible, Verdict::CompileError];
        shuffled.sort();
        assert_eq!(shuffled, [Verdict::Duplicate, Verdict::CompileError, Verdict::Timeout, Verdict::Plausible]);
        assert_eq!(VERDICTS_BEST_FIRST.iter().max(), Some(&Verdict::Plausible));
    }

    #[test]
    fn names_are_the_serde_names() {
        let names = ["plausible", "test_failure", "timeout", "compile_error", "patch_refused", "duplicate"];
        for (v, name) in VERDICTS_BEST_FIRST.into_iter().zip(names) {
            assert_eq!(v.as_str(), name);
            assert_eq!(v.to_string(), name);
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<Verdict>(&format!("\"{name}\"")).unwrap(), v);
            assert_eq!(name.parse::<Verdict>(), Ok(v));
        }
        assert_eq!("Plausible".parse::<Verdict>(), Err(UnknownVerdict("Plausible".into())));
        // Debug is what validation feedback shows the model: unchanged.
        assert_eq!(format!("{:?}", Verdict::TestFailure), "TestFailure");
    }
}
