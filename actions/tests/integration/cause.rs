//! `root_cause`: one sentence per action kind naming the buggy and the fixed token and the
//! method, the line-diff fallback (parse error, no change, input too long), the length
//! caps, and arbitrary input never panicking or giving an empty sentence (fixed seeds;
//! `FIXDEX_FUZZ_CASES=N` runs more cases).

use std::io::BufRead;
use std::path::{Path, PathBuf};

use ActionKind::*;
use Language::{Java, Python};
use actions::{ActionKind, Language, MAX_INPUT_BYTES, classify, root_cause};
use proptest::prelude::*;

use crate::fuzz::{JAVA, PYTHON, damaged, runner};

/// (label, language, buggy, fixed, words the cause must contain besides the method name).
type Case = (ActionKind, Language, &'static str, &'static str, &'static [&'static str]);

/// One pair per kind (Java) and per common kind (Python), with what the cause must quote.
const CASES: &[Case] = &[
    // --- Java ---
    (
        ChangeOperator,
        Java,
        "int f(int a, int b) { return a + b; }",
        "int f(int a, int b) { return a - b; }",
        &["`+`", "`-`", "`return a + b;`"],
    ),
    (
        ChangeUnaryOperator,
        Java,
        "void f() { if (!done) { run(); } }",
        "void f() { if (done) { run(); } }",
        &["`!`", "`done`"],
    ),
    (
        ChangeOperand,
        Java,
        "void f() { if (count > size) { g(); } }",
        "void f() { if (count > size - 1) { g(); } }",
        &["`if (count > size)`", "`size - 1`", "off by one"],
    ),
    (
        ChangeLoopBound,
        Java,
        "int sum(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++) {\n    s += i;\n  }\n  return s;\n}",
        "int sum(int n) {\n  int s = 0;\n  for (int i = 0; i <= n; i++) {\n    s += i;\n  }\n  return s;\n}",
        &["loop condition `i < n`", "`i <= n`", "off by one"],
    ),
    (
        ChangeNumeral,
        Java,
        "void f() { int x = 10; g(x); }",
        "void f() { int x = 100; g(x); }",
        &["`10`", "`100`", "`int x = 10;`"],
    ),
    (
        ChangeLiteral,
        Java,
        "void f() { String s = \"a\"; g(s); }",
        "void f() { String s = \"b\"; g(s); }",
        &["`\"a\"`", "`\"b\"`"],
    ),
    (
        ChangeLiteral,
        Java,
        "boolean f() { return true; }",
        "boolean f() { return false; }",
        &["`true`", "`false` is needed"],
    ),
    (
        ChangeIdentifier,
        Java,
        "int area() { return width * width; }",
        "int area() { return width * height; }",
        &["`width` where `height` is meant"],
    ),
    (
        SwapArguments,
        Java,
        "void f() { map.put(key, value); }",
        "void f() { map.put(value, key); }",
        &["wrong order", "`map.put(key, value);`", "`map.put(value, key);`"],
    ),
    (
        DifferentMethodSameArgs,
        Java,
        "void f() { list.add(x); }",
        "void f() { list.remove(x); }",
        &["calls `add`", "`remove` is needed"],
    ),
    (
        MoreArguments,
        Java,
        "void f() { foo(a); }",
        "void f() { foo(a, b); }",
        &["`foo(a);`", "missing the argument `b`"],
    ),
    (FewerArguments, Java, "void f() { foo(a, b); }", "void f() { foo(a); }", &["`foo(a, b);`", "extra argument `b`"]),
    (ChangeCaller, Java, "void f() { a.run(); }", "void f() { b.run(); }", &["`a` where `b` is meant", "`a.run();`"]),
    (
        MoreSpecificIf,
        Java,
        "void f() { if (a) { x(); } }",
        "void f() { if (a && b) { x(); } }",
        &["condition `a`", "too weak", "check `b`"],
    ),
    (
        LessSpecificIf,
        Java,
        "void f() { if (a) { x(); } }",
        "void f() { if (a || b) { x(); } }",
        &["condition `a`", "too strict", "case `b`"],
    ),
    (
        AddNullCheck,
        Java,
        "public V get(K key) {\n    Entry<K, V> e = map.get(key);\n    e.touch();\n    return e.value;\n}\n",
        "public V get(K key) {\n    Entry<K, V> e = map.get(key);\n    if (e == null) {\n        return null;\n    }\n    e.touch();\n    return e.value;\n}\n",
        &["`e` is dereferenced without a null check before `e.touch()`"],
    ),
    (
        AddNullCheck,
        Java,
        "void f() { if (ok) { x.run(); } }",
        "void f() { if (ok && x != null) { x.run(); } }",
        &["`x` is dereferenced", "`x.run()`"],
    ),
    (
        AddGuard,
        Java,
        "int f(int n) { return n * 2; }",
        "int f(int n) { if (n < 0) { return 0; } return n * 2; }",
        &["case `n < 0`", "`if (n < 0) { return 0; }`"],
    ),
    (
        WrapTryCatch,
        Java,
        "void f() { foo(); }",
        "void f() { try { foo(); } catch (IOException e) { log(e); } }",
        &["`foo();`", "throw `IOException`", "not caught"],
    ),
    (
        AddMethodCall,
        Java,
        "void f() { open(); work(); }",
        "void f() { open(); work(); close(); }",
        &["missing the call `close();`"],
    ),
    (
        AddMethodCall,
        Java,
        "void f() { int n = s; }",
        "void f() { int n = Integer.parseInt(s); }",
        &["`int n = s;`", "`Integer.parseInt(s)`"],
    ),
    (
        RemoveMethodCall,
        Java,
        "void f() { open(); work(); close(); }",
        "void f() { open(); work(); }",
        &["`close();`", "should not be there"],
    ),
    (ChangeReturnValue, Java, "int f() { return x; }", "int f() { return -1; }", &["`return x;`", "`return -1;`"]),
    (ChangeModifier, Java, "public void f() { g(); }", "private void f() { g(); }", &["`public` where `private`"]),
    (ChangeModifier, Java, "void f() { g(); }", "@Override\nvoid f() { g(); }", &["lacks the modifier `@Override`"]),
    (AddThrowsException, Java, "void f() { g(); }", "void f() throws IOException { g(); }", &["throws `IOException`"]),
    (
        DeleteThrowsException,
        Java,
        "void f() throws IOException, X { g(); }",
        "void f() throws IOException { g(); }",
        &["wrongly declares", "`X`"],
    ),
    (
        InsertStatement,
        Java,
        "int f() { int a = 1; return a; }",
        "int f() { int a = 1; a++; return a; }",
        &["missing the statement `a++;`"],
    ),
    (
        DeleteStatement,
        Java,
        "int f() { int a = 1; a++; return a; }",
        "int f() { int a = 1; return a; }",
        &["`a++;`", "should not be there"],
    ),
    (
        Other,
        Java,
        "int f(int[] xs) { int s = 0; for (int x : xs) { s += x; } return s; }",
        "long f(List<Integer> xs) { return xs.stream().mapToLong(Integer::longValue).sum(); }",
        &["wrong in several places", "4 edits"],
    ),
    // --- Python ---
    (
        ChangeOperator,
        Python,
        "def f(a, b):\n    return a + b\n",
        "def f(a, b):\n    return a - b\n",
        &["`+`", "`-`", "`return a + b`"],
    ),
    (
        ChangeOperator,
        Python,
        "def f(x):\n    if x is None:\n        g()\n",
        "def f(x):\n    if x is not None:\n        g()\n",
        &["`is`", "`is not` is needed", "`if x is None:`"],
    ),
    (
        ChangeUnaryOperator,
        Python,
        "def f():\n    if not done:\n        run()\n",
        "def f():\n    if done:\n        run()\n",
        &["`not`", "`done`"],
    ),
    (
        ChangeLoopBound,
        Python,
        "def f(n):\n    for i in range(n):\n        g(i)\n",
        "def f(n):\n    for i in range(n + 1):\n        g(i)\n",
        &["loop range `range(n)`", "`range(n + 1)`", "off by one"],
    ),
    (
        ChangeNumeral,
        Python,
        "def f():\n    x = 10\n    g(x)\n",
        "def f():\n    x = 11\n    g(x)\n",
        &["`10`", "`11`", "off by one"],
    ),
    (ChangeLiteral, Python, "def f():\n    return True\n", "def f():\n    return False\n", &["`True`", "`False`"]),
    (
        ChangeIdentifier,
        Python,
        "def greet(self, name):\n    print('Hello, ' + nme)\n",
        "def greet(self, name):\n    print('Hello, ' + name)\n",
        &["`nme` where `name` is meant", "`print('Hello, ' + nme)`"],
    ),
    (
        SwapArguments,
        Python,
        "def f():\n    put(key, value)\n",
        "def f():\n    put(value, key)\n",
        &["wrong order", "`put(key, value)`"],
    ),
    (
        DifferentMethodSameArgs,
        Python,
        "def f():\n    items.append(x)\n",
        "def f():\n    items.remove(x)\n",
        &["`append`", "`remove`"],
    ),
    (
        MoreArguments,
        Python,
        "def f(d):\n    v = d.get('k')\n",
        "def f(d):\n    v = d.get('k', {})\n",
        &["`v = d.get('k')`", "argument `{}`"],
    ),
    (FewerArguments, Python, "def f():\n    foo(a, b)\n", "def f():\n    foo(a)\n", &["extra argument `b`"]),
    (ChangeCaller, Python, "def f():\n    a.run()\n", "def f():\n    b.run()\n", &["`a` where `b` is meant"]),
    (
        MoreSpecificIf,
        Python,
        "def f():\n    if a:\n        x()\n",
        "def f():\n    if a and b:\n        x()\n",
        &["condition `a`", "check `b`"],
    ),
    (
        LessSpecificIf,
        Python,
        "def f():\n    if a:\n        x()\n",
        "def f():\n    if a or b:\n        x()\n",
        &["condition `a`", "case `b`"],
    ),
    (
        AddNullCheck,
        Python,
        "def f(s):\n    return len(s)\n",
        "def f(s):\n    if s is None:\n        return 0\n    return len(s)\n",
        &["`s` is used without a `None` check", "`return len(s)`"],
    ),
    (
        AddGuard,
        Python,
        "    def pop(self):\n        item = self.items[-1]\n        del self.items[-1]\n        return item\n",
        "    def pop(self):\n        if not self.items:\n            raise IndexError('empty')\n        item = self.items[-1]\n        del self.items[-1]\n        return item\n",
        &["case `not self.items`", "`if not self.items: raise IndexError('empty')`"],
    ),
    (
        WrapTryCatch,
        Python,
        "def f():\n    foo()\n",
        "def f():\n    try:\n        foo()\n    except ValueError:\n        pass\n",
        &["`foo()`", "raise `ValueError`", "not handled"],
    ),
    (
        AddMethodCall,
        Python,
        "def f():\n    open()\n    work()\n",
        "def f():\n    open()\n    work()\n    close()\n",
        &["missing the call `close()`"],
    ),
    (RemoveMethodCall, Python, "def f():\n    open()\n    close()\n", "def f():\n    open()\n", &["`close()`"]),
    (
        ChangeReturnValue,
        Python,
        "def mean(xs):\n    return sum(xs) / (len(xs) - 1)\n",
        "def mean(xs):\n    return sum(xs) / len(xs)\n",
        &["`return sum(xs) / (len(xs) - 1)`", "`return sum(xs) / len(xs)`"],
    ),
    (
        ChangeModifier,
        Python,
        "def f(self):\n    return 1\n",
        "@staticmethod\ndef f(self):\n    return 1\n",
        &["`@staticmethod`"],
    ),
    (
        InsertStatement,
        Python,
        "def f():\n    a = 1\n    return a\n",
        "def f():\n    a = 1\n    a += 1\n    return a\n",
        &["`a += 1`"],
    ),
    (
        DeleteStatement,
        Python,
        "def f():\n    a = 1\n    a += 1\n    return a\n",
        "def f():\n    a = 1\n    return a\n",
        &["`a += 1`"],
    ),
];

