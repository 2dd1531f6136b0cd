//! A Defects4J project's metadata folder, as Defects4J lays it out in
//! `framework/projects/<P>/`: `active-bugs.csv` (bug id, buggy and fixed revision),
//! `dir-layout.csv` (revision → source and test folder), `trigger_tests/<id>` (the tests that
//! fail on the buggy version, `--- Class::method` headers), `relevant_tests/<id>` (the test
//! classes that load a modified class), `modified_classes/<id>.src` and
//! `patches/<id>.src.patch` (the developer's fix reversed: it goes fixed → buggy).
//!
//! Every error names the file, and the row where there is one.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::D4jError;

/// A Defects4J bug id, `Project-N` (`Cli-1`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BugId {
    /// The project's Defects4J name (`Cli`, `JxPath`).
    pub project: String,
    /// The bug's number in `active-bugs.csv`.
    pub number: u32,
}

impl fmt::Display for BugId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.project, self.number)
    }
}

impl FromStr for BugId {
    type Err = String;

    /// `Cli-1`; also `defects4j:Cli-1` (the corpus's form).
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let s = s.strip_prefix("defects4j:").unwrap_or(s);
        let (project, number) = s
            .rsplit_once('-')
            .ok_or_else(|| format!("`{s}` is not a Defects4J bug id: write Project-N, e.g. Cli-1"))?;
        let number =
            number.parse().map_err(|_| format!("`{s}` is not a Defects4J bug id: the number after `-` is not one"))?;
        if project.is_empty() || !project.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(format!("`{s}` is not a Defects4J bug id: the project name must be letters and digits"));
        }
        Ok(BugId { project: project.to_string(), number })
    }
}

/// One project's metadata folder.
#[derive(Debug, Clone)]
pub struct Project {
    /// The project's name (the folder's name).
    pub name: String,
    /// The folder.
    pub dir: PathBuf,
    /// Active bugs by number: (buggy revision, fixed revision).
    pub bugs: BTreeMap<u32, (String, String)>,
    /// Source and test folder by revision id.
    layout: BTreeMap<String, (String, String)>,
    /// Deprecated bugs (`deprecated-bugs.csv`, when there is one): number → the version and
    /// reason Defects4J gives.
    deprecated: BTreeMap<u32, String>,
}

/// What Defects4J says of one bug.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BugMeta {
    /// The bug.
    pub id: BugId,
    /// The fixed revision (a commit of the upstream repository).
    pub fixed_rev: String,
    /// The source folder at that revision, relative to the project root (`src/java`).
    pub src_dir: String,
    /// The test folder (`src/test`).
    pub test_dir: String,
    /// The trigger tests, `Class::method`.
    pub triggers: Vec<String>,
    /// The relevant test classes.
    pub relevant: Vec<String>,
    /// The classes the fix modifies.
    pub modified_classes: Vec<String>,
    /// `patches/<id>.src.patch`.
    pub patch: PathBuf,
}

/// The bugs of the metadata folder `meta` (the folder of project folders).
///
/// # Errors
/// [`D4jError::Meta`] when `meta` holds no project folder with an `active-bugs.csv`.
pub fn projects(meta: &Path) -> Result<Vec<String>, D4jError> {
    let entries = std::fs::read_dir(meta).map_err(|e| D4jError::meta(meta, format!("cannot read the folder: {e}")))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join("active-bugs.csv").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(D4jError::meta(
            meta,
            "holds no project folder with an active-bugs.csv: give Defects4J's framework/projects folder (--d4j-meta)",
        ));
    }
    Ok(names)
}

