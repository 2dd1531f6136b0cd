//! `repair::patch` on small Java and Python projects, through the public API only.

use std::path::Path;

use repair::patch::{HunkFailure, Patch, PatchError};
use tempfile::TempDir;

const GCD_JAVA: &str = "\
package java_programs;

public class GCD {
    public static int gcd(int a, int b) {
        if (b == 0) {
            return a;
        } else {
            return gcd(a % b, b);
        }
    }
}
";

const SIEVE_PY: &str = "\
def sieve(max):
    primes = []
    for n in range(2, max + 1):
        if any(n % p > 0 for p in primes):
            primes.append(n)
    return primes
";

fn project(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn read(dir: &TempDir, rel: &str) -> String {
    std::fs::read_to_string(dir.path().join(rel)).unwrap()
}

fn apply(answer: &str, default: Option<&str>, dir: &TempDir) -> Result<repair::patch::Applied, PatchError> {
    Patch::parse(answer, default.map(Path::new))?.apply(dir.path())
}

#[test]
fn diff_in_a_markdown_answer_with_prose_and_wrong_line_numbers() {
    let dir = project(&[("java_programs/GCD.java", GCD_JAVA)]);
    let answer = "The recursion passes the arguments in the wrong order.\n\n```diff\n\
        --- a/java_programs/GCD.java\n+++ b/java_programs/GCD.java\n@@ -70,5 +70,5 @@ public class GCD {\n\
         \x20           return a;\n         } else {\n-            return gcd(a % b, b);\n+            return gcd(b, a % b);\n\
         \x20       }\n```\n\nThis swaps the arguments so the remainder shrinks.\n";
    let applied = apply(answer, None, &dir).unwrap();
    assert_eq!(read(&dir, "java_programs/GCD.java"), GCD_JAVA.replace("gcd(a % b, b)", "gcd(b, a % b)"));
    assert_eq!(applied.files.len(), 1);
    assert!(!applied.files[0].created);
    assert!(
        applied.diff.starts_with("--- a/java_programs/GCD.java\n+++ b/java_programs/GCD.java\n@@"),
        "{}",
        applied.diff
    );
    assert!(applied.diff.contains("-            return gcd(a % b, b);\n+            return gcd(b, a % b);\n"));
}

#[test]
fn headerless_hunk_goes_to_the_default_path() {
    let dir = project(&[("python_programs/sieve.py", SIEVE_PY)]);
    let answer = "```diff\n@@ ... @@\n-        if any(n % p > 0 for p in primes):\n+        if all(n % p > 0 for p in primes):\n```";
    apply(answer, Some("python_programs/sieve.py"), &dir).unwrap();
    assert!(read(&dir, "python_programs/sieve.py").contains("        if all(n % p > 0"));
    // Without a default path the hunk names no file.
    let err = Patch::parse(answer, None).unwrap_err();
    assert!(matches!(err, PatchError::Malformed { line: 2, .. }), "{err}");
}

#[test]
fn a_named_file_that_does_not_exist_falls_back_to_the_default_with_the_same_name() {
    let dir = project(&[("python_programs/sieve.py", SIEVE_PY)]);
    let answer = "--- sieve.py\n+++ sieve.py\n@@\n-        if any(n % p > 0 for p in primes):\n+        if all(n % p > 0 for p in primes):\n";
    let applied = apply(answer, Some("python_programs/sieve.py"), &dir).unwrap();
    assert_eq!(applied.files[0].path, Path::new("python_programs/sieve.py"));
    let err = apply(answer, None, &dir).unwrap_err();
    assert!(matches!(err, PatchError::FileMissing { .. }), "{err}");
}

#[test]
fn context_not_in_the_file_is_refused_with_the_closest_region() {
    let dir = project(&[("GCD.java", GCD_JAVA)]);
    let answer = "--- a/GCD.java\n+++ b/GCD.java\n@@ -5,3 +5,3 @@\n         if (b == 0) {\n-            return b;\n+            return a;\n         } else {\n";
    let err = apply(answer, None, &dir).unwrap_err();
    let PatchError::Hunk { error, .. } = &err else { panic!("{err}") };
    assert!(matches!(error.failure, HunkFailure::NotFound { near: Some(_) }));
    let feedback = err.feedback();
    assert!(feedback.contains("hunk 1 of 1"), "{feedback}");
    assert!(
        feedback.contains(
            "The closest region of GCD.java is lines 5-7:\n5:         if (b == 0) {\n6:             return a;"
        ),
        "{feedback}"
    );
    assert!(
        feedback.contains(
            "old line 2 of the hunk is `            return b;`, but line 6 of the file is `            return a;`"
        ),
        "{feedback}"
    );
    assert!(feedback.contains("no file was changed"), "{feedback}");
    assert_eq!(read(&dir, "GCD.java"), GCD_JAVA);
}

#[test]
fn ambiguous_context_is_refused_with_the_candidate_lines() {
    let text = "def f(x):\n    return x\n\n\ndef g(x):\n    return x\n";
    let dir = project(&[("m.py", text)]);
    let answer = "--- a/m.py\n+++ b/m.py\n@@\n-    return x\n+    return x + 1\n";
    let err = apply(answer, None, &dir).unwrap_err();
    let PatchError::Hunk { error, .. } = &err else { panic!("{err}") };
    assert_eq!(error.failure, HunkFailure::Ambiguous { lines: vec![2, 6] });
    assert!(err.feedback().contains("match at lines 2, 6"), "{}", err.feedback());
    // The header's line number breaks the tie.
    let answer = "--- a/m.py\n+++ b/m.py\n@@ -6 +6 @@\n-    return x\n+    return x + 1\n";
    apply(answer, None, &dir).unwrap();
    assert_eq!(read(&dir, "m.py"), "def f(x):\n    return x\n\n\ndef g(x):\n    return x + 1\n");
}

#[test]
fn paths_outside_the_root_are_refused() {
    let dir = project(&[("a/GCD.java", GCD_JAVA)]);
    for path in ["../GCD.java", "a/../../GCD.java", "/etc/hosts"] {
        let answer = format!("--- {path}\n+++ {path}\n@@\n-x\n+y\n");
        let err = apply(&answer, None, &dir).unwrap_err();
        assert!(matches!(err, PatchError::PathRefused { .. }), "{path}: {err}");
    }
    let block = "/tmp/x.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n";
    assert!(matches!(apply(block, None, &dir).unwrap_err(), PatchError::PathRefused { .. }));
}

#[cfg(unix)]
#[test]
fn a_symlink_leaving_the_root_is_refused_and_the_outside_file_untouched() {
    let outside = project(&[("secret.py", "x = 1\n")]);
    let dir = project(&[]);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("vendor")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.py"), dir.path().join("link.py")).unwrap();
    for path in ["vendor/secret.py", "link.py", "vendor/new.py"] {
        let answer = format!("--- a/{path}\n+++ b/{path}\n@@\n-x = 1\n+x = 2\n");
        let err = apply(&answer, None, &dir).unwrap_err();
        assert!(matches!(err, PatchError::PathRefused { .. }), "{path}: {err}");
    }
    assert_eq!(read(&outside, "secret.py"), "x = 1\n");
}

#[test]
fn when_hunk_2_fails_nothing_is_written() {
    let dir = project(&[("GCD.java", GCD_JAVA), ("sieve.py", SIEVE_PY)]);
    let answer = "--- a/sieve.py\n+++ b/sieve.py\n@@\n-        if any(n % p > 0 for p in primes):\n+        if all(n % p > 0 for p in primes):\n\
        --- a/GCD.java\n+++ b/GCD.java\n@@ -6 +6 @@\n-            return a;\n+            return b;\n@@ -8 +8 @@\n-            return gcd(b, a);\n+            return gcd(b, a % b);\n";
    let before =
        (std::fs::read(dir.path().join("GCD.java")).unwrap(), std::fs::read(dir.path().join("sieve.py")).unwrap());
    let err = apply(answer, None, &dir).unwrap_err();
    let PatchError::Hunk { path, error } = &err else { panic!("{err}") };
    assert_eq!((path.as_path(), error.hunk, error.total), (Path::new("GCD.java"), 2, 2));
    let after =
        (std::fs::read(dir.path().join("GCD.java")).unwrap(), std::fs::read(dir.path().join("sieve.py")).unwrap());
    assert_eq!(before, after);
}

#[test]
fn crlf_file_keeps_its_line_endings() {
    let crlf = SIEVE_PY.replace('\n', "\r\n");
    let dir = project(&[("sieve.py", &crlf)]);
    let answer = "--- a/sieve.py\n+++ b/sieve.py\n@@ -3,3 +3,4 @@\n     for n in range(2, max + 1):\n-        if any(n % p > 0 for p in primes):\n+        # trial division\n+        if all(n % p > 0 for p in primes):\n             primes.append(n)\n";
    apply(answer, None, &dir).unwrap();
    let want = crlf.replace("        if any", "        # trial division\r\n        if all");
    assert_eq!(std::fs::read(dir.path().join("sieve.py")).unwrap(), want.as_bytes());
}

#[test]
fn file_without_final_newline_stays_without() {
    let text = GCD_JAVA.trim_end();
    let dir = project(&[("GCD.java", text)]);
    let answer = "--- a/GCD.java\n+++ b/GCD.java\n@@\n         }\n     }\n-}\n+}\n+// end\n";
    apply(answer, None, &dir).unwrap();
    assert_eq!(read(&dir, "GCD.java"), format!("{}\n// end", text));
}

#[test]
fn line_number_prefixes_copied_from_a_listing_are_stripped() {
    let dir = project(&[("GCD.java", GCD_JAVA)]);
    let answer = "```diff\n--- a/GCD.java\n+++ b/GCD.java\n@@ -7,3 +7,3 @@\n 7:         } else {\n-8:             return gcd(a % b, b);\n\
        +8:             return gcd(b, a % b);\n 9:         }\n```\n";
    apply(answer, None, &dir).unwrap();
    assert!(read(&dir, "GCD.java").contains("        } else {\n            return gcd(b, a % b);\n        }\n"));
}

#[test]
fn search_replace_blocks_across_two_files() {
    let dir = project(&[("java_programs/GCD.java", GCD_JAVA), ("python_programs/sieve.py", SIEVE_PY)]);
    let answer = "Two fixes.\n\njava_programs/GCD.java\n```java\n<<<<<<< SEARCH\n            return gcd(a % b, b);\n=======\n\
        \x20           return gcd(b, a % b);\n>>>>>>> REPLACE\n```\n\n`python_programs/sieve.py`:\n```python\n<<<<<<< SEARCH\n\
        def sieve(max):\n=======\ndef sieve(max):\n    \"\"\"Primes up to max.\"\"\"\n>>>>>>> REPLACE\n```\n\n```python\n<<<<<<< SEARCH\n\
        \x20       if any(n % p > 0 for p in primes):\n=======\n        if all(n % p > 0 for p in primes):\n>>>>>>> REPLACE\n```\n";
    let patch = Patch::parse(answer, None).unwrap();
    assert_eq!((patch.files.len(), patch.hunk_count()), (2, 3));
    let applied = patch.apply(dir.path()).unwrap();
    assert_eq!(applied.files.len(), 2);
    assert!(read(&dir, "java_programs/GCD.java").contains("return gcd(b, a % b);"));
    let sieve = read(&dir, "python_programs/sieve.py");
    assert!(sieve.starts_with("def sieve(max):\n    \"\"\"Primes up to max.\"\"\"\n    primes = []\n"), "{sieve}");
    assert!(sieve.contains("        if all("), "{sieve}");
}

#[test]
fn replacement_text_is_inserted_verbatim_even_when_matched_tolerantly() {
    let dir = project(&[("sieve.py", SIEVE_PY)]);
    // The SEARCH lost its indentation and has trailing blanks; the REPLACE uses tabs.
    let answer = "sieve.py\n<<<<<<< SEARCH\nif any(n % p > 0 for p in primes):   \nprimes.append(n)\n=======\n\
        \tif all(n % p > 0 for p in primes):\n\t\tprimes.append(n)\n>>>>>>> REPLACE\n";
    apply(answer, None, &dir).unwrap();
    assert!(
        read(&dir, "sieve.py")
            .contains("+ 1):\n\tif all(n % p > 0 for p in primes):\n\t\tprimes.append(n)\n    return")
    );
}

#[test]
fn new_files_are_created_by_diff_and_by_empty_search() {
    let dir = project(&[("GCD.java", GCD_JAVA)]);
    let answer = "--- /dev/null\n+++ b/src/util/Util.java\n@@ -0,0 +1,2 @@\n+class Util {\n+}\n";
    let applied = apply(answer, None, &dir).unwrap();
    assert!(applied.files[0].created);
    assert!(applied.diff.starts_with("--- /dev/null\n+++ b/src/util/Util.java\n"), "{}", applied.diff);
    assert_eq!(read(&dir, "src/util/Util.java"), "class Util {\n}\n");
    let block = "helpers.py\n<<<<<<< SEARCH\n=======\ndef helper():\n    pass\n>>>>>>> REPLACE\n";
    apply(block, None, &dir).unwrap();
    assert_eq!(read(&dir, "helpers.py"), "def helper():\n    pass\n");
    // Creating a file that exists is refused.
    assert!(matches!(apply(answer, None, &dir).unwrap_err(), PatchError::FileExists { .. }));
}

#[test]
fn empty_and_garbage_answers_are_refused() {
    for answer in ["", "   \n", "I could not find the bug.", "```java\nreturn gcd(b, a % b);\n```"] {
        let err = Patch::parse(answer, Some(Path::new("GCD.java"))).unwrap_err();
        assert!(matches!(err, PatchError::Empty), "{answer:?}: {err}");
        assert!(err.feedback().contains("SEARCH/REPLACE"), "{}", err.feedback());
    }
    let unterminated = "GCD.java\n<<<<<<< SEARCH\nreturn a;\n=======\nreturn b;\n";
    let err = Patch::parse(unterminated, None).unwrap_err();
    assert!(matches!(err, PatchError::Malformed { line: 2, .. }), "{err}");
    let no_hunk = "--- a/GCD.java\n+++ b/GCD.java\nThat is all.\n";
    assert!(matches!(Patch::parse(no_hunk, None).unwrap_err(), PatchError::Malformed { line: 1, .. }));
}

#[test]
fn a_patch_that_changes_nothing_or_a_missing_file_is_refused() {
    let dir = project(&[("GCD.java", GCD_JAVA)]);
    let noop = "--- a/GCD.java\n+++ b/GCD.java\n@@\n-            return a;\n+            return a;\n";
    assert!(matches!(apply(noop, None, &dir).unwrap_err(), PatchError::NoChange));
    let missing = "--- a/LCM.java\n+++ b/LCM.java\n@@\n-x\n+y\n";
    assert!(matches!(apply(missing, None, &dir).unwrap_err(), PatchError::FileMissing { .. }));
}

#[test]
fn two_names_for_one_file_are_merged_into_one_sequence_of_hunks() {
    let dir = project(&[("java_programs/GCD.java", GCD_JAVA)]);
    let answer = "--- a/GCD.java\n+++ b/GCD.java\n@@\n-            return a;\n+            return a + 0;\n\
        --- a/java_programs/GCD.java\n+++ b/java_programs/GCD.java\n@@\n-            return gcd(a % b, b);\n+            return gcd(b, a % b);\n";
    let applied = apply(answer, Some("java_programs/GCD.java"), &dir).unwrap();
    assert_eq!(applied.files.len(), 1);
    let text = read(&dir, "java_programs/GCD.java");
    assert!(text.contains("return a + 0;") && text.contains("return gcd(b, a % b);"), "{text}");
}

/// Round trip against an exact oracle: a diff of random edits (written by
/// [`repair::patch::unified_diff`]) applied to the old text gives the new text. Lines come
/// from a small alphabet, so hunks often match several places and the header's line
/// numbers must pick the right one through the shift of earlier hunks. The property
/// itself is [`round_trip`]; `fuzz::fuzz_patch_unified_diff_round_trip` runs it on
/// generated texts with other alphabets, CRLF endings and no final newline.
#[test]
fn unified_diff_of_random_edits_round_trips() {
    const ALPHABET: [&str; 6] = ["a", "b", "c", "", "    x = 1", "}"];
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % n as u64).unwrap()
    };
    let mut ambiguous = 0;
    for case in 0..400 {
        let old: Vec<&str> = (0..5 + next(40)).map(|_| ALPHABET[next(ALPHABET.len())]).collect();
        let mut new = old.clone();
        for _ in 0..1 + next(4) {
            let at = next(new.len() + 1);
            match next(3) {
                0 if at < new.len() => drop(new.remove(at)),
                1 if at < new.len() => new[at] = "changed",
                _ => new.insert(at, "inserted"),
            }
        }
        let (old, new) = (old.join("\n") + "\n", new.join("\n") + "\n");
        ambiguous += usize::from(round_trip(&old, &new, &format!("case {case}")) == Some(false));
    }
    assert!(ambiguous > 0, "the alphabet should make some numberless hunks ambiguous");
}