/// The cause never holds the raw action text or token soup, and keeps its caps.
fn well_formed(cause: &str) {
    assert!(!cause.trim().is_empty());
    assert!(cause.chars().count() <= 300, "{} chars: {cause}", cause.chars().count());
    assert!(!cause.contains(" . ") && !cause.contains(" ( )"), "untidy tokens: {cause}");
    assert_eq!(cause.matches('`').count() % 2, 0, "unbalanced backticks: {cause}");
}

#[test]
fn every_case_names_its_method_and_tokens() {
    for &(kind, lang, buggy, fixed, words) in CASES {
        assert_eq!(classify(buggy, fixed, lang).label, kind, "{lang:?} {buggy:?}");
        let cause = root_cause(buggy, fixed, lang, Some("Demo.run"));
        well_formed(&cause);
        assert!(cause.contains("`Demo.run`"), "{kind} {lang:?}: no method in {cause:?}");
        for w in words {
            assert!(cause.contains(w), "{kind} {lang:?}: {w:?} missing from {cause:?}");
        }
    }
}

#[test]
fn every_kind_has_a_case() {
    for kind in ActionKind::ALL {
        assert!(CASES.iter().any(|c| c.0 == kind), "no root-cause case for {kind}");
    }
}

#[test]
fn sentences_start_with_a_capital_and_end_with_a_period() {
    for &(_, lang, buggy, fixed, _) in CASES {
        for method in [Some("f"), None] {
            let cause = root_cause(buggy, fixed, lang, method);
            let first = cause.chars().next().unwrap();
            assert!(first.is_uppercase() || first == '`', "{cause:?}");
            assert!(cause.ends_with('.'), "{cause:?}");
        }
    }
}

