//! The build report: one JSON object per line for every row that was skipped as invalid,
//! dropped as a duplicate or excluded, written as the rows are found, so memory does not
//! grow with their number (issue 8 item 15: 1M duplicate rows used to be held as 1M JSON
//! values).
//!
//! Lines go to a temporary file next to the report path (`<report>.tmp-<pid>`), created at
//! the first line; [`Report::finish`] publishes it by `rename`, which a build does right
//! after it publishes the index the report describes. A build that stops before that (an
//! invalid row under `--on-error abort`, an unreadable file, a failure or a kill while
//! embedding) leaves the previous report, if any, as it was, beside the previous index; a
//! kill leaves the temporary file. A build whose rows all fail publishes its report, which
//! its error names.
//!
//! An append ([`crate::append`]) keeps the report already there: [`Report::appending`]
//! starts the temporary file with the old report's lines, and a run that adds no line
//! leaves the old report untouched (a fresh build's stale report is removed instead).

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
    /// Keep the report already at `path`: new lines go after its lines.
    keep: bool,
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
        Report { path: path.to_path_buf(), tmp: path.with_file_name(name), out: None, lines: 0, keep: false }
    }

    /// As [`Report::new`], but the lines already at the path stay: the published report is
    /// the old one followed by the new lines, and with no new line the old one is left as
    /// it was (an append to an index keeps its build report).
    pub(crate) fn appending(path: &Path) -> Report {
        let mut report = Report::new(path);
        report.keep = true;
        report
    }

    /// Appends one line.
    ///
    /// # Errors
    /// [`Error::Io`] naming the report path when the file cannot be created or written.
    pub(crate) fn line(&mut self, value: &serde_json::Value) -> Result<()> {
        let io = |e| Error::io(&self.path, e);
        if self.out.is_none() {
            let mut out = BufWriter::with_capacity(BUFFER_BYTES, File::create(&self.tmp).map_err(io)?);
            if self.keep {
                // No report yet is the only reason to start empty: an unreadable one would be
                // replaced by the new lines alone.
                match File::open(&self.path) {
                    Ok(mut old) => {
                        std::io::copy(&mut old, &mut out).map_err(io)?;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(io(e)),
                }
            }
            self.out = Some(out);
        }
        let out = self.out.as_mut().expect("created above");
        writeln!(out, "{value}").map_err(|e| Error::io(&self.path, e))?;
        self.lines += 1;
        Ok(())
    }

    /// The lines this run added (not the old ones an appending report keeps).
    pub(crate) fn lines(&self) -> u64 {
        self.lines
    }

    /// Publishes the report when it has lines and returns its path; with no line, removes a
    /// stale report left at the path by an earlier build and returns `None` (an appending
    /// report leaves the old one and returns its path when there is one).
    ///
    /// # Errors
    /// [`Error::Io`] naming the report path when flushing or renaming fails.
    pub(crate) fn finish(mut self) -> Result<Option<PathBuf>> {
        let Some(out) = self.out.take() else {
            if self.keep {
                return Ok(self.path.exists().then(|| self.path.clone()));
            }
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

    #[test]
    fn an_appending_report_keeps_the_old_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        std::fs::write(&path, "{\"row\":1}\n").unwrap();
        assert_eq!(Report::appending(&path).finish().unwrap(), Some(path.clone()), "no new line: the old report stays");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"row\":1}\n");
        let mut r = Report::appending(&path);
        r.line(&serde_json::json!({"row": 2})).unwrap();
        drop(r);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"row\":1}\n", "an unfinished append changes nothing");
        let mut r = Report::appending(&path);
        r.line(&serde_json::json!({"row": 2})).unwrap();
        r.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"row\":1}\n{\"row\":2}\n");
        let fresh = dir.path().join("none.jsonl");
        assert_eq!(Report::appending(&fresh).finish().unwrap(), None);
    }
}