/// Checks that the unified diff of `old` → `new` parses and applies to `old` giving `new`,
/// and that the same diff without line numbers is refused or gives `new` too, never
/// another text. Returns `None` when the texts are equal (no diff), else whether the
/// numberless diff applied. `what` names the case in failures.
pub fn round_trip(old: &str, new: &str, what: &str) -> Option<bool> {
    let diff = repair::patch::unified_diff(Path::new("f.txt"), old, new);
    if diff.is_empty() {
        return None;
    }
    let patch = Patch::parse(&diff, None).unwrap_or_else(|e| panic!("{what}: {e}\n{diff}"));
    let got = repair::patch::apply_to_text(old, &patch.files[0].hunks);
    assert_eq!(got.as_deref(), Ok(new), "{what}\n{diff}");
    let numberless = diff.lines().map(|l| if l.starts_with("@@") { "@@" } else { l }).collect::<Vec<_>>();
    let numberless = Patch::parse(&numberless.join("\n"), None).unwrap();
    // Without line numbers a hunk is refused or lands where it belongs, never elsewhere.
    match repair::patch::apply_to_text(old, &numberless.files[0].hunks) {
        Ok(text) => {
            assert_eq!(text, new, "{what} without numbers\n{diff}");
            Some(true)
        }
        Err(_) => Some(false),
    }
}
