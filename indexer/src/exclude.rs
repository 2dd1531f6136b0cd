//! Leakage control: keep benchmark bugs out of an index (`--exclude FILE`).
//!
//! The file lists one entry per line: a record id (`defects4j:Lang-1`) or `project:NAME`
//! (every record of that project). Blank lines and lines starting with `#` are ignored;
//! surrounding whitespace is trimmed. Projects match by identity
//! ([`engine::projects::identity`]): `project:Closure` also leaves out the records of
//! `google/closure-compiler`, case-insensitively, with or without `https://github.com/`.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use engine::Record;

use crate::{Error, Result};

/// Ids and projects to leave out of an index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exclusions {
    ids: HashSet<String>,
    /// Project identity ([`engine::projects::identity`]) → the name as the file first wrote
    /// it (for messages).
    projects: HashMap<String, String>,
}

impl Exclusions {
    /// Reads an exclusion file (format in the module docs).
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read; [`Error::Row`] for a `project:` line with no
    /// name, or a JSON line (a corpus given as the exclusion file: its records' ids would
    /// exclude nothing).
    pub fn read(path: &Path) -> Result<Exclusions> {
        // A byte-order mark opening the file is not part of its first entry; a UTF-16 file
        // is named as such.
        let text = engine::text::read_utf8(path).map_err(|e| Error::Io { path: path.into(), source: e })?;
        let mut ex = Exclusions::default();
        for (i, line) in text.lines().enumerate() {
            ex.add_line(line).map_err(|reason| Error::Row {
                path: path.into(),
                row: i as u64 + 1,
                field: "<line>".into(),
                reason,
            })?;
        }
        Ok(ex)
    }

    /// Adds one line of an exclusion file.
    ///
    /// # Errors
    /// A reason string for a `project:` line without a name, or a line that is a JSON
    /// object or array.
    pub fn add_line(&mut self, line: &str) -> std::result::Result<(), String> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Ok(());
        }
        if line.starts_with('{') || line.starts_with('[') {
            return Err("a JSON record, not an id: an exclusion file lists record ids (`defects4j:Lang-1`) \
                        or `project:NAME`, one a line (is this a corpus?)"
                .into());
        }
        match line.strip_prefix("project:") {
            Some(p) if p.trim().is_empty() => Err("`project:` needs a project name".into()),
            Some(p) => {
                let p = p.trim();
                self.projects.entry(engine::projects::identity(p)).or_insert_with(|| p.to_string());
                Ok(())
            }
            None => {
                self.ids.insert(line.to_string());
                Ok(())
            }
        }
    }

    /// Merges `other` into `self`.
    pub fn extend(&mut self, other: Exclusions) {
        self.ids.extend(other.ids);
        self.projects.extend(other.projects);
    }

    /// Whether `r` is excluded (by id, or by project identity).
    pub fn excludes(&self, r: &Record) -> bool {
        self.matches(r).next().is_some()
    }

    /// The entries that exclude `r`, as the file writes them (`defects4j:Lang-1`,
    /// `project:Math`): its id and its project, when listed.
    pub fn matches<'s>(&'s self, r: &Record) -> impl Iterator<Item = String> + 's {
        let id = self.ids.contains(&r.id).then(|| r.id.clone());
        let project = (!self.projects.is_empty())
            .then(|| engine::projects::identity(&r.project))
            .and_then(|p| self.projects.get(&p))
            .map(|written| format!("project:{written}"));
        id.into_iter().chain(project)
    }

    /// Every entry, as [`Exclusions::matches`] names them, sorted.
    pub fn entries(&self) -> Vec<String> {
        let mut out: Vec<String> =
            self.ids.iter().cloned().chain(self.projects.values().map(|p| format!("project:{p}"))).collect();
        out.sort();
        out
    }

    /// Number of listed ids and projects.
    pub fn len(&self) -> usize {
        self.ids.len() + self.projects.len()
    }

    /// Whether nothing is excluded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, project: &str) -> Record {
        Record { id: id.into(), project: project.into(), ..Record::default() }
    }

    #[test]
    fn ids_projects_comments() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("ex.txt");
        std::fs::write(&p, "# benchmark bugs\n defects4j:Lang-1 \n\nproject:Math\n").unwrap();
        let ex = Exclusions::read(&p).unwrap();
        assert_eq!(ex.len(), 2);
        assert!(ex.excludes(&rec("defects4j:Lang-1", "Lang")));
        assert!(ex.excludes(&rec("x", "Math")));
        assert!(!ex.excludes(&rec("defects4j:Lang-2", "Lang")));
        assert_eq!(
            ex.matches(&rec("defects4j:Lang-1", "math")).collect::<Vec<_>>(),
            ["defects4j:Lang-1", "project:Math"]
        );
        assert_eq!(ex.entries(), ["defects4j:Lang-1", "project:Math"]);
        // A byte-order mark (Windows editors) before the first entry is not part of it.
        std::fs::write(&p, "\u{feff}project:Math\r\n").unwrap();
        let ex = Exclusions::read(&p).unwrap();
        assert_eq!(ex.entries(), ["project:Math"]);
        assert!(ex.excludes(&rec("x", "Math")));
        // A UTF-16 file (Windows' "Unicode") is named as such.
        let utf16: Vec<u8> = [0xFF, 0xFE].into_iter().chain("project:Math\n".bytes().flat_map(|b| [b, 0])).collect();
        std::fs::write(&p, utf16).unwrap();
        let err = Exclusions::read(&p).unwrap_err().to_string();
        assert!(err.contains(&p.display().to_string()) && err.contains("is UTF-16"), "{err}");
    }

    /// Issue 8 item 18: `project:Closure` also leaves out the mined history of
    /// `google/closure-compiler`.
    #[test]
    fn issue_8_projects_are_excluded_by_identity() {
        let mut ex = Exclusions::default();
        ex.add_line("project:Closure").unwrap();
        ex.add_line("project:https://github.com/apache/commons-lang.git").unwrap();
        for p in ["Closure", "google/closure-compiler", "Google/Closure-Compiler", "Lang", "apache/commons-lang"] {
            assert!(ex.excludes(&rec("x", p)), "{p}");
        }
        assert!(!ex.excludes(&rec("x", "apache/commons-io")));
        assert!(!ex.excludes(&rec("x", "netty/netty")));
    }

    #[test]
    fn empty_project_is_an_error_naming_the_line() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("ex.txt");
        std::fs::write(&p, "a\nproject:  \n").unwrap();
        let e = Exclusions::read(&p).unwrap_err().to_string();
        assert!(e.contains("ex.txt:2") && e.contains("project name"), "{e}");
    }

    /// A corpus given as the exclusion file would exclude nothing, silently.
    #[test]
    fn a_corpus_is_not_an_exclusion_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("corpus.jsonl");
        std::fs::write(&p, "# ids\nx:1\n{\"id\": \"x:2\", \"buggy_code\": \"a\"}\n").unwrap();
        let e = Exclusions::read(&p).unwrap_err().to_string();
        assert!(e.contains("corpus.jsonl:3") && e.contains("JSON record"), "{e}");
    }
}