impl Project {
    /// Reads `meta/<name>/active-bugs.csv` and `dir-layout.csv`.
    ///
    /// # Errors
    /// [`D4jError::Meta`] naming the file (and row) that is missing or malformed.
    pub fn open(meta: &Path, name: &str) -> Result<Project, D4jError> {
        let dir = meta.join(name);
        if !dir.is_dir() {
            let known = projects(meta)?.join(", ");
            return Err(D4jError::meta(&dir, format!("no such project (the metadata folder has: {known})")));
        }
        let active = dir.join("active-bugs.csv");
        let mut bugs = BTreeMap::new();
        for (row, cols) in csv_rows(&active, true)? {
            let [id, buggy, fixed] = [0, 1, 2].map(|i| cols.get(i).cloned().unwrap_or_default());
            let number =
                id.parse().map_err(|_| D4jError::row(&active, row, format!("bug.id `{id}` is not a number")))?;
            if fixed.is_empty() {
                return Err(D4jError::row(&active, row, "revision.id.fixed is empty"));
            }
            bugs.insert(number, (buggy, fixed));
        }
        let layout_file = dir.join("dir-layout.csv");
        let mut layout = BTreeMap::new();
        for (row, cols) in csv_rows(&layout_file, false)? {
            if cols.len() < 3 {
                return Err(D4jError::row(&layout_file, row, "expected revision,source folder,test folder"));
            }
            layout.insert(cols[0].clone(), (cols[1].clone(), cols[2].clone()));
        }
        let mut deprecated = BTreeMap::new();
        let deprecated_file = dir.join("deprecated-bugs.csv");
        if deprecated_file.is_file() {
            for (_, cols) in csv_rows(&deprecated_file, true)? {
                if let Ok(n) = cols[0].parse::<u32>() {
                    let (version, why) =
                        (cols.get(5).cloned().unwrap_or_default(), cols.get(6).cloned().unwrap_or_default());
                    let reason = match (why.is_empty(), version.is_empty()) {
                        (false, false) => format!("{why}, since Defects4J {version}"),
                        (false, true) => why,
                        (true, _) => String::new(),
                    };
                    deprecated.insert(n, reason);
                }
            }
        }
        Ok(Project { name: name.to_string(), dir, bugs, layout, deprecated })
    }

    /// Every active bug's id, in number order.
    #[must_use]
    pub fn ids(&self) -> Vec<BugId> {
        self.bugs.keys().map(|&number| BugId { project: self.name.clone(), number }).collect()
    }

    /// What Defects4J says of bug `number`.
    ///
    /// # Errors
    /// [`D4jError::Meta`]: the bug is not active, or one of its files is missing or empty.
    pub fn bug(&self, number: u32) -> Result<BugMeta, D4jError> {
        self.lookup(number, true)
    }

    /// As [`Project::bug`], with the source and test folders left empty where
    /// `dir-layout.csv` has no row for the bug (an installed Defects4J exports them:
    /// [`super::installed`]).
    ///
    /// # Errors
    /// As [`Project::bug`], but for the layout.
    pub fn bug_without_layout(&self, number: u32) -> Result<BugMeta, D4jError> {
        self.lookup(number, false)
    }

    fn lookup(&self, number: u32, layout: bool) -> Result<BugMeta, D4jError> {
        let id = BugId { project: self.name.clone(), number };
        if let Some(reason) = self.deprecated.get(&number) {
            let why = if reason.is_empty() { String::new() } else { format!(" ({reason})") };
            return Err(D4jError::meta(
                &self.dir.join("deprecated-bugs.csv"),
                format!("{id} is deprecated in Defects4J{why}: it is not run"),
            ));
        }
        let (_, fixed) = self.bugs.get(&number).ok_or_else(|| {
            let last = self.bugs.keys().last().copied().unwrap_or(0);
            D4jError::meta(
                &self.dir.join("active-bugs.csv"),
                format!("has no bug {id} (active bugs: {}-1..{last}, some numbers deprecated)", self.name),
            )
        })?;
        let (src_dir, test_dir) = match self.layout.get(fixed) {
            Some(found) => found.clone(),
            None if !layout => (String::new(), String::new()),
            None => {
                return Err(D4jError::meta(
                    &self.dir.join("dir-layout.csv"),
                    format!("has no row for {id}'s fixed revision {fixed}"),
                ));
            }
        };
        let triggers = read_lines(&self.dir.join("trigger_tests").join(number.to_string()))?
            .into_iter()
            .filter_map(|l| l.strip_prefix("--- ").map(|t| t.trim().to_string()))
            .collect::<Vec<_>>();
        if triggers.is_empty() {
            return Err(D4jError::meta(&self.dir.join("trigger_tests").join(number.to_string()), "lists no test"));
        }
        let relevant = read_lines(&self.dir.join("relevant_tests").join(number.to_string()))?;
        let modified_classes = read_lines(&self.dir.join("modified_classes").join(format!("{number}.src")))?;
        let patch = self.dir.join("patches").join(format!("{number}.src.patch"));
        if !patch.is_file() {
            return Err(D4jError::meta(&patch, "is missing (the developer's fix, fixed → buggy)"));
        }
        Ok(BugMeta { id, fixed_rev: fixed.clone(), src_dir, test_dir, triggers, relevant, modified_classes, patch })
    }
}

