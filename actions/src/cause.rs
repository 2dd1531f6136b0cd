//! [`root_cause`]: a one- or two-sentence root cause written from the edit itself (no model),
//! for `fixdex label --mechanical`.
//!
//! The sentence comes from the fix's primary repair action ([`classify`]): one template per
//! [`ActionKind`], filled with the action's tokens (`before` → `after`) and with code quoted
//! from the statement the edit is in (found again in each side's tree, by kind and line, and
//! quoted from the source text itself where its tokens can be found there). Pairs without
//! actions (no change, parse error, input too long) fall back to a plain line diff.

use crate::action::Action;
use crate::rules::is_statement;
use crate::tree::{Ast, parse_pair};
use crate::{ActionKind, Classification, Language, classify};

/// Longest quote of code, in characters, before it is cut with `…`.
const MAX_QUOTE_CHARS: usize = 60;
/// Longest root cause, in characters (cut with `…` beyond).
const MAX_CAUSE_CHARS: usize = 300;
/// Most leaves of a node read to quote it (the quote is cut at [`MAX_QUOTE_CHARS`] anyway).
const MAX_QUOTE_LEAVES: usize = 48;

/// A root cause of the bug fixed by `buggy` → `fixed` (method-level snippets in `lang`): one
/// or two sentences on what is wrong in the *buggy* code, naming the method `method` when
/// given (else "the method").
///
/// The rule: [`classify`] the fix; describe its primary action (the first of the label's
/// kind; for a mixed fix, the first of a specific kind) with that kind's template (one per
/// [`ActionKind`]: operator, literal, null check, guard, ...), quoting the buggy tokens,
/// the fixed tokens and the statement around them. A second action adds a second clause
/// (a structural fix, try/catch, null check or guard, only counts it), more add "(plus N
/// further edits)"; a rewrite says so first. Without actions (no change, parse error, input
/// too long) the first pair of differing lines is quoted instead. Code is quoted in
/// backticks with whitespace collapsed and cut at 60 characters; the whole text is at most
/// 300 characters. Never fails and never returns an empty string, on any input.
///
/// ```
/// use actions::{Language, root_cause};
///
/// let buggy = "int sum(int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++) s += i;\n  return s;\n}";
/// let cause = root_cause(buggy, &buggy.replace("i < n", "i <= n"), Language::Java, Some("Sums.sum"));
/// assert_eq!(
///     cause,
///     "The loop condition `i < n` in `Sums.sum` is off by one (the fix uses `i <= n`)."
/// );
/// ```
pub fn root_cause(buggy: &str, fixed: &str, lang: Language, method: Option<&str>) -> String {
    let c = classify(buggy, fixed, lang);
    let cx = Ctx::new(buggy, fixed, lang, method, !c.actions.is_empty());
    let text = match primary(&c) {
        Some((kind, i)) => with_others(&cx, &c, kind, i),
        None => fallback(&cx, c.reason.as_deref()),
    };
    cap(&text, MAX_CAUSE_CHARS)
}

/// The two sides, their trees (parsed as [`classify`] parses them, only when there are
/// actions to place), and how the method is named.
struct Ctx<'s> {
    buggy: &'s str,
    fixed: &'s str,
    lang: Language,
    /// "`Parser.parse`" or "the method".
    who: String,
    a: Option<Ast>,
    b: Option<Ast>,
}

impl<'s> Ctx<'s> {
    fn new(buggy: &'s str, fixed: &'s str, lang: Language, method: Option<&str>, parse: bool) -> Self {
        let who = match method.map(str::trim).filter(|m| !m.is_empty()) {
            Some(m) => quote(m),
            None => "the method".to_string(),
        };
        let (a, b) = match parse.then(|| parse_pair(buggy, fixed, lang).ok()).flatten() {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        Ctx { buggy, fixed, lang, who, a, b }
    }

    /// The method name at the start of a sentence.
    fn who_cap(&self) -> String {
        upper_first(&self.who)
    }
}

/// The kind to describe and the index of the action that shows it: the label's kind and the
/// first action of that kind (else the first action); a mixed fix or a rewrite (label
/// [`ActionKind::Other`]) takes its first action of a specific kind.
fn primary(c: &Classification) -> Option<(ActionKind, usize)> {
    c.actions.first()?;
    if c.label == ActionKind::Other {
        let i = c.actions.iter().position(|a| a.kind != ActionKind::Other).unwrap_or(0);
        return Some((c.actions[i].kind, i));
    }
    let i = c.actions.iter().position(|a| a.kind == c.label).unwrap_or(0);
    Some((c.label, i))
}

/// The primary sentence, with a clause for a second action or a count of further ones.
fn with_others(cx: &Ctx<'_>, c: &Classification, kind: ActionKind, i: usize) -> String {
    let text = sentence(cx, kind, &c.actions[i]);
    if c.reason.as_deref().is_some_and(|r| r.starts_with("rewrite")) {
        let (who, n, first) = (&cx.who, c.actions.len(), lower_first(&text));
        return format!(
            "The logic of {who} is wrong in several places (the fix rewrites it with {n} edits); first, {first}"
        );
    }
    let others: Vec<&Action> = c.actions.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, a)| a).collect();
    // The other actions of a structural fix are mostly its scaffolding: count them.
    let structural = matches!(kind, ActionKind::WrapTryCatch | ActionKind::AddNullCheck | ActionKind::AddGuard);
    match others.as_slice() {
        [] => text,
        [second] if !structural => {
            let two = format!("{text} Also, {}", lower_first(&sentence(cx, second.kind, second)));
            if two.chars().count() <= MAX_CAUSE_CHARS { two } else { further(&text, 1, "edit") }
        }
        more => further(&text, more.len(), "edit"),
    }
}