#[test]
fn without_a_method_name_it_says_the_method() {
    let cause = root_cause("void f() { list.add(x); }", "void f() { list.remove(x); }", Java, None);
    assert_eq!(cause, "The method calls `add` in `list.add(x);` where `remove` is needed.");
    let cause = root_cause("def f():\n    foo(a, b)\n", "def f():\n    foo(a)\n", Python, Some("  "));
    assert_eq!(cause, "In the method, the call in `foo(a, b)` passes the extra argument `b`.");
}

#[test]
fn a_second_action_adds_a_clause_and_more_are_counted() {
    let two = root_cause(
        "def f(a, b):\n    x = a + b\n    y = x * 2\n    return y\n",
        "def f(a, b):\n    x = a - b\n    y = x * 3\n    return y\n",
        Python,
        Some("f"),
    );
    assert_eq!(
        two,
        "`f` uses the operator `+` in `x = a + b` where `-` is needed. Also, `f` uses the constant `2` in \
         `y = x * 2`, which is off by one (the fix uses `3`)."
    );
    let buggy = "def f(a):\n    x = a + 1\n    y = g(x, 2)\n    z = h(y, 'p')\n    return z\n";
    let fixed = "def f(a):\n    x = a - 1\n    y = g(x, 3)\n    z = h(y, 'q')\n    return z\n";
    let three = root_cause(buggy, fixed, Python, Some("f"));
    assert!(three.starts_with("`f` uses the operator `+` in `x = a + 1`"), "{three}");
    assert!(three.ends_with("(plus 2 further edits)."), "{three}");
}

