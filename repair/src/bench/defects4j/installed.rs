//! An installed Defects4J (`--d4j-home`, issue 31 point 1): its own `defects4j checkout`,
//! `compile` and `export` set a bug up instead of fixdex's git bundle, patch and `javac`
//! rebuild, for users who have Defects4J and want its exact checkouts, build files and class
//! paths (every project, every Java build Defects4J knows, without fixdex's jar table).
//!
//! What an installed Defects4J does here (Defects4J's `framework/bin/defects4j`, see its
//! README "Using Defects4J"):
//! - `defects4j checkout -p P -v Nf -w DIR` and `-v Nb`: the fixed and buggy versions;
//! - `defects4j compile -w DIR`: both built with the project's own Ant build;
//! - `defects4j export -p PROP -w DIR` for `dir.src.classes`, `dir.src.tests` (the source
//!   folders, which replace `dir-layout.csv`'s), `dir.bin.classes`, `dir.bin.tests` (the
//!   compiled classes, copied into the bug's `classes/{fixed,buggy,test}`) and `cp.test`
//!   (the test class path; its jars replace fixdex's table, its class folders are dropped).
//!
//! What stays fixdex's own: the trigger, relevant and modified lists and the developer's patch
//! come from the metadata folder (default `<home>/framework/projects`, the same files
//! Defects4J reads); the gold check and every candidate's validation run through fixdex's
//! runner and fast validation ([`super::validation`]), not `defects4j test`, which rebuilds
//! with Ant and runs whole test classes, ten or more seconds a call: a candidate recompiles
//! only its changed files against the exported class path and runs single test methods in
//! one JVM, as without `--d4j-home`.
//!
//! The exported layout and class path are kept beside the checkouts (`installed.json`), so a
//! cached bug is not exported again.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use super::D4jError;
use super::meta::BugMeta;
use super::workspace::run_tool;

/// The file an installed Defects4J's exports are kept in, in the bug's work folder.
pub const INSTALLED_FILE: &str = "installed.json";

/// An installed Defects4J: the folder holding `framework/bin/defects4j`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// `$D4J_HOME`, absolute.
    pub home: PathBuf,
}

/// What `defects4j export` says of a checkout, kept as `installed.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exported {
    /// `dir.src.classes`: the source folder, relative to the checkout.
    pub src_dir: String,
    /// `dir.src.tests`: the test folder, relative to the checkout.
    pub test_dir: String,
    /// `cp.test` without the checkout's own folders: the jars (and outside folders) tests
    /// run against, absolute, in class-path order.
    pub jars: Vec<PathBuf>,
}

impl Installed {
    /// The installation at `home` (made absolute).
    ///
    /// # Errors
    /// [`D4jError::Tool`] (bug `--d4j-home`) when `home/framework/bin/defects4j` is missing.
    pub fn new(home: &Path) -> Result<Installed, D4jError> {
        let home = std::path::absolute(home).unwrap_or_else(|_| home.to_path_buf());
        let installed = Installed { home };
        if !installed.command().is_file() {
            return Err(D4jError::Tool {
                bug: "--d4j-home".into(),
                step: "finding Defects4J".into(),
                detail: format!(
                    "{} is missing: give the folder Defects4J was cloned and initialised in (its init.sh run), \
                     the one holding framework/bin/defects4j",
                    installed.command().display()
                ),
            });
        }
        Ok(installed)
    }

    /// `<home>/framework/bin/defects4j`.
    #[must_use]
    pub fn command(&self) -> PathBuf {
        self.home.join("framework").join("bin").join("defects4j")
    }

    /// Its metadata folder, `<home>/framework/projects`.
    #[must_use]
    pub fn meta(&self) -> PathBuf {
        self.home.join("framework").join("projects")
    }

    /// `defects4j ARGS` (with `TZ` pinned, as Defects4J asks), its stdout; `step` names it in
    /// errors.
    fn run(&self, args: &[&str], dir: Option<&Path>, bug: &str, step: &str) -> Result<String, D4jError> {
        let mut cmd = Command::new(self.command());
        cmd.args(args).env("TZ", super::validation::TIME_ZONE);
        if let Some(dir) = dir {
            cmd.arg("-w").arg(dir);
        }
        run_tool(cmd, bug, step)
    }

