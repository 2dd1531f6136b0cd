//! A bug's work folder: the fixed and buggy checkouts and their classes, made once and kept
//! (`<work>/bugs/<Bug-N>/`): `fixed/` (`git archive` of the fixed revision), `buggy/` (a
//! copy with `patches/<N>.src.patch` applied), `classes/{fixed,buggy,test}` (`javac`, with
//! the source folders' other files copied beside the classes, as resources), and
//! `check.json` ([`super::check`]). Repositories given as bundles are cloned once into
//! `<work>/repos/<Project>-<hash>.git` (one per bundle path); the runner is compiled once per JDK into
//! `<work>/runner/<hash>/`.
//!
//! Everything is made in a temporary folder beside its final place and renamed into it, so
//! that parallel runs (`-j`) and killed runs never see half a checkout; a bug's folder is
//! made and checked under its lock (`bugs/.<Bug-N>.lock`), so that two runs sharing the work
//! folder make it once.

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use super::check::{self, Check};
use super::installed::{self, Exported, Installed};
use super::meta::{BugMeta, touched_lines};
use super::validation::Prepared;
use super::{D4jError, Harness};

/// The runner's source, shipped with fixdex.
pub const RUNNER_SOURCE: &str = include_str!("FixdexJUnitRunner.java");

/// The runner's main class.
pub const RUNNER_CLASS: &str = "FixdexJUnitRunner";

/// `javac`'s flags for every build: Java 8 bytecode (what Defects4J's projects target), no
/// annotation processing, no implicit compilation of other sources, warnings off.
pub const JAVAC_FLAGS: &[&str] =
    &["-nowarn", "-g", "--release", "8", "-proc:none", "-implicit:none", "-Xlint:-options"];

/// The version of how this module sets bugs up and checks them: part of the gold check's
/// fingerprint, so a fixdex that builds or checks differently redoes cached checks.
const SETUP_VERSION: &str = "d4j-setup-3";

/// Source encodings tried in order: UTF-8, then ISO-8859-1 (older Apache sources).
const ENCODINGS: &[&str] = &["UTF-8", "ISO-8859-1"];

