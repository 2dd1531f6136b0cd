//! A cache of model fingerprints, so that loading a model does not hash its weights on
//! every process start (91 MB for all-MiniLM-L6-v2: most of the 0.29 s that a CLI query
//! spent loading the model).
//!
//! The fingerprint ([`super::bert_fingerprint`]) covers `config.json`, `tokenizer.json`,
//! `model.safetensors` and the settings string `pooling=<p>;max_seq_length=<n>`. A cache
//! entry records it with the [`FileId`] of each of the three files (device, inode, size,
//! modification and status-change times, taken from the files as they were opened for
//! hashing) and the settings string. A load whose three files have exactly those ids and
//! whose settings are the same uses the recorded value; any difference (a file rewritten,
//! truncated, replaced by a rename, touched; other settings) hashes again and rewrites the
//! entry. Writing a file changes its status-change time, which no user tool can set back,
//! so a rewritten file never matches an old entry, except within one tick of the file
//! system's clock: an entry is therefore only written for files whose times are at least
//! [`SETTLED`] old (as git does for its index), and a load of fresher files just hashes.
//!
//! Where: [`CACHE_FILE`] in the model folder, or, when that folder cannot be written,
//! `$XDG_CACHE_HOME/fixdex/fingerprints/` (else `$HOME/.cache/fixdex/fingerprints/`) under
//! a name derived from the folder's canonical path. Both are written atomically (a
//! temporary file renamed into place). Every failure to read or write the cache is silent:
//! the load then hashes, as it did before the cache existed, and the value is the same.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::storage::FileId;

/// Name of the cache file in a model folder.
pub const CACHE_FILE: &str = ".fixdex-fingerprint.json";

/// Minimum age of the three files' modification and status-change times for an entry to
/// be written (see the module docs).
pub const SETTLED: Duration = Duration::from_secs(2);

/// Version of the entry format; an entry of another version is ignored.
const FORMAT: u32 = 1;

/// One cache entry: the fingerprint of the files with `files` ids under `settings`.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Entry {
    format: u32,
    /// `device:inode:bytes:modified_ns:changed_ns` of config, tokenizer and weights.
    files: [String; 3],
    settings: String,
    sha256: String,
}

/// What a fingerprint is cached under: the three files' ids and the settings string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Key {
    /// Ids of `config.json`, `tokenizer.json` and `model.safetensors`, in that order.
    pub files: [FileId; 3],
    /// `pooling=<p>;max_seq_length=<n>`, as hashed.
    pub settings: String,
}

impl Key {
    fn entry(&self, sha256: &str) -> Entry {
        let id = |f: &FileId| format!("{}:{}:{}:{}:{}", f.device, f.inode, f.bytes, f.modified_ns, f.changed_ns);
        Entry {
            format: FORMAT,
            files: [id(&self.files[0]), id(&self.files[1]), id(&self.files[2])],
            settings: self.settings.clone(),
            sha256: sha256.to_string(),
        }
    }

    /// Whether every file's times are at least `settled` before `now`.
    fn settled(&self, now: SystemTime, settled: Duration) -> bool {
        let now_ns = now.duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        let limit = now_ns.saturating_sub(i64::try_from(settled.as_nanos()).unwrap_or(i64::MAX));
        self.files.iter().all(|f| f.modified_ns <= limit && f.changed_ns <= limit)
    }
}

/// The fingerprint of the model in `dir` whose files have `key`: the cached value when an
/// entry matches, else `compute()`, then recorded (best effort) when the files are settled.
pub(crate) fn fingerprint(dir: &Path, key: &Key, compute: impl FnOnce() -> String) -> String {
    fingerprint_in(&locations(dir), key, SETTLED, compute)
}

/// [`fingerprint`] over explicit cache file locations (first: the preferred one), with the
/// settling age `settled` (tests use zero).
fn fingerprint_in(places: &[PathBuf], key: &Key, settled: Duration, compute: impl FnOnce() -> String) -> String {
    if let Some(sha) = places.iter().find_map(|p| lookup(p, key)) {
        return sha;
    }
    let sha = compute();
    if key.settled(SystemTime::now(), settled) {
        let entry = key.entry(&sha);
        // Best effort: the first place that can be written.
        let _ = places.iter().any(|p| store(p, &entry).is_ok());
    }
    sha
}

/// The cached fingerprint in the file `path` when it matches `key`.
fn lookup(path: &Path, key: &Key) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let found: Entry = serde_json::from_slice(&bytes).ok()?;
    let valid = found.sha256.len() == 64 && found.sha256.bytes().all(|b| b.is_ascii_hexdigit());
    (valid && found == key.entry(&found.sha256)).then_some(found.sha256)
}

