//! One or more hand-written pairs per action kind, in Java and Python: the primary label,
//! and for some the tokens, place, lines and one-line description of the action.

use ActionKind::*;
use Language::{Java, Python};
use actions::{ActionKind, Classification, Language, classify};

/// (expected label, language, buggy, fixed)
const PAIRS: &[(ActionKind, Language, &str, &str)] = &[
    // --- Java ---
    (ChangeOperator, Java, "int f(int a, int b) { return a + b; }", "int f(int a, int b) { return a - b; }"),
    (ChangeOperator, Java, "void f() { if (a > b) { run(); } }", "void f() { if (a >= b) { run(); } }"),
    (ChangeUnaryOperator, Java, "void f() { if (!done) { run(); } }", "void f() { if (done) { run(); } }"),
    (ChangeUnaryOperator, Java, "void f() { i++; }", "void f() { i--; }"),
    (ChangeOperand, Java, "void f() { if (count > size) { g(); } }", "void f() { if (count > size - 1) { g(); } }"),
    (
        ChangeLoopBound,
        Java,
        "void f() { for (int i = 0; i < n; i++) { g(i); } }",
        "void f() { for (int i = 0; i <= n; i++) { g(i); } }",
    ),
    (ChangeLoopBound, Java, "void f() { while (i < n) { i += 2; } }", "void f() { while (i < n - 1) { i += 2; } }"),
    (
        ChangeLoopBound,
        Java,
        "void f() { do { g(); } while (h.more()); }",
        "void f() { do { g(); } while (h.more() && ok); }",
    ),
    (ChangeNumeral, Java, "void f() { int x = 10; g(x); }", "void f() { int x = 0xA; g(x); }"),
    (ChangeNumeral, Java, "void f() { int x = 10; g(x); }", "void f() { int x = 100; g(x); }"),
    (ChangeLiteral, Java, "void f() { String s = \"a\"; g(s); }", "void f() { String s = \"b\"; g(s); }"),
    (ChangeLiteral, Java, "boolean f() { return true; }", "boolean f() { return false; }"),
    (ChangeIdentifier, Java, "void f() { int y = a; g(y); }", "void f() { int y = b; g(y); }"),
    (SwapArguments, Java, "void f() { map.put(key, value); }", "void f() { map.put(value, key); }"),
    (DifferentMethodSameArgs, Java, "void f() { list.add(x); }", "void f() { list.remove(x); }"),
    (
        DifferentMethodSameArgs,
        Java,
        "Object f() { return new ArrayList(x); }",
        "Object f() { return new LinkedList(x); }",
    ),
    (MoreArguments, Java, "void f() { foo(a); }", "void f() { foo(a, b); }"),
    (FewerArguments, Java, "void f() { foo(a, b); }", "void f() { foo(a); }"),
    (ChangeCaller, Java, "void f() { a.run(); }", "void f() { b.run(); }"),
    (MoreSpecificIf, Java, "void f() { if (a) { x(); } }", "void f() { if (a && b) { x(); } }"),
    (LessSpecificIf, Java, "void f() { if (a) { x(); } }", "void f() { if (a || b) { x(); } }"),
    (
        AddNullCheck,
        Java,
        "int f(String s) { return s.length(); }",
        "int f(String s) { if (s == null) { return 0; } return s.length(); }",
    ),
    (AddNullCheck, Java, "void f() { if (ok) { x.run(); } }", "void f() { if (ok && x != null) { x.run(); } }"),
    (AddGuard, Java, "int f(int n) { return n * 2; }", "int f(int n) { if (n < 0) { return 0; } return n * 2; }"),
    (WrapTryCatch, Java, "void f() { foo(); }", "void f() { try { foo(); } catch (Exception e) { log(e); } }"),
    (AddMethodCall, Java, "void f() { open(); work(); }", "void f() { open(); work(); close(); }"),
    (AddMethodCall, Java, "void f() { int n = s; }", "void f() { int n = Integer.parseInt(s); }"),
    (RemoveMethodCall, Java, "void f() { open(); work(); close(); }", "void f() { open(); work(); }"),
    (ChangeReturnValue, Java, "int f() { return x; }", "int f() { return -1; }"),
    (ChangeModifier, Java, "public void f() { g(); }", "private void f() { g(); }"),
    (ChangeModifier, Java, "void f() { g(); }", "@Override\nvoid f() { g(); }"),
    (AddThrowsException, Java, "void f() { g(); }", "void f() throws IOException { g(); }"),
    (DeleteThrowsException, Java, "void f() throws IOException, X { g(); }", "void f() throws IOException { g(); }"),
    (InsertStatement, Java, "int f() { int a = 1; return a; }", "int f() { int a = 1; a++; return a; }"),
    (DeleteStatement, Java, "int f() { int a = 1; a++; return a; }", "int f() { int a = 1; return a; }"),
    (
        Other,
        Java,
        "int f(int[] xs) { int s = 0; for (int x : xs) { s += x; } return s; }",
        "long f(List<Integer> xs) { return xs.stream().mapToLong(Integer::longValue).sum(); }",
    ),
    // --- Python ---
    (ChangeOperator, Python, "def f(a, b):\n    return a + b\n", "def f(a, b):\n    return a - b\n"),
    (
        ChangeOperator,
        Python,
        "def f(x):\n    if x is None:\n        g()\n",
        "def f(x):\n    if x is not None:\n        g()\n",
    ),
    (
        ChangeUnaryOperator,
        Python,
        "def f():\n    if not done:\n        run()\n",
        "def f():\n    if done:\n        run()\n",
    ),
    (
        ChangeOperand,
        Python,
        "def f():\n    if count > size:\n        g()\n",
        "def f():\n    if count > size - 1:\n        g()\n",
    ),
    (
        ChangeLoopBound,
        Python,
        "def f(n):\n    for i in range(n):\n        g(i)\n",
        "def f(n):\n    for i in range(n + 1):\n        g(i)\n",
    ),
    (
        ChangeLoopBound,
        Python,
        "def f(n):\n    while i < n:\n        i += 1\n",
        "def f(n):\n    while i <= n:\n        i += 1\n",
    ),
    (ChangeNumeral, Python, "def f():\n    total = 0.0\n    g(total)\n", "def f():\n    total = 0\n    g(total)\n"),
    (
        ChangeLoopBound,
        Python,
        "def f(self):\n    while True:\n        self.step()\n",
        "def f(self):\n    while not self.closed():\n        self.step()\n",
    ),
    (ChangeNumeral, Python, "def f():\n    x = 10\n    g(x)\n", "def f():\n    x = 100\n    g(x)\n"),
    (ChangeLiteral, Python, "def f():\n    s = 'a'\n    g(s)\n", "def f():\n    s = 'b'\n    g(s)\n"),
    (ChangeLiteral, Python, "def f():\n    return True\n", "def f():\n    return False\n"),
    (ChangeIdentifier, Python, "def f():\n    y = a\n    g(y)\n", "def f():\n    y = b\n    g(y)\n"),
    (SwapArguments, Python, "def f():\n    put(key, value)\n", "def f():\n    put(value, key)\n"),
    (DifferentMethodSameArgs, Python, "def f():\n    items.append(x)\n", "def f():\n    items.remove(x)\n"),
    (MoreArguments, Python, "def f():\n    foo(a)\n", "def f():\n    foo(a, b=1)\n"),
    (FewerArguments, Python, "def f():\n    foo(a, b)\n", "def f():\n    foo(a)\n"),
    (ChangeCaller, Python, "def f():\n    a.run()\n", "def f():\n    b.run()\n"),
    (MoreSpecificIf, Python, "def f():\n    if a:\n        x()\n", "def f():\n    if a and b:\n        x()\n"),
    (LessSpecificIf, Python, "def f():\n    if a:\n        x()\n", "def f():\n    if a or b:\n        x()\n"),
    (
        AddNullCheck,
        Python,
        "def f(s):\n    return len(s)\n",
        "def f(s):\n    if s is None:\n        return 0\n    return len(s)\n",
    ),
    (
        AddGuard,
        Python,
        "def f(n):\n    return n * 2\n",
        "def f(n):\n    if n < 0:\n        return 0\n    return n * 2\n",
    ),
    (
        WrapTryCatch,
        Python,
        "def f():\n    foo()\n",
        "def f():\n    try:\n        foo()\n    except ValueError:\n        pass\n",
    ),
    (AddMethodCall, Python, "def f():\n    open()\n    work()\n", "def f():\n    open()\n    work()\n    close()\n"),
    (
        AddMethodCall,
        Python,
        "def f():\n    raise ValueError('got %r' % result)\n",
        "def f():\n    raise ValueError('got %r' % result.result())\n",
    ),
    (RemoveMethodCall, Python, "def f():\n    open()\n    work()\n    close()\n", "def f():\n    open()\n    work()\n"),
    (ChangeReturnValue, Python, "def f():\n    return x\n", "def f():\n    return -1\n"),
    (ChangeModifier, Python, "def f(self):\n    return 1\n", "@staticmethod\ndef f(self):\n    return 1\n"),
    (InsertStatement, Python, "def f():\n    a = 1\n    return a\n", "def f():\n    a = 1\n    a += 1\n    return a\n"),
    (DeleteStatement, Python, "def f():\n    a = 1\n    a += 1\n    return a\n", "def f():\n    a = 1\n    return a\n"),
    (
        Other,
        Python,
        "def f(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n",
        "def f(xs, start=0):\n    return functools.reduce(operator.add, xs, start) if xs else start\n",
    ),
];