/// Sets `prepared` up in `harness`'s work folder (made or reused) and runs or reads the gold
/// check.
pub(super) fn prepare(harness: &Harness, meta: BugMeta, jars: Vec<PathBuf>) -> Result<Prepared, D4jError> {
    let bug = meta.id.to_string();
    let runner = runner(harness, &jars, &bug)?;
    let patch = std::fs::read_to_string(&meta.patch).map_err(D4jError::io(&meta.patch))?;
    let touched = touched_lines(&patch).map_err(|e| D4jError::meta(&meta.patch, e))?;
    let dir = harness.work.join("bugs").join(&bug);
    let _lock = lock_bug(&dir)?;
    let fingerprint = fingerprint(&meta, &patch, &jars, &runner);
    let mut prepared = Prepared {
        dir: dir.clone(),
        buggy: dir.join("buggy"),
        fixed: dir.join("fixed"),
        classes: dir.join("classes"),
        jars,
        runner,
        encoding: ENCODINGS[0].to_string(),
        touched,
        check: Check::default(),
        meta,
    };
    if let Some(cached) = check::cached(&dir, &fingerprint) {
        // The cached checkouts are named by the fixed revision, not by `--repo`, but a wrong
        // `--repo` must not pass unnoticed because they exist: it is checked as a cold set-up
        // checks it (a bundle path seen before is already cloned: one `git cat-file`).
        repository(harness, &prepared.meta)?;
        prepared.encoding.clone_from(&cached.encoding);
        prepared.check = cached;
        return Ok(prepared);
    }
    let started = std::time::Instant::now();
    remove_stale(&dir);
    let tmp = tmp_beside(&dir)?;
    let made = materialise(harness, &mut prepared, &tmp, &patch);
    let check = match made {
        Ok(()) => None,
        Err(e @ D4jError::Tool { .. }) if e.to_string().contains("compiling") => {
            let why = e.to_string().replace(&tmp.display().to_string(), &dir.display().to_string());
            Some(Check::failed(&fingerprint, why))
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    replace_dir(&tmp, &dir)?;
    let check = match check {
        Some(failed) => failed,
        None => check::run(harness, &prepared, &fingerprint, started)?,
    };
    check::save(&dir, &check)?;
    prepared.check = check;
    Ok(prepared)
}

/// As [`prepare`], with an installed Defects4J setting the bug up ([`super::installed`]):
/// its checkouts, builds and exported class path instead of fixdex's; the gold check is
/// fixdex's, cached the same way.
pub(super) fn prepare_installed(harness: &Harness, installed: &Installed, meta: BugMeta) -> Result<Prepared, D4jError> {
    let bug = meta.id.to_string();
    let patch = std::fs::read_to_string(&meta.patch).map_err(D4jError::io(&meta.patch))?;
    let touched = touched_lines(&patch).map_err(|e| D4jError::meta(&meta.patch, e))?;
    let dir = harness.work.join("bugs").join(&bug);
    let _lock = lock_bug(&dir)?;
    let key = |exported: &Exported, runner: &Path| {
        let home = installed.home.display().to_string();
        fingerprint(&meta, &format!("{patch}\0installed:{home}\0{exported:?}"), &exported.jars, runner)
    };
    let prepared = |meta: BugMeta, exported: Exported, runner: PathBuf| Prepared {
        dir: dir.clone(),
        buggy: dir.join("buggy"),
        fixed: dir.join("fixed"),
        classes: dir.join("classes"),
        jars: exported.jars,
        runner,
        encoding: ENCODINGS[0].to_string(),
        touched: touched.clone(),
        check: Check::default(),
        meta: BugMeta { src_dir: exported.src_dir, test_dir: exported.test_dir, ..meta },
    };
    if let Some(exported) = installed::read(&dir) {
        let runner = runner(harness, &exported.jars, &bug)?;
        if let Some(cached) = check::cached(&dir, &key(&exported, &runner)) {
            let mut p = prepared(meta, exported, runner);
            p.encoding.clone_from(&cached.encoding);
            p.check = cached;
            return Ok(p);
        }
    }
    let started = std::time::Instant::now();
    remove_stale(&dir);
    let tmp = tmp_beside(&dir)?;
    let exported = match installed.materialise(&meta, &tmp) {
        Ok(exported) => exported,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    installed::write(&tmp, &exported)?;
    replace_dir(&tmp, &dir)?;
    let runner = runner(harness, &exported.jars, &bug)?;
    let fingerprint = key(&exported, &runner);
    let mut p = prepared(meta, exported, runner);
    p.encoding = source_encoding(&p.buggy.join(&p.meta.src_dir)).to_string();
    let check = check::run(harness, &p, &fingerprint, started)?;
    check::save(&dir, &check)?;
    p.check = check;
    Ok(p)
}

/// The checkouts and classes of `p` made under `tmp` (the paths in `p` point to the final
/// folder; every step here works in `tmp`).
fn materialise(harness: &Harness, p: &mut Prepared, tmp: &Path, patch: &str) -> Result<(), D4jError> {
    let bug = p.meta.id.to_string();
    let git_dir = repository(harness, &p.meta)?;
    let fixed = tmp.join("fixed");
    let buggy = tmp.join("buggy");
    archive(&git_dir, &p.meta.fixed_rev, &fixed, &bug)?;
    copy_tree(&fixed, &buggy)?;
    apply_patch(&buggy, patch, &p.meta, &bug)?;
    let classes = tmp.join("classes");
    let jars = class_path(&p.jars);
    let src = &p.meta.src_dir;
    let (encoding, _) =
        compile_tree(&fixed.join(src), &classes.join("fixed"), &jars, &bug, "compiling the fixed version", None)?;
    p.encoding = encoding;
    compile_tree(&buggy.join(src), &classes.join("buggy"), &jars, &bug, "compiling the buggy version", None)?;
    let test_cp = format!("{}:{jars}", classes.join("fixed").display());
    let tests = fixed.join(&p.meta.test_dir);
    let (_, dropped) =
        compile_tree(&tests, &classes.join("test"), &test_cp, &bug, "compiling the tests", Some(&p.meta.triggers))?;
    p.check.dropped_tests = dropped;
    Ok(())
}

/// The git directory of `meta`'s project holding the fixed revision: the `--repo` folder
/// itself, or for a bundle its bare clone in the work folder, made once per bundle path
/// (`repos/PROJECT-HASH.git`, HASH the FNV-1a of the bundle's absolute path): another
/// `--repo` for the project is another clone, so a wrong bundle given once is not kept.
fn repository(harness: &Harness, meta: &BugMeta) -> Result<PathBuf, D4jError> {
    let bug = meta.id.to_string();
    let given = harness.repos.get(&meta.id.project).ok_or_else(|| D4jError::Repo {
        bug: bug.clone(),
        reason: format!(
            "no repository for {}: give --repo {}=PATH (a work tree, a bare repository or a bundle of the upstream project)",
            meta.id.project, meta.id.project
        ),
    })?;
    let git_dir = if given.is_file() {
        let source = std::fs::canonicalize(given).unwrap_or_else(|_| given.clone());
        let key = crate::retrieve::rank::fnv(&source.to_string_lossy());
        let clone = harness.work.join("repos").join(format!("{}-{key:016x}.git", meta.id.project));
        if !clone.is_dir() {
            let tmp = tmp_beside(&clone)?;
            std::fs::remove_dir(&tmp).map_err(D4jError::io(&tmp))?;
            let mut cmd = Command::new("git");
            cmd.args(["clone", "--quiet", "--bare"]).arg(given).arg(&tmp);
            run_tool(cmd, &bug, &format!("cloning the bundle {}", given.display()))?;
            // Another worker may have cloned it meanwhile and be reading it: keep theirs.
            keep_first(&tmp, &clone)?;
        }
        clone
    } else if given.is_dir() {
        std::path::absolute(given).unwrap_or_else(|_| given.clone())
    } else {
        return Err(D4jError::Repo { bug, reason: format!("--repo {} does not exist", given.display()) });
    };
    let mut has = Command::new("git");
    has.arg("-C").arg(&git_dir).args(["cat-file", "-e"]).arg(format!("{}^{{commit}}", meta.fixed_rev));
    if run_tool(has, &bug, "looking up the fixed revision").is_err() {
        return Err(D4jError::Repo {
            bug,
            reason: format!(
                "the repository {} lacks the fixed revision {}: give the upstream repository of {} (its full history) with --repo",
                given.display(),
                meta.fixed_rev,
                meta.id.project
            ),
        });
    }
    Ok(git_dir)
}

/// [`super::Harness::history`]: `git rev-list FIXED^@` in the project's repository.
pub(super) fn history(harness: &Harness, meta: &BugMeta) -> Result<std::collections::HashSet<String>, D4jError> {
    let git_dir = repository(harness, meta)?;
    let bug = meta.id.to_string();
    let mut shallow = Command::new("git");
    shallow.arg("-C").arg(&git_dir).args(["rev-parse", "--is-shallow-repository"]);
    if run_tool(shallow, &bug, "checking the repository's history")?.trim() == "true" {
        return Err(D4jError::Repo {
            bug,
            reason: format!(
                "the repository of {} is a shallow clone: --own-history needs its full history (git fetch --unshallow)",
                meta.id.project
            ),
        });
    }
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(&git_dir).arg("rev-list").arg(format!("{}^@", meta.fixed_rev));
    let out = run_tool(cmd, &bug, "listing the commits before the fix")?;
    Ok(out.split_whitespace().map(String::from).collect())
}

/// `git archive REV` of `git_dir` extracted into `dest` (made).
fn archive(git_dir: &Path, rev: &str, dest: &Path, bug: &str) -> Result<(), D4jError> {
    std::fs::create_dir_all(dest).map_err(D4jError::io(dest))?;
    let tar = dest.with_extension("tar");
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(git_dir).args(["archive", "--format=tar", "-o"]).arg(&tar).arg(rev);
    run_tool(cmd, bug, &format!("git archive of {rev}"))?;
    let mut untar = Command::new("tar");
    untar.arg("-xf").arg(&tar).arg("-C").arg(dest);
    run_tool(untar, bug, "extracting the fixed revision")?;
    std::fs::remove_file(&tar).map_err(D4jError::io(&tar))
}

/// Applies Defects4J's patch (fixed → buggy) in `dir` with `git apply`, no repository
/// around it (`GIT_CEILING_DIRECTORIES`).
fn apply_patch(dir: &Path, patch: &str, meta: &BugMeta, bug: &str) -> Result<(), D4jError> {
    let file = dir.join(".fixdex-d4j.patch");
    std::fs::write(&file, patch).map_err(D4jError::io(&file))?;
    let mut cmd = Command::new("git");
    cmd.current_dir(dir).env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir)).args([
        "apply",
        "-p1",
        "--whitespace=nowarn",
        ".fixdex-d4j.patch",
    ]);
    let applied = run_tool(cmd, bug, &format!("applying {}", meta.patch.display()));
    std::fs::remove_file(&file).map_err(D4jError::io(&file))?;
    applied.map(|_| ()).map_err(|e| match e {
        D4jError::Tool { bug, step, detail } => D4jError::Tool {
            bug,
            step,
            detail: format!("{detail} (the patch does not fit the fixed revision {}: check --repo)", meta.fixed_rev),
        },
        other => other,
    })
}

/// Compiles every `.java` file under `src` into `out` (made) against `cp`, first as UTF-8
/// and then as ISO-8859-1 when javac reports unmappable characters, and copies the folder's
/// other files into `out` (resources). With `needed` (the trigger tests), test sources that
/// do not compile and hold none of those (a test of a jar nothing ships) are left out and
/// compiled around, as Defects4J leaves out broken tests; relevant test classes among them
/// are then not run ([`super::Prepared::relevant`]). Returns the
/// encoding that compiled and the files left out (relative to `src`).
pub(super) fn compile_tree(
    src: &Path,
    out: &Path,
    cp: &str,
    bug: &str,
    step: &str,
    needed: Option<&[String]>,
) -> Result<(String, Vec<String>), D4jError> {
    let tool = |detail: String| D4jError::Tool { bug: bug.into(), step: step.into(), detail };
    std::fs::create_dir_all(out).map_err(D4jError::io(out))?;
    let mut sources = Vec::new();
    for entry in walkdir::WalkDir::new(src).sort_by_file_name() {
        let entry = entry.map_err(|e| tool(e.to_string()))?;
        let rel = entry.path().strip_prefix(src).expect("walkdir yields paths under its root");
        if entry.file_type().is_dir() {
            continue;
        }
        if rel.extension().is_some_and(|e| e == "java") {
            sources.push(rel.to_string_lossy().into_owned());
        } else {
            let dest = out.join(rel);
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent).map_err(D4jError::io(parent))?;
            }
            std::fs::copy(entry.path(), &dest).map_err(D4jError::io(&dest))?;
        }
    }
    if sources.is_empty() {
        return Err(tool(format!("no .java file under {}", src.display())));
    }
    let list = out.with_extension("sources");
    let (mut encoding, mut dropped) = (0, Vec::new());
    loop {
        std::fs::write(&list, sources.join("\n") + "\n").map_err(D4jError::io(&list))?;
        let mut cmd = Command::new("javac");
        cmd.current_dir(src).args(JAVAC_FLAGS).args(["-encoding", ENCODINGS[encoding], "-d"]).arg(out);
        cmd.args(["-cp", cp]).arg(format!("@{}", list.display()));
        let output = cmd.output().map_err(|e| tool(format!("{e}: install a JDK 17 or later")))?;
        if output.status.success() {
            let _ = std::fs::remove_file(&list);
            return Ok((ENCODINGS[encoding].to_string(), dropped));
        }
        let text = String::from_utf8_lossy(&[output.stderr, output.stdout].concat()).into_owned();
        if text.contains("unmappable character") && encoding + 1 < ENCODINGS.len() {
            encoding += 1;
            continue;
        }
        let broken = failing_sources(&text, &sources);
        let droppable = needed.is_some_and(|needed| {
            !broken.is_empty() && broken.iter().all(|f| !needed.iter().any(|c| holds_class(f, c))) && dropped.len() < 50
        });
        if !droppable {
            let tail: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).take(12).collect();
            return Err(tool(format!("{}: {}", output.status, tail.join("\n"))));
        }
        sources.retain(|s| !broken.contains(s));
        dropped.extend(broken);
    }
}

