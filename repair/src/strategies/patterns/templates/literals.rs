//! Literal, return-expression, data-type and integer-division mutations (TBar FP9, FP12, FP7,
//! FP8; Liu et al., ISSTA 2019).

use tree_sitter::Node;

use super::{Cx, Edit, Template, squash};
use crate::Language;

/// Other string literals of the file tried per string literal, at most (nearest first; `""`
/// comes on top).
const MAX_OTHER_STRINGS: usize = 8;

/// Other numeric literals of the method tried per numeric literal, at most (nearest first;
/// `0`, `1` and `-1` come on top).
const MAX_OTHER_NUMBERS: usize = 6;

/// Replacements of one return expression, at most.
const MAX_RETURN_EDITS: usize = 8;

/// tree-sitter-java's integer literal kinds.
const JAVA_INTEGERS: &[&str] =
    &["decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal"];

/// tree-sitter-java's floating-point literal kinds.
const JAVA_FLOATS: &[&str] = &["decimal_floating_point_literal", "hex_floating_point_literal"];

/// The nodes whose bodies are a function of their own (returns and locals inside belong to them).
const FUNCTIONS: &[&str] =
    &["method_declaration", "constructor_declaration", "lambda_expression", "function_definition", "lambda"];

/// Java primitive types (a return of one is never `null`).
const JAVA_PRIMITIVES: &[&str] = &["int", "long", "short", "byte", "char", "double", "float", "boolean"];

/// Java methods whose result is evidently floating (`Math.sqrt(x) / n` is no integer division).
const FLOATING_METHODS: &[&str] = &[
    "sqrt",
    "pow",
    "random",
    "exp",
    "log",
    "log10",
    "sin",
    "cos",
    "tan",
    "atan",
    "atan2",
    "hypot",
    "cbrt",
    "floor",
    "ceil",
    "rint",
    "toRadians",
    "toDegrees",
    "doubleValue",
    "floatValue",
    "nextDouble",
    "nextFloat",
    "nextGaussian",
    "parseDouble",
    "parseFloat",
];

/// A numeric literal's value.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    Int(i128),
    Float(f64),
}

impl Value {
    fn as_f64(self) -> f64 {
        match self {
            #[allow(clippy::cast_precision_loss)]
            Value::Int(v) => v as f64,
            Value::Float(v) => v,
        }
    }

    /// Whether two values are equal, compared as floats when either is one.
    fn same(self, other: Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            #[allow(clippy::float_cmp)]
            _ => self.as_f64() == other.as_f64(),
        }
    }
}

/// A numeric literal, with the `-` in front of it when there is one.
#[derive(Debug, Clone, Copy)]
struct Number<'t> {
    /// The literal, or the negation that holds it (`-1`): the node an edit replaces.
    node: Node<'t>,
    /// Its value, sign included.
    value: Value,
    /// Its text less sign and type suffix (`0x1F`, `2.5`).
    digits: &'t str,
    /// Whether a `-` negates it.
    negative: bool,
    /// Whether it is a plain decimal integer (which a float may take as `k.0`).
    decimal: bool,
    /// Java's type suffix (`L`, `f`, `d`), else empty.
    suffix: &'t str,
}

