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

/// Issue 8, item 10: the prompt shows the buggy code as a numbered listing
/// (`3:     for n in ...`), and models copy the numbers into one side of the edit only.
/// SEARCH/REPLACE with numbers on SEARCH only, and on REPLACE only.
#[test]
fn issue_8_line_numbers_on_one_side_of_a_search_replace_block() {
    let dir = project(&[("sieve.py", SIEVE_PY)]);
    let search_only = "sieve.py\n<<<<<<< SEARCH\n3:     for n in range(2, max + 1):\n4:         if any(n % p > 0 for p in primes):\n\
        =======\n    for n in range(2, max + 1):\n        if all(n % p > 0 for p in primes):\n>>>>>>> REPLACE\n";
    apply(search_only, None, &dir).unwrap();
    assert_eq!(read(&dir, "sieve.py"), SIEVE_PY.replace("if any(", "if all("));

    let dir = project(&[("sieve.py", SIEVE_PY)]);
    let replace_only = "sieve.py\n<<<<<<< SEARCH\n        if any(n % p > 0 for p in primes):\n=======\n\
        4:         if all(n % p > 0 for p in primes):\n>>>>>>> REPLACE\n";
    apply(replace_only, None, &dir).unwrap();
    assert_eq!(read(&dir, "sieve.py"), SIEVE_PY.replace("if any(", "if all("));
}

/// Issue 8, item 10: a unified diff whose context and removed lines keep the listing's
/// numbers while the added lines do not, and the other way round.
#[test]
fn issue_8_line_numbers_on_one_kind_of_diff_line() {
    let dir = project(&[("GCD.java", GCD_JAVA)]);
    let old_only = "--- a/GCD.java\n+++ b/GCD.java\n@@ -7,3 +7,3 @@\n 7:         } else {\n-8:             return gcd(a % b, b);\n\
        +            return gcd(b, a % b);\n 9:         }\n";
    apply(old_only, None, &dir).unwrap();
    assert_eq!(read(&dir, "GCD.java"), GCD_JAVA.replace("gcd(a % b, b)", "gcd(b, a % b)"));

    let dir = project(&[("GCD.java", GCD_JAVA)]);
    let added_only = "--- a/GCD.java\n+++ b/GCD.java\n@@ -7,3 +7,4 @@\n         } else {\n-            return gcd(a % b, b);\n\
        +8:             int r = a % b;\n+9:             return gcd(b, r);\n         }\n";
    apply(added_only, None, &dir).unwrap();
    assert_eq!(
        read(&dir, "GCD.java"),
        GCD_JAVA.replace("return gcd(a % b, b);", "int r = a % b;\n            return gcd(b, r);")
    );
}

/// The limits of issue 8, item 10: text that legitimately starts with digits and a colon is
/// never stripped when it matches as written; a side where only some lines carry numbers,
/// or whose numbers are not increasing, is not stripped (and so refused).
#[test]
fn line_numbers_are_stripped_only_when_consistent() {
    let yaml = "levels:\n1: low\n2: mid\n3: high\n";
    let dir = project(&[("levels.yaml", yaml)]);
    let answer = "levels.yaml\n<<<<<<< SEARCH\n2: mid\n3: high\n=======\n2: medium\n3: high\n>>>>>>> REPLACE\n";
    apply(answer, None, &dir).unwrap();
    assert_eq!(read(&dir, "levels.yaml"), "levels:\n1: low\n2: medium\n3: high\n");

    let dir = project(&[("sieve.py", SIEVE_PY)]);
    let partial = "sieve.py\n<<<<<<< SEARCH\n3:     for n in range(2, max + 1):\n        if any(n % p > 0 for p in primes):\n\
        =======\n    for n in range(2, max + 1):\n        if all(n % p > 0 for p in primes):\n>>>>>>> REPLACE\n";
    let err = apply(partial, None, &dir).unwrap_err();
    assert!(
        matches!(&err, PatchError::Hunk { error, .. } if matches!(error.failure, HunkFailure::NotFound { .. })),
        "{err}"
    );
    let decreasing = "sieve.py\n<<<<<<< SEARCH\n4:     for n in range(2, max + 1):\n3:         if any(n % p > 0 for p in primes):\n\
        =======\n    for n in range(2, max + 1):\n        if all(n % p > 0 for p in primes):\n>>>>>>> REPLACE\n";
    assert!(apply(decreasing, None, &dir).is_err());
    assert_eq!(read(&dir, "sieve.py"), SIEVE_PY);
}

