//! Issue 29 items 1 and 2 and the output lock: every command that writes a file makes one
//! check (`engine::output::check`): a device, pipe or folder is refused and left as it
//! was, an input is never overwritten, a symbolic link is written through, and two runs on
//! one output are refused.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{Scratch, records, stderr};

/// A FIFO at `path` (a device node needs root; a FIFO is the same kind of non-file for
/// every check, and creating one needs no privilege).
fn mkfifo(path: &Path) {
    let o = std::process::Command::new("mkfifo").arg(path).output().unwrap();
    assert!(o.status.success(), "mkfifo: {}", stderr(&o));
}

/// Whether `path` is still what it was: not replaced by a regular file.
fn still_special(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Asserts exit 1 with `says` in stderr.
fn assert_refused(o: &Output, args: &[&str], says: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: want {says:?}: {err}");
}

/// A valid index of `n` records at `name`; returns its path.
fn index(s: &Scratch, name: &str, n: usize) -> PathBuf {
    let idx = s.path(name);
    s.index(&s.corpus(&format!("{name}.jsonl"), &records(n)), &idx, &[]);
    idx
}

/// Issue 29 item 1: `index -o`, `index --report`, `manifest -o`, `compact -o` and `label
/// -o` given a FIFO (or, as root, a character device like `mknod devnode c 1 3`) exit 1
/// and leave it in place; they used to exit 0 and replace it with a regular file.
#[test]
fn issue_29_outputs_that_are_devices_are_refused_by_every_writer() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(6));
    let idx = index(&s, "idx.fdx", 6);
    let mut specials = vec![s.path("fifo")];
    mkfifo(&specials[0]);
    let dev = s.path("devnode");
    let made = std::process::Command::new("mknod").args([dev.to_str().unwrap(), "c", "1", "3"]).output();
    if made.is_ok_and(|o| o.status.success()) {
        specials.push(dev); // as root: the issue's own example
    }
    let (c, i, other) = (corpus.to_str().unwrap(), idx.to_str().unwrap(), s.path("other.fdx"));
    for special in &specials {
        let sp = special.to_str().unwrap();
        let cases: [Vec<&str>; 5] = [
            vec!["index", c, "-o", sp],
            vec!["index", c, "-o", other.to_str().unwrap(), "--report", sp, "--on-error", "skip"],
            vec!["manifest", i, "-o", sp],
            vec!["compact", i, "-o", sp],
            vec!["label", c, "-o", sp, "--mechanical"],
        ];
        for args in cases {
            assert_refused(&s.run(&args), &args, "not a regular file");
            assert!(still_special(special), "{args:?} replaced {sp}");
        }
    }
    assert!(!other.exists());
}