#[test]
fn a_structural_fix_counts_its_scaffolding() {
    let buggy = "String read(Path p) {\n    String s = Files.readString(p);\n    return s.trim();\n}\n";
    let fixed = "String read(Path p) {\n    String s;\n    try {\n        s = Files.readString(p);\n    } \
                 catch (IOException e) {\n        return \"\";\n    }\n    return s.trim();\n}\n";
    let cause = root_cause(buggy, fixed, Java, Some("Files.read"));
    assert!(cause.starts_with("`s = Files.readString(p);` in `Files.read` can throw `IOException`"), "{cause}");
    assert!(!cause.contains("Also"), "{cause}");
}

#[test]
fn unparsable_input_falls_back_to_the_first_changed_line() {
    let cause = root_cause("void f() {\n  a();\n  g(;\n}", "void f() {\n  a();\n  g();\n}", Java, Some("f"));
    assert_eq!(cause, "In `f`, the line `g(;` is wrong (the fix has `g();`).");
    let cause = root_cause("x = (\ny = 1\nz = 2\n", "x = (\ny = 2\nz = 3\n", Python, None);
    assert_eq!(cause, "In the method, the line `y = 1` is wrong (the fix has `y = 2`; plus 1 further changed line).");
    let cause = root_cause("def f(:\n    a()\n", "def f(:\n    a()\n    b()\n", Python, Some("f"));
    assert_eq!(cause, "`f` is missing the line `b()`.");
    let cause = root_cause("def f(:\n    a()\n    b()\n", "def f(:\n    a()\n", Python, Some("f"));
    assert_eq!(cause, "In `f`, the line `b()` should not be there.");
}

