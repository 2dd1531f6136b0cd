//! Grading a plausible patch against the developer's fix: is it *correct*?
//!
//! A plausible patch passes the tests; it is correct only when it matches the developer's
//! fix. Following RepairBench (Silva & Monperrus 2024, "RepairBench: leaderboard of frontier
//! models for program repair", its AST-match criterion) and the manual practice of the
//! ReinFix, TraceRepair and UniDebugger papers (a patch is correct when it is identical or
//! semantically equivalent to the developer's), every patched file is compared with the
//! developer's fixed file in three tiers ([`Tier`]):
//!
//! 1. [`Tier::Exact`]: the same token sequence (whitespace, line breaks and comments
//!    ignored; string literals compared whole).
//! 2. [`Tier::Ast`]: the same syntax tree (tree-sitter) after rewrites that cannot change
//!    the meaning: redundant parentheses unwrapped (the tree already holds the precedence),
//!    a block of one statement as the body of `if`/`else`/`for`/`while`/`do` replaced by
//!    that statement, numeric literals' case (`10L` = `10l`, `0xFF` = `0xff`), and a
//!    comparison's operands written in the other order where the order cannot change what
//!    it computes or throws (`mirrored`: `null == x` = `x == null`, `0 < n` = `n > 0`,
//!    Python `None is x` = `x is None`).
//! 3. [`Tier::NeedsReview`]: neither; a human must judge it (it may still be correct).
//!
//! Only the first two count as correct ([`Tier::correct`]). A file that does not parse falls
//! back to the token test on whitespace-split text: exact or needs review.

use tree_sitter::{Node, Parser, Tree};

use crate::Language;
use crate::bench::record::Tier;

/// Grades one patched file (`candidate`, the whole file's text) against the developer's
/// fixed version of the same file (`developer`). `lang` picks the grammar; `None` (a file
/// of another language) compares whitespace-split tokens only (exact or needs review).
#[must_use]
pub fn grade(candidate: &str, developer: &str, lang: Option<Language>) -> Tier {
    let parsed = lang.and_then(|lang| Some((parse(candidate, lang)?, parse(developer, lang)?)));
    let Some((cand, dev)) = parsed else {
        return if words(candidate).eq(words(developer)) { Tier::Exact } else { Tier::NeedsReview };
    };
    if tokens(&cand, candidate) == tokens(&dev, developer) {
        Tier::Exact
    } else if shape(&cand, candidate) == shape(&dev, developer) {
        Tier::Ast
    } else {
        Tier::NeedsReview
    }
}

/// Grades a multi-file patch: `pairs` holds (patched file, developer's fixed file) texts.
/// The patch's tier is its worst file's; no files at all is [`Tier::NeedsReview`].
#[must_use]
pub fn grade_files(pairs: &[(String, String)], lang: Option<Language>) -> Tier {
    if pairs.is_empty() {
        return Tier::NeedsReview;
    }
    pairs.iter().map(|(cand, dev)| grade(cand, dev, lang)).max().unwrap_or(Tier::NeedsReview)
}

/// The best of several patches' tiers (a bug is correct when any of its patches is);
/// `None` for no tiers.
#[must_use]
pub fn best(tiers: impl IntoIterator<Item = Tier>) -> Option<Tier> {
    tiers.into_iter().min()
}