/// The data rows of a CSV file without quoting (Defects4J's): `(1-based row, columns)`, the
/// first row skipped when it is a `header` (`active-bugs.csv` has one, `dir-layout.csv` not).
fn csv_rows(path: &Path, header: bool) -> Result<Vec<(usize, Vec<String>)>, D4jError> {
    let text = std::fs::read_to_string(path).map_err(|e| D4jError::meta(path, format!("cannot be read: {e}")))?;
    Ok(text
        .lines()
        .enumerate()
        .skip(usize::from(header))
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l.split(',').map(|c| c.trim().to_string()).collect()))
        .collect())
}

/// The non-blank lines of `path`, trimmed.
fn read_lines(path: &Path) -> Result<Vec<String>, D4jError> {
    let text = std::fs::read_to_string(path).map_err(|e| D4jError::meta(path, format!("cannot be read: {e}")))?;
    Ok(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect())
}

/// The lines of the buggy version a Defects4J patch (fixed → buggy) touches, per file
/// (relative path, from the `+++ b/` headers): the buggy side's number of every added line,
/// and for each change block (a run of `-`/`+` lines between context lines) that only removes
/// lines (the fix inserted code there) the buggy line the insertion follows (at least 1).
/// Sorted, without repeats. Every insertion of a hunk counts, not only its first: a fix that
/// inserts a check after each of two declarations, or inserts a line and changes another
/// below it, touches both places (perfect localization runs from the first to the last).
///
/// # Errors
/// A message naming the line of the patch that is malformed.
pub fn touched_lines(patch: &str) -> Result<BTreeMap<String, Vec<usize>>, String> {
    let mut files: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut file: Option<String> = None;
    let mut new_line = 0usize;
    // The change block under way: whether it added a line, and where its first removal was.
    let mut block_added = false;
    let mut block_removed_at: Option<usize> = None;
    let close =
        |files: &mut BTreeMap<String, Vec<usize>>, file: &Option<String>, added: &mut bool, at: Option<usize>| {
            if let (Some(f), false, Some(at)) = (file, *added, at) {
                files.entry(f.clone()).or_default().push(at.max(1));
            }
            *added = false;
        };
    for (i, line) in patch.lines().enumerate() {
        if let Some(path) = line.strip_prefix("+++ ") {
            close(&mut files, &file, &mut block_added, block_removed_at.take());
            let path = path.split('\t').next().unwrap_or(path).trim();
            file = Some(path.strip_prefix("b/").unwrap_or(path).to_string());
        } else if line.starts_with("--- ") && !line.starts_with("--- a") && file.is_none() {
            continue;
        } else if let Some(rest) = line.strip_prefix("@@ ") {
            close(&mut files, &file, &mut block_added, block_removed_at.take());
            let new = rest.split_whitespace().find(|w| w.starts_with('+')).ok_or_else(|| bad(i, line))?;
            let start = new[1..].split(',').next().unwrap_or("");
            new_line = start.parse().map_err(|_| bad(i, line))?;
        } else if file.is_some() && new_line > 0 {
            match line.as_bytes().first() {
                Some(b'+') => {
                    files.entry(file.clone().unwrap_or_default()).or_default().push(new_line);
                    block_added = true;
                    new_line += 1;
                }
                Some(b'-') if !line.starts_with("--- ") => {
                    block_removed_at.get_or_insert(new_line.saturating_sub(1));
                }
                Some(b'\\') => {}
                _ => {
                    close(&mut files, &file, &mut block_added, block_removed_at.take());
                    new_line += 1;
                }
            }
        }
    }
    close(&mut files, &file, &mut block_added, block_removed_at);
    for lines in files.values_mut() {
        lines.sort_unstable();
        lines.dedup();
    }
    Ok(files)
}