fn check(c: &Classification, want: ActionKind, lang: Language, buggy: &str) {
    assert_eq!(c.label, want, "{lang:?} pair starting {:?}: got {c:#?}", &buggy[..buggy.len().min(60)]);
}

#[test]
fn every_pair_gets_its_label() {
    for &(want, lang, buggy, fixed) in PAIRS {
        check(&classify(buggy, fixed, lang), want, lang, buggy);
    }
}

#[test]
fn every_kind_but_a_few_has_a_pair_in_each_language() {
    let java_only = [AddThrowsException, DeleteThrowsException];
    for kind in ActionKind::ALL {
        for lang in [Java, Python] {
            let has = PAIRS.iter().any(|p| p.0 == kind && p.1 == lang);
            assert!(has || (lang == Python && java_only.contains(&kind)), "no {lang:?} pair for {kind}");
        }
    }
}

#[test]
fn an_operator_change_carries_tokens_place_and_lines() {
    let buggy = "int sum(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++) {\n    s += i;\n  }\n  return s;\n}";
    let c = classify(buggy, &buggy.replace("i < n", "i <= n"), Java);
    assert_eq!(c.label, ChangeLoopBound);
    let a = &c.actions[0];
    assert_eq!((a.before.as_str(), a.after.as_str()), ("<", "<="));
    assert_eq!((a.enclosing.as_str(), a.field.as_deref()), ("for_statement", Some("condition")));
    assert_eq!((a.buggy_lines, a.fixed_lines), ((3, 3), (3, 3)));
    assert_eq!(a.to_string(), "change loop bound < → <= in for condition");
}