    /// Checks out, compiles and exports `meta`'s bug into `fixed/` and `buggy/` under `tmp`,
    /// copying the compiled classes into `tmp/classes/{fixed,buggy,test}`; returns the
    /// exports (the paths in them relative to the checkout or outside it, never under `tmp`).
    ///
    /// # Errors
    /// [`D4jError::Tool`] naming the `defects4j` step that failed; a failed compile's step
    /// says `compiling` (the gold check then fails, the bug is `infra`).
    pub(super) fn materialise(&self, meta: &BugMeta, tmp: &Path) -> Result<Exported, D4jError> {
        let bug = meta.id.to_string();
        let (project, n) = (meta.id.project.as_str(), meta.id.number);
        let mut exported = Exported::default();
        for (version, suffix) in [("fixed", 'f'), ("buggy", 'b')] {
            let dir = tmp.join(version);
            let v = format!("{n}{suffix}");
            self.run(&["checkout", "-p", project, "-v", &v], Some(&dir), &bug, &format!("defects4j checkout -v {v}"))?;
            self.run(&["compile"], Some(&dir), &bug, &format!("compiling the {version} version (defects4j compile)"))?;
            let export = |prop: &str| -> Result<String, D4jError> {
                let out =
                    self.run(&["export", "-p", prop], Some(&dir), &bug, &format!("defects4j export -p {prop}"))?;
                let value = out.trim().to_string();
                if value.is_empty() {
                    return Err(D4jError::Tool {
                        bug: bug.clone(),
                        step: format!("defects4j export -p {prop}"),
                        detail: "printed nothing".into(),
                    });
                }
                Ok(value)
            };
            let bin = export("dir.bin.classes")?;
            copy_classes(&dir, &bin, &tmp.join("classes").join(version), &bug)?;
            if version == "fixed" {
                exported.src_dir = export("dir.src.classes")?;
                exported.test_dir = export("dir.src.tests")?;
                let tests_bin = export("dir.bin.tests")?;
                copy_classes(&dir, &tests_bin, &tmp.join("classes").join("test"), &bug)?;
                exported.jars = outside(&export("cp.test")?, &dir, tmp);
            }
        }
        Ok(exported)
    }
}

/// Copies the compiled folder `bin` (relative to `checkout`, or absolute) to `dest`.
fn copy_classes(checkout: &Path, bin: &str, dest: &Path, bug: &str) -> Result<(), D4jError> {
    let src = checkout.join(bin);
    if !src.is_dir() {
        return Err(D4jError::Tool {
            bug: bug.into(),
            step: "copying the compiled classes".into(),
            detail: format!("defects4j export named {bin}, which {} does not hold", checkout.display()),
        });
    }
    let parent = dest.parent().unwrap_or(dest);
    std::fs::create_dir_all(parent).map_err(D4jError::io(parent))?;
    let mut cp = Command::new("cp");
    cp.arg("-a").arg(&src).arg(dest);
    run_tool(cp, bug, &format!("copying {}", src.display())).map(|_| ())
}

/// The entries of class path `cp` that are not the checkout's own (under `checkout` or
/// `tmp`): relative entries are the checkout's and dropped too.
fn outside(cp: &str, checkout: &Path, tmp: &Path) -> Vec<PathBuf> {
    cp.split(':')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && !p.starts_with(checkout) && !p.starts_with(tmp))
        .collect()
}

/// Reads the exports kept in the bug folder `dir`.
pub(super) fn read(dir: &Path) -> Option<Exported> {
    serde_json::from_str(&std::fs::read_to_string(dir.join(INSTALLED_FILE)).ok()?).ok()
}

/// Keeps `exported` in the (temporary) bug folder `dir`.
pub(super) fn write(dir: &Path, exported: &Exported) -> Result<(), D4jError> {
    let path = dir.join(INSTALLED_FILE);
    let json = serde_json::to_string_pretty(exported).expect("Exported serializes");
    std::fs::write(&path, json).map_err(D4jError::io(&path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_class_path_keeps_only_what_lies_outside_the_checkout() {
        let cp = "/w/.tmp/fixed/target/classes:/w/.tmp/fixed/target/tests:/d4j/framework/projects/lib/junit-4.11.jar:\
                  target/other:/d4j/framework/projects/Cli/lib/commons-lang.jar:";
        let got = outside(cp, Path::new("/w/.tmp/fixed"), Path::new("/w/.tmp"));
        assert_eq!(
            got,
            [
                PathBuf::from("/d4j/framework/projects/lib/junit-4.11.jar"),
                PathBuf::from("/d4j/framework/projects/Cli/lib/commons-lang.jar")
            ]
        );
    }

    #[test]
    fn a_home_without_the_defects4j_command_is_refused_with_what_to_give() {
        let dir = tempfile::tempdir().unwrap();
        let err = Installed::new(dir.path()).unwrap_err().to_string();
        assert!(err.contains("framework/bin/defects4j") && err.contains("--d4j-home"), "{err}");
    }
}
