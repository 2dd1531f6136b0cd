//! A prepared bug ([`Prepared`]): its test commands, the candidate [`Validator`] (fast
//! validation) and the [`Bug`] a repair starts from at the chosen [`Localization`].
//!
//! Fast validation: the build step compares the candidate's source folder with the buggy
//! checkout (`diff -rq`, one process) and compiles only the changed `.java` files into
//! `.fixdex-classes` against the buggy version's classes (which equal the fixed version's
//! except for the modified classes, so compiling against the fixed version's would be wrong
//! for a bug spread over two classes when a candidate changes one); the test step puts
//! `.fixdex-classes` first on the class path and runs the trigger tests, then, only when
//! they pass, the relevant test classes without the tests that fail on the fixed version,
//! in one JVM (`FixdexJUnitRunner`'s two phases). The trigger tests' phase has its own limit,
//! scaled from their time on the fixed version ([`Prepared::first_phase_limit`]): a candidate
//! that makes one loop is a timeout within seconds.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::check::Check;
use super::meta::BugMeta;
use super::workspace::{JAVAC_FLAGS, RUNNER_CLASS, class_path, holds_class};
use crate::Language;
use crate::fl::LineWeights;
use crate::run::bug::{Bug, Location};
use crate::validate::scratch::ScratchFilter;
use crate::validate::{CommandSpec, Validator};

/// The time zone Defects4J pins for every test run.
pub const TIME_ZONE: &str = "America/Los_Angeles";

/// JVM flags of every test run: the locale and time zone Defects4J pins, UTF-8 file
/// encoding, a stack deep enough for recursive parsers.
pub const JVM_FLAGS: &[&str] = &[
    "-Duser.language=en",
    "-Duser.country=US",
    "-Duser.timezone=America/Los_Angeles",
    "-Dfile.encoding=UTF-8",
    "-Xss4m",
];

/// The folder a candidate's recompiled classes go to, inside its scratch copy.
pub const CANDIDATE_CLASSES: &str = ".fixdex-classes";

/// The build step (`sh -c SCRIPT fixdex-build BUGGY_SRC SRC ENCODING CP`): the changed
/// `.java` files of `SRC` (relative, in the scratch copy) against `BUGGY_SRC`, compiled into
/// `.fixdex-classes`; nothing changed compiles nothing.
const BUILD_SCRIPT: &str = r#"set -eu
base=$1; src=$2; enc=$3; cp=$4; shift 4
rm -rf .fixdex-classes; mkdir .fixdex-classes
diff -rq "$base" "$src" > .fixdex-diff 2>/dev/null || true
{ sed -n 's/^Files .* and \(.*\.java\) differ$/\1/p' .fixdex-diff
  sed -n "s|^Only in \($src[^:]*\): \(.*\.java\)\$|\1/\2|p" .fixdex-diff; } > .fixdex-changed
rm -f .fixdex-diff
[ -s .fixdex-changed ] || exit 0
exec javac "$@" -encoding "$enc" -d .fixdex-classes -cp "$cp" @.fixdex-changed
"#;

/// The lower bound of a candidate's first-phase limit ([`Prepared::first_phase_limit`]): 5 s,
/// half of [`crate::validate::ADAPTED_TIMEOUT_FLOOR`], which also covers the JVM's start and
/// the build; the runner counts from its own start. Defects4J trigger tests take 0.1–1 s on
/// the fixed version (JxPath-19's 0.25 s), so 5 s is 5–50× that, where a loaded machine is
/// not taken for a hang; at 10 s JxPath-19's 21 looping candidates took 250 of its 600 s.
pub const FIRST_PHASE_FLOOR: Duration = Duration::from_secs(5);

/// Where a repair of a Defects4J bug starts (recorded with every number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Localization {
    /// The buggy lines the developer's patch touches (in the file it touches most).
    Perfect,
    /// The method enclosing the first of those lines.
    Method,
    /// The whole file.
    File,
    /// The top method of Ochiai over JaCoCo coverage of the tests.
    Sbfl,
}