/// The sources of `sources` (relative paths) that javac's output `text` reports errors in.
fn failing_sources(text: &str, sources: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let Some((path, _)) = line.split_once(".java:") else { continue };
        let path = format!("{path}.java");
        if let Some(s) = sources.iter().find(|s| path == **s || path.ends_with(&format!("/{s}")))
            && !out.contains(s)
        {
            out.push(s.clone());
        }
    }
    out
}

/// Whether source file `file` (`org/x/FooTest.java`) declares test class `class`
/// (`org.x.FooTest`, or a `Class::method`, or a nested `org.x.FooTest$Inner`).
pub(super) fn holds_class(file: &str, class: &str) -> bool {
    let class = class.split("::").next().unwrap_or(class);
    let outer = class.split('$').next().unwrap_or(class);
    file.trim_end_matches(".java") == outer.replace('.', "/")
}

/// The runner compiled against `jars` (JUnit) into `<work>/runner/<hash>/`, once per JDK and
/// runner source.
fn runner(harness: &Harness, jars: &[PathBuf], bug: &str) -> Result<PathBuf, D4jError> {
    let version = Command::new("javac").arg("-version").output().map_err(|e| D4jError::Tool {
        bug: bug.into(),
        step: "starting javac".into(),
        detail: format!("{e}: install a JDK 17 or later (Debian: default-jdk-headless)"),
    })?;
    let version = String::from_utf8_lossy(&[version.stdout, version.stderr].concat()).trim().to_string();
    let major = version.split_whitespace().nth(1).and_then(|v| v.split('.').next()).and_then(|v| v.parse::<u32>().ok());
    if major.is_none_or(|m| m < 17) {
        return Err(D4jError::Tool {
            bug: bug.into(),
            step: "checking the JDK".into(),
            detail: format!(
                "`javac -version` says `{version}`: the harness needs a JDK 17 or later (javac --release 8)"
            ),
        });
    }
    let hash = hex::encode(&Sha256::digest(format!("{version}\n{RUNNER_SOURCE}").as_bytes())[..8]);
    let dir = harness.work.join("runner").join(hash);
    if dir.join(format!("{RUNNER_CLASS}.class")).is_file() {
        return Ok(dir);
    }
    let tmp = tmp_beside(&dir)?;
    let source = tmp.join(format!("{RUNNER_CLASS}.java"));
    std::fs::write(&source, RUNNER_SOURCE).map_err(D4jError::io(&source))?;
    let mut cmd = Command::new("javac");
    cmd.args(["-nowarn", "--release", "8", "-Xlint:-options", "-d"])
        .arg(&tmp)
        .args(["-cp", &class_path(jars)])
        .arg(&source);
    run_tool(cmd, bug, "compiling the JUnit runner")?;
    keep_first(&tmp, &dir)?;
    Ok(dir)
}