/// Issue 29 item 2: an output that is an input is refused and the input kept: `index c.jsonl
/// -o c.jsonl` overwrote the corpus with the index; `--report` onto the corpus or the index;
/// `manifest a.fdx -o a.fdx`; `compact M -o M.segments/seg-000001.fdx` left a manifest that
/// `verify` rejects.
#[test]
fn issue_29_an_output_that_is_an_input_is_refused() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(6));
    let before = std::fs::read(&corpus).unwrap();
    let m = index(&s, "m.fdx", 6);
    let more = s.corpus("more.jsonl", &records(10)[6..]);
    let o = s.run(&["index", "--append", m.to_str().unwrap(), more.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let seg = s.path("m.fdx.segments/seg-000001.fdx");
    assert!(seg.is_file());
    let seg_before = std::fs::read(&seg).unwrap();
    let (c, ms, sg) = (corpus.to_str().unwrap(), m.to_str().unwrap(), seg.to_str().unwrap());
    let inside = s.path("m.fdx.segments/new.fdx");
    let input = "is (or is inside) the input";
    let (x, y) = (s.path("x.fdx"), s.path("y.fdx"));
    let cases: [(Vec<&str>, &str); 6] = [
        (vec!["index", c, "-o", c], input),
        (vec!["index", c, "-o", x.to_str().unwrap(), "--report", c], input),
        (vec!["index", c, "-o", y.to_str().unwrap(), "--report", y.to_str().unwrap()], "is the index file too"),
        (vec!["manifest", sg, "-o", sg], input),
        (vec!["compact", ms, "-o", sg], input),
        (vec!["compact", ms, "-o", inside.to_str().unwrap()], input),
    ];
    for (args, says) in cases {
        assert_refused(&s.run(&args), &args, says);
    }
    assert_eq!(std::fs::read(&corpus).unwrap(), before, "the corpus is untouched");
    assert_eq!(std::fs::read(&seg).unwrap(), seg_before, "the segment is untouched");
    assert!(!inside.exists() && !x.exists() && !y.exists());
    let o = s.run(&["verify", ms]);
    assert!(o.status.success(), "the manifest still verifies: {}", stderr(&o));
    // In place stays allowed: the manifest itself is replaced by the compacted file.
    let o = s.run(&["compact", ms, "-o", ms]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(s.run(&["verify", ms]).status.success());
}

/// Issue 29 item 2: `index -o link.fdx`, `manifest -o` and `compact -o` write through a
/// symbolic link (the link stays, its target becomes the new file), as `mine` and `label`
/// do; `index` used to replace the link.
#[test]
fn issue_29_outputs_write_through_symbolic_links() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(6));
    let idx = index(&s, "idx.fdx", 6);
    std::fs::create_dir(s.path("real")).unwrap();
    // What they replace must be an index or manifest (indexer_hardening's
    // index_outputs_replace_only_an_index_and_a_report, and
    // outputs_replace_only_a_file_of_their_own_kind).
    let small = std::fs::read(index(&s, "small.fdx", 3)).unwrap();
    let outputs = [("index", "built.fdx"), ("manifest", "m.json"), ("compact", "one.fdx")];
    for (command, name) in outputs {
        let target = s.path("real").join(name);
        let old = small.clone();
        std::fs::write(&target, &old).unwrap();
        let link = s.path(&format!("link-{name}"));
        std::os::unix::fs::symlink(Path::new("real").join(name), &link).unwrap();
        let l = link.to_str().unwrap();
        let args = match command {
            "index" => vec!["index", corpus.to_str().unwrap(), "-o", l],
            other => vec![other, idx.to_str().unwrap(), "-o", l],
        };
        let o = s.run(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "{command}: the link stays");
        assert_ne!(std::fs::read(&target).unwrap(), old, "{command}: the target was written");
        let o = s.run(&["verify", l]);
        assert!(o.status.success(), "{command}: {}", stderr(&o));
    }
    let left: Vec<_> = std::fs::read_dir(s.path("real")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 3, "no temporary file is left: {left:?}");
}

/// Issue 29 (partial): two `label` runs on one output asked every row twice (a paid bill
/// doubled). The second is refused at once, naming the lock file and the first run's pid;
/// once the first ends, a run goes through and leaves no lock file behind.
#[test]
fn issue_29_a_second_label_run_on_one_output_is_refused() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(4));
    let out = s.path("labelled.jsonl");
    let args = ["label", corpus.to_str().unwrap(), "-o", out.to_str().unwrap(), "--mechanical", "--json"];
    for locked in [out.clone(), s.path("labelled.jsonl.cache")] {
        let held = engine::output::Lock::acquire(&locked).unwrap(); // the "first run": this process
        let o = s.run(&args);
        let lock = format!("{}.lock", locked.display());
        assert_refused(&o, &args, &format!("pid {}", std::process::id()));
        assert!(stderr(&o).contains(&lock), "{}", stderr(&o));
        assert!(!out.exists());
        drop(held);
    }
    let o = s.run(&args);
    assert!(o.status.code().is_some_and(|c| c == 0 || c == 4), "{}", stderr(&o));
    assert!(out.exists() && !s.path("labelled.jsonl.lock").exists() && !s.path("labelled.jsonl.cache.lock").exists());
}

/// Found by a fresh user after issue 29's locks: two `index -o X` runs at once both
/// finished and the last silently won. The second is refused at once, naming the lock file
/// and the first run's pid, and leaves no index; once the first ends, a build goes through
/// and leaves no lock file behind.
#[test]
fn issue_29_a_second_index_run_on_one_output_is_refused() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(4));
    let out = s.path("c.fdx");
    let args = ["index", corpus.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"];
    let held = engine::output::Lock::acquire(&out).unwrap(); // the "first run": this process
    let o = s.run(&args);
    assert_refused(&o, &args, &format!("pid {}", std::process::id()));
    assert!(stderr(&o).contains(&format!("{}.lock", out.display())), "{}", stderr(&o));
    assert!(!out.exists());
    drop(held);
    let o = s.run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.exists() && !s.path("c.fdx.lock").exists());
}