impl Localization {
    /// The name in reports: `perfect`, `method`, `file`, `sbfl`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Localization::Perfect => "perfect",
            Localization::Method => "method",
            Localization::File => "file",
            Localization::Sbfl => "sbfl",
        }
    }
}

/// A bug set up in its work folder, with its gold check.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// What Defects4J says of it.
    pub meta: BugMeta,
    /// The work folder (`<work>/bugs/<Bug-N>`).
    pub dir: PathBuf,
    /// The buggy checkout (the repair's project root).
    pub buggy: PathBuf,
    /// The fixed checkout.
    pub fixed: PathBuf,
    /// `classes/{fixed,buggy,test}`.
    pub classes: PathBuf,
    /// The jars, in class-path order.
    pub jars: Vec<PathBuf>,
    /// The compiled runner's folder.
    pub runner: PathBuf,
    /// The source encoding javac accepted.
    pub encoding: String,
    /// The buggy lines the developer's patch touches, per file.
    pub touched: std::collections::BTreeMap<String, Vec<usize>>,
    /// The gold check.
    pub check: Check,
}

impl Prepared {
    /// The bug's id, `Project-N`.
    #[must_use]
    pub fn id(&self) -> String {
        self.meta.id.to_string()
    }

    /// The test run of `version` (`fixed` or `buggy` classes, or a candidate's
    /// `.fixdex-classes` before the buggy ones): `java … FixdexJUnitRunner ARGS`.
    #[must_use]
    pub fn java(&self, version: &str, candidate: bool, args: &[String]) -> CommandSpec {
        let mut cp = Vec::new();
        if candidate {
            cp.push(PathBuf::from(CANDIDATE_CLASSES));
        }
        cp.extend([self.classes.join(version), self.classes.join("test")]);
        cp.extend(self.jars.iter().cloned());
        cp.push(self.runner.clone());
        let mut argv = vec!["java".to_string()];
        argv.extend(JVM_FLAGS.iter().map(|s| (*s).to_string()));
        argv.extend(["-cp".to_string(), class_path(&cp), RUNNER_CLASS.to_string()]);
        argv.extend(args.iter().cloned());
        CommandSpec::Argv(argv)
    }

    /// The environment of every test run: `TZ`, `LANG`/`LC_ALL` (`en_US.UTF-8`).
    #[must_use]
    pub fn env() -> Vec<(OsString, OsString)> {
        [("TZ", TIME_ZONE), ("LC_ALL", "C.UTF-8"), ("LANG", "C.UTF-8")].map(|(k, v)| (k.into(), v.into())).to_vec()
    }

    /// The validator of candidates: the build step (changed files only) and the two-phase
    /// test run (module docs), each under `timeout`; the gold check's fixed-version test
    /// time is the reference a candidate's limit is scaled from
    /// ([`Validator::adapted`]).
    #[must_use]
    ///
    /// `factor` is the candidate timeout factor ([`crate::run::config::RunConfig::candidate_timeout_factor`],
    /// `--candidate-timeout-factor`), which also scales the first phase's limit
    /// ([`Prepared::first_phase_limit`]).
    pub fn validator(&self, timeout: Duration, factor: f64) -> Validator {
        let mut build = vec!["sh".to_string(), "-c".into(), BUILD_SCRIPT.into(), "fixdex-build".into()];
        build.push(self.buggy.join(&self.meta.src_dir).display().to_string());
        build.push(self.meta.src_dir.clone());
        build.push(self.encoding.clone());
        build.push(class_path(&[vec![self.classes.join("buggy")], self.jars.clone()].concat()));
        build.extend(JAVAC_FLAGS.iter().map(|s| (*s).to_string()));
        let mut args = vec!["--exclude".to_string(), self.dir.join("excluded.txt").display().to_string()];
        if let Some(limit) = self.first_phase_limit(factor) {
            args.extend(["--first-phase-limit-ms".to_string(), limit.as_millis().to_string()]);
        }
        args.extend(self.check.failing_triggers.iter().cloned());
        args.push("--".into());
        args.extend(self.relevant());
        Validator {
            build: Some(CommandSpec::Argv(build)),
            test: self.java("buggy", true, &args),
            timeout,
            env: Self::env(),
            reference: (self.check.fixed_test_ms > 0).then(|| Duration::from_millis(self.check.fixed_test_ms)),
            fail_fast: None,
        }
    }

