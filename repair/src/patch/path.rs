//! Keeping patched paths inside the project root.

use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use super::{FilePatch, PatchError, Result};

/// The root with symlinks resolved, so containment checks compare real paths.
pub(super) fn canonical_root(root: &Path) -> Result<PathBuf> {
    root.canonicalize().map_err(|source| PatchError::Io { path: root.to_owned(), source })
}

/// The file a [`FilePatch`] edits, as (path relative to the root, absolute path).
///
/// A missing file falls back to the diff's `---` path, then to `default` when its file
/// name is the same (a model that saw only `Foo.java` writes `a/Foo.java`).
pub(super) fn resolve(root: &Path, file: &FilePatch, default: Option<&Path>) -> Result<(PathBuf, PathBuf)> {
    let abs = confine(root, &file.path)?;
    if file.create || abs.symlink_metadata().is_ok() {
        return Ok((normal(&file.path), abs));
    }
    let same_name = default.filter(|d| d.file_name() == file.path.file_name());
    for alt in [file.old_path.as_deref(), same_name].into_iter().flatten() {
        let alt_abs = confine(root, alt)?;
        if alt_abs.is_file() {
            return Ok((normal(alt), alt_abs));
        }
    }
    Ok((normal(&file.path), abs))
}

/// `root/rel`, refused when `rel` is empty, absolute, has a `..` component, or reaches
/// outside `root` (canonical) through a symlink, dangling ones included.
pub(super) fn confine(root: &Path, rel: &Path) -> Result<PathBuf> {
    let refuse = |reason: &str| PatchError::PathRefused { path: rel.to_owned(), reason: reason.to_owned() };
    if rel.as_os_str().is_empty() {
        return Err(refuse("the path is empty"));
    }
    for part in rel.components() {
        match part {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err(refuse("`..` components are not allowed")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(refuse("absolute paths are not allowed; use a path relative to the project root"));
            }
        }
    }
    let abs = root.join(rel);
    // The deepest part that exists decides: what does not exist yet cannot be a symlink.
    let mut probe = abs.as_path();
    while probe.symlink_metadata().is_err() {
        probe = probe.parent().unwrap_or(root);
    }
    match probe.canonicalize() {
        Ok(real) if real.starts_with(root) => Ok(abs),
        Ok(_) => Err(refuse("it leaves the project root through a symlink")),
        Err(_) => Err(refuse("it goes through a dangling symlink")),
    }
}

/// Reads the file to patch: `None` when it does not exist and the patch creates it.
pub(super) fn read(rel: &Path, abs: &Path, create: bool) -> Result<Option<String>> {
    let bytes = match std::fs::read(abs) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == ErrorKind::NotFound && create => return Ok(None),
        Err(e) if e.kind() == ErrorKind::NotFound => return Err(PatchError::FileMissing { path: rel.to_owned() }),
        Err(source) => return Err(PatchError::Io { path: rel.to_owned(), source }),
    };
    if create && !bytes.is_empty() {
        return Err(PatchError::FileExists { path: rel.to_owned() });
    }
    String::from_utf8(bytes).map(Some).map_err(|_| PatchError::NotUtf8 { path: rel.to_owned() })
}

/// `rel` without `.` components.
pub(super) fn normal(rel: &Path) -> PathBuf {
    rel.components().filter(|c| !matches!(c, Component::CurDir)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_escapes_and_accepts_inner_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical_root(dir.path()).unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        assert_eq!(confine(&root, Path::new("./src/new/A.java")).unwrap(), root.join("./src/new/A.java"));
        for bad in ["", "../x", "src/../../x", "/etc/passwd"] {
            assert!(matches!(confine(&root, Path::new(bad)), Err(PatchError::PathRefused { .. })), "{bad}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn refuses_symlinks_leaving_the_root_and_dangling_ones() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = canonical_root(dir.path()).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        std::os::unix::fs::symlink(root.join("nowhere"), root.join("dangling")).unwrap();
        std::fs::write(root.join("in.txt"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("in.txt"), root.join("alias.txt")).unwrap();
        for bad in ["out/x.py", "out", "dangling"] {
            let err = confine(&root, Path::new(bad)).unwrap_err();
            assert!(matches!(err, PatchError::PathRefused { .. }), "{bad}: {err}");
        }
        assert!(confine(&root, Path::new("alias.txt")).is_ok());
    }
}