impl Cx<'_> {
    /// A literal replaced (see [`Template::MutateLiteral`]; TBar FP9 "Mutate Literal
    /// Expression"): `true` ↔ `false` (`True` ↔ `False`); a string literal by each other
    /// distinct one-line string literal of the file, nearest in source first (at most
    /// [`MAX_OTHER_STRINGS`]; Python: of the same bytes-ness, no f-strings, no docstrings),
    /// then by `""`; a number by `0`, `1`, `-1`, then each other numeric literal of the
    /// method, nearest first (at most [`MAX_OTHER_NUMBERS`]), in the literal's own kind (a
    /// float stays a float, `0.0f`; a Java `long` keeps its `L`; an integer takes no float),
    /// never its own value nor the `k ± 1` that [`Template::ChangeNumeral`] makes. A
    /// negated literal (`-1`) is replaced whole; a negative value after `-`/`+` is
    /// parenthesised. `null`, characters and literals of annotations stay as they are.
    pub(super) fn literal(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        match node.kind() {
            "true" | "false" => {
                let flipped = match (self.language, self.of(node)) {
                    (Language::Java, "true") => "false",
                    (Language::Java, "false") => "true",
                    (Language::Python, "True") => "False",
                    (Language::Python, "False") => "True",
                    _ => return,
                };
                self.push(out, Template::MutateLiteral, node, flipped.to_string());
            }
            "string_literal" | "string" => self.string_literal(node, out),
            _ => self.number_literal(node, out),
        }
    }

    /// The string half of [`Cx::literal`].
    fn string_literal(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let Some(target) = self.string_parts(node) else { return };
        let key = |p: &StringParts<'_>| (p.prefix.contains('r'), p.content.to_string());
        let own = key(&target);
        let mut found: Vec<(usize, Node<'_>)> = Vec::new();
        visit(self.root, |n| {
            if !matches!(n.kind(), "string_literal" | "string") {
                return n.kind() != "comment";
            }
            let usable = self.string_parts(n).is_some_and(|p| {
                !p.prefix.contains('f')
                    && p.prefix.contains('b') == target.prefix.contains('b')
                    && !p.content.is_empty()
                    && !self.of(n).contains('\n')
                    && key(&p) != own
            });
            if usable && n != node {
                found.push((n.start_byte().abs_diff(node.start_byte()), n));
            }
            false
        });
        found.sort_by_key(|(d, _)| *d);
        let mut done: Vec<(bool, String)> = Vec::new();
        for (_, n) in found {
            let Some(k) = self.string_parts(n).map(|p| key(&p)) else { continue };
            if done.len() == MAX_OTHER_STRINGS {
                break;
            }
            if !done.contains(&k) {
                done.push(k);
                self.push(out, Template::MutateLiteral, node, self.of(n).to_string());
            }
        }
        if !target.content.is_empty() {
            let prefix = if target.prefix.contains('b') { "b" } else { "" };
            let quote = &target.quote[..1];
            self.push(out, Template::MutateLiteral, node, format!("{prefix}{quote}{quote}"));
        }
    }

    /// The parts of a string literal that [`Cx::literal`] may replace; `None` for any other
    /// node, for a string of an annotation (Java) and for a docstring or other bare string
    /// statement (Python).
    fn string_parts(&self, node: Node<'_>) -> Option<StringParts<'_>> {
        let text = self.of(node);
        match (self.language, node.kind()) {
            (Language::Java, "string_literal") => {
                let mut up = node.parent();
                while let Some(p) = up {
                    if matches!(p.kind(), "annotation" | "marker_annotation") {
                        return None;
                    }
                    up = p.parent();
                }
                let quote = if text.starts_with("\"\"\"") { "\"\"\"" } else { "\"" };
                let content = text.get(quote.len()..text.len().checked_sub(quote.len())?)?;
                Some(StringParts { prefix: String::new(), quote, content })
            }
            (Language::Python, "string") => {
                if node.parent().is_none_or(|p| p.kind() == "expression_statement") {
                    return None;
                }
                let cut = text.find(['"', '\''])?;
                let rest = &text[cut..];
                let quote = ["\"\"\"", "'''", "\"", "'"].into_iter().find(|q| rest.starts_with(q))?;
                let content = rest.get(quote.len()..rest.len().checked_sub(quote.len())?)?;
                Some(StringParts { prefix: text[..cut].to_ascii_lowercase(), quote, content })
            }
            _ => None,
        }
    }

    /// The number half of [`Cx::literal`].
    fn number_literal(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        let Some(target) = self.number(node) else { return };
        // What the numeral template makes of this literal (`k + 1`, `k - 1`), sign included.
        let sign = if target.negative { -1 } else { 1 };
        let numeral: Vec<i128> = match self.of(node).replace('_', "").parse::<i64>() {
            Ok(k) if matches!(node.kind(), "integer" | "decimal_integer_literal") => {
                let k = i128::from(k);
                [Some(k + 1), (k > 0).then_some(k - 1)].into_iter().flatten().map(|v| sign * v).collect()
            }
            _ => Vec::new(),
        };
        let mut done: Vec<Value> = vec![target.value];
        done.extend(numeral.into_iter().map(Value::Int));
        let float = matches!(target.value, Value::Float(_));
        for (v, digits) in [(0, "0"), (1, "1"), (-1, "-1")] {
            let (value, text) = if float {
                (Value::Float(f64::from(v)), format!("{digits}.0{}", target.suffix))
            } else {
                (Value::Int(i128::from(v)), format!("{digits}{}", target.suffix))
            };
            if !done.iter().any(|d| d.same(value)) {
                done.push(value);
                self.push_number(out, target, text);
            }
        }
        let scope = self
            .method
            .filter(|m| m.start_byte() <= node.start_byte() && node.end_byte() <= m.end_byte())
            .or_else(|| enclosing(node, FUNCTIONS))
            .unwrap_or(self.root);
        let mut others: Vec<Number<'_>> = Vec::new();
        visit(scope, |n| {
            if n != node
                && let Some(num) = self.number(n)
            {
                others.push(num);
            }
            !matches!(n.kind(), "comment" | "string" | "string_literal")
        });
        others.sort_by_key(|o| o.node.start_byte().abs_diff(target.node.start_byte()));
        let mut made = 0;
        for other in others {
            if made == MAX_OTHER_NUMBERS {
                break;
            }
            let sign = if other.negative { "-" } else { "" };
            let text = match (float, other.value) {
                (false, Value::Int(_)) | (true, Value::Float(_)) => format!("{sign}{}{}", other.digits, target.suffix),
                (true, Value::Int(_)) if other.decimal => format!("{sign}{}.0{}", other.digits, target.suffix),
                _ => continue,
            };
            if !done.iter().any(|d| d.same(other.value)) {
                done.push(other.value);
                self.push_number(out, target, text);
                made += 1;
            }
        }
    }

    /// `target` replaced by `text`, parenthesised when negative right after a `-` or `+`.
    fn push_number(&self, out: &mut Vec<Edit>, target: Number<'_>, text: String) {
        let after_sign = self.text[..target.node.start_byte()].ends_with(['-', '+']);
        let text = if after_sign && text.starts_with('-') { format!("({text})") } else { text };
        self.push(out, Template::MutateLiteral, target.node, text);
    }

    /// The numeric literal `node` (see [`Number`]); `None` for any other node, for a
    /// Python imaginary number, for one of a Java annotation and for one whose value does
    /// not parse (a hexadecimal float).
    fn number<'a>(&'a self, node: Node<'a>) -> Option<Number<'a>> {
        let kind = node.kind();
        let float = match kind {
            "integer" => false,
            "float" => true,
            k if JAVA_INTEGERS.contains(&k) => false,
            k if JAVA_FLOATS.contains(&k) => true,
            _ => return None,
        };
        let text = self.of(node);
        let suffixes: &[char] = match (self.language, float) {
            (Language::Java, false) => &['l', 'L'],
            (Language::Java, true) => &['f', 'F', 'd', 'D'],
            (Language::Python, _) => &[],
        };
        if self.language == Language::Python && text.ends_with(['j', 'J']) {
            return None;
        }
        let digits = text.strip_suffix(suffixes).unwrap_or(text);
        let suffix = &text[digits.len()..];
        let clean = digits.replace('_', "");
        let value = if float {
            Value::Float(clean.parse::<f64>().ok()?)
        } else {
            Value::Int(parse_int(&clean, self.language)?)
        };
        let negation = node.parent().filter(|p| {
            matches!(p.kind(), "unary_expression" | "unary_operator")
                && p.child_by_field_name("operator").is_some_and(|o| self.of(o) == "-")
        });
        let value = match (value, negation.is_some()) {
            (Value::Int(v), true) => Value::Int(-v),
            (Value::Float(v), true) => Value::Float(-v),
            (v, false) => v,
        };
        if self.language == Language::Java && enclosing(node, &["annotation"]).is_some() {
            return None;
        }
        let decimal = !float && clean.bytes().all(|b| b.is_ascii_digit()) && (clean == "0" || !clean.starts_with('0'));
        Some(Number { node: negation.unwrap_or(node), value, digits, negative: negation.is_some(), decimal, suffix })
    }

    /// A return's expression replaced (see [`Template::MutateReturn`]; TBar FP12 "Mutate
    /// Return Statement"): by the other returns' expressions of the same method (nearest
    /// first), then Java `null` when the method returns an object, then the parameters and
    /// (Java) the locals declared before the return in a scope that holds it whose declared
    /// type is the method's return type (Python: every parameter but `self`/`cls`). Never
    /// in a lambda or a constructor; at most [`MAX_RETURN_EDITS`] per return. No `!e` for a
    /// boolean return (the condition templates negate).
    pub(super) fn return_expression(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if node.kind() != "return_statement" {
            return;
        }
        let mut cursor = node.walk();
        let Some(expr) = node.named_children(&mut cursor).find(|n| n.kind() != "comment") else { return };
        let Some(function) = enclosing(node, FUNCTIONS) else { return };
        let ret = match (self.language, function.kind()) {
            (Language::Java, "method_declaration") => function.child_by_field_name("type").map(|t| self.of(t)),
            (Language::Python, "function_definition") => None,
            _ => return,
        };
        let mut candidates: Vec<String> = Vec::new();
        let mut returns: Vec<Node<'_>> = Vec::new();
        visit(function, |n| {
            if n.kind() == "return_statement" && n != node && enclosing(n, FUNCTIONS) == Some(function) {
                let mut c = n.walk();
                returns.extend(n.named_children(&mut c).find(|x| x.kind() != "comment"));
            }
            !matches!(n.kind(), "comment" | "string" | "string_literal" | "class_body" | "class_definition")
        });
        returns.sort_by_key(|r| r.start_byte().abs_diff(node.start_byte()));
        candidates.extend(returns.iter().map(|r| self.of(*r).to_string()));
        match ret {
            Some(ret) => {
                let ret = squash(ret);
                if !JAVA_PRIMITIVES.contains(&ret.as_str()) && ret != "void" {
                    candidates.push("null".into());
                }
                let params = self.parameters(function).into_iter().filter(|(_, t)| squash(t) == ret).map(|(n, _)| n);
                candidates.extend(params);
                let mut locals: Vec<String> = Vec::new();
                visit(function, |n| {
                    if n.kind() == "local_variable_declaration"
                        && n.end_byte() <= node.start_byte()
                        && n.parent()
                            .is_some_and(|p| p.start_byte() <= node.start_byte() && node.end_byte() <= p.end_byte())
                        && n.child_by_field_name("type").is_some_and(|t| squash(self.of(t)) == ret)
                    {
                        let mut c = n.walk();
                        let names = n
                            .children_by_field_name("declarator", &mut c)
                            .filter_map(|d| d.child_by_field_name("name"));
                        locals.extend(names.map(|name| self.of(name).to_string()));
                    }
                    !matches!(n.kind(), "comment" | "string_literal" | "class_body" | "lambda_expression")
                });
                candidates.extend(locals);
            }
            None => {
                let params = self.parameters(function).into_iter().map(|(n, _)| n).filter(|n| n != "cls");
                candidates.extend(params);
            }
        }
        let mut done = vec![squash(self.of(expr))];
        for c in candidates {
            if done.len() > MAX_RETURN_EDITS {
                break;
            }
            let key = squash(&c);
            if !done.contains(&key) {
                done.push(key);
                self.push(out, Template::MutateReturn, expr, c);
            }
        }
    }

    /// A declared or cast primitive type widened or narrowed (see
    /// [`Template::MutateDataType`]; TBar FP7 "Mutate Data Type"), Java only: in a local
    /// variable or field declaration or a cast, `int` ↔ `long`, `float` ↔ `double`, and
    /// `short`, `byte`, `char` → `int` (one edit per type; parameters and return types stay,
    /// as they are the signature; array and generic types stay).
    pub(super) fn data_type(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if self.language != Language::Java || !matches!(node.kind(), "integral_type" | "floating_point_type") {
            return;
        }
        let Some(parent) = node.parent() else { return };
        if !matches!(parent.kind(), "local_variable_declaration" | "field_declaration" | "cast_expression")
            || parent.child_by_field_name("type") != Some(node)
        {
            return;
        }
        let to = match self.of(node) {
            "int" => "long",
            "long" | "short" | "byte" | "char" => "int",
            "float" => "double",
            "double" => "float",
            _ => return,
        };
        self.push(out, Template::MutateDataType, node, to.to_string());
    }

    /// A cast removed (see [`Template::RemoveCast`]), Java only: `(T) e` → `e`. A cast binds
    /// tighter than every binary operator and its operand is a unary or primary expression,
    /// so `e` needs no parentheses where the cast stood. Not for a cast that is a statement's
    /// own expression (it has no use).
    pub(super) fn remove_cast(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if self.language != Language::Java || node.kind() != "cast_expression" {
            return;
        }
        let Some(value) = node.child_by_field_name("value") else { return };
        if node.parent().is_some_and(|p| p.kind() == "expression_statement") {
            return;
        }
        // The value's own type where the cast's was ([`super::typing`]).
        if self.refuses_type(node, self.static_type(value)) {
            return;
        }
        self.push(out, Template::RemoveCast, node, self.of(value).to_string());
    }

    /// An integer division made floating (see [`Template::FloatDivision`]; TBar FP8 "Mutate
    /// Integer Division Operation"). Java `a / b` where neither side is evidently floating
    /// (a float literal, a `float`/`double` name or cast, a `Math.sqrt`-like call, an
    /// expression holding one): `(double) a / b` and `a / (double) b`, a compound operand
    /// parenthesised (`(double) (x * y) / n`), a plain decimal literal written `k.0`
    /// instead (`n / 2.0`). Python `a // b` → `a / b` (which the operator template also
    /// makes). Two edits per division at most.
    pub(super) fn float_division(&self, node: Node<'_>, out: &mut Vec<Edit>) {
        if !matches!(node.kind(), "binary_expression" | "binary_operator") {
            return;
        }
        let (Some(l), Some(op), Some(r)) =
            (node.child_by_field_name("left"), node.child_by_field_name("operator"), node.child_by_field_name("right"))
        else {
            return;
        };
        match (self.language, self.of(op)) {
            (Language::Python, "//") => self.push(out, Template::FloatDivision, op, "/".to_string()),
            (Language::Java, "/") if !self.is_floating(l) && !self.is_floating(r) => {
                for side in [l, r] {
                    let t = self.of(side);
                    let plain = side.kind() == "decimal_integer_literal"
                        && self.number(side).is_some_and(|n| n.decimal && n.suffix.is_empty());
                    let atom = matches!(
                        side.kind(),
                        "identifier"
                            | "field_access"
                            | "method_invocation"
                            | "array_access"
                            | "parenthesized_expression"
                            | "this"
                    ) || side.kind().ends_with("_literal");
                    let floating = if plain {
                        format!("{t}.0")
                    } else if atom {
                        format!("(double) {t}")
                    } else {
                        format!("(double) ({t})")
                    };
                    self.push(out, Template::FloatDivision, side, floating);
                }
            }
            _ => {}
        }
    }

    /// Java: whether `node` is evidently a floating-point value (see [`Cx::float_division`]).
    fn is_floating(&self, node: Node<'_>) -> bool {
        let typed = |name: Node<'_>| {
            matches!(self.types.get(self.of(name)).copied().flatten(), Some("double" | "float" | "Double" | "Float"))
        };
        match node.kind() {
            k if JAVA_FLOATS.contains(&k) => true,
            "identifier" => typed(node),
            "field_access" => node.child_by_field_name("field").is_some_and(typed),
            "cast_expression" => node
                .child_by_field_name("type")
                .is_some_and(|t| matches!(self.of(t), "double" | "float" | "Double" | "Float")),
            "method_invocation" => {
                node.child_by_field_name("name").is_some_and(|n| FLOATING_METHODS.contains(&self.of(n)))
            }
            "parenthesized_expression" => node.named_child(0).is_some_and(|n| self.is_floating(n)),
            "unary_expression" => node.child_by_field_name("operand").is_some_and(|n| self.is_floating(n)),
            "binary_expression" => {
                node.child_by_field_name("operator").is_some_and(|o| matches!(self.of(o), "+" | "-" | "*" | "/" | "%"))
                    && (node.child_by_field_name("left").is_some_and(|n| self.is_floating(n))
                        || node.child_by_field_name("right").is_some_and(|n| self.is_floating(n)))
            }
            "ternary_expression" => {
                node.child_by_field_name("consequence").is_some_and(|n| self.is_floating(n))
                    || node.child_by_field_name("alternative").is_some_and(|n| self.is_floating(n))
            }
            _ => false,
        }
    }
}