/// `text` with "(plus N further edits)" (or other `what`) before its final period (inside
/// a closing parenthesis there).
fn further(text: &str, n: usize, what: &str) -> String {
    let more = format!("plus {n} further {what}{}", plural(n));
    match text.strip_suffix(").") {
        Some(head) => format!("{head}; {more})."),
        None => format!("{} ({more}).", text.trim_end_matches('.')),
    }
}

/// The sentence for one action, described as `kind`. One template per kind.
fn sentence(cx: &Ctx<'_>, kind: ActionKind, a: &Action) -> String {
    use ActionKind::*;
    let e = Edit::new(cx, a);
    match kind {
        ChangeOperator => swapped(&e, operators(&a.before)),
        ChangeUnaryOperator => unary(&e),
        ChangeOperand => operand(&e),
        ChangeLoopBound => loop_bound(&e),
        ChangeNumeral => numeral(&e),
        ChangeLiteral => literal(&e),
        ChangeIdentifier => identifier(&e),
        SwapArguments => swap_arguments(&e),
        DifferentMethodSameArgs => swapped(&e, ""),
        MoreArguments => arguments(&e, true),
        FewerArguments => arguments(&e, false),
        ChangeCaller => caller(&e),
        MoreSpecificIf => condition(&e, true),
        LessSpecificIf => condition(&e, false),
        AddNullCheck => null_check(&e),
        AddGuard => guard(&e),
        WrapTryCatch => try_catch(&e),
        AddMethodCall => added_call(&e),
        RemoveMethodCall => removed_call(&e),
        ChangeReturnValue => return_value(&e),
        ChangeModifier => modifier(&e),
        AddThrowsException => throws(&e, true),
        DeleteThrowsException => throws(&e, false),
        InsertStatement => inserted(&e),
        DeleteStatement => deleted(&e),
        Other => other(&e),
    }
}

/// One action with its tokens tidied and its statements found on both sides.
struct Edit<'c, 's> {
    cx: &'c Ctx<'s>,
    a: &'c Action,
    /// Buggy tokens, tidied (`x.f()`, not `x . f ( )`).
    before: String,
    /// Fixed tokens, tidied.
    after: String,
    /// The enclosing statement in the buggy tree.
    sa: Option<usize>,
    /// The enclosing statement in the fixed tree.
    sb: Option<usize>,
}

impl<'c, 's> Edit<'c, 's> {
    fn new(cx: &'c Ctx<'s>, a: &'c Action) -> Self {
        let first = |s: &str| split_tokens(s).first().map(|t| t.to_string()).unwrap_or_default();
        let sa = cx.a.as_ref().and_then(|t| find_stmt(t, &a.enclosing, a.buggy_lines, &first(&a.before)));
        let sb = cx.b.as_ref().and_then(|t| find_stmt(t, &a.enclosing, a.fixed_lines, &first(&a.after)));
        Edit { cx, a, before: tidy(&a.before, cx.lang), after: tidy(&a.after, cx.lang), sa, sb }
    }

    /// The buggy statement's header (`if (a < b)`), quoted; else "its code".
    fn at(&self) -> String {
        let text = self.cx.a.as_ref().zip(self.sa).map(|(t, n)| source_of(self.cx.buggy, t, n, true));
        text.filter(|s| !s.is_empty()).map_or_else(|| "its code".to_string(), |s| quote(&s))
    }

    /// The fixed statement's header, quoted, if found.
    fn at_fixed(&self) -> Option<String> {
        let text = self.cx.b.as_ref().zip(self.sb).map(|(t, n)| source_of(self.cx.fixed, t, n, true))?;
        (!text.is_empty()).then(|| quote(&text))
    }

    /// The text of child `field` of the enclosing statement on the buggy (`fixed == false`)
    /// or fixed side.
    fn field(&self, field: &str, fixed: bool) -> Option<String> {
        let (src, t, s) =
            if fixed { (self.cx.fixed, &self.cx.b, self.sb) } else { (self.cx.buggy, &self.cx.a, self.sa) };
        let (t, s) = (t.as_ref()?, s?);
        let c = t.nodes[s].children.iter().copied().find(|&c| t.nodes[c].field == Some(field))?;
        Some(unparen(&collapse(&source_of(src, t, c, false))))
    }

    fn who(&self) -> &str {
        &self.cx.who
    }

    fn both(&self) -> bool {
        !self.before.is_empty() && !self.after.is_empty()
    }
}

// ---------------------------------------------------------------------------------------
// Templates, one per kind (some shared).

/// "`f` uses the operator `<` in `if (a < b)` where `<=` is needed."
fn swapped(e: &Edit<'_, '_>, what: &str) -> String {
    if !e.both() {
        return other(e);
    }
    let (who, at) = (e.cx.who_cap(), e.at());
    let (b, f) = (quote(&e.before), quote(&e.after));
    match what {
        "" => format!("{who} calls {b} in {at} where {f} is needed."),
        _ => format!("{who} uses {what} {b} in {at} where {f} is needed."),
    }
}

/// "the operator" or, for several operator tokens (`== ||`), "the operators".
fn operators(before: &str) -> &'static str {
    let toks = split_tokens(before);
    let words = toks.iter().any(|t| t.chars().any(char::is_alphabetic));
    if toks.len() > 1 && !words { "the operators" } else { "the operator" }
}

