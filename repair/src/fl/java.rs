//! Java per-test coverage: JUnit 4 under the JaCoCo agent, with the embedded helper
//! `FixdexFl.java` taking and analyzing the execution data after each test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::{FlError, JACOCO_JARS, JavaTarget, Outcome, Result, TestCoverage};

/// The helper's source, compiled by `javac` into the helper cache (see [`helper`]).
const HELPER_SOURCE: &str = include_str!("FixdexFl.java");
/// File name of the helper's source.
const HELPER_FILE: &str = "FixdexFl.java";
/// The helper's main class.
const HELPER_CLASS: &str = "FixdexFl";
/// Folder of the helper's class files, in the work folder.
const HELPER_DIR: &str = "helper";
/// The runtime agent extracted from `org.jacoco.agent.jar`.
const AGENT_JAR: &str = "jacocoagent.jar";
/// The helper's JSON-lines output.
const OUTPUT_FILE: &str = "java-coverage.jsonl";

/// One line of the helper's output.
#[derive(Debug, Deserialize)]
struct Line {
    test: String,
    outcome: Outcome,
    covered: Vec<Covered>,
}

/// Covered lines of one source file (`package/dirs/Source.java`).
#[derive(Debug, Deserialize)]
struct Covered {
    file: String,
    lines: BTreeSet<u32>,
}

/// The jars of [`JACOCO_JARS`], by role.
#[derive(Debug)]
struct Jars {
    /// `org.jacoco.agent.jar`, which carries `jacocoagent.jar`.
    agent: PathBuf,
    /// `org.jacoco.agent.rt.jar`: compile time only. At run time `RT` must come from the
    /// `-javaagent` jar, which the JVM appends after `-cp`.
    rt_api: PathBuf,
    /// The analysis core and ASM.
    analysis: Vec<PathBuf>,
}

/// Build, run the tests under the agent with the (cached) helper, and read their coverage.
pub(super) fn coverage(dir: &Path, work: &Path, t: &JavaTarget, timeout: Duration) -> Result<Vec<TestCoverage>> {
    let jars = jars(&t.jacoco_dir)?;
    if let Some(build) = &t.build {
        super::run(build, dir, &[], timeout, &[])?;
    }
    let cache = helper(t, &jars, timeout)?;
    let (helper, agent) = (cache.join(HELPER_DIR), cache.join(AGENT_JAR));
    let analysis = jars.analysis.iter().map(PathBuf::as_path);
    let rest = std::iter::once(t.classes_dir.as_path()).chain(t.class_path.iter().map(PathBuf::as_path));
    let cp = super::class_path(std::iter::once(helper.as_path()).chain(analysis).chain(rest));
    let output = work.join(OUTPUT_FILE);
    let mut command = vec![
        format!("-javaagent:{}={}", agent.display(), agent_options(t)),
        "-cp".into(),
        cp,
        HELPER_CLASS.into(),
        "run".into(),
        t.classes_dir.to_string_lossy().into_owned(),
        output.to_string_lossy().into_owned(),
    ];
    command.extend(t.test_classes.iter().cloned());
    let run = super::run(&super::argv(std::iter::once("java".to_string()).chain(command)), dir, &[], timeout, &[])?;
    let tests = parse(&super::read_output(&output)?, &output, dir, &t.source_roots)?;
    if !tests.is_empty() && tests.iter().all(|t| t.covered.is_empty()) {
        return Err(FlError::NoCoverage {
            hint: format!(
                "check `includes` ({}) and that JaCoCo can read the class files (tests that die in an \
                 exception before any probe, such as a StackOverflowError, record nothing); the run printed: {}",
                t.includes.join(":"),
                super::tail(&run.failure_text())
            ),
        });
    }
    Ok(tests)
}

/// The jars of [`JACOCO_JARS`] in `dir`.
fn jars(dir: &Path) -> Result<Jars> {
    let mut found = JACOCO_JARS.iter().map(|name| {
        let jar = dir.join(name);
        if jar.is_file() { Ok(jar) } else { Err(FlError::MissingJar { jar }) }
    });
    let mut next = || found.next().expect("JACOCO_JARS has six entries");
    Ok(Jars { agent: next()?, rt_api: next()?, analysis: found.collect::<Result<_>>()? })
}

/// The folder holding the compiled helper ([`HELPER_DIR`]) and the extracted agent
/// ([`AGENT_JAR`]): `$TMPDIR/fixdex-fl-java-<key>`, built once per key and reused. The key
/// hashes the helper's source and the path, size and mtime of every jar it is compiled
/// against; the helper targets Java 11 (`--release 11`), so any later JDK runs it. A folder
/// is published by rename only when complete, so concurrent runs never see half of one.
fn helper(t: &JavaTarget, jars: &Jars, timeout: Duration) -> Result<PathBuf> {
    let compile_cp: Vec<&Path> = [&jars.agent, &jars.rt_api]
        .into_iter()
        .chain(&jars.analysis)
        .chain(&t.class_path)
        .map(PathBuf::as_path)
        .collect();
    let cache = std::env::temp_dir().join(format!("fixdex-fl-java-{}", cache_key(&compile_cp)));
    if cache.join(AGENT_JAR).is_file() {
        return Ok(cache);
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FlError::Io { path, source }
    };
    let tmp = tempfile::Builder::new().prefix("fixdex-fl-java-tmp-").tempdir().map_err(io(&std::env::temp_dir()))?;
    build_helper(tmp.path(), &compile_cp, timeout)?;
    // Losing a race to another run is fine: its folder is complete, and `tmp` is removed on drop.
    if let Err(e) = std::fs::rename(tmp.path(), &cache)
        && !cache.join(AGENT_JAR).is_file()
    {
        return Err(io(&cache)(e));
    }
    Ok(cache)
}

