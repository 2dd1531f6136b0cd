//! Project files: path confinement, language by extension ([`Language::from_path`]), the parse cache and the
//! project walk shared by the nine tools.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use engine::embed::LineRange;
use tree_sitter::{Node, Parser, Tree};

use super::ToolError;
use crate::Language;

/// Directory names the project walk never enters (besides hidden ones, and a `target` that
/// is a build output: [`skipped_target`]).
const SKIPPED_DIRS: [&str; 3] = ["build", "node_modules", "__pycache__"];

/// The most source files one project walk visits; larger projects are cut, in path order.
const MAX_PROJECT_FILES: usize = 20_000;

/// One parsed source file: its text, line table and syntax tree.
#[derive(Debug)]
pub(crate) struct SourceFile {
    /// Path relative to the project root, `/`-separated.
    pub(crate) rel: String,
    /// Language of the file.
    pub(crate) lang: Language,
    text: String,
    line_starts: Vec<usize>,
    tree: Tree,
    hash: u64,
}

impl SourceFile {
    pub(crate) fn parse(rel: String, lang: Language, text: String, hash: u64) -> Result<SourceFile, ToolError> {
        let mut parser = Parser::new();
        parser.set_language(&lang.grammar()).map_err(|_| ToolError::Parse { path: rel.clone() })?;
        let tree = parser.parse(&text, None).ok_or_else(|| ToolError::Parse { path: rel.clone() })?;
        let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Ok(SourceFile { rel, lang, text, line_starts, tree, hash })
    }

    /// The root node of the syntax tree.
    pub(crate) fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The source text of `node`.
    pub(crate) fn text(&self, node: Node<'_>) -> &str {
        &self.text[node.byte_range()]
    }

    /// Line `line` (1-based) without its line break; empty past the end.
    pub(crate) fn line(&self, line: usize) -> &str {
        let Some(&start) = self.line_starts.get(line.wrapping_sub(1)) else { return "" };
        let end = self.line_starts.get(line).map_or(self.text.len(), |&e| e);
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// `path:line` for `node`'s first line.
    pub(crate) fn anchor(&self, node: Node<'_>) -> String {
        format!("{}:{}", self.rel, line_of(node))
    }

    /// `path:start-end` for the lines `node` spans.
    pub(crate) fn span(&self, node: Node<'_>) -> String {
        format!("{}:{}-{}", self.rel, line_of(node), end_line_of(node))
    }
}

/// 1-based first line of `node`.
pub(crate) fn line_of(node: Node<'_>) -> usize {
    node.start_position().row + 1
}

/// 1-based last line of `node`.
pub(crate) fn end_line_of(node: Node<'_>) -> usize {
    node.end_position().row + 1
}

/// The 1-based lines `node` spans.
pub(crate) fn lines_of(node: Node<'_>) -> LineRange {
    LineRange { first: line_of(node), last: end_line_of(node).max(line_of(node)) }
}

/// A project root with a parse cache keyed on path and content hash, so files edited
/// between calls (patches applied in a scratch copy) are parsed again.
pub(crate) struct Project {
    root: PathBuf,
    cache: Mutex<HashMap<String, Arc<SourceFile>>>,
    /// Entries the tools never list or read ([`Project::with_skip`]).
    skip: Option<crate::validate::scratch::ScratchFilter>,
}

impl std::fmt::Debug for Project {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Project").field("root", &self.root).field("skip", &self.skip.is_some()).finish_non_exhaustive()
    }
}

impl Project {
    /// A project rooted at `root` (canonicalised when possible).
    pub(crate) fn new(root: &Path) -> Project {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        Project { root, cache: Mutex::new(HashMap::new()), skip: None }
    }

    /// The project without the entries `skip` names (root-relative path, is a folder): they
    /// are never listed, searched or read.
    pub(crate) fn with_skip(mut self, skip: crate::validate::scratch::ScratchFilter) -> Project {
        self.skip = Some(skip);
        self
    }

    /// Whether `rel` is left out ([`Self::with_skip`]).
    fn skips(&self, rel: &str, is_dir: bool) -> bool {
        self.skip.as_ref().is_some_and(|f| f(Path::new(rel), is_dir))
    }

    /// The project root.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a model-given path to a root-relative one. A bare file name that is not at
    /// the root is looked up in the project when exactly one file has that name.
    pub(crate) fn resolve(&self, arg: &str) -> Result<String, ToolError> {
        let rel = confine(arg)?;
        if self.skips(&rel, false) {
            return Err(ToolError::FileNotFound { path: rel });
        }
        if self.root.join(&rel).is_file() {
            return self.check_inside(rel);
        }
        if !rel.contains('/') {
            let found: Vec<String> =
                self.source_files().into_iter().filter(|p| p.rsplit('/').next() == Some(rel.as_str())).collect();
            if found.len() == 1 {
                return Ok(found.into_iter().next().unwrap_or_default());
            }
            if found.len() > 1 {
                return Err(ToolError::AmbiguousFile { path: rel, candidates: found.join(", ") });
            }
        }
        Err(ToolError::FileNotFound { path: rel })
    }

    /// Refuses a path whose real location (after symlinks) leaves the root.
    fn check_inside(&self, rel: String) -> Result<String, ToolError> {
        match self.root.join(&rel).canonicalize() {
            Ok(real) if real.starts_with(&self.root) => Ok(rel),
            Ok(_) => Err(ToolError::PathOutsideRoot { path: rel }),
            Err(_) => Err(ToolError::FileNotFound { path: rel }),
        }
    }