/// What the gold check depends on, hashed: the revision, the patch, the test lists, the
/// jars, the runner (its folder names the JDK and source).
fn fingerprint(meta: &BugMeta, patch: &str, jars: &[PathBuf], runner: &Path) -> String {
    let mut h = Sha256::new();
    for part in
        [SETUP_VERSION, &meta.fixed_rev, patch, &meta.triggers.join(","), &meta.relevant.join(","), &class_path(jars)]
    {
        h.update(part.as_bytes());
        h.update([0]);
    }
    h.update(runner.display().to_string().as_bytes());
    hex::encode(&h.finalize()[..16])
}

/// The encoding of the `.java` files under `src` for `javac -encoding`: UTF-8 when every one
/// is valid UTF-8, else ISO-8859-1 (older Apache sources), as [`compile_tree`] settles it by
/// trying.
fn source_encoding(src: &Path) -> &'static str {
    let latin = walkdir::WalkDir::new(src).into_iter().filter_map(Result::ok).any(|e| {
        e.path().extension().is_some_and(|x| x == "java")
            && std::fs::read(e.path()).is_ok_and(|bytes| std::str::from_utf8(&bytes).is_err())
    });
    ENCODINGS[usize::from(latin)]
}

/// `jars` joined with `:`.
pub(super) fn class_path(jars: &[PathBuf]) -> String {
    jars.iter().map(|j| j.display().to_string()).collect::<Vec<_>>().join(":")
}