/// A string literal's parts ([`Cx::string_parts`]).
struct StringParts<'t> {
    /// Python's prefix letters, lowercase (`rb`); empty in Java.
    prefix: String,
    /// The quotes (`"`, `'''`, `"""`).
    quote: &'static str,
    /// The text between the quotes.
    content: &'t str,
}

/// The nearest ancestor of `node` of one of `kinds`.
pub(super) fn enclosing<'n>(node: Node<'n>, kinds: &[&str]) -> Option<Node<'n>> {
    let mut up = node.parent();
    while let Some(p) = up {
        if kinds.contains(&p.kind()) {
            return Some(p);
        }
        up = p.parent();
    }
    None
}

/// Calls `f` on `root` and the nodes below it in source order, without a list; below a node
/// only when `f` returns true for it.
pub(super) fn visit<'n>(root: Node<'n>, mut f: impl FnMut(Node<'n>) -> bool) {
    let mut cursor = root.walk();
    loop {
        if f(cursor.node()) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// The value of an integer literal's digits (underscores and suffix removed): `0x`, `0b`,
/// `0o` (Python) and Java's leading-`0` octal.
fn parse_int(clean: &str, language: Language) -> Option<i128> {
    let lower = clean.to_ascii_lowercase();
    let (radix, body) = if let Some(b) = lower.strip_prefix("0x") {
        (16, b)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (2, b)
    } else if let Some(b) = lower.strip_prefix("0o") {
        (8, b)
    } else if language == Language::Java && lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    i128::from_str_radix(body, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{apply, assert_fixes};
    use super::super::{Edit, Template, edits, snippet_edits};
    use crate::Language;

    /// The edits of `template` on lines `lines`, each checked to parse after it is applied
    /// and to change the text.
    fn made(text: &str, language: Language, lines: (usize, usize), template: Template) -> Vec<Edit> {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language.grammar()).unwrap();
        let out: Vec<Edit> = edits(text, language, lines).into_iter().filter(|e| e.template == template).collect();
        for e in &out {
            assert_ne!(e.original, e.replacement, "{e:?}");
            assert_eq!(&text[e.start..e.end], e.original);
            let after = apply(text, e);
            assert!(!parser.parse(&after, None).unwrap().root_node().has_error(), "{e:?}\n{after}");
        }
        out
    }

    /// The replacements of the edits on `original`.
    fn of<'e>(edits: &'e [Edit], original: &str) -> Vec<&'e str> {
        edits.iter().filter(|e| e.original == original).map(|e| e.replacement.as_str()).collect()
    }

    const ABBREVIATE: &str = "class StringUtils {
    public static final String EMPTY = \"\";
    private static final int INDEX_NOT_FOUND = -1;

    public static String abbreviate(String str, int maxWidth) {
        if (str == null) {
            return null;
        }
        if (maxWidth < 4) {
            throw new IllegalArgumentException(\"Minimum abbreviation width is 4\");
        }
        boolean truncated = false;
        if (str.length() <= maxWidth) {
            return str;
        }
        // widths below 4 cannot hold \"...\"
        return str.substring(0, maxWidth - 3) + \"...\";
    }
}
";

    #[test]
    fn java_literals_flip_booleans_and_take_other_strings_and_numbers() {
        let all = made(ABBREVIATE, Language::Java, (5, 18), Template::MutateLiteral);
        assert_eq!(of(&all, "false"), ["true"]);
        // Other string literals of the file, nearest first (the empty one only as `""`).
        assert_eq!(of(&all, "\"...\""), ["\"Minimum abbreviation width is 4\"", "\"\""]);
        assert_eq!(of(&all, "\"Minimum abbreviation width is 4\""), ["\"...\"", "\"\""]);
        // `3`: `4` and `2` are the numeral template's, `0` is among 0, 1, -1.
        assert_eq!(of(&all, "3"), ["0", "1", "-1"]);
        // `0`: `1` is the numeral template's; then the method's literals, nearest first.
        assert_eq!(of(&all, "0"), ["-1", "3", "4"]);
        // `4`: `3` and `5` are the numeral template's.
        assert_eq!(of(&all, "4"), ["0", "1", "-1"]);
        // Nothing in comments, in string contents, nor `null`; the field's -1 is not the method's.
        assert!(all.iter().all(|e| e.line >= 5 && e.original != "null"));
        assert!(!all.iter().any(|e| e.replacement.contains("INDEX") || e.original.contains("cannot")));
        assert!(
            made(ABBREVIATE, Language::Java, (5, 18), Template::ChangeNumeral)
                .iter()
                .all(|n| !all.iter().any(|e| e.start == n.start && e.replacement == n.replacement))
        );
    }

    #[test]
    fn java_numbers_keep_their_kind_and_negations_are_replaced_whole() {
        let text = "class RetryPolicy {
    private long timeoutMillis = 30000L;

    long backoff(int attempt, double jitter) {
        long delay = 100L << attempt;
        float factor = 1.5f;
        if (attempt > 10) {
            return -1L;
        }
        return (long) (delay * factor * (1 + jitter * 0.25)) + offset - 2;
    }
}
";
        let all = made(text, Language::Java, (4, 11), Template::MutateLiteral);
        // A long stays a long; 10 and 1 are ints of the method, taken with an `L`.
        assert_eq!(of(&all, "100L")[..4], ["0L", "1L", "-1L", "10L"]);
        // A float stays a float (suffix kept, integers as `k.0`).
        assert_eq!(of(&all, "1.5f")[..3], ["0.0f", "1.0f", "-1.0f"]);
        assert!(of(&all, "1.5f").contains(&"0.25f") && of(&all, "1.5f").contains(&"10.0f"));
        assert_eq!(of(&all, "0.25"), ["0.0", "1.0", "-1.0", "2.0", "10.0", "1.5", "100.0"]);
        // `-1L` is replaced whole, never by itself.
        assert_eq!(of(&all, "-1L")[..2], ["0L", "1L"]);
        assert!(!of(&all, "-1L").contains(&"-1L"));
        // An integer never takes a float (`1.5f`, `0.25`); `3`, `1` are the numeral's.
        assert_eq!(of(&all, "2"), ["0", "-1", "10", "100"]);
        // The field is outside the lines.
        assert!(of(&all, "30000L").is_empty());
    }

    const PERCENTILE: &str = "def percentile(values, q, interpolate=False):
    \"\"\"The q-th percentile of sorted values.\"\"\"
    if not values:
        return 0.0
    k = (len(values) - 1) * q / 100.0
    f = int(k)
    if interpolate:
        return values[f] + (values[-1] - values[f]) * 0.5
    return values[f]