/// Issue 8, item 11: a SEARCH that starts or ends with a blank line the file does not have
/// there still matches, with the blank edge lines trimmed; a blank line REPLACE starts (ends)
/// with as well is read as a context line and dropped with it; blank lines inside the
/// replacement, and a REPLACE edge without a SEARCH counterpart, stay as written.
#[test]
fn issue_8_a_stray_blank_line_at_the_edge_of_a_search_block() {
    let dir = project(&[("sieve.py", SIEVE_PY)]);
    let leading = "sieve.py\n<<<<<<< SEARCH\n\n        if any(n % p > 0 for p in primes):\n=======\n\
        \n        if all(n % p > 0 for p in primes):\n>>>>>>> REPLACE\n";
    apply(leading, None, &dir).unwrap();
    assert_eq!(read(&dir, "sieve.py"), SIEVE_PY.replace("if any(", "if all("));

    let dir = project(&[("sieve.py", SIEVE_PY)]);
    let trailing = "sieve.py\n<<<<<<< SEARCH\n        if any(n % p > 0 for p in primes):\n            primes.append(n)\n\n=======\n\
        \x20       if all(n % p > 0 for p in primes):\n\n            primes.append(n)\n>>>>>>> REPLACE\n";
    apply(trailing, None, &dir).unwrap();
    // The blank line inside the replacement is kept; REPLACE does not end with a blank line.
    assert_eq!(
        read(&dir, "sieve.py"),
        SIEVE_PY
            .replace("        if any(n % p > 0 for p in primes):\n", "        if all(n % p > 0 for p in primes):\n\n")
    );

    // A blank line both sides start with is one context line: dropped from both, it leaves
    // nothing to change. A blank line only REPLACE starts with is inserted as written.
    let dir = project(&[("sieve.py", SIEVE_PY)]);
    let paired = "sieve.py\n<<<<<<< SEARCH\n\n    return primes\n=======\n\n    return primes\n>>>>>>> REPLACE\n";
    let err = apply(paired, None, &dir).unwrap_err();
    assert!(matches!(err, PatchError::NoChange), "{err}");
    let added =
        "sieve.py\n<<<<<<< SEARCH\n    return primes\n\n=======\n\n    return sorted(primes)\n>>>>>>> REPLACE\n";
    apply(added, None, &dir).unwrap();
    assert!(
        read(&dir, "sieve.py").ends_with("primes.append(n)\n\n    return sorted(primes)\n"),
        "{}",
        read(&dir, "sieve.py")
    );
}

/// Issue 8, item 11: the same in a unified diff (a blank context line the file lacks at the
/// start of a hunk), and the limit: a trimmed SEARCH that matches twice is refused.
#[test]
fn issue_8_a_stray_blank_context_line_in_a_diff_and_ambiguity() {
    let dir = project(&[("GCD.java", GCD_JAVA)]);
    let diff = "--- a/GCD.java\n+++ b/GCD.java\n@@ -7,3 +7,3 @@\n \n         } else {\n-            return gcd(a % b, b);\n+            return gcd(b, a % b);\n";
    apply(diff, None, &dir).unwrap();
    assert_eq!(read(&dir, "GCD.java"), GCD_JAVA.replace("gcd(a % b, b)", "gcd(b, a % b)"));

    let text = "def f(x):\n    return x\ndef g(x):\n    return x\n";
    let dir = project(&[("m.py", text)]);
    let answer = "m.py\n<<<<<<< SEARCH\n\n    return x\n=======\n    return x + 1\n>>>>>>> REPLACE\n";
    let err = apply(answer, None, &dir).unwrap_err();
    assert!(matches!(&err, PatchError::Hunk { .. }), "{err}");
    assert_eq!(read(&dir, "m.py"), text);
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
    let got = got.unwrap_or_else(|e| panic!("{what}: {e}\n{diff}"));
    assert!(same_but_listing_numbers(&got, new), "{what}\n{diff}\ngot {got:?}");
    let numberless = diff.lines().map(|l| if l.starts_with("@@") { "@@" } else { l }).collect::<Vec<_>>();
    let numberless = Patch::parse(&numberless.join("\n"), None).unwrap();
    // Without line numbers a hunk is refused or lands where it belongs, never elsewhere.
    match repair::patch::apply_to_text(old, &numberless.files[0].hunks) {
        Ok(text) => {
            assert!(same_but_listing_numbers(&text, new), "{what} without numbers\n{diff}\ngot {text:?}");
            Some(true)
        }
        Err(_) => Some(false),
    }
}

/// `got == want`, or they differ only in lines where `want` has a listing prefix (`1: a`)
/// that `got` lacks: added lines that look like the prompt's numbered listing at the place
/// they go are read as numbered, by design (issue 8, item 10; `strip_added_numbers` in
/// repair/src/patch/apply.rs), so a diff adding such content may lose the prefix.
pub fn same_but_listing_numbers(got: &str, want: &str) -> bool {
    if got == want {
        return true;
    }
    let (g, w): (Vec<&str>, Vec<&str>) = (got.split('\n').collect(), want.split('\n').collect());
    g.len() == w.len()
        && g.iter().zip(&w).all(|(g, w)| {
            g == w || w.split_once(": ").is_some_and(|(n, rest)| n.trim().parse::<usize>().is_ok() && rest == *g)
        })
}
