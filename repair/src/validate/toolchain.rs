//! Toolchain discovery: which Python, which JUnit class path, which JaCoCo folder, from the
//! environment with Debian defaults, and checks that say what is missing and how to install it.
//!
//! | what | environment variable | default |
//! | --- | --- | --- |
//! | Python interpreter | `FIXDEX_PYTHON` ([`PYTHON_ENV`]) | `python3` on `PATH` |
//! | JUnit 4 + Hamcrest class path | `FIXDEX_JUNIT_CP` ([`JUNIT_CP_ENV`]) | [`DEFAULT_JUNIT_CP`] |
//! | JaCoCo and ASM jars (fault localization) | `FIXDEX_JACOCO_DIR` ([`JACOCO_DIR_ENV`]) | [`DEFAULT_JACOCO_DIR`] |
//!
//! The benchmark harness ([`crate::bench::quixbugs`]) and fault localization ([`crate::fl`]) both
//! read these; the checks ([`check_jdk`], [`check_class_path`], [`check_pytest`]) run the
//! tools once and are what [`crate::bench::quixbugs::Runner::new`] does before any program runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Environment variable naming the Python interpreter for tests.
pub const PYTHON_ENV: &str = "FIXDEX_PYTHON";

/// The interpreter used when [`PYTHON_ENV`] is not set, looked up on `PATH`.
pub const DEFAULT_PYTHON: &str = "python3";

/// Environment variable holding the JUnit 4 class path (`:`-separated jars).
pub const JUNIT_CP_ENV: &str = "FIXDEX_JUNIT_CP";

/// Default JUnit 4 class path (Debian packages `junit4` and `libhamcrest-java`).
pub const DEFAULT_JUNIT_CP: &str = "/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar";

/// Environment variable naming the folder that holds the JaCoCo and ASM jars.
pub const JACOCO_DIR_ENV: &str = "FIXDEX_JACOCO_DIR";

/// Default folder of the JaCoCo and ASM jars (Debian `libjacoco-java`, `libasm-java`).
pub const DEFAULT_JACOCO_DIR: &str = "/usr/share/java";

/// A missing toolchain piece; the message says how to install it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolchainError {
    /// `javac -version` or `java -version` did not run.
    #[error("javac/java not found: install a JDK (Debian: apt-get install default-jdk-headless)")]
    MissingJdk,
    /// An entry of the JUnit class path is not a file.
    #[error(
        "JUnit class path entry {jar} not found: install JUnit 4 and Hamcrest \
         (Debian: apt-get install junit4 libhamcrest-java) or set FIXDEX_JUNIT_CP"
    )]
    MissingJar {
        /// The class path entry.
        jar: String,
    },
    /// The interpreter cannot import pytest and pytest-timeout.
    #[error(
        "{python} cannot import pytest and pytest_timeout: `{python} -m pip install pytest pytest-timeout`, \
         or set FIXDEX_PYTHON to an interpreter that has them"
    )]
    MissingPytest {
        /// The interpreter, as given.
        python: String,
    },
}

/// The Python interpreter for tests: [`PYTHON_ENV`], else [`DEFAULT_PYTHON`] (looked up on
/// `PATH`). A relative path with a directory part is made absolute, since commands run in
/// scratch copies elsewhere; a bare name stays a bare name.
///
/// # Errors
/// The path and the error when the current directory cannot be read.
pub fn python_from_env() -> Result<PathBuf, (PathBuf, std::io::Error)> {
    let python = std::env::var_os(PYTHON_ENV).map_or_else(|| PathBuf::from(DEFAULT_PYTHON), PathBuf::from);
    if python.components().count() > 1 {
        return std::path::absolute(&python).map_err(|e| (python, e));
    }
    Ok(python)
}

/// The JUnit 4 class path: [`JUNIT_CP_ENV`] (when set and valid UTF-8), else
/// [`DEFAULT_JUNIT_CP`]. Not checked; see [`check_class_path`].
pub fn junit_cp_from_env() -> String {
    std::env::var(JUNIT_CP_ENV).unwrap_or_else(|_| DEFAULT_JUNIT_CP.to_string())
}

/// [`JACOCO_DIR_ENV`], or [`DEFAULT_JACOCO_DIR`]. Not checked: fault localization reports
/// each missing jar.
pub fn jacoco_dir_from_env() -> PathBuf {
    std::env::var_os(JACOCO_DIR_ENV).map_or_else(|| PathBuf::from(DEFAULT_JACOCO_DIR), PathBuf::from)
}

/// Checks that `javac -version` and `java -version` run and succeed.
///
/// # Errors
/// [`ToolchainError::MissingJdk`].
pub fn check_jdk() -> Result<(), ToolchainError> {
    if runs(&["javac", "-version"]) && runs(&["java", "-version"]) { Ok(()) } else { Err(ToolchainError::MissingJdk) }
}

/// Checks that every entry of the `:`-separated class path `cp` is a file.
///
/// # Errors
/// [`ToolchainError::MissingJar`] for the first entry that is not.
pub fn check_class_path(cp: &str) -> Result<(), ToolchainError> {
    match cp.split(':').filter(|j| !j.is_empty()).find(|jar| !Path::new(jar).is_file()) {
        Some(jar) => Err(ToolchainError::MissingJar { jar: jar.to_string() }),
        None => Ok(()),
    }
}

/// Checks that `python` imports pytest and pytest-timeout.
///
/// # Errors
/// [`ToolchainError::MissingPytest`].
pub fn check_pytest(python: &Path) -> Result<(), ToolchainError> {
    let py = python.to_string_lossy();
    if runs(&[&py, "-c", "import pytest, pytest_timeout"]) {
        Ok(())
    } else {
        Err(ToolchainError::MissingPytest { python: py.into_owned() })
    }
}

/// Whether `argv` starts and exits 0 (its output discarded).
fn runs(argv: &[&str]) -> bool {
    Command::new(argv[0])
        .args(&argv[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_pieces_are_named_with_their_remedy() {
        let e = check_class_path(":/no/such/junit.jar").unwrap_err();
        assert_eq!(e, ToolchainError::MissingJar { jar: "/no/such/junit.jar".into() });
        assert!(e.to_string().contains("apt-get install junit4 libhamcrest-java"), "{e}");
        assert_eq!(check_class_path(""), Ok(()));
        let e = check_pytest(Path::new("/no/such/python3")).unwrap_err();
        assert!(e.to_string().starts_with("/no/such/python3 cannot import pytest"), "{e}");
    }
}