/// Runs `cmd`, returning its stdout; an error with the output's tail when it fails.
pub(super) fn run_tool(mut cmd: Command, bug: &str, step: &str) -> Result<String, D4jError> {
    let out = cmd.output().map_err(|e| D4jError::Tool { bug: bug.into(), step: step.into(), detail: e.to_string() })?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let all = String::from_utf8_lossy(&[out.stderr, out.stdout].concat()).into_owned();
    let tail: String = all.lines().filter(|l| !l.trim().is_empty()).take(12).collect::<Vec<_>>().join("\n");
    Err(D4jError::Tool { bug: bug.into(), step: step.into(), detail: format!("{}: {tail}", out.status) })
}

/// Holds `.<Bug-N>.lock` beside the bug's folder `dir` (an exclusive `flock`, released when
/// the file is dropped) while the folder is made and its gold check run or read: two runs
/// sharing a work folder (two arms started at once) would otherwise each make the checkout,
/// and the second's rename pulled it from under the first's gold check ("cannot start java
/// … No such file"). The second waits (saying so on stderr), then reads the first's cached
/// check. A file system without `flock` goes on unlocked, as before.
fn lock_bug(dir: &Path) -> Result<std::fs::File, D4jError> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(D4jError::io(parent))?;
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let path = parent.join(format!(".{name}.lock"));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(D4jError::io(&path))?;
    let locked = match file.try_lock() {
        Err(std::fs::TryLockError::WouldBlock) => {
            // A bug's set-up can take minutes: say why this one is not moving.
            eprintln!("{name}: waiting for another run setting it up in the same work folder ({})", path.display());
            file.lock()
        }
        Err(std::fs::TryLockError::Error(e)) => Err(e),
        Ok(()) => Ok(()),
    };
    match locked {
        Err(e) if e.kind() != std::io::ErrorKind::Unsupported => Err(D4jError::Io { path, source: e }),
        _ => Ok(file),
    }
}