    /// The first phase's limit of a candidate's test run (the runner's
    /// `--first-phase-limit-ms`): `max(FIRST_PHASE_FLOOR, factor × t)`, `t` the fixed
    /// version's trigger tests' time ([`Check::fixed_trigger_ms`]), `factor` the candidate
    /// timeout factor (10 by default, [`crate::validate::DEFAULT_TIMEOUT_FACTOR`]); `None`
    /// when the check has no such time or `factor` is not positive (0: every candidate gets
    /// the whole `--test-timeout-s`, as [`crate::validate::Validator::adapted`] reads it). Past it the running trigger test fails as timed out and the
    /// run ends with [`crate::validate::Verdict::Timeout`], so that a candidate that makes a
    /// trigger test loop (a deleted `next()`, a flipped loop condition) costs seconds, not the
    /// whole run's limit, which is scaled from every relevant test's time (on Defects4J
    /// JxPath, 45–60 s a hang, half of a 10-minute search spent on 5–8 hangs).
    #[must_use]
    pub fn first_phase_limit(&self, factor: f64) -> Option<Duration> {
        if self.check.fixed_trigger_ms == 0 {
            return None;
        }
        crate::validate::scaled_limit(Duration::from_millis(self.check.fixed_trigger_ms), factor, FIRST_PHASE_FLOOR)
    }

    /// The relevant test classes that run: those of the metadata whose source compiled
    /// ([`Check::dropped_tests`] left out).
    #[must_use]
    pub fn relevant(&self) -> Vec<String> {
        let dropped = &self.check.dropped_tests;
        self.meta.relevant.iter().filter(|c| !dropped.iter().any(|f| holds_class(f, c))).cloned().collect()
    }

    /// What scratch copies leave out: everything but the source and test folders.
    #[must_use]
    pub fn scratch_filter(&self) -> ScratchFilter {
        let keep = [PathBuf::from(&self.meta.src_dir), PathBuf::from(&self.meta.test_dir)];
        std::sync::Arc::new(move |rel: &Path, _| !keep.iter().any(|k| k.starts_with(rel) || rel.starts_with(k)))
    }

    /// The file the repair works on: the one the developer's patch touches most lines of
    /// (the first of equals), relative to the project root.
    #[must_use]
    pub fn primary_file(&self) -> Option<(&String, &Vec<usize>)> {
        self.touched.iter().max_by(|a, b| a.1.len().cmp(&b.1.len()).then_with(|| b.0.cmp(a.0)))
    }

    /// The bug as the repair workflow takes it at `localization` ([`Localization::Sbfl`]
    /// runs the coverage, [`Prepared::sbfl`]), with its line weights and a one-line
    /// description (`perfect: src/java/A.java:10-12`). Its id is `defects4j:Bug-N` (the
    /// corpus's name for it) and its failing tests the triggers that fail on the buggy version.
    ///
    /// # Errors
    /// A message when the patch touches no file, the file cannot be read, or SBFL fails.
    pub fn bug(&self, localization: Localization, timeout: Duration) -> Result<(Bug, LineWeights, String), String> {
        if localization == Localization::Sbfl {
            let found = self.sbfl(timeout)?;
            let (a, b) = found.lines();
            let name = format!("sbfl: {}", found.line());
            return Ok((self.bug_at(&found.file, (a, b)), found.weights, name));
        }
        let (file, lines) = self.primary_file().ok_or("the developer's patch touches no file")?;
        let path = self.buggy.join(file);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let count = text.lines().count().max(1);
        let first = lines.first().copied().unwrap_or(1).min(count);
        let last = lines.last().copied().unwrap_or(first).min(count);
        let span = match localization {
            Localization::Perfect | Localization::Sbfl => (first, last),
            Localization::Method => enclosing_method(&text, first, last).unwrap_or((first, last)),
            Localization::File => (1, count),
        };
        let name = format!("{}: {file}:{}-{}", localization.name(), span.0, span.1);
        Ok((self.bug_at(file, span), LineWeights::Uniform, name))
    }