    /// Loads and parses the file at `rel` (root-relative), reusing the cached tree when the
    /// content is unchanged.
    pub(crate) fn load(&self, rel: &str) -> Result<Arc<SourceFile>, ToolError> {
        let lang = Language::from_path(Path::new(rel))
            .ok_or_else(|| ToolError::UnsupportedLanguage { path: rel.to_string() })?;
        let bytes =
            std::fs::read(self.root.join(rel)).map_err(|_| ToolError::FileNotFound { path: rel.to_string() })?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let hash = content_hash(&text);
        let mut cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(file) = cache.get(rel).filter(|f| f.hash == hash) {
            return Ok(Arc::clone(file));
        }
        tracing::debug!(path = rel, "parsing");
        let file = Arc::new(SourceFile::parse(rel.to_string(), lang, text, hash)?);
        cache.insert(rel.to_string(), Arc::clone(&file));
        Ok(file)
    }

    /// Every `.java` and `.py` file under the root, root-relative and sorted; hidden
    /// directories and build output directories are skipped, symlinks are not followed.
    pub(crate) fn source_files(&self) -> Vec<String> {
        let mut out = Vec::new();
        walk(&self.root, "", &mut out, &|rel, is_dir| self.skips(rel, is_dir));
        out.sort();
        out.truncate(MAX_PROJECT_FILES);
        out
    }

    /// Every project source file, parsed; files that fail to load are skipped.
    pub(crate) fn parsed_files(&self) -> Vec<Arc<SourceFile>> {
        self.source_files().iter().filter_map(|rel| self.load(rel).ok()).collect()
    }
}

fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>, skips: &dyn Fn(&str, bool) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else { continue };
        let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        if skips(&rel, kind.is_dir()) {
            continue;
        }
        if kind.is_dir()
            && !name.starts_with('.')
            && !SKIPPED_DIRS.contains(&name.as_str())
            && !skipped_target(&entry.path(), prefix.is_empty())
        {
            walk(&entry.path(), &rel, out, skips);
        } else if kind.is_file() && Language::from_path(Path::new(&name)).is_some() {
            out.push(rel);
        }
    }
}

/// Whether the folder `dir` is a `target` a source walk passes over: the project root's
/// (Maven's, sbt's, Cargo's, or a Defects4J build's output) or one beside a build file
/// ([`crate::validate::scratch::is_build_output`]: a module's). A `target` deeper in a
/// source tree, such as a Java package `org.x.target`, is walked. (Scratch copies keep a
/// root `target` without a build file: a Defects4J build's classes; a walk wants sources.)
pub(crate) fn skipped_target(dir: &Path, at_root: bool) -> bool {
    dir.file_name().is_some_and(|n| n == crate::validate::scratch::BUILD_OUTPUT)
        && (at_root || crate::validate::scratch::is_build_output(dir))
}

/// Normalises a model-given path: strips `./`, refuses absolute paths and `..`.
fn confine(arg: &str) -> Result<String, ToolError> {
    let trimmed = arg.trim();
    let mut parts = Vec::new();
    for component in Path::new(trimmed).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(ToolError::PathOutsideRoot { path: trimmed.to_string() });
            }
        }
    }
    if parts.is_empty() {
        return Err(ToolError::FileNotFound { path: trimmed.to_string() });
    }
    Ok(parts.join("/"))
}

fn content_hash(text: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// The named children of `node`.
pub(crate) fn children(node: Node<'_>) -> Vec<Node<'_>> {
    node.named_children(&mut node.walk()).collect()
}

/// `node` and all its named descendants, in source (pre-)order.
pub(crate) fn descendants(node: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        out.push(n);
        let mut kids = children(n);
        kids.reverse();
        stack.extend(kids);
    }
    out
}

/// Collapses runs of whitespace (including line breaks) into single spaces.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confine_refuses_escapes_and_normalises() {
        assert!(matches!(confine("/etc/passwd"), Err(ToolError::PathOutsideRoot { .. })));
        assert!(matches!(confine("a/../../b.py"), Err(ToolError::PathOutsideRoot { .. })));
        assert_eq!(confine("./a/b.py").ok().as_deref(), Some("a/b.py"));
    }

    /// A Java package named `target` is the project's; Maven's `target` beside `pom.xml`
    /// (generated sources) is not walked.
    #[test]
    fn the_walk_skips_a_build_output_target_but_not_a_package_named_target() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (rel, text) in [
            ("pom.xml", "<project/>"),
            ("src/main/java/org/x/target/Aim.java", "class Aim {}"),
            ("target/generated-sources/Gen.java", "class Gen {}"),
            ("module/pom.xml", "<project/>"),
            ("module/target/Copy.java", "class Copy {}"),
            ("build/Out.java", "class Out {}"),
        ] {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        }
        assert_eq!(Project::new(root).source_files(), ["src/main/java/org/x/target/Aim.java"]);
    }

    #[test]
    fn lines_are_one_based() {
        let file = SourceFile::parse("a.py".into(), Language::Python, "x = 1\ny = 2\n".into(), 0).ok();
        let file = file.as_ref().map(|f| (f.line(1), f.line(2), f.line(9)));
        assert_eq!(file, Some(("x = 1", "y = 2", "")));
    }
}