/// "`f` applies `!` in `if (!done)`, which is wrong (the fix drops it)."
fn unary(e: &Edit<'_, '_>) -> String {
    let (who, at) = (e.cx.who_cap(), e.at());
    match (e.before.is_empty(), e.after.is_empty()) {
        (false, false) => format!("{who} uses {} in {at} where {} is needed.", quote(&e.before), quote(&e.after)),
        (true, false) => format!("{who} is missing a unary operator in {at} (the fix uses {}).", quote(&e.after)),
        (false, true) => match split_tokens(&e.a.before).split_first() {
            Some((op, rest)) if !rest.is_empty() => {
                format!("{who} wrongly applies {} to {} in {at}.", quote(op), quote(&tidy_tokens(rest, e.cx.lang)))
            }
            _ => format!("{who} wrongly applies a unary operator in {} (in {at}).", quote(&e.before)),
        },
        (true, true) => other(e),
    }
}

/// "In `f`, the operand `size` in `if (count > size)` is off by one (the fix uses `size - 1`)."
fn operand(e: &Edit<'_, '_>) -> String {
    let what = if off_by_one(&e.before, &e.after) { "is off by one" } else { "is wrong" };
    let at = e.at();
    match (e.before.is_empty(), e.after.is_empty()) {
        (false, false) => {
            format!(
                "In {}, the operand {} in {at} {what} (the fix uses {}).",
                e.who(),
                quote(&e.before),
                quote(&e.after)
            )
        }
        (true, false) => format!("In {}, an operand in {at} {what} (the fix uses {}).", e.who(), quote(&e.after)),
        _ => other(e),
    }
}

/// "The loop condition `i < n` in `f` is off by one (the fix uses `i <= n`)."
fn loop_bound(e: &Edit<'_, '_>) -> String {
    let part = match e.a.field.as_deref() {
        Some("condition") => "loop condition",
        Some("right") => "loop range",
        Some("update") => "loop update",
        Some("init") => "loop initialiser",
        _ => "loop header",
    };
    let field = e.a.field.as_deref().unwrap_or("");
    let (b, f) = match (e.field(field, false), e.field(field, true)) {
        (Some(b), Some(f)) if b != f => (b, f),
        _ => (e.before.clone(), e.after.clone()),
    };
    let what = if off_by_one(&e.before, &e.after) || off_by_one(&b, &f) { "is off by one" } else { "is wrong" };
    match (b.is_empty(), f.is_empty()) {
        (false, false) => format!("The {part} {} in {} {what} (the fix uses {}).", quote(&b), e.who(), quote(&f)),
        (true, false) => format!("The {part} of {} in {} {what} (the fix uses {}).", e.at(), e.who(), quote(&f)),
        _ => format!("The {part} of {} in {} {what}.", e.at(), e.who()),
    }
}

/// "`f` uses the wrong constant `10` in `int x = 10;` (the fix uses `100`)."
fn numeral(e: &Edit<'_, '_>) -> String {
    if !e.both() {
        return other(e);
    }
    let (who, at, b, f) = (e.cx.who_cap(), e.at(), quote(&e.before), quote(&e.after));
    if off_by_one(&e.before, &e.after) {
        return format!("{who} uses the constant {b} in {at}, which is off by one (the fix uses {f}).");
    }
    format!("{who} uses the wrong constant {b} in {at} (the fix uses {f}).")
}

/// "`f` uses `true` in `return true;` where `false` is needed." / "... the wrong literal ..."
fn literal(e: &Edit<'_, '_>) -> String {
    if !e.both() {
        return other(e);
    }
    let boolean = |s: &str| matches!(s, "true" | "false" | "True" | "False");
    let (who, at, b, f) = (e.cx.who_cap(), e.at(), quote(&e.before), quote(&e.after));
    if boolean(&e.before) && boolean(&e.after) {
        return format!("{who} uses {b} in {at} where {f} is needed.");
    }
    format!("{who} uses the wrong literal {b} in {at} (the fix uses {f}).")
}

/// "`f` uses `width` where `height` is meant, in `int y = width;`."
fn identifier(e: &Edit<'_, '_>) -> String {
    if !e.both() {
        return other(e);
    }
    format!("{} uses {} where {} is meant, in {}.", e.cx.who_cap(), quote(&e.before), quote(&e.after), e.at())
}

/// "`f` passes the arguments in the wrong order in `put(key, value);` (the fix: `put(value, key);`)."
fn swap_arguments(e: &Edit<'_, '_>) -> String {
    let base = format!("{} passes the arguments in the wrong order in {}", e.cx.who_cap(), e.at());
    match e.at_fixed() {
        Some(f) => format!("{base} (the fix has {f})."),
        None => format!("{base}."),
    }
}

/// "In `f`, the call in `foo(a);` is missing the argument `b`." / "... passes the extra argument ..."
fn arguments(e: &Edit<'_, '_>, more: bool) -> String {
    let base = format!("In {}, the call in {}", e.who(), e.at());
    match (more, e.before.is_empty(), e.after.is_empty()) {
        (true, _, false) => format!("{base} is missing the argument {}.", quote(&e.after)),
        (false, false, _) => format!("{base} passes the extra argument {}.", quote(&e.before)),
        (true, ..) => format!("{base} is missing an argument."),
        (false, ..) => format!("{base} passes an extra argument."),
    }
}