";

    #[test]
    fn python_literals_flip_booleans_and_keep_number_kinds() {
        let all = made(PERCENTILE, Language::Python, (1, 9), Template::MutateLiteral);
        assert_eq!(of(&all, "False"), ["True"]);
        assert_eq!(of(&all, "100.0"), ["0.0", "1.0", "-1.0", "0.5"]);
        assert_eq!(of(&all, "0.0"), ["1.0", "-1.0", "100.0", "0.5"]);
        // `-1` is replaced whole: `-2` and `-0` are the numeral template's.
        assert_eq!(of(&all, "-1"), ["1"]);
        assert_eq!(of(&all, "1"), ["-1"]);
        // The docstring is neither edited nor a candidate.
        assert!(!all.iter().any(|e| e.original.contains("percentile") || e.replacement.contains("percentile")));
        // A negative value right after `-` is parenthesised.
        let text = "def last_pair(xs, n):\n    return xs[n-2], xs[n-1]\n";
        let all = made(text, Language::Python, (1, 2), Template::MutateLiteral);
        assert_eq!(of(&all, "2"), ["0", "(-1)"]);
        assert_eq!(of(&all, "1"), ["(-1)"]);
    }

    #[test]
    fn python_strings_are_replaced_whole_by_nearby_strings_of_the_same_kind() {
        let text = "def describe(kind, name):
    \"\"\"Short label for a directory entry.\"\"\"
    if kind == \"file\":
        prefix = 'F'
    elif kind == \"dir\":
        prefix = \"D\"
    else:
        prefix = ''
    label = f\"{prefix}:{name}\"
    return label.encode() + b\"\\n\" if raw else prefix + ':' + name
";
        let all = made(text, Language::Python, (1, 10), Template::MutateLiteral);
        assert_eq!(of(&all, "\"dir\""), ["'F'", "\"D\"", "\"file\"", "':'", "\"\""]);
        // The empty string takes the others but no second empty string.
        assert_eq!(of(&all, "''"), ["\"D\"", "\"dir\"", "'F'", "':'", "\"file\""]);
        // `':'` and `\":\"` inside the f-string are one value; f-strings are no candidates.
        assert!(!all.iter().any(|e| e.replacement.starts_with('f')));
        assert_eq!(of(&all, "f\"{prefix}:{name}\"").last(), Some(&"\"\""));
        // Bytes only take bytes.
        assert_eq!(of(&all, "b\"\\n\""), ["b\"\""]);
    }

    #[test]
    fn literal_caps_hold() {
        let names: Vec<String> = (0..12).map(|i| format!("\"key{i}\"")).collect();
        let numbers: Vec<String> = (0..12).map(|i| format!("{}", 10 * i + 5)).collect();
        let text = format!(
            "class Config {{\n    static int lookup(java.util.Map<String, Integer> m) {{\n        \
             return m.get({}) + {};\n    }}\n}}\n",
            names.join(") + m.get("),
            numbers.join(" + ")
        );
        let all = made(&text, Language::Java, (2, 4), Template::MutateLiteral);
        assert_eq!(of(&all, "\"key0\"").len(), super::MAX_OTHER_STRINGS + 1);
        assert_eq!(of(&all, "\"key0\"")[..2], ["\"key1\"", "\"key2\""]);
        assert_eq!(of(&all, "55").len(), 3 + super::MAX_OTHER_NUMBERS);
        assert_eq!(of(&all, "55")[3..5], ["45", "65"]);
    }

    const RANGES: &str = "class Ranges {
    static Integer clamp(Integer value, Integer min, Integer max) {
        Integer result = value;
        if (value.compareTo(min) < 0) {
            return min;
        }
        if (value.compareTo(max) > 0) {
            return max;
        }
        Integer fallback = null;
        return result;
    }

    static int indexOf(int[] array, int key, int start) {
        for (int i = start; i < array.length; i++) {
            if (array[i] == key) {
                return i;
            }
        }
        int missing = -1;
        return -1;
    }

    static void check(Object o) {
        if (o == null) {
            return;
        }
        Runnable r = () -> {
            return;
        };
    }
}
";

    #[test]
    fn java_returns_take_other_returns_null_and_names_of_the_return_type() {
        let all = made(RANGES, Language::Java, (1, 32), Template::MutateReturn);
        assert_eq!(of(&all, "result"), ["max", "min", "null", "value", "fallback"]);
        assert_eq!(of(&all, "min"), ["max", "result", "null", "value"]);
        // A primitive return: no `null`; a local of the loop or declared later is out of scope.
        assert_eq!(of(&all, "-1"), ["i", "key", "start", "missing"]);
        assert_eq!(of(&all, "i"), ["-1", "key", "start"]);
        // `return;` has no expression.
        assert!(all.iter().all(|e| e.line < 24), "{all:#?}");
    }

    #[test]
    fn python_returns_take_other_returns_and_parameters() {
        let text = "def first_match(items, pred, default=None):
    for item in items:
        if pred(item):
            return item
    return default


class Cache:
    def get(self, key, fallback):
        def load():
            return None
        if key in self._data:
            return self._data[key]
        return fallback
";
        let all = made(text, Language::Python, (1, 14), Template::MutateReturn);
        assert_eq!(of(&all, "default"), ["item", "items", "pred"]);
        assert_eq!(of(&all, "item"), ["default", "items", "pred"]);
        // Not `self`, not the nested function's return.
        assert_eq!(of(&all, "self._data[key]"), ["fallback", "key"]);
        assert!(of(&all, "None").is_empty());
    }

    #[test]
    fn return_cap_holds() {
        let params: Vec<String> = (0..12).map(|i| format!("String s{i}")).collect();
        let text = format!(
            "class Join {{\n    static String pick({}) {{\n        return s0;\n    }}\n}}\n",
            params.join(", ")
        );
        let all = made(&text, Language::Java, (1, 5), Template::MutateReturn);
        assert_eq!(all.len(), super::MAX_RETURN_EDITS);
        assert_eq!(of(&all, "s0")[..2], ["null", "s1"]);
    }

    const STATS: &str = "class Stats {
    private int total;
    private short flags;

    static int mean(int[] xs, char sep) {
        int sum = 0;
        for (int i = 0; i < xs.length; i++) {
            sum += xs[i];
        }
        byte mark = (byte) sep;
        float avg = (float) sum / xs.length;
        double spread = Math.abs(avg - xs[0]);
        return (int) avg;
    }
}
";

    #[test]
    fn java_data_types_are_widened_or_narrowed_outside_the_signature() {
        let all = made(STATS, Language::Java, (5, 14), Template::MutateDataType);
        let lines: Vec<(usize, &str, &str)> =
            all.iter().map(|e| (e.line, e.original.as_str(), e.replacement.as_str())).collect();
        assert_eq!(
            lines,
            [
                (6, "int", "long"),
                (7, "int", "long"),
                (10, "byte", "int"),
                (10, "byte", "int"),
                (11, "float", "double"),
                (11, "float", "double"),
                (12, "double", "float"),
                (13, "int", "long"),
            ]
        );
        // Fields only when their lines are edited.
        let fields = made(STATS, Language::Java, (2, 3), Template::MutateDataType);
        assert_eq!(of(&fields, "int"), ["long"]);
        assert_eq!(of(&fields, "short"), ["int"]);
        // Nothing in Python.
        assert!(made(PERCENTILE, Language::Python, (1, 9), Template::MutateDataType).is_empty());
    }

    #[test]
    fn java_integer_divisions_are_made_floating() {
        let text = "class Ratios {
    private double scale;

    static double average(int total, int count) {
        return total / count;
    }

    static int percent(int part, int whole, int[] bins) {
        return (part + 1) / whole * 100 + part * bins.length / count(bins) + whole / 2 + bins[0] / -part;
    }

    double scaled(int n, double x) {
        return x / n + n / 2.0 + scale / n + Math.sqrt(n) / n + (n * 0.5) / n;
    }
}
";
        let all = made(text, Language::Java, (1, 15), Template::FloatDivision);
        assert_eq!(
            all.iter().map(|e| (e.original.as_str(), e.replacement.as_str())).collect::<Vec<_>>(),
            [
                ("total", "(double) total"),
                ("count", "(double) count"),
                ("(part + 1)", "(double) (part + 1)"),
                ("whole", "(double) whole"),
                ("part * bins.length", "(double) (part * bins.length)"),
                ("count(bins)", "(double) count(bins)"),
                ("whole", "(double) whole"),
                ("2", "2.0"),
                ("bins[0]", "(double) bins[0]"),
                ("-part", "(double) (-part)"),
            ]
        );
        // Nothing where a side is evidently floating, nor on `%` or `*`.
        assert!(all.iter().all(|e| e.line < 12));
    }

    #[test]
    fn python_floor_divisions_become_true_divisions() {
        let text = "def midpoint(lo, hi):\n    mid = (lo + hi) // 2\n    return mid / 1, lo % 2\n";
        let all = made(text, Language::Python, (1, 3), Template::FloatDivision);
        assert_eq!(all.len(), 1);
        assert_eq!((all[0].original.as_str(), all[0].replacement.as_str(), all[0].line), ("//", "/", 2));
    }

    #[test]
    fn a_cast_is_removed_where_its_value_is_used() {
        // The corpus's own fixes (ManySStuBs4J, mined_git_history), whitespace as written.
        let cases = [
            (
                "final Object formKey = (String) definition.getFormKey().getValue(execution);",
                "final Object formKey = definition.getFormKey().getValue(execution);",
            ),
            ("ServiceHelper.stopService((Service)service);", "ServiceHelper.stopService(service);"),
            ("failMap = processInternal((List) delayedEntries);", "failMap = processInternal(delayedEntries);"),
            (
                "return (T) exchange.getInjector().newInstance(type);",
                "return exchange.getInjector().newInstance(type);",
            ),
        ];
        for (line, fixed_line) in cases {
            let method =
                |l: &str| format!("<T> T f(Object service, Object delayedEntries) {{\n    {l}\n    return null;\n}}");
            assert_fixes(&method(line), &method(fixed_line), Language::Java, Template::RemoveCast);
        }
        // A cast kept as the statement's own expression has no use; Python has no cast.
        let statement = "void f(Object o) {\n    (Runnable) () -> {};\n}";
        assert!(!snippet_edits(statement, Language::Java).iter().any(|e| e.template == Template::RemoveCast));
        let py = "def f(x):\n    return int(x)\n";
        assert!(!snippet_edits(py, Language::Python).iter().any(|e| e.template == Template::RemoveCast));
    }
}
