//! The jars each Defects4J project compiles and runs its tests against, rebuilt offline with
//! `javac`: the table `deps.json` (shipped with fixdex: facts, not data; the same table as
//! `benchmarks/defects4j/deps.json`), resolved to files: Debian jars under
//! `/usr/share/java` (or `FIXDEX_JAVA_LIB`), the few jars Defects4J ships from its `lib/`
//! folders, and `--jars DIR`, whose jars override a table jar of the same file name and are
//! added otherwise.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::D4jError;

/// The shipped table.
const DEPS_JSON: &str = include_str!("deps.json");

/// Where Debian installs jars, unless `FIXDEX_JAVA_LIB` says otherwise.
pub const DEBIAN_JAVA_DIR: &str = "/usr/share/java";

/// One project's row of the table.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ProjectDeps {
    /// Debian jar names, without `.jar` (`junit4`).
    pub debian_jars: Vec<String>,
    /// The Debian packages that ship them (what `scripts/setup-test-tools.sh` installs).
    pub debian_packages: Vec<String>,
    /// Jars from Defects4J's `lib/` folders, by file name.
    pub lib_jars: Vec<String>,
    /// Jars some bugs need that nothing here provides (those bugs fail to build: `infra`).
    #[serde(default)]
    pub jars_not_shipped: Vec<String>,
}

#[derive(Deserialize)]
struct Table {
    projects: BTreeMap<String, ProjectDeps>,
}

/// The shipped table, by project.
///
/// # Panics
/// Never: the table is checked by a test.
#[must_use]
pub fn table() -> BTreeMap<String, ProjectDeps> {
    serde_json::from_str::<Table>(DEPS_JSON).expect("the shipped deps.json parses (tested)").projects
}

/// The jars of `project`, as files, in class-path order: the table's Debian jars from
/// `java_dir`, its lib jars from the first of `lib_dirs` that has them, then every jar of
/// `extra` (`--jars`) that is not one of those by file name (those replace the table's jar of
/// the same name). A project the table lacks gets JUnit 4 and Hamcrest and the `--jars`.
///
/// # Errors
/// [`D4jError::Jar`] naming the missing jar and what to install or pass.
pub fn resolve(
    project: &str,
    java_dir: &Path,
    lib_dirs: &[PathBuf],
    extra: &[PathBuf],
) -> Result<Vec<PathBuf>, D4jError> {
    let table = table();
    let row = table.get(project).cloned().unwrap_or_else(|| ProjectDeps {
        debian_jars: vec!["junit4".into(), "hamcrest".into()],
        debian_packages: vec!["junit4".into(), "libhamcrest-java".into()],
        ..ProjectDeps::default()
    });
    let mut extra_jars: BTreeMap<String, PathBuf> = BTreeMap::new();
    for dir in extra {
        for jar in jars_in(dir)? {
            let name = jar.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            extra_jars.entry(name).or_insert(jar);
        }
    }
    let mut out = Vec::new();
    for name in &row.debian_jars {
        let file = format!("{name}.jar");
        if let Some(jar) = extra_jars.remove(&file) {
            out.push(jar);
            continue;
        }
        let jar = java_dir.join(&file);
        if !jar.is_file() {
            let package = row.debian_packages.iter().find(|p| p.contains(name.trim_end_matches(char::is_numeric)));
            return Err(D4jError::Jar {
                project: project.to_string(),
                jar,
                hint: format!(
                    "install the Debian package{} (scripts/setup-test-tools.sh installs every project's), or give a folder holding {file} with --jars",
                    package
                        .map(|p| format!(" {p}"))
                        .unwrap_or_else(|| "s ".to_string() + &row.debian_packages.join(" "))
                ),
            });
        }
        out.push(jar);
    }
    for name in &row.lib_jars {
        if let Some(jar) = extra_jars.remove(name) {
            out.push(jar);
            continue;
        }
        let jar = lib_dirs.iter().map(|d| d.join(name)).find(|j| j.is_file()).ok_or_else(|| D4jError::Jar {
            project: project.to_string(),
            jar: PathBuf::from(name),
            hint: format!(
                "it is one of the jars Defects4J ships (framework/projects/{project}/lib/); give the folder holding it with --jars (looked in: {})",
                lib_dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
            ),
        })?;
        out.push(jar);
    }
    out.extend(extra_jars.into_values());
    // Absolute: the builds and test runs start in other folders.
    Ok(out.into_iter().map(|j| std::path::absolute(&j).unwrap_or(j)).collect())
}

/// The `.jar` files directly in `dir`, sorted by name.
fn jars_in(dir: &Path) -> Result<Vec<PathBuf>, D4jError> {
    let entries = std::fs::read_dir(dir).map_err(|e| D4jError::Jar {
        project: String::new(),
        jar: dir.to_path_buf(),
        hint: format!("the --jars folder cannot be read: {e}"),
    })?;
    let mut jars: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jar"))
        .collect();
    jars.sort();
    Ok(jars)
}

/// The Java library folder: `FIXDEX_JAVA_LIB`, else [`DEBIAN_JAVA_DIR`].
#[must_use]
pub fn java_dir() -> PathBuf {
    std::env::var_os("FIXDEX_JAVA_LIB").map_or_else(|| PathBuf::from(DEBIAN_JAVA_DIR), PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_parses_and_names_packages_for_every_jar() {
        let t = table();
        assert!(t.len() >= 10, "{}", t.len());
        for (p, row) in &t {
            assert!(row.debian_jars.contains(&"junit4".to_string()), "{p}");
            assert!(!row.debian_packages.is_empty(), "{p}");
        }
        assert_eq!(t["Cli"].lib_jars, vec!["junit-addons-1.4.jar"]);
    }

    #[test]
    fn a_missing_jar_names_the_package_and_extra_jars_override() {
        let empty = tempfile::tempdir().unwrap();
        let err = resolve("Cli", empty.path(), &[], &[]).unwrap_err().to_string();
        assert!(err.contains("junit4.jar") && err.contains("Cli"), "{err}");
        let extra = tempfile::tempdir().unwrap();
        for j in ["junit4.jar", "hamcrest.jar", "commons-lang.jar", "jdepend.jar", "junit-addons-1.4.jar", "more.jar"] {
            std::fs::write(extra.path().join(j), b"").unwrap();
        }
        let jars = resolve("Cli", empty.path(), &[], &[extra.path().to_path_buf()]).unwrap();
        let names: Vec<_> = jars.iter().map(|j| j.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(
            names,
            ["junit4.jar", "hamcrest.jar", "commons-lang.jar", "jdepend.jar", "junit-addons-1.4.jar", "more.jar"]
        );
    }
}
