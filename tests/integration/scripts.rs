//! The repository's scripts find the binary where cargo put it (issue 8, item 2).

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `scripts/fixdex-path.sh PROFILE` with `env` set, as a path.
fn fixdex_path(profile: &str, env: &[(&str, &Path)]) -> PathBuf {
    let mut cmd = Command::new(repo().join("scripts/fixdex-path.sh"));
    cmd.arg(profile).env_remove("CARGO_BUILD_TARGET");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// Issue 8 item 2: with CARGO_TARGET_DIR set, quickstart.sh ran `./target/release/fixdex` and
/// failed with exit 127.
#[test]
fn issue_8_binary_path_follows_cargo_target_dir() {
    let dir = tempfile::tempdir().unwrap();
    let got = fixdex_path("release", &[("CARGO_TARGET_DIR", dir.path())]);
    assert_eq!(got, dir.path().join("release").join("fixdex"));
}

/// The dev-profile answer is the very binary these tests run, wherever this build put it.
#[test]
fn issue_8_binary_path_is_where_this_build_put_it() {
    let got = fixdex_path("dev", &[]);
    let built = Path::new(env!("CARGO_BIN_EXE_fixdex"));
    assert_eq!(got.canonicalize().unwrap(), built.canonicalize().unwrap());
}

/// No script runs the binary from a hard-coded `target/` path.
#[test]
fn issue_8_no_script_hard_codes_the_target_dir() {
    for entry in std::fs::read_dir(repo().join("scripts")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "sh" || e == "py") {
            let text = std::fs::read_to_string(&path).unwrap();
            let bad = text
                .lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .find(|l| l.contains("target/release/fixdex") || l.contains("target/debug/fixdex"));
            assert!(bad.is_none(), "{} runs a hard-coded binary path: {}", path.display(), bad.unwrap());
        }
    }
}