/// Writes `entry` to `path` atomically (a temporary file beside it, then a rename).
fn store(path: &Path, entry: &Entry) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no parent folder"))?;
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".fixdex-fingerprint.{}.tmp-{}", std::process::id(), nanos()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&serde_json::to_vec(entry).map_err(std::io::Error::other)?)?;
        std::fs::rename(&tmp, path)
    };
    let result = write();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn nanos() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// The cache file locations for the model folder `dir`: in the folder, then in the user's
/// cache folder (when `XDG_CACHE_HOME` or `HOME` is set).
fn locations(dir: &Path) -> Vec<PathBuf> {
    let mut places = vec![dir.join(CACHE_FILE)];
    let user = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")));
    if let Some(user) = user {
        let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let name = hex::encode(&Sha256::digest(canonical.as_os_str().as_encoded_bytes())[..16]);
        places.push(user.join("fixdex").join("fingerprints").join(format!("{name}.json")));
    }
    places
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_of(dir: &Path) -> Key {
        let ids = ["a", "b", "c"].map(|f| FileId::of(&dir.join(f)).unwrap());
        Key { files: ids, settings: "pooling=mean;max_seq_length=8".into() }
    }

    fn setup() -> (tempfile::TempDir, Vec<PathBuf>) {
        let d = tempfile::tempdir().unwrap();
        for f in ["a", "b", "c"] {
            std::fs::write(d.path().join(f), f).unwrap();
        }
        let places = vec![d.path().join("model-cache.json"), d.path().join("user/fixdex/x.json")];
        (d, places)
    }

    #[test]
    fn a_matching_entry_is_used_and_a_changed_file_is_hashed_again() {
        let (d, places) = setup();
        let key = key_of(d.path());
        assert_eq!(fingerprint_in(&places, &key, Duration::ZERO, || "1".repeat(64)), "1".repeat(64));
        assert!(places[0].is_file(), "the entry is written to the first place");
        let hit = fingerprint_in(&places, &key, Duration::ZERO, || panic!("a matching entry must not hash"));
        assert_eq!(hit, "1".repeat(64));
        // Rewritten with the same size: the status-change time moves on (or, within one clock
        // tick, the inode does, by a rename), so the old entry no longer matches.
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(d.path().join("c.new"), "C").unwrap();
        std::fs::rename(d.path().join("c.new"), d.path().join("c")).unwrap();
        let changed = key_of(d.path());
        assert_ne!(changed, key);
        assert_eq!(fingerprint_in(&places, &changed, Duration::ZERO, || "2".repeat(64)), "2".repeat(64));
        assert_eq!(fingerprint_in(&places, &changed, Duration::ZERO, || panic!("cached")), "2".repeat(64));
        // In-place rewrite of another size.
        std::fs::write(d.path().join("a"), "longer").unwrap();
        let grown = key_of(d.path());
        assert_eq!(fingerprint_in(&places, &grown, Duration::ZERO, || "3".repeat(64)), "3".repeat(64));
    }

    #[test]
    fn other_settings_miss() {
        let (d, places) = setup();
        let key = key_of(d.path());
        fingerprint_in(&places, &key, Duration::ZERO, || "1".repeat(64));
        let other = Key { settings: "pooling=cls;max_seq_length=8".into(), ..key };
        assert_eq!(fingerprint_in(&places, &other, Duration::ZERO, || "4".repeat(64)), "4".repeat(64));
    }

    #[test]
    fn fresh_files_are_not_recorded() {
        let (d, places) = setup();
        let key = key_of(d.path());
        assert_eq!(fingerprint_in(&places, &key, Duration::from_secs(3600), || "1".repeat(64)), "1".repeat(64));
        assert!(!places[0].exists() && !places[1].exists());
    }

    #[test]
    fn unwritable_first_place_falls_back_and_garbage_is_ignored() {
        let (d, mut places) = setup();
        places[0] = d.path().join("a/not-a-folder.json"); // `a` is a file: cannot be written
        let key = key_of(d.path());
        fingerprint_in(&places, &key, Duration::ZERO, || "5".repeat(64));
        assert!(places[1].is_file());
        assert_eq!(fingerprint_in(&places, &key, Duration::ZERO, || panic!("cached")), "5".repeat(64));
        for bad in ["", "{", r#"{"format":1}"#] {
            std::fs::write(&places[1], bad).unwrap();
            assert_eq!(fingerprint_in(&places, &key, Duration::ZERO, || "6".repeat(64)), "6".repeat(64));
        }
        // A tampered value that is not a sha256 is not used.
        let mut e = key.entry("zz");
        e.sha256 = "zz".into();
        std::fs::write(&places[1], serde_json::to_vec(&e).unwrap()).unwrap();
        assert_eq!(fingerprint_in(&places, &key, Duration::ZERO, || "7".repeat(64)), "7".repeat(64));
    }

    #[test]
    fn locations_include_the_folder_first() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(locations(d.path())[0], d.path().join(CACHE_FILE));
    }
}