#[test]
fn unchanged_code_says_there_is_no_root_cause() {
    let same = "void f() { g(); }";
    for fixed in [same, "void f() {\n  // why\n  g();\n}"] {
        let cause = root_cause(same, fixed, Java, Some("f"));
        assert!(cause.contains("no root cause") && cause.contains("`f`"), "{cause}");
    }
    let cause = root_cause("", "", Python, None);
    assert!(cause.contains("no root cause"), "{cause}");
    let cause = root_cause("  \n\n", "\t\n", Java, None);
    assert!(!cause.is_empty());
}

#[test]
fn huge_lines_and_inputs_are_cut() {
    let long = format!("x{}", "y".repeat(500));
    let cause = root_cause(&format!("int f() {{ return {long}; }}"), "int f() { return 0; }", Java, Some(&long));
    well_formed(&cause);
    assert!(cause.contains('…'), "{cause}");
    let huge = format!("void f() {{ {} }}", "g(1);".repeat(MAX_INPUT_BYTES / 4));
    let cause = root_cause(&huge, "void f() { g(2); }", Java, Some("f"));
    well_formed(&cause);
    assert!(cause.starts_with("In `f`, the line `void f() { g(1);g(1);"), "{cause}");
    let multibyte = format!("def f():\n    s = '{}'\n", "é".repeat(100));
    let cause = root_cause(&multibyte, "def f():\n    s = 'e'\n", Python, Some(&"ü".repeat(200)));
    well_formed(&cause);
}

#[test]
fn arbitrary_input_never_panics_nor_is_empty() {
    let lang = prop_oneof![Just(Java), Just(Python)];
    let method = proptest::option::of("[ -~é]{0,80}");
    runner(256)
        .run(&(any::<String>(), any::<String>(), lang, method), |(a, b, lang, m)| {
            let cause = root_cause(&a, &b, lang, m.as_deref());
            prop_assert!(!cause.trim().is_empty());
            prop_assert!(cause.chars().count() <= 300);
            Ok(())
        })
        .unwrap();
}

#[test]
fn damaged_code_never_panics_nor_is_empty() {
    let pairs = prop_oneof![
        (Just(JAVA.to_string()), damaged(JAVA), Just(Java)),
        (damaged(JAVA), damaged(JAVA), Just(Java)),
        (Just(PYTHON.to_string()), damaged(PYTHON), Just(Python)),
        (damaged(PYTHON), damaged(PYTHON), Just(Python)),
    ];
    runner(256)
        .run(&pairs, |(a, b, lang)| {
            let cause = root_cause(&a, &b, lang, Some("f"));
            prop_assert!(!cause.trim().is_empty());
            prop_assert!(cause.chars().count() <= 300, "{cause}");
            Ok(())
        })
        .unwrap();
}

/// `data/manysstubs4j.jsonl` under FIXDEX_SHARED; panics with what to set when missing (as
/// the shared tests do: they fail, never skip).
fn manysstubs() -> PathBuf {
    let dir = std::env::var_os("FIXDEX_SHARED")
        .map(PathBuf::from)
        .expect("set FIXDEX_SHARED=../shared to run the tests on shared data");
    let from_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(&dir);
    let path = if dir.is_dir() { dir } else { from_root }.join("data/manysstubs4j.jsonl");
    assert!(path.exists(), "{} is missing: FIXDEX_SHARED must name the shared folder", path.display());
    path
}

#[test]
fn shared_manysstubs4j_causes_are_specific() {
    let f = std::fs::File::open(manysstubs()).expect("readable data file");
    let (mut n, mut specific) = (0, 0);
    for line in std::io::BufReader::new(f).lines().take(200) {
        let v: serde_json::Value = serde_json::from_str(&line.expect("utf-8 line")).expect("a JSON record");
        let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
        let cause = root_cause(&s("buggy_code"), &s("fixed_code"), Java, Some("m"));
        well_formed(&cause);
        assert!(cause.contains("`m`"), "{cause}");
        n += 1;
        specific += usize::from(!cause.contains(" is wrong") && !cause.contains("no root cause"));
    }
    assert_eq!(n, 200);
    // ManySStuBs4J is single-statement bugs: most causes use a kind's own template.
    assert!(specific > 120, "only {specific} of {n} causes are specific");
}