/// "`f` calls the method on `a` where `b` is meant, in `a.run();`."
fn caller(e: &Edit<'_, '_>) -> String {
    let (who, at) = (e.cx.who_cap(), e.at());
    let (b, f) = (e.before.trim_end_matches('.'), e.after.trim_end_matches('.'));
    match (b.is_empty(), f.is_empty()) {
        (false, false) => format!("{who} calls a method on {} where {} is meant, in {at}.", quote(b), quote(f)),
        (true, false) => format!("{who} calls a method without its receiver {} in {at}.", quote(f)),
        (false, true) => format!("{who} calls a method on {} in {at}, which is the wrong receiver.", quote(b)),
        (true, true) => format!("{who} calls a method on the wrong receiver in {at}."),
    }
}

/// "The condition `a` in `f` is too weak: it misses the check `b`." (narrower = the fix
/// narrows it) / "... is too strict: it misses the case `b`."
fn condition(e: &Edit<'_, '_>, narrower: bool) -> String {
    let (Some(b), Some(f)) = (e.field("condition", false), e.field("condition", true)) else {
        let how = if narrower { "too weak" } else { "too strict" };
        return format!("The condition in {} in {} is {how} (the fix uses {}).", e.at(), e.who(), quote(&e.after));
    };
    let (cond, who) = (quote(&b), e.who());
    let how = if narrower { "too weak" } else { "too strict" };
    if let Some(extra) = residue(&f, &b) {
        let what = if narrower { "check" } else { "case" };
        return format!("The condition {cond} in {who} is {how}: it misses the {what} {}.", quote(&extra));
    }
    if let Some(gone) = residue(&b, &f) {
        return format!("The condition {cond} in {who} is {how}: its part {} should not be there.", quote(&gone));
    }
    format!("The condition {cond} in {who} is {how} (the fix uses {}).", quote(&f))
}

/// "`s` is dereferenced without a null check before `s.length()` in `f`."
fn null_check(e: &Edit<'_, '_>) -> String {
    let none = if e.cx.lang == Language::Python { "`None` check" } else { "null check" };
    let Some(var) = null_checked(&e.a.after) else {
        return format!("{} is missing a {none} (the fix adds {}).", e.cx.who_cap(), quote(&e.after));
    };
    let from = line_start(e.cx.buggy, e.a.buggy_lines.0);
    match dereference(e.cx.buggy, from, &var) {
        Some((d, true)) => {
            format!("{} is dereferenced without a {none} before {} in {}.", quote(&var), quote(&d), e.who())
        }
        Some((d, false)) => format!("{} is used without a {none} in {} (in {}).", quote(&var), e.who(), quote(&d)),
        None => format!("{} is used without a {none} in {}.", quote(&var), e.who()),
    }
}

/// "`f` does not handle the case `n < 0` (the fix adds the guard `if (n < 0) { return 0; }`)."
fn guard(e: &Edit<'_, '_>) -> String {
    match if_condition(&e.after) {
        Some(cond) => format!(
            "{} does not handle the case {} (the fix adds the guard {}).",
            e.cx.who_cap(),
            quote(&cond),
            quote(&e.after)
        ),
        None => format!("{} is missing a guard (the fix adds {}).", e.cx.who_cap(), quote(&e.after)),
    }
}

/// "`foo();` in `f` can throw `IOException`, which is not caught."
fn try_catch(e: &Edit<'_, '_>) -> String {
    let src = e.cx.fixed;
    let found = e.cx.b.as_ref().and_then(|t| new_try(t, e.a.fixed_lines).map(|n| (t, n)));
    let exc = found.and_then(|(t, n)| caught_type(t, n).map(|x| source_of(src, t, x, false)));
    let exc = exc.filter(|s| !s.is_empty());
    let body = found.and_then(|(t, n)| first_statement(t, n).map(|s| source_of(src, t, s, true)));
    let (throw, handled) = if e.cx.lang == Language::Python { ("raise", "handled") } else { ("throw", "caught") };
    let what = exc.map_or_else(|| "an exception".to_string(), |x| quote(&x));
    match body.filter(|s| !s.is_empty()) {
        Some(b) => format!("{} in {} can {throw} {what}, which is not {handled}.", quote(&b), e.who()),
        None => format!("{} does not handle {what} that its code can {throw}.", e.cx.who_cap()),
    }
}

/// "`f` is missing the call `close();`." / "`f` is missing a call in `int n = s;` (the fix
/// uses `Integer.parseInt(s)`)."
fn added_call(e: &Edit<'_, '_>) -> String {
    if e.after.is_empty() {
        return other(e);
    }
    if whole_statement(e.cx.b.as_ref(), &e.a.after) {
        return format!("{} is missing the call {}.", e.cx.who_cap(), quote(&e.after));
    }
    format!("{} is missing a call in {} (the fix uses {}).", e.cx.who_cap(), e.at(), quote(&e.after))
}

/// "`f` makes the call `close();`, which should not be there."
fn removed_call(e: &Edit<'_, '_>) -> String {
    if e.before.is_empty() {
        return other(e);
    }
    if whole_statement(e.cx.a.as_ref(), &e.a.before) {
        return format!("{} makes the call {}, which should not be there.", e.cx.who_cap(), quote(&e.before));
    }
    format!("{} makes the unwanted call {} in {}.", e.cx.who_cap(), quote(&e.before), e.at())
}