/// Grades the patch kept in bug folder `bug`: every file of `modified` (paths relative to the
/// project root) in `bug/patch_dir/` against its developer version in `bug/fixed/`
/// ([`crate::bench::record::FIXED_DIR`]). The language comes from each file's extension
/// (`.java`, `.py`; others compare words). Files are read as UTF-8, invalid bytes replaced
/// (the same on both sides). What re-grading a saved run reads (`fixdex eval report`).
///
/// # Errors
/// A file that cannot be read, named with its path.
pub fn grade_folder(bug: &std::path::Path, patch_dir: &str, modified: &[String]) -> Result<Tier, String> {
    let read = |path: std::path::PathBuf| {
        std::fs::read(&path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let mut worst = None;
    for file in modified {
        let lang = match std::path::Path::new(file).extension().and_then(|e| e.to_str()) {
            Some("java") => Some(Language::Java),
            Some("py") => Some(Language::Python),
            _ => None,
        };
        let tier = grade(
            &read(bug.join(patch_dir).join(file))?,
            &read(bug.join(crate::bench::record::FIXED_DIR).join(file))?,
            lang,
        );
        worst = worst.max(Some(tier));
    }
    Ok(worst.unwrap_or(Tier::NeedsReview))
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
}

/// The text parsed without syntax errors, or `None`.
fn parse(text: &str, lang: Language) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    let tree = parser.parse(text, None)?;
    (!tree.root_node().has_error()).then_some(tree)
}

fn is_comment(node: Node<'_>) -> bool {
    matches!(node.kind(), "line_comment" | "block_comment" | "comment")
}

/// Kinds whose text is one token, their inner structure aside (a string's fragments and
/// escapes are compared as the literal's text).
fn is_atom(node: Node<'_>) -> bool {
    matches!(node.kind(), "string_literal" | "character_literal" | "text_block" | "string" | "concatenated_string")
}

/// The leaf tokens in order, comments left out.
fn tokens<'a>(tree: &Tree, text: &'a str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if is_comment(node) {
            continue;
        }
        if node.child_count() == 0 || is_atom(node) {
            out.push(&text[node.byte_range()]);
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// One symbol of a tree's normalised preorder: a node's kind opens, its end closes, a leaf
/// is its (normalised) text.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Sym {
    Open(u16),
    Close,
    Leaf(String),
}

/// The normalised tree as a symbol sequence (equal sequences: equal trees).
fn shape(tree: &Tree, text: &str) -> Vec<Sym> {
    shape_of(tree.root_node(), text)
}

/// [`shape`] of the subtree at `root`.
fn shape_of(root: Node<'_>, text: &str) -> Vec<Sym> {
    enum Step<'t> {
        Visit(Node<'t>),
        Close,
    }
    let mut out = Vec::new();
    let mut stack = vec![Step::Visit(root)];
    while let Some(step) = stack.pop() {
        let node = match step {
            Step::Close => {
                out.push(Sym::Close);
                continue;
            }
            Step::Visit(node) => normalise(node),
        };
        if is_comment(node) {
            continue;
        }
        if let Some((left, op, right)) = mirrored(node, text) {
            // Both orders give one sequence: the smaller operand first, the operator
            // mirrored with them (operands are names, literals or one field access, so
            // this recursion is one level deep).
            let (mut a, mut b, mut op) = (shape_of(left, text), shape_of(right, text), op);
            if b < a {
                std::mem::swap(&mut a, &mut b);
                op = mirror(&op);
            }
            out.push(Sym::Open(node.kind_id()));
            out.extend(a);
            out.push(Sym::Leaf(op));
            out.extend(b);
            out.push(Sym::Close);
            continue;
        }
        if node.child_count() == 0 || is_atom(node) {
            let raw = &text[node.byte_range()];
            let leaf = if is_number(node) { raw.to_ascii_lowercase() } else { raw.to_owned() };
            out.push(Sym::Leaf(leaf));
            continue;
        }
        out.push(Sym::Open(node.kind_id()));
        stack.push(Step::Close);
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev().map(Step::Visit));
    }
    out
}

fn is_number(node: Node<'_>) -> bool {
    let kind = node.kind();
    kind.ends_with("_integer_literal")
        || kind.ends_with("_floating_point_literal")
        || matches!(kind, "integer" | "float")
}

