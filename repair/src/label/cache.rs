//! [`Cache`]: the labels of earlier runs, so a run that was stopped (budget, time, `kill
//! -9`) resumes without asking the model again.
//!
//! The cache file is JSON Lines, one [`CacheEntry`] per labelled row, appended, flushed and
//! synced ([`std::fs::File::sync_data`]) as each row is labelled: a killed run loses at most
//! the rows in flight. A last line that is cut off or not an entry (a write torn by the
//! kill) is ignored and cut from the file before anything is appended; any other bad line is
//! an error.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::LabelError;

/// One labelled row: `{"key", "id", "root_cause", "source", "prompt_tokens",
/// "completion_tokens", "cost_usd"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheEntry {
    /// The row's key ([`super::Row::key`]): its content, the labeller and the prompt version.
    pub key: String,
    /// The row's id (for people reading the file; lookups use `key`).
    pub id: String,
    /// The cleaned root cause.
    pub root_cause: String,
    /// `model:<name>` or `mechanical` (what `meta.root_cause_source` gets).
    pub source: String,
    /// Prompt tokens of the call, as the server reported them (0 when mechanical or not
    /// reported).
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Completion tokens of the call.
    #[serde(default)]
    pub completion_tokens: u64,
    /// Cost of the call in USD, when priced (`--price-in`, `--price-out`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// An open cache file: the entries it held when opened, and the file to append to.
#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    file: Mutex<File>,
    entries: HashMap<String, CacheEntry>,
    torn: bool,
}

impl Cache {
    /// Opens (or creates) the cache at `path` and reads its entries; a torn last line is
    /// dropped from the file (see the module docs). Later entries win over earlier ones
    /// with the same key.
    ///
    /// # Errors
    /// [`LabelError::Io`] when it cannot be read, opened or cut; [`LabelError::BadCache`]
    /// for a bad line other than the last.
    pub fn open(path: &Path) -> Result<Cache, LabelError> {
        let io = |source| LabelError::Io { path: path.to_owned(), source };
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io(e)),
        };
        let (entries, keep) = parse(path, &bytes)?;
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
        let torn = keep < bytes.len();
        if torn {
            file.set_len(keep as u64).and_then(|()| file.sync_data()).map_err(io)?;
        }
        let entries = entries.into_iter().map(|e| (e.key.clone(), e)).collect();
        Ok(Cache { path: path.to_owned(), file: Mutex::new(file), entries, torn })
    }

    /// The entry of `key` read when the cache was opened.
    pub fn get(&self, key: &str) -> Option<&CacheEntry> {
        self.entries.get(key)
    }

    /// Number of distinct keys read when the cache was opened.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cache held no entry when opened.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether a torn last line was dropped when the cache was opened.
    pub fn had_torn_line(&self) -> bool {
        self.torn
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `entry` as one line, flushed and synced to disk before returning. Safe to
    /// call from several threads (lines never interleave).
    ///
    /// # Errors
    /// [`LabelError::Io`] when the line cannot be written or synced.
    pub fn append(&self, entry: &CacheEntry) -> Result<(), LabelError> {
        let line = serde_json::to_string(entry).expect("a cache entry always serializes") + "\n";
        let mut file = self.file.lock().expect("not poisoned");
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .and_then(|()| file.sync_data())
            .map_err(|source| LabelError::Io { path: self.path.clone(), source })
    }
}

/// The entries of a cache file's `bytes` and how many bytes to keep (all, or up to the
/// start of a torn last line).
fn parse(path: &Path, bytes: &[u8]) -> Result<(Vec<CacheEntry>, usize), LabelError> {
    let mut entries = Vec::new();
    let mut start = 0;
    let mut line_no = 0;
    while start < bytes.len() {
        line_no += 1;
        let end = bytes[start..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| start + i + 1);
        let text = String::from_utf8_lossy(&bytes[start..end]);
        if !text.trim().is_empty() {
            let last = end == bytes.len();
            match (serde_json::from_str::<CacheEntry>(text.trim()), last) {
                (Ok(e), _) if text.ends_with('\n') => entries.push(e),
                (_, true) => return Ok((entries, start)),
                (Ok(_), false) => unreachable!("only the last line can lack its newline"),
                (Err(e), false) => {
                    let message = format!("not a cache entry ({e}); delete the line or the file to label again");
                    return Err(LabelError::BadCache { path: path.to_owned(), line: line_no, message });
                }
            }
        }
        start = end;
    }
    Ok((entries, bytes.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str) -> CacheEntry {
        CacheEntry {
            key: key.to_owned(),
            id: format!("id-{key}"),
            root_cause: "The loop stops one short.".to_owned(),
            source: "model:m".to_owned(),
            prompt_tokens: 10,
            completion_tokens: 5,
            cost_usd: None,
        }
    }

    #[test]
    fn label_cache_appends_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let cache = Cache::open(&path).unwrap();
        assert!(cache.is_empty());
        cache.append(&entry("a")).unwrap();
        cache.append(&entry("b")).unwrap();
        drop(cache);
        let cache = Cache::open(&path).unwrap();
        assert_eq!((cache.len(), cache.had_torn_line()), (2, false));
        assert_eq!(cache.get("b"), Some(&entry("b")));
    }

    #[test]
    fn label_cache_drops_a_torn_last_line_and_appends_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let good = serde_json::to_string(&entry("a")).unwrap();
        let torn = &serde_json::to_string(&entry("b")).unwrap()[..40];
        std::fs::write(&path, format!("{good}\n{torn}")).unwrap();
        let cache = Cache::open(&path).unwrap();
        assert_eq!((cache.len(), cache.had_torn_line()), (1, true));
        cache.append(&entry("c")).unwrap();
        drop(cache);
        let cache = Cache::open(&path).unwrap();
        assert_eq!((cache.len(), cache.had_torn_line()), (2, false));
        assert!(cache.get("a").is_some() && cache.get("c").is_some() && cache.get("b").is_none());
    }

    #[test]
    fn label_cache_refuses_a_bad_middle_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let good = serde_json::to_string(&entry("a")).unwrap();
        std::fs::write(&path, format!("{good}\n{{oops\n{good}\n")).unwrap();
        let err = Cache::open(&path).unwrap_err().to_string();
        assert!(err.contains("c.jsonl:2: not a cache entry"), "{err}");
    }
}