/// Hex SHA-256 of the helper's source and the path, size and mtime of each jar.
fn cache_key(jars: &[&Path]) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(HELPER_SOURCE.as_bytes());
    for jar in jars {
        let meta = std::fs::metadata(jar).ok();
        let mtime =
            meta.as_ref().and_then(|m| m.modified().ok()).and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        h.update(format!("\0{}\0{:?}\0{:?}", jar.display(), meta.map(|m| m.len()), mtime).as_bytes());
    }
    hex::encode(&h.finalize()[..8])
}

/// Compile the helper into `dir/`[`HELPER_DIR`] and extract the agent to `dir/`[`AGENT_JAR`].
fn build_helper(dir: &Path, compile_cp: &[&Path], timeout: Duration) -> Result<()> {
    let source = dir.join(HELPER_FILE);
    super::write_file(&source, HELPER_SOURCE)?;
    let classes = dir.join(HELPER_DIR).to_string_lossy().into_owned();
    let cp = super::class_path(compile_cp.iter().copied());
    let javac = ["javac", "-nowarn", "--release", "11", "-encoding", "UTF-8", "-d", &classes, "-cp", &cp];
    let source = source.to_string_lossy().into_owned();
    super::run(&super::argv(javac.into_iter().chain([source.as_str()])), dir, &[], timeout, &[])?;
    let run_cp = super::class_path(std::iter::once(Path::new(&classes)).chain(compile_cp.iter().copied()));
    let agent = dir.join(AGENT_JAR).to_string_lossy().into_owned();
    let extract = ["java", "-cp", &run_cp, HELPER_CLASS, "extract-agent", &agent];
    super::run(&super::argv(extract), dir, &[], timeout, &[])?;
    Ok(())
}

/// The agent's options: no output file, no JMX, and the classes under analysis.
fn agent_options(t: &JavaTarget) -> String {
    let mut options = "output=none,dumponexit=false,jmx=false".to_string();
    if !t.includes.is_empty() {
        options.push_str(",includes=");
        options.push_str(&t.includes.join(":"));
    }
    options
}

/// Parse the helper's JSON lines, naming files relative to the project root.
fn parse(text: &str, path: &Path, dir: &Path, roots: &[PathBuf]) -> Result<Vec<TestCoverage>> {
    let mut tests = Vec::new();
    for (i, raw) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let line: Line = serde_json::from_str(raw)
            .map_err(|e| FlError::Parse { path: path.to_path_buf(), reason: format!("line {}: {e}", i + 1) })?;
        let mut covered = BTreeMap::new();
        for c in line.covered {
            covered.entry(resolve(dir, roots, &c.file)).or_insert_with(BTreeSet::new).extend(c.lines);
        }
        tests.push(TestCoverage { name: line.test, outcome: line.outcome, covered });
    }
    Ok(tests)
}

/// `package/dirs/Source.java` as a project-relative path: the first source root holding it,
/// else unchanged.
fn resolve(dir: &Path, roots: &[PathBuf], file: &str) -> String {
    roots
        .iter()
        .map(|root| root.join(file))
        .find(|candidate| dir.join(candidate).is_file())
        .map_or_else(|| file.to_string(), |p| slash_path(&p))
}

/// `p` without `.` components, `/`-separated.
fn slash_path(p: &Path) -> String {
    p.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_helper_lines_and_resolves_sources() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/main/java/p")).unwrap();
        std::fs::write(dir.path().join("src/main/java/p/A.java"), "").unwrap();
        let text = concat!(
            r#"{"test":"p.ATest#a","outcome":"passed","covered":[{"file":"p/A.java","lines":[3,4]}]}"#,
            "\n",
            r#"{"test":"p.ATest#b","outcome":"failed","message":"x","covered":[{"file":"q/B.java","lines":[1]}]}"#,
        );
        let roots = [PathBuf::from("."), PathBuf::from("src/main/java")];
        let tests = parse(text, Path::new("out"), dir.path(), &roots).unwrap();
        assert_eq!(tests.len(), 2);
        assert_eq!(tests[0].covered["src/main/java/p/A.java"], BTreeSet::from([3, 4]));
        assert_eq!((tests[1].outcome, tests[1].covered.keys().next().unwrap().as_str()), (Outcome::Failed, "q/B.java"));
        let e = parse("{", Path::new("out"), dir.path(), &roots).unwrap_err();
        assert!(e.to_string().starts_with("out: line 1:"), "{e}");
    }

    #[test]
    fn missing_jar_names_the_package() {
        let dir = tempfile::tempdir().unwrap();
        let e = jars(dir.path()).unwrap_err().to_string();
        assert!(e.contains("org.jacoco.agent.jar not found") && e.contains("apt-get install libjacoco-java"), "{e}");
        assert!(e.contains("FIXDEX_JACOCO_DIR"), "{e}");
    }
}