    /// The bug at lines `span` of `file` (relative to the buggy checkout).
    fn bug_at(&self, file: &str, span: (usize, usize)) -> Bug {
        Bug {
            id: Some(format!("defects4j:{}", self.id())),
            root: self.buggy.clone(),
            file: PathBuf::from(file),
            location: Location::Lines(span.0, span.1),
            failing_tests: self.check.failing_triggers.iter().map(|t| t.replace("::", "#")).collect(),
        }
    }

    /// SBFL (Ochiai over JaCoCo per-test coverage, [`crate::fl`]) of the buggy version: the
    /// relevant test classes (the triggers' classes first) run under the agent in a scratch
    /// copy holding the buggy and test classes; the top method of the source folder.
    ///
    /// # Errors
    /// A message: JaCoCo missing (Debian's libjacoco-java, or `FIXDEX_JACOCO_DIR`), a run
    /// that failed, no method ranked.
    pub fn sbfl(&self, timeout: Duration) -> Result<crate::fl::Localized, String> {
        let scratch =
            crate::validate::scratch::Scratch::copy(&self.buggy, |rel, dir| (self.scratch_filter())(rel, dir))
                .map_err(|e| e.to_string())?;
        let classes = ".fixdex-fl-classes";
        let copy = format!(
            "mkdir -p {classes} && cp -R '{}/.' {classes} && cp -R '{}/.' {classes}",
            self.classes.join("buggy").display(),
            self.classes.join("test").display()
        );
        let mut tests: Vec<String> =
            self.check.failing_triggers.iter().map(|t| t.split("::").next().unwrap_or(t).to_string()).collect();
        tests.extend(self.relevant());
        let mut seen = std::collections::HashSet::new();
        tests.retain(|t| seen.insert(t.clone()));
        let spec = crate::fl::CoverageSpec {
            target: crate::fl::Target::Java(crate::fl::JavaTarget {
                build: Some(CommandSpec::Shell(copy)),
                classes_dir: PathBuf::from(classes),
                class_path: self.jars.clone(),
                test_classes: tests,
                includes: self.source_classes(),
                source_roots: vec![PathBuf::from(&self.meta.src_dir)],
                jacoco_dir: crate::validate::toolchain::jacoco_dir_from_env(),
            }),
            timeout,
        };
        let report = crate::fl::sbfl_in(scratch.root(), &spec).map_err(|e| format!("SBFL: {e}"))?;
        crate::fl::Localized::of(&report, None).map_err(|e| format!("SBFL: {e}"))
    }

    /// JaCoCo `includes` patterns of the source folder's classes (`pkg.Name`, `pkg.Name$*`),
    /// so that tests in the same packages are not measured.
    fn source_classes(&self) -> Vec<String> {
        let src = self.buggy.join(&self.meta.src_dir);
        let mut out = Vec::new();
        for entry in walkdir::WalkDir::new(&src).sort_by_file_name().into_iter().filter_map(Result::ok) {
            let rel = entry.path().strip_prefix(&src).unwrap_or(entry.path());
            if rel.extension().is_some_and(|e| e == "java") {
                let class = rel.with_extension("").to_string_lossy().replace('/', ".");
                out.push(format!("{class}$*"));
                out.push(class);
            }
        }
        out
    }
}

/// The span (1-based, inclusive) of the innermost method of `text` holding lines
/// `first..=last`, or holding `first` when none holds them all.
fn enclosing_method(text: &str, first: usize, last: usize) -> Option<(usize, usize)> {
    let methods = actions::methods(text, Language::Java).ok()?;
    let holds = |a: usize, b: usize| {
        methods.iter().map(|m| (m.lines.0, m.lines.1)).filter(|&(s, e)| s <= a && b <= e).min_by_key(|&(s, e)| e - s)
    };
    holds(first, last).or_else(|| holds(first, first))
}