/// "`f` returns the wrong value in `return x;` (the fix has `return -1;`)."
fn return_value(e: &Edit<'_, '_>) -> String {
    let what = if off_by_one(&e.before, &e.after) { "a value that is off by one" } else { "the wrong value" };
    let base = format!("{} returns {what} in {}", e.cx.who_cap(), e.at());
    match e.at_fixed() {
        Some(f) => format!("{base} (the fix has {f})."),
        None if !e.after.is_empty() => format!("{base} (the fix uses {}).", quote(&e.after)),
        None => format!("{base}."),
    }
}

/// "The declaration of `f` uses `public` where `private` is needed." / "... lacks the
/// modifier `@Override`."
fn modifier(e: &Edit<'_, '_>) -> String {
    let decl = matches!(
        e.a.enclosing.as_str(),
        "method_declaration" | "constructor_declaration" | "function_definition" | "decorated_definition" | "module"
    );
    let subject = if decl {
        format!("The declaration of {}", e.who())
    } else {
        format!("The declaration {} in {}", e.at(), e.who())
    };
    let (b, f) = (decorators(&e.before), decorators(&e.after));
    match (b.is_empty(), f.is_empty()) {
        (false, false) => format!("{subject} uses {} where {} is needed.", quote(&b), quote(&f)),
        (true, false) => format!("{subject} lacks the modifier {}.", quote(&f)),
        (false, true) => format!("{subject} has the unwanted modifier {}.", quote(&b)),
        (true, true) => format!("{subject} has the wrong modifiers."),
    }
}

/// "`f` does not declare that it throws `IOException`." / "`f` wrongly declares ..."
fn throws(e: &Edit<'_, '_>, added: bool) -> String {
    let strip = |s: &str| s.trim_start_matches("throws").trim().to_string();
    let (b, f) = (strip(&e.before), strip(&e.after));
    match (added, b.is_empty(), f.is_empty()) {
        (true, _, false) => format!("{} does not declare that it throws {}.", e.cx.who_cap(), quote(&f)),
        (false, false, _) => format!("{} wrongly declares that it throws {}.", e.cx.who_cap(), quote(&b)),
        _ => format!("{} declares the wrong exceptions in its `throws` clause.", e.cx.who_cap()),
    }
}

/// "`f` is missing the statement `a++;`."
fn inserted(e: &Edit<'_, '_>) -> String {
    if e.after.is_empty() {
        return other(e);
    }
    format!("{} is missing the statement {}.", e.cx.who_cap(), quote(&e.after))
}

/// "The statement `a++;` in `f` should not be there."
fn deleted(e: &Edit<'_, '_>) -> String {
    if e.before.is_empty() {
        return other(e);
    }
    format!("The statement {} in {} should not be there.", quote(&e.before), e.who())
}

/// "In `f`, `x = a;` is wrong (the fix has `b` instead of `a`)."
fn other(e: &Edit<'_, '_>) -> String {
    let base = format!("In {}, {} is wrong", e.who(), e.at());
    match (e.before.is_empty(), e.after.is_empty()) {
        (false, false) => format!("{base} (the fix has {} instead of {}).", quote(&e.after), quote(&e.before)),
        (true, false) => format!("{base} (the fix adds {}).", quote(&e.after)),
        (false, true) => format!("{base} (the fix removes {}).", quote(&e.before)),
        (true, true) => format!("{base}."),
    }
}

// ---------------------------------------------------------------------------------------
// Fallback without actions: a line diff.