/// Removes the half-made folders of the bug folder `dir` that an interrupted or killed run
/// left ([`tmp_beside`]'s `.<Bug-N>.tmp-*`, [`replace_dir`]'s `.<Bug-N>.old`). Called
/// holding [`lock_bug`]'s lock, under which alone they are made, so none of them is another
/// run's work in progress; and only when the bug is made again (a run cut short left no
/// cached check), so a warm bug's set-up reads no folder listing.
fn remove_stale(dir: &Path) {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else { return };
    let name = name.to_string_lossy();
    let (tmp, old) = (format!(".{name}.tmp-"), format!(".{name}.old"));
    for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
        let n = entry.file_name().to_string_lossy().into_owned();
        if n.starts_with(&tmp) || n == old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A new empty folder beside `dest` (same file system, for the rename).
fn tmp_beside(dest: &Path) -> Result<PathBuf, D4jError> {
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(D4jError::io(parent))?;
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = parent.join(format!(".{name}.tmp-{}-{}", std::process::id(), fastrand::u64(..)));
    std::fs::create_dir(&tmp).map_err(D4jError::io(&tmp))?;
    Ok(tmp)
}

/// Moves `tmp` to `dest`, replacing an older `dest` (a stale gold check); when another
/// process put `dest` there in between, `tmp` is removed and theirs kept.
fn replace_dir(tmp: &Path, dest: &Path) -> Result<(), D4jError> {
    if dest.exists() {
        let old = tmp.with_extension("old");
        if std::fs::rename(dest, &old).is_ok() {
            let _ = std::fs::remove_dir_all(&old);
        }
    }
    match std::fs::rename(tmp, dest) {
        Ok(()) => Ok(()),
        Err(_) if dest.is_dir() => std::fs::remove_dir_all(tmp).map_err(D4jError::io(tmp)),
        Err(e) => Err(D4jError::Io { path: dest.to_path_buf(), source: e }),
    }
}

/// Moves `tmp` to `dest` unless `dest` is there already (another worker of the run made it
/// meanwhile and may be reading it), in which case `tmp` is removed: for what is the same
/// whoever makes it (a bundle's clone, the compiled runner), where [`replace_dir`] would
/// pull a folder from under a reader.
fn keep_first(tmp: &Path, dest: &Path) -> Result<(), D4jError> {
    // One rename, which fails when `dest` is a folder with files: no window between a check
    // and the move.
    match std::fs::rename(tmp, dest) {
        Ok(()) => Ok(()),
        Err(_) if dest.is_dir() => std::fs::remove_dir_all(tmp).map_err(D4jError::io(tmp)),
        Err(e) => Err(D4jError::Io { path: dest.to_path_buf(), source: e }),
    }
}

/// Copies the tree `src` into `dest` (`cp -a`: links, modes and times kept).
fn copy_tree(src: &Path, dest: &Path) -> Result<(), D4jError> {
    let mut cp = Command::new("cp");
    cp.arg("-a").arg(src).arg(dest);
    run_tool(cp, "", &format!("copying {}", src.display())).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder `tmp_beside` `dest` holding one file `name` with `text`.
    fn made(dest: &Path, name: &str, text: &str) -> PathBuf {
        let tmp = tmp_beside(dest).unwrap();
        std::fs::write(tmp.join(name), text).unwrap();
        tmp
    }

    /// Two workers of one run clone the same bundle on a fresh work folder: the second must
    /// not pull the first one's clone from under it (it did with `replace_dir`, and the first
    /// worker's bug failed as "the repository lacks the fixed revision").
    #[test]
    fn keep_first_leaves_a_folder_already_there_and_drops_the_late_copy() {
        let work = tempfile::tempdir().unwrap();
        let dest = work.path().join("repos").join("Cli-0.git");
        let first = made(&dest, "HEAD", "first");
        keep_first(&first, &dest).unwrap();
        assert_eq!(std::fs::read_to_string(dest.join("HEAD")).unwrap(), "first");
        assert!(!first.exists());
        // A reader holds the folder open; the late copy must leave it as it is.
        let reader = std::fs::File::open(dest.join("HEAD")).unwrap();
        let late = made(&dest, "HEAD", "late");
        keep_first(&late, &dest).unwrap();
        assert_eq!(std::fs::read_to_string(dest.join("HEAD")).unwrap(), "first");
        assert!(!late.exists(), "the late copy is removed");
        drop(reader);
        let left: Vec<_> = std::fs::read_dir(dest.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["Cli-0.git"], "no temporary folder is left behind");
        // replace_dir, for what goes stale (a bug's prepared folder), does replace.
        let newer = made(&dest, "HEAD", "newer");
        replace_dir(&newer, &dest).unwrap();
        assert_eq!(std::fs::read_to_string(dest.join("HEAD")).unwrap(), "newer");
    }
}