/// `manifest` refuses one segment listed twice (by any path to it): its documents would be
/// counted and searched twice.
#[test]
fn a_manifest_lists_each_segment_once() {
    let s = Scratch::new();
    let idx = index(&s, "idx.fdx", 6);
    let again = s.path("sub/../idx.fdx");
    std::fs::create_dir(s.path("sub")).unwrap();
    let out = s.path("m.json");
    let o = s.run(&["manifest", "-o", out.to_str().unwrap(), idx.to_str().unwrap(), again.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "a usage error: {}", stderr(&o));
    assert!(stderr(&o).contains("are one file: list each segment once"), "{}", stderr(&o));
    assert!(!out.exists());
}

/// A new user's finding: a manifest over two segments holding the same ids said 12
/// documents where search finds 6. It still writes the manifest (a legitimate overlap), but
/// warns and says `repeated_ids` in `--json`; segments with distinct ids get no warning.
#[test]
fn a_manifest_over_segments_with_the_same_ids_warns() {
    let s = Scratch::new();
    let (a, b) = (index(&s, "a.fdx", 6), index(&s, "b.fdx", 6));
    let out = s.path("m.json");
    let o = s.run(&["manifest", "--json", "-o", out.to_str().unwrap(), a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["documents"].as_u64(), v["repeated_ids"].as_u64()), (Some(12), Some(6)), "{v}");
    assert!(stderr(&o).contains("warning: 6 of the 12 documents repeat an id"), "{}", stderr(&o));
    assert!(stderr(&o).contains("(6 distinct ids)"), "{}", stderr(&o));
    let one = s.path("one.json");
    let o = s.run(&["manifest", "--json", "-o", one.to_str().unwrap(), a.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["repeated_ids"].as_u64(), Some(0), "{v}");
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

/// A mistyped output path must not destroy what is there: `compact`, `manifest`, `mine`,
/// `label` and `repair --report` replace only a file of the kind they write (an index or
/// manifest; JSON lines; a fixdex report), as `index` does; they used to replace a corpus
/// or notes with exit 0.
#[test]
fn outputs_replace_only_a_file_of_their_own_kind() {
    let s = Scratch::new();
    let idx = index(&s, "idx.fdx", 6);
    let corpus = s.corpus("c.jsonl", &records(6));
    let notes = s.path("notes.txt");
    let text = "my notes: nothing fixdex wrote\n";
    std::fs::write(&notes, text).unwrap();
    let kept = std::fs::read(&corpus).unwrap();
    std::fs::create_dir(s.path("repo")).unwrap();
    let (i, c, n) = (idx.to_str().unwrap(), corpus.to_str().unwrap(), notes.to_str().unwrap());
    let project = s.path("repo");
    let p = project.to_str().unwrap();
    let cases: [(Vec<&str>, &str); 7] = [
        (vec!["compact", i, "-o", c], "is not a fixdex index or manifest"),
        (vec!["manifest", i, "-o", c], "is not a fixdex index or manifest"),
        (vec!["manifest", i, "-o", n], "is not a fixdex index or manifest"),
        (vec!["mine", p, "-o", n], "is not a JSON-lines file"),
        (vec!["label", c, "-o", n, "--mechanical"], "is not a JSON-lines file"),
        (
            vec!["repair", "--project", p, "--test-cmd", "true", "--file", "A.java", "--report", n],
            "is not a fixdex report",
        ),
        (
            vec!["repair", "--project", p, "--test-cmd", "true", "--file", "A.java", "--report", c],
            "is not a fixdex report",
        ),
    ];
    for (args, says) in cases {
        let o = s.run(&args);
        assert_refused(&o, &args, says);
        assert!(stderr(&o).contains("remove it first, or write elsewhere"), "{args:?}: {}", stderr(&o));
    }
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), text);
    assert_eq!(std::fs::read(&corpus).unwrap(), kept);
    // A file of their own kind is replaced: an earlier labelled corpus, an index.
    let labelled = s.path("labelled.jsonl");
    for _ in 0..2 {
        let o = s.run(&["label", c, "-o", labelled.to_str().unwrap(), "--mechanical"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let other = index(&s, "other.fdx", 3);
    let o = s.run(&["compact", i, "-o", other.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}
