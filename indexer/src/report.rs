//! The build report: one JSON object per line for every row that was skipped as invalid,
//! dropped as a duplicate or excluded, written as the rows are found, so memory does not
//! grow with their number (issue 8 item 15: 1M duplicate rows used to be held as 1M JSON
//! values).
//!
//! Lines go to a temporary file next to the report path (`<report>.tmp-<pid>`), created at
//! the first line; [`Report::finish`] publishes it by `rename`. A build that stops before
//! that (an invalid row under `--on-error abort`, an unreadable file) leaves the previous
//! report, if any, as it was.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Write buffer size, in bytes.
const BUFFER_BYTES: usize = 1 << 20;

/// A report being written.
#[derive(Debug)]
pub(crate) struct Report {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
    lines: u64,
}

impl Report {
    /// A report that will be published at `path` (at the file a symbolic link there points
    /// to, [`engine::output::target`]); nothing is created until the first line.
    pub(crate) fn new(path: &Path) -> Report {
        // A path the target check refuses was refused before the build started
        // ([`crate::build::check_outputs`]); then creating the file names the problem.
        let path = &engine::output::target(path).unwrap_or_else(|_| path.to_path_buf());
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".tmp-{}", std::process::id()));
        Report { path: path.to_path_buf(), tmp: path.with_file_name(name), out: None, lines: 0 }
    }

    /// Appends one line.
    ///
    /// # Errors
    /// [`Error::Io`] naming the report path when the file cannot be created or written.
    pub(crate) fn line(&mut self, value: &serde_json::Value) -> Result<()> {
        let io = |e| Error::io(&self.path, e);
        if self.out.is_none() {
            self.out = Some(BufWriter::with_capacity(BUFFER_BYTES, File::create(&self.tmp).map_err(io)?));
        }
        let out = self.out.as_mut().expect("created above");
        writeln!(out, "{value}").map_err(|e| Error::io(&self.path, e))?;
        self.lines += 1;
        Ok(())
    }

    /// Publishes the report when it has lines and returns its path; with no line, removes a
    /// stale report left at the path by an earlier build and returns `None`.
    ///
    /// # Errors
    /// [`Error::Io`] naming the report path when flushing or renaming fails.
    pub(crate) fn finish(mut self) -> Result<Option<PathBuf>> {
        let Some(out) = self.out.take() else {
            let _ = std::fs::remove_file(&self.path);
            return Ok(None);
        };
        let io = |e| Error::io(&self.path, e);
        out.into_inner().map_err(|e| io(e.into_error()))?;
        std::fs::rename(&self.tmp, &self.path).map_err(io)?;
        Ok(Some(self.path.clone()))
    }
}

impl Drop for Report {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_published_by_finish_and_dropped_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, "stale\n").unwrap();
        let mut r = Report::new(&path);
        r.line(&serde_json::json!({"row": 1})).unwrap();
        drop(r);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "stale\n", "an unfinished report changes nothing");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file is left");
        let mut r = Report::new(&path);
        r.line(&serde_json::json!({"row": 1})).unwrap();
        r.line(&serde_json::json!({"row": 2})).unwrap();
        assert_eq!(r.finish().unwrap(), Some(path.clone()));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"row\":1}\n{\"row\":2}\n");
        assert_eq!(Report::new(&path).finish().unwrap(), None);
        assert!(!path.exists(), "a report with no line removes the stale one");
    }
}