/// A sentence from the first differing pair of (non-blank, non-comment, whitespace-collapsed)
/// lines.
fn fallback(cx: &Ctx<'_>, reason: Option<&str>) -> String {
    if reason.is_some_and(|r| r.starts_with("no change")) {
        return format!("The fix changes only comments or layout in {}, so the code shows no root cause.", cx.who);
    }
    // Comment lines and the `...` that separates hunks say nothing about the code.
    let code = |l: &String| !(l.is_empty() || l == "..." || ["//", "/*", "*", "#"].iter().any(|p| l.starts_with(p)));
    let lines = |s: &str| s.lines().map(collapse).filter(code).collect::<Vec<_>>();
    let (a, b) = (lines(cx.buggy), lines(cx.fixed));
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..].iter().rev().zip(b[pre..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (da, db) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let text = match (da.first(), db.first()) {
        (Some(x), Some(y)) => format!("In {}, the line {} is wrong (the fix has {}).", cx.who, quote(x), quote(y)),
        (Some(x), None) => format!("In {}, the line {} should not be there.", cx.who, quote(x)),
        (None, Some(y)) => format!("{} is missing the line {}.", cx.who_cap(), quote(y)),
        (None, None) => return format!("The fix changes only layout in {}, so the code shows no root cause.", cx.who),
    };
    match da.len().max(db.len()) {
        0 | 1 => text,
        n => further(&text, n - 1, "changed line"),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

// ---------------------------------------------------------------------------------------
// Finding and quoting code.

/// The innermost node of `kind` whose lines hold `lines`, preferring one that holds a leaf
/// `token` (several statements can share a line).
fn find_stmt(t: &Ast, kind: &str, lines: (u32, u32), token: &str) -> Option<usize> {
    let holds = |n: usize| t.nodes[n].lines.0 <= lines.0 && lines.1 <= t.nodes[n].lines.1;
    let cands: Vec<usize> = (0..t.nodes.len()).filter(|&n| t.nodes[n].kind == kind && holds(n)).collect();
    let has = |n: &usize| !token.is_empty() && (*n..*n + t.nodes[*n].size).any(|i| t.nodes[i].label == token);
    let smallest = |v: &mut dyn Iterator<Item = usize>| v.min_by_key(|&n| t.nodes[n].size);
    smallest(&mut cands.iter().copied().filter(has)).or_else(|| smallest(&mut cands.iter().copied()))
}

/// Is `text` (an action's token text) the whole text of a statement of `t`?
fn whole_statement(t: Option<&Ast>, text: &str) -> bool {
    let Some(t) = t else { return false };
    let prefix = text.strip_suffix('…');
    let is = |n: usize| {
        let s = t.text(n);
        s == text || prefix.is_some_and(|p| s.starts_with(p))
    };
    (0..t.nodes.len()).any(|n| is_statement(&t.nodes[n]) && is(n))
}

/// The first `try` statement of `t` whose lines meet `lines`, else the first at all.
fn new_try(t: &Ast, lines: (u32, u32)) -> Option<usize> {
    let is_try = |n: &usize| matches!(t.nodes[*n].kind.as_str(), "try_statement" | "try_with_resources_statement");
    let meets = |n: &usize| t.nodes[*n].lines.0 <= lines.1 && lines.0 <= t.nodes[*n].lines.1;
    (0..t.nodes.len()).filter(is_try).find(meets).or_else(|| (0..t.nodes.len()).find(is_try))
}

/// The exception type of the first handler under the `try` at `n`.
fn caught_type(t: &Ast, n: usize) -> Option<usize> {
    let under = n + 1..n + t.nodes[n].size;
    if let Some(c) = under.clone().find(|&i| t.nodes[i].kind == "catch_type") {
        return Some(c);
    }
    let clause = under.into_iter().find(|&i| t.nodes[i].kind == "except_clause")?;
    let first = t.nodes[clause].children.iter().copied().find(|&c| t.nodes[c].named && t.nodes[c].kind != "block")?;
    match t.nodes[first].kind.as_str() {
        "as_pattern" => t.nodes[first].children.first().copied(),
        _ => Some(first),
    }
}

/// The first statement in the body of the `try` at `n`.
fn first_statement(t: &Ast, n: usize) -> Option<usize> {
    let body = t.nodes[n].children.iter().copied().find(|&c| t.nodes[c].field == Some("body"))?;
    t.nodes[body].children.iter().copied().find(|&c| is_statement(&t.nodes[c]))
}

/// The source text of node `n` (only its header, before any body, when `header`): its
/// leaves found in order in `src` with only whitespace between them; else its leaves
/// joined and tidied. Reads at most [`MAX_QUOTE_LEAVES`] leaves.
fn source_of(src: &str, t: &Ast, n: usize, header: bool) -> String {
    let leaves = leaves_of(t, n, header);
    let cut = leaves.len() > MAX_QUOTE_LEAVES;
    let leaves = &leaves[..leaves.len().min(MAX_QUOTE_LEAVES)];
    let from = line_start(src, t.nodes[n].lines.0);
    let text = match find_tokens(src, from, leaves) {
        Some((s, e)) => src[s..e].to_string(),
        None => tidy_tokens(leaves, Language::Java),
    };
    if cut { format!("{text} …") } else { text }
}

/// Labels of the leaves under `n` in order, stopping at a body (`body`, `consequence`,
/// `alternative`) when `header`.
fn leaves_of(t: &Ast, n: usize, header: bool) -> Vec<&str> {
    let body = |c: usize| matches!(t.nodes[c].field, Some("body" | "consequence" | "alternative"));
    let parts: Vec<usize> = match header && !t.nodes[n].children.is_empty() {
        true => t.nodes[n].children.iter().copied().take_while(|&c| !body(c)).collect(),
        false => vec![n],
    };
    let leaf = |i: &usize| t.nodes[*i].children.is_empty() && !t.nodes[*i].label.is_empty();
    let labels = parts.iter().flat_map(|&p| (p..p + t.nodes[p].size).filter(leaf));
    labels.take(MAX_QUOTE_LEAVES + 1).map(|i| t.nodes[i].label.as_str()).collect()
}

/// Byte offset of the start of 1-based line `line` of `src` (0 when out of range).
fn line_start(src: &str, line: u32) -> usize {
    match line.checked_sub(2) {
        Some(k) => src.match_indices('\n').nth(k as usize).map_or(0, |(i, _)| i + 1),
        None => 0,
    }
}

/// The first span of `src` from `from` on that holds `toks` in order with only whitespace
/// (or line continuations) between them. Tries at most 64 starts.
fn find_tokens(src: &str, from: usize, toks: &[&str]) -> Option<(usize, usize)> {
    let first = *toks.first()?;
    let mut pos = from;
    for _ in 0..64 {
        let start = pos + src.get(pos..)?.find(first)?;
        let mut at = start + first.len();
        let ok = toks[1..].iter().all(|t| {
            let rest = &src[at..];
            let gap = rest.len() - rest.trim_start_matches(|c: char| c.is_whitespace() || c == '\\').len();
            let hit = rest[gap..].starts_with(t);
            at += gap + t.len();
            hit
        });
        if ok {
            return Some((start, at));
        }
        pos = start + first.len();
    }
    None
}

/// The expression checked against `null` / `None` in `after` (`x` of `x != null`).
fn null_checked(after: &str) -> Option<String> {
    let toks = split_tokens(after);
    let i = toks.iter().position(|t| matches!(*t, "null" | "None"))?;
    let before = |k: usize| toks.get(..k).map(|head| operand_before(head, Direction::Back)).unwrap_or_default();
    let var = match (i.checked_sub(1).map(|k| toks[k]), i.checked_sub(2).map(|k| toks[k])) {
        (Some("==" | "!=" | "is"), _) => before(i - 1),
        (Some("not"), Some("is")) => before(i - 2),
        _ if matches!(toks.get(i + 1), Some(&"==" | &"!=" | &"is")) => {
            toks.get(i + 2..).map(|tail| operand_before(tail, Direction::Forward)).unwrap_or_default()
        }
        _ => String::new(),
    };
    (!var.is_empty()).then_some(var)
}

#[derive(Clone, Copy, PartialEq)]
enum Direction {
    Back,
    Forward,
}

/// The dotted name (`this.x`, `self.items`) at the end (`Back`) or start of `toks`.
fn operand_before(toks: &[&str], dir: Direction) -> String {
    let word = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_');
    let mut out: Vec<&str> = Vec::new();
    let seq: Box<dyn Iterator<Item = &&str>> =
        if dir == Direction::Back { Box::new(toks.iter().rev()) } else { Box::new(toks.iter()) };
    for &t in seq {
        let want_word = out.last().is_none_or(|l| *l == ".");
        if (want_word && word(t)) || (!want_word && t == ".") {
            out.push(t);
        } else {
            break;
        }
    }
    if out.last() == Some(&".") {
        out.pop();
    }
    if dir == Direction::Back {
        out.reverse();
    }
    out.concat()
}

/// Where `var` is used in `src` from `from` on: `Some((x.f(), true))` for a dereference
/// (`var.` or `var[`), else `Some((line, false))` for the first line that names it.
fn dereference(src: &str, from: usize, var: &str) -> Option<(String, bool)> {
    let rest = src.get(from..)?;
    let bounded = |i: usize| {
        let prev = rest[..i].chars().next_back();
        !prev.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
    };
    let hits: Vec<usize> = rest.match_indices(var).map(|(i, _)| i).filter(|&i| bounded(i)).collect();
    let after = |i: usize| rest[i + var.len()..].chars().next();
    if let Some(&i) = hits.iter().find(|&&i| matches!(after(i), Some('.' | '['))) {
        return Some((call_at(&rest[i..], var.len()), true));
    }
    let word_end = |i: usize| !after(i).is_some_and(|c| c.is_alphanumeric() || c == '_');
    let &i = hits.iter().find(|&&i| word_end(i))?;
    let start = rest[..i].rfind('\n').map_or(0, |k| k + 1);
    let end = rest[i..].find('\n').map_or(rest.len(), |k| i + k);
    Some((rest[start..end].trim().to_string(), false))
}

/// The member access at the start of `s` (`x.f(a)` of `x.f(a); y();`): the name at
/// `skip`, one `.name` or `[...]`, and a balanced argument list.
fn call_at(s: &str, skip: usize) -> String {
    let mut depth = 0i32;
    for (i, c) in s.char_indices().skip_while(|&(i, _)| i < skip) {
        match c {
            '.' if i == skip => {}
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth -= 1;
                if depth <= 0 {
                    return s[..i + 1].to_string();
                }
            }
            c if depth == 0 && !(c.is_alphanumeric() || c == '_') => return s[..i].to_string(),
            _ => {}
        }
    }
    s.to_string()
}

/// The condition of the `if` that `text` (an inserted statement, tidied) starts with.
fn if_condition(text: &str) -> Option<String> {
    let rest = text.trim_start().strip_prefix("if")?.trim_start();
    if let Some(inner) = rest.strip_prefix('(') {
        let mut depth = 1;
        let end = inner.char_indices().find(|&(_, c)| {
            depth += i32::from(c == '(') - i32::from(c == ')');
            depth == 0
        })?;
        return Some(inner[..end.0].trim().to_string());
    }
    let end = rest.find(':')?;
    Some(rest[..end].trim().to_string()).filter(|s| !s.is_empty())
}

/// The decorators (or modifiers) of a modifier change: a Python `decorated_definition`'s
/// text up to its `def` / `class`.
fn decorators(s: &str) -> String {
    if !s.starts_with('@') {
        return s.to_string();
    }
    let cut = [" def ", " class ", " async "].iter().filter_map(|k| s.find(k)).min().unwrap_or(s.len());
    s[..cut].trim().to_string()
}

/// What `long` has beyond `short` when it starts or ends with it, minus the joining
/// `&&` / `||` / `and` / `or` (`b` of `a && b` beyond `a`).
fn residue(long: &str, short: &str) -> Option<String> {
    let (long, short) = (collapse(long), collapse(short));
    if short.is_empty() || long.len() <= short.len() {
        return None;
    }
    let rest = long.strip_prefix(short.as_str()).or_else(|| long.strip_suffix(short.as_str()))?;
    let rest = format!(" {} ", rest.trim());
    let joins: &[&str] = &[" && ", " || ", " and ", " or "];
    let r = joins.iter().find_map(|j| rest.strip_prefix(j).or_else(|| rest.strip_suffix(j)))?.trim();
    (!r.is_empty()).then(|| unparen(r))
}

/// Off by one: `<` vs `<=`, `>` vs `>=`, two integers one apart, or a `+ 1` / `- 1` added
/// or removed.
fn off_by_one(before: &str, after: &str) -> bool {
    let ops = [("<", "<="), (">", ">=")];
    if ops.iter().any(|&(x, y)| (before, after) == (x, y) || (before, after) == (y, x)) {
        return true;
    }
    if let (Ok(x), Ok(y)) = (before.parse::<i64>(), after.parse::<i64>()) {
        return x.abs_diff(y) == 1;
    }
    let plus_one = |s: &str| ["+ 1", "- 1", "+1", "-1"].iter().any(|k| s.trim_end().ends_with(k));
    let (b, a) = (collapse(before), collapse(after));
    (plus_one(&a) && !plus_one(&b) && (b.is_empty() || a.starts_with(&b)))
        || (plus_one(&b) && !plus_one(&a) && (a.is_empty() || b.starts_with(&a)))
}

// ---------------------------------------------------------------------------------------
// Text.

/// Token text (leaves joined by spaces) split into tokens; spaces inside string literals
/// do not split.
fn split_tokens(s: &str) -> Vec<&str> {
    let (mut out, mut start, mut quote): (Vec<&str>, usize, Option<char>) = (Vec::new(), 0, None);
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(_), '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (Some(q), c) if c == q && !escaped => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, ' ') => {
                if i > start {
                    out.push(&s[start..i]);
                }
                start = i + 1;
            }
            _ => {}
        }
        escaped = false;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// Token text as code: `x.f(a, -1)`, not `x . f ( a , - 1 )`.
fn tidy(s: &str, lang: Language) -> String {
    tidy_tokens(&split_tokens(s), lang)
}

fn tidy_tokens(toks: &[&str], lang: Language) -> String {
    let merged =
        if lang == Language::Java { merge_generics(toks) } else { toks.iter().map(|t| t.to_string()).collect() };
    let toks: Vec<&str> = merged.iter().map(String::as_str).collect();
    let mut out = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 && spaced(&toks, i, lang) {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}

/// Java type arguments merged into their type's token (`List < String >` → `List<String>`).
fn merge_generics(toks: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let typed = out.last().is_some_and(|p| p.starts_with(char::is_uppercase));
        match (toks[i], out.last_mut(), generic_end(toks, i)) {
            ("<", Some(last), Some(end)) if typed => {
                for (k, t) in toks[i..=end].iter().enumerate() {
                    last.push_str(if k > 0 && toks[i + k - 1] == "," { " " } else { "" });
                    last.push_str(t);
                }
                i = end + 1;
            }
            _ => {
                out.push(toks[i].to_string());
                i += 1;
            }
        }
    }
    out
}

/// The index of the `>` that closes the `<` at `i`, when only type-like tokens lie between.
fn generic_end(toks: &[&str], i: usize) -> Option<usize> {
    let mut depth = 0;
    for (j, t) in toks.iter().enumerate().skip(i).take(32) {
        match *t {
            "<" => depth += 1,
            ">" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            "," | "?" | "extends" | "super" | "." | "[" | "]" | "&" => {}
            t if t.chars().all(|c| c.is_alphanumeric() || c == '_') => {}
            _ => return None,
        }
    }
    None
}

/// Words that keep the space before a `(` after them.
const KEYWORDS: &str = "if for while switch catch synchronized return throw new and or not in is elif assert yield else with except lambda await case";

/// Is there a space between `toks[i - 1]` and `toks[i]`?
fn spaced(toks: &[&str], i: usize, lang: Language) -> bool {
    let (p, t) = (toks[i - 1], toks[i]);
    let operand = |s: &str| {
        let generic = s.ends_with('>') && s.contains('<') && s.starts_with(char::is_alphanumeric);
        (generic || s.ends_with(|c: char| c.is_alphanumeric() || matches!(c, '_' | ')' | ']' | '"' | '\'')))
            && !KEYWORDS.split(' ').any(|k| k == s)
    };
    let prefix = |j: usize| j == 0 || !operand(toks[j - 1]);
    match (p, t) {
        (_, ")" | "]" | "," | ";" | "." | "::") | ("(" | "[" | "." | "@" | "::" | "!" | "~", _) | ("{", "}") => false,
        (_, ":") if lang == Language::Python => false,
        (_, "(" | "[") => !operand(p),
        (_, "++" | "--") => !operand(p),
        ("++" | "--" | "-" | "+", _) => !prefix(i - 1),
        _ => true,
    }
}

/// Whitespace runs (newlines included) as one space, trimmed.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `s` without one pair of parentheses around all of it.
fn unparen(s: &str) -> String {
    let Some(inner) = s.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else { return s.to_string() };
    let mut depth = 0i32;
    let balanced = inner.chars().all(|c| {
        depth += i32::from(c == '(') - i32::from(c == ')');
        depth >= 0
    });
    if balanced && depth == 0 { inner.trim().to_string() } else { s.to_string() }
}

/// Code in backticks: whitespace collapsed, backticks replaced, cut at [`MAX_QUOTE_CHARS`].
fn quote(code: &str) -> String {
    let code = collapse(&code.replace('`', "'"));
    format!("`{}`", cap(&code, MAX_QUOTE_CHARS))
}

/// `s` cut to at most `max` characters, the last being `…` when cut.
fn cap(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// `s` with its first letter lowered when it starts a word (not code: "The x" → "the x").
fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match (c.next(), c.next()) {
        (Some(f), Some(g)) if f.is_uppercase() && g.is_lowercase() => {
            f.to_lowercase().chain(s.chars().skip(1)).collect()
        }
        _ => s.to_string(),
    }
}