#[test]
fn an_insertion_is_placed_after_the_statement_before_it() {
    let buggy = "def f(s):\n    t = s.strip()\n    return len(t)\n";
    let fixed = "def f(s):\n    t = s.strip()\n    if t is None:\n        return 0\n    return len(t)\n";
    let c = classify(buggy, fixed, Python);
    assert_eq!(c.label, AddNullCheck);
    let a = c.actions.iter().find(|a| a.kind == AddNullCheck).expect("a null-check action");
    assert_eq!((a.buggy_lines, a.fixed_lines), ((2, 2), (3, 4)));
    assert!(a.before.is_empty() && a.after.starts_with("if t is None"), "{a:?}");
    assert_eq!(a.enclosing, "function_definition");
}

#[test]
fn java_statements_without_a_method_and_indented_python_parse() {
    let c = classify("x = a + b;\ny = x;", "x = a - b;\ny = x;", Java);
    assert_eq!((c.label, c.actions[0].buggy_lines), (ChangeOperator, (1, 1)));
    let c = classify("        if a < b:\n            g()\n", "        if a <= b:\n            g()\n", Python);
    assert_eq!(c.label, ChangeOperator);
}

#[test]
fn refused_inputs_are_other_with_a_reason() {
    let c = classify("void f() { g(); }", "void f() { g(; }", Java);
    assert_eq!((c.label, c.reason.as_deref()), (Other, Some("parse error")));
    let long = format!("void f() {{ {} }}", "g();".repeat(actions::MAX_INPUT_BYTES / 4));
    let c = classify(&long, "void f() { g(); }", Java);
    assert!(c.reason.as_deref().is_some_and(|r| r.starts_with("input too long")), "{c:?}");
    let nested = |x: &str| format!("def f():\n    x = {}{x}{}\n", "(".repeat(20_000), ")".repeat(20_000));
    let c = classify(&nested("1"), &nested("2"), Python);
    assert_eq!(c.reason, Some(format!("syntax tree deeper than {}", actions::MAX_DEPTH)));
    let c = classify("void f() { g(); }", "void f() {\n  // a comment\n  g();\n}", Java);
    assert_eq!((c.label, c.reason.as_deref(), c.actions.len()), (Other, Some("no change"), 0));
}

#[test]
fn several_unrelated_edits_are_other() {
    let buggy = "void f() { a(1); if (x > 2) { b(); } return; }";
    let fixed = "void f() { a(2); if (x > 2) { c(); } }";
    let c = classify(buggy, fixed, Java);
    assert_eq!(c.label, Other);
    assert!(c.actions.len() >= 2 && c.reason.is_some(), "{c:?}");
}

#[test]
fn language_names_parse() {
    assert_eq!("Java".parse::<Language>().unwrap(), Java);
    assert_eq!("python".parse::<Language>().unwrap(), Python);
    let e = "rust".parse::<Language>().unwrap_err();
    assert!(e.to_string().contains("java"), "{e}");
}

#[test]
fn repetitive_code_classifies_the_same_every_time() {
    let body =
        |n: usize, k: usize| (0..n).map(|i| format!("  x{} = g(y{});\n", (i * k) % 7, (i * 3) % 5)).collect::<String>();
    let (buggy, fixed) = (format!("void f() {{\n{}}}", body(400, 1)), format!("void f() {{\n{}}}", body(400, 2)));
    let first = classify(&buggy, &fixed, Java);
    for _ in 0..4 {
        assert_eq!(classify(&buggy, &fixed, Java), first);
    }
}

#[test]
fn classifications_round_trip_through_json() {
    let c = classify("void f() { foo(a); }", "void f() { foo(a, b); }", Java);
    let json = serde_json::to_string(&c).unwrap();
    assert!(json.contains("\"label\":\"MORE_ARGUMENTS\""), "{json}");
    assert_eq!(serde_json::from_str::<Classification>(&json).unwrap(), c);
}
