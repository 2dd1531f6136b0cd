//! The programming languages fixdex repairs: one type for the tools, fault localization,
//! validation and the benchmark harness.
//!
//! A file's language is its extension's ([`Language::from_path`]: `.java`, `.py`); its name
//! ([`Language::as_str`], `Display`, serde) is `java` or `python`, the word prompts and
//! reports use.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// A language fixdex parses, localizes faults in and validates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    /// Java: `.java` files, tree-sitter-java, javac and JUnit 4.
    Java,
    /// Python: `.py` files, tree-sitter-python, pytest.
    Python,
}

impl Language {
    /// The language of `path` by its extension (`.java`, `.py`), or `None` for anything else.
    pub fn from_path(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "java" => Some(Language::Java),
            "py" => Some(Language::Python),
            _ => None,
        }
    }

    /// The language named `name` (`java`, `python`: [`Language::as_str`]'s names, as corpus
    /// records and index documents spell them), or `None` for anything else.
    pub fn from_name(name: &str) -> Option<Language> {
        [Language::Java, Language::Python].into_iter().find(|l| l.as_str() == name)
    }

    /// `java` or `python`: the serde name, and the name prompts and reports use.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Java => "java",
            Language::Python => "python",
        }
    }

    /// The file extension, without the dot: `java` or `py`.
    pub fn extension(self) -> &'static str {
        match self {
            Language::Java => "java",
            Language::Python => "py",
        }
    }

    /// The tree-sitter grammar that parses the language.
    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
        }
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_by_extension_and_its_names() {
        assert_eq!(Language::from_path(Path::new("java_programs/GCD.java")), Some(Language::Java));
        assert_eq!(Language::from_path(Path::new("python_programs/gcd.py")), Some(Language::Python));
        for other in ["Makefile", "a.class", "a.pyc", "dir.py/x", ""] {
            assert_eq!(Language::from_path(Path::new(other)), None, "{other:?}");
        }
        for (lang, name, ext) in [(Language::Java, "java", "java"), (Language::Python, "python", "py")] {
            assert_eq!(lang.as_str(), name);
            assert_eq!(lang.to_string(), name);
            assert_eq!(lang.extension(), ext);
            assert_eq!(serde_json::to_string(&lang).unwrap(), format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<Language>(&format!("\"{name}\"")).unwrap(), lang);
            assert_eq!(Language::from_path(Path::new(&format!("f.{ext}"))), Some(lang));
        }
    }
}
