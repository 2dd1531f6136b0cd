use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch folder with the tiny model written into `model/`.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        engine::testing::write_tiny_model(&dir.path().join("model")).unwrap();
        Scratch { dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn model(&self) -> PathBuf {
        self.path("model")
    }

    /// Writes `lines` as a JSONL corpus file.
    pub fn corpus(&self, name: &str, lines: &[String]) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        p
    }

    /// Runs `fixdex` with the tiny model.
    pub fn run(&self, args: &[&str]) -> Output {
        fixdex(args, Some(&self.model()))
    }

    /// `fixdex search IDX --code CODE --cause CAUSE --exact -k K --json`: the hits as
    /// (id, score), best first.
    pub fn exact_hits(&self, idx: &Path, code: &Path, cause: &str, k: usize) -> Vec<(String, f64)> {
        let k = k.to_string();
        let args = [
            "search",
            idx.to_str().unwrap(),
            "--code",
            code.to_str().unwrap(),
            "--cause",
            cause,
            "--exact",
            "-k",
            &k,
            "--json",
        ];
        stdout_json(&self.run(&args))["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["id"].as_str().unwrap().to_string(), h["score"].as_f64().unwrap()))
            .collect()
    }

    /// Runs `fixdex index` over `corpus` into `out` with the tiny model; asserts success.
    pub fn index(&self, corpus: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
        let mut args = vec!["index", corpus.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        let o = self.run(&args);
        assert!(o.status.success(), "index failed: {}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    }
}

/// Runs the binary with `FIXDEX_MODEL` set to `model` (or unset).
pub fn fixdex(args: &[&str], model: Option<&Path>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fixdex"));
    c.args(args).env_remove("RUST_LOG");
    // Never reach a user's real LLM endpoint from the tests.
    for var in ["FIXDEX_LLM_URL", "FIXDEX_LLM_MODEL", "OPENAI_API_KEY"] {
        c.env_remove(var);
    }
    match model {
        Some(m) => c.env("FIXDEX_MODEL", m),
        None => c.env_remove("FIXDEX_MODEL"),
    };
    c.output().unwrap()
}

/// One JSONL record line.
pub fn record(id: &str, lang: &str, buggy: &str, fixed: &str, cause: &str) -> String {
    serde_json::json!({"id": id, "source": "test", "project": "p", "language": lang,
        "buggy_code": buggy, "fixed_code": fixed, "root_cause": cause})
    .to_string()
}

/// `n` distinct valid record lines from the engine's synthetic records.
pub fn records(n: usize) -> Vec<String> {
    engine::testing::sample_records(n)
        .iter()
        .map(|r| {
            serde_json::json!({"id": r.id, "source": r.source, "project": r.project,
            "language": r.language, "buggy_code": r.buggy_code, "fixed_code": r.fixed_code,
            "root_cause": r.root_cause, "description": r.description})
            .to_string()
        })
        .collect()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout_json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "failed: {}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Root of the repository (for data/sample and the real model).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}