/// A comparison whose operands can be written in either order without changing what it
/// computes or throws: `(left, operator, right)`, the operator's text with its inner
/// whitespace made one space (Python `is not`). Operands ([`normalise`]d) are names, `this`
/// and literals, or a field access (`a.b`, Python `a.b`) on one side at most, so that no
/// side has an effect or can throw what the other would (a call, an index, an assignment
/// never mirrors):
/// - Java `==`, `!=`: any two such operands;
/// - Java `<`, `<=`, `>`, `>=` (mirrored: `0 < n` = `n > 0`): only with a literal on one
///   side (boxed operands unbox in order, and either may be `null`);
/// - Python `is`, `is not`, `==`, `!=`, `<`, `<=`, `>`, `>=`: only with a literal on one side
///   (a name may be unbound, so two names could raise different errors by order, and
///   `a == b` asks `a.__eq__` first, which a literal's type declines).
///
/// The equivalences every Java and Python semantics gives; the grade's AST tier counts such a
/// patch as the developer's fix (QuixBugs DETECT_CYCLE: `hare == null` for `null==hare`).
fn mirrored<'t>(node: Node<'t>, text: &str) -> Option<(Node<'t>, String, Node<'t>)> {
    let (left, right) = match node.kind() {
        "binary_expression" => (node.child_by_field_name("left")?, node.child_by_field_name("right")?),
        "comparison_operator" => {
            let mut cursor = node.walk();
            let operands: Vec<Node<'t>> = node.named_children(&mut cursor).filter(|c| !is_comment(*c)).collect();
            match operands[..] {
                [l, r] => (l, r),
                _ => return None,
            }
        }
        _ => return None,
    };
    let op = text[left.end_byte()..right.start_byte()].split_whitespace().collect::<Vec<_>>().join(" ");
    let (l, r) = (normalise(left), normalise(right));
    let simple = |n: Node<'_>| is_literal(n) || matches!(n.kind(), "identifier" | "this");
    let either = |n: Node<'_>| simple(n) || is_field(n);
    if !(either(l) && either(r)) || (is_field(l) && is_field(r)) {
        return None;
    }
    let java = node.kind() == "binary_expression";
    let relational = matches!(op.as_str(), "<" | "<=" | ">" | ">=");
    let any_order = java && matches!(op.as_str(), "==" | "!=");
    let with_literal = relational || (!java && matches!(op.as_str(), "==" | "!=" | "is" | "is not"));
    (any_order || (with_literal && (is_literal(l) || is_literal(r)))).then_some((left, op, right))
}

/// `op` with its operands exchanged: `<` ↔ `>`, `<=` ↔ `>=`; the others are symmetric.
fn mirror(op: &str) -> String {
    match op {
        "<" => ">",
        ">" => "<",
        "<=" => ">=",
        ">=" => "<=",
        other => other,
    }
    .to_owned()
}

/// A literal: `null`/`None`, a boolean, a number (also negated, `-1`), a string or char.
fn is_literal(node: Node<'_>) -> bool {
    match node.kind() {
        "null_literal" | "none" | "true" | "false" | "character_literal" | "string_literal" => true,
        // Not an f-string: its interpolations run code.
        "string" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor).all(|c| c.kind() != "interpolation")
        }
        // Java `operand`, Python `argument`.
        "unary_expression" | "unary_operator" => {
            let operand = node.child_by_field_name("operand").or_else(|| node.child_by_field_name("argument"));
            operand.is_some_and(|o| is_number(normalise(o)))
                && node.child_by_field_name("operator").is_some_and(|o| o.kind() == "-")
        }
        _ => is_number(node),
    }
}

/// A field read of a name: Java `a.b` (`this.b`, `A.B.c`), Python `a.b`.
fn is_field(node: Node<'_>) -> bool {
    let (object, field) = match node.kind() {
        "field_access" => (node.child_by_field_name("object"), node.child_by_field_name("field")),
        "attribute" => (node.child_by_field_name("object"), node.child_by_field_name("attribute")),
        _ => return false,
    };
    let name = |n: Node<'_>| matches!(n.kind(), "identifier" | "this");
    field.is_some_and(name) && object.is_some_and(|o| name(o) || is_field(o))
}

/// The node a meaning-preserving rewrite leaves in `node`'s place: the expression inside
/// redundant parentheses, the one statement of a block that is a control statement's body.
fn normalise(mut node: Node<'_>) -> Node<'_> {
    loop {
        let next = match node.kind() {
            "parenthesized_expression" if !is_condition(node) => only_named_child(node),
            "block" if is_body(node) => only_named_child(node).filter(|s| s.kind() != "local_variable_declaration"),
            _ => None,
        };
        match next {
            Some(inner) => node = inner,
            None => return node,
        }
    }
}

/// Java's `if (c)`, `while (c)`, `do ... while (c)`, `switch (c)`, `synchronized (c)`: the
/// parentheses are the statement's syntax, not a redundant wrapper.
fn is_condition(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "if_statement" | "while_statement" | "do_statement" | "switch_expression" | "synchronized_statement"
        ) && p.child_by_field_name("condition").is_some_and(|c| c.id() == node.id())
    })
}