fn bad(i: usize, line: &str) -> String {
    format!("line {}: malformed hunk header `{line}`", i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bug_ids_parse_in_both_forms_and_refuse_others() {
        let id: BugId = "Cli-1".parse().unwrap();
        assert_eq!((id.project.as_str(), id.number), ("Cli", 1));
        assert_eq!("defects4j:JxPath-22".parse::<BugId>().unwrap().to_string(), "JxPath-22");
        assert!("Cli".parse::<BugId>().unwrap_err().contains("Project-N"));
        assert!("Cli-x".parse::<BugId>().is_err());
        assert!("-3".parse::<BugId>().is_err());
    }

    /// A real Defects4J patch shape (Cli-1's, cut): the `+` lines are the buggy version's.
    #[test]
    fn touched_lines_are_the_buggy_sides_added_lines_and_insertion_points() {
        let patch = "diff --git a/src/java/A.java b/src/java/A.java\n\
                     --- a/src/java/A.java\n\
                     +++ b/src/java/A.java\n\
                     @@ -64,7 +66,7 @@ public class CommandLine {\n\
                     \x20    {\n\
                     -        return options.contains( resolveOption(opt));\n\
                     +        return options.containsKey(opt);\n\
                     \x20    }\n\
                     @@ -100,4 +102,3 @@\n\
                     \x20    a();\n\
                     -    b();\n\
                     \x20    c();\n";
        let lines = touched_lines(patch).unwrap();
        assert_eq!(lines["src/java/A.java"], vec![67, 102]);
    }

    /// Defects4J JxPath-8's shape (cut): one hunk, two insertions (a check after each of two
    /// declarations); and Cli-9's: an insertion above a changed line. Each insertion counts.
    #[test]
    fn every_insertion_of_a_hunk_is_touched() {
        let patch = "--- a/R.java\n\
                     +++ b/R.java\n\
                     @@ -73,9 +73,5 @@ class R {\n\
                     \x20        double ld = value(left);\n\
                     -        if (Double.isNaN(ld)) {\n\
                     -            return false;\n\
                     -        }\n\
                     \x20        double rd = value(right);\n\
                     -        if (Double.isNaN(rd)) {\n\
                     -            return false;\n\
                     -        }\n\
                     \x20        return compare(ld, rd);\n\
                     --- a/P.java\n\
                     +++ b/P.java\n\
                     @@ -317,10 +317,9 @@\n\
                     \x20                buff.append(iter.next());\n\
                     -                buff.append(\", \");\n\
                     \x20            }\n\
                     \x20\n\
                     -            throw new E(buff.substring(0, buff.length() - 2));\n\
                     +            throw new E(buff.toString());\n";
        let lines = touched_lines(patch).unwrap();
        assert_eq!(lines["R.java"], vec![73, 74]);
        assert_eq!(lines["P.java"], vec![317, 320]);
    }

    #[test]
    fn a_malformed_hunk_header_is_named() {
        let err = touched_lines("+++ b/A.java\n@@ -1 +x @@\n").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
    }
}