/// A Java block that is the body of a control statement (where one statement may stand
/// without braces), not a method's or a lambda's body.
fn is_body(node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else { return false };
    let field = ["body", "consequence", "alternative"]
        .into_iter()
        .any(|f| parent.child_by_field_name(f).is_some_and(|c| c.id() == node.id()));
    field
        && matches!(
            parent.kind(),
            "if_statement" | "while_statement" | "for_statement" | "enhanced_for_statement" | "do_statement"
        )
}

/// The only named, non-comment child of `node`, if it has exactly one.
fn only_named_child(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    let mut named = node.named_children(&mut cursor).filter(|c| !is_comment(*c));
    let first = named.next()?;
    named.next().is_none().then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXED: &str =
        "class A {\n  int f(int x) {\n    if (x > 0) {\n      return x + 1;\n    }\n    return (x * 2) + 1;\n  }\n}\n";

    fn java(candidate: &str) -> Tier {
        grade(candidate, FIXED, Some(Language::Java))
    }

    #[test]
    fn layout_and_comments_are_exact() {
        let reflowed =
            "class A { int f(int x) { // fixed\n if (x > 0) { return x + 1; } /* twice */ return (x * 2) + 1; } }";
        assert_eq!(java(reflowed), Tier::Exact);
        assert_eq!(java(FIXED), Tier::Exact);
    }

    #[test]
    fn redundant_parentheses_and_braces_are_ast() {
        let no_braces = "class A { int f(int x) { if (x > 0) return x + 1; return x * 2 + 1; } }";
        assert_eq!(java(no_braces), Tier::Ast);
        let more_parens = "class A { int f(int x) { if ((x > 0)) { return (x + 1); } return ((x * 2)) + 1; } }";
        assert_eq!(java(more_parens), Tier::Ast);
    }

    #[test]
    fn precedence_and_operator_changes_need_review() {
        // x * (2 + 1) is another tree than (x * 2) + 1: parentheses that matter stay.
        assert_eq!(
            java("class A { int f(int x) { if (x > 0) { return x + 1; } return x * (2 + 1); } }"),
            Tier::NeedsReview
        );
        assert_eq!(
            java("class A { int f(int x) { if (x >= 0) { return x + 1; } return (x * 2) + 1; } }"),
            Tier::NeedsReview
        );
        // A string's inner spaces are part of the token.
        let a = "class B { String s = \"a b\"; }";
        let b = "class B { String s = \"a  b\"; }";
        assert_eq!(grade(a, b, Some(Language::Java)), Tier::NeedsReview);
    }

    #[test]
    fn a_declaration_keeps_its_block() {
        let dev = "class C { void g(boolean c) { if (c) { int y = 1; } } }";
        let cand = "class C { void g(boolean c) { if (c) { int y = 1; } } }\n";
        assert_eq!(grade(cand, dev, Some(Language::Java)), Tier::Exact);
        // Not valid Java without braces; the block is never unwrapped, so a different
        // body stays different.
        let other = "class C { void g(boolean c) { if (c) { int y = 2; } } }";
        assert_eq!(grade(other, dev, Some(Language::Java)), Tier::NeedsReview);
    }

    #[test]
    fn numeric_literal_case_is_ast() {
        let dev = "class D { long n = 10L; int m = 0xFF; }";
        assert_eq!(grade("class D { long n = 10l; int m = 0xff; }", dev, Some(Language::Java)), Tier::Ast);
        assert_eq!(grade("class D { long n = 11L; int m = 0xFF; }", dev, Some(Language::Java)), Tier::NeedsReview);
    }

    #[test]
    fn python_parentheses_are_ast() {
        let dev = "def f(x):\n    return (x + 1) * 2\n";
        assert_eq!(grade("def f(x):\n    return ((x + 1)) * 2  # ok\n", dev, Some(Language::Python)), Tier::Ast);
        assert_eq!(grade("def f(x):\n    return (x + 1) * 2\n\n\n", dev, Some(Language::Python)), Tier::Exact);
        assert_eq!(grade("def f(x):\n    return x + 1 * 2\n", dev, Some(Language::Python)), Tier::NeedsReview);
    }

    #[test]
    fn mirrored_comparisons_of_names_and_literals_are_ast() {
        let j = |cand: &str, dev: &str| grade(cand, dev, Some(Language::Java));
        // QuixBugs DETECT_CYCLE: the developer wrote `null==hare`.
        let dev = "class N { boolean f(Node hare) { if (null==hare ||hare.getSuccessor() == null) return false; return true; } }";
        let cand = "class N { boolean f(Node hare) { if (hare == null || hare.getSuccessor() == null) return false; return true; } }";
        assert_eq!(j(cand, dev), Tier::Ast);
        assert_eq!(
            j("class A { boolean f(int n) { return n > 0; } }", "class A { boolean f(int n) { return 0 < n; } }"),
            Tier::Ast
        );
        assert_eq!(
            j("class A { boolean f(int n) { return -1 >= n; } }", "class A { boolean f(int n) { return n <= -1; } }"),
            Tier::Ast
        );
        assert_eq!(
            j(
                "class A { boolean f(A o) { return this.x != o; } }",
                "class A { boolean f(A o) { return o != this.x; } }"
            ),
            Tier::Ast
        );
        // The operator must be the mirrored one.
        assert_eq!(
            j("class A { boolean f(int n) { return n < 0; } }", "class A { boolean f(int n) { return 0 < n; } }"),
            Tier::NeedsReview
        );
        // A call, two field reads, or two boxed numbers compared in order: never mirrored.
        assert_eq!(
            j("class A { boolean f() { return g() == null; } }", "class A { boolean f() { return null == g(); } }"),
            Tier::NeedsReview
        );
        assert_eq!(
            j(
                "class A { boolean f(A a, A b) { return a.x == b.y; } }",
                "class A { boolean f(A a, A b) { return b.y == a.x; } }"
            ),
            Tier::NeedsReview
        );
        assert_eq!(
            j(
                "class A { boolean f(Integer a, Integer b) { return a < b; } }",
                "class A { boolean f(Integer a, Integer b) { return b > a; } }"
            ),
            Tier::NeedsReview
        );
        let p = |cand: &str, dev: &str| grade(cand, dev, Some(Language::Python));
        assert_eq!(p("def f(x):\n    return x is not None\n", "def f(x):\n    return None is  not x\n"), Tier::Ast);
        assert_eq!(p("def f(n):\n    return n > 0\n", "def f(n):\n    return 0 < n\n"), Tier::Ast);
        assert_eq!(p("def f(n):\n    return n >= -1\n", "def f(n):\n    return -1 <= n\n"), Tier::Ast);
        assert_eq!(
            p("def f(n):\n    return n == f'{g()}'\n", "def f(n):\n    return f'{g()}' == n\n"),
            Tier::NeedsReview
        );
        assert_eq!(p("def f(a, b):\n    return a == b\n", "def f(a, b):\n    return b == a\n"), Tier::NeedsReview);
        assert_eq!(p("def f(a):\n    return a.x is b\n", "def f(a):\n    return b is a.x\n"), Tier::NeedsReview);
        assert_eq!(
            p("def f(a, b):\n    return a < b < 3\n", "def f(a, b):\n    return 3 > b > a\n"),
            Tier::NeedsReview
        );
    }

    #[test]
    fn unparsable_files_compare_words() {
        let dev = "class E { void h() { oops( } }";
        assert_eq!(grade("class E {\n void h() { oops( }\n}", dev, Some(Language::Java)), Tier::Exact);
        assert_eq!(grade("class E { void h() { oops() } }", dev, Some(Language::Java)), Tier::NeedsReview);
        assert_eq!(grade("a  b\n", "a b", None), Tier::Exact);
    }

    #[test]
    fn a_patch_is_as_good_as_its_worst_file() {
        let exact = (FIXED.to_owned(), FIXED.to_owned());
        let ast =
            ("class A { int f(int x) { if (x > 0) return x + 1; return x * 2 + 1; } }".to_owned(), FIXED.to_owned());
        let wrong = ("class A {}".to_owned(), FIXED.to_owned());
        assert_eq!(grade_files(std::slice::from_ref(&exact), Some(Language::Java)), Tier::Exact);
        assert_eq!(grade_files(&[exact.clone(), ast.clone()], Some(Language::Java)), Tier::Ast);
        assert_eq!(grade_files(&[ast, wrong, exact], Some(Language::Java)), Tier::NeedsReview);
        assert_eq!(grade_files(&[], Some(Language::Java)), Tier::NeedsReview);
        assert_eq!(best([Tier::NeedsReview, Tier::Ast]), Some(Tier::Ast));
        assert_eq!(best([]), None);
    }
}
