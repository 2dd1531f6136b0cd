//! The action vocabulary.

use std::fmt;

/// The kind of a repair action. Names follow ManySStuBs4J's 16 simple-stupid-bug patterns
/// (Karampatsis & Sutton, MSR 2020) and TBar's fix-pattern families (Liu et al.,
/// ISSTA 2019); [`ActionKind::as_str`] gives the SCREAMING_SNAKE name used in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ActionKind {
    /// A binary or assignment operator replaced (`<` → `<=`, `&&` → `||`).
    ChangeOperator,
    /// A unary operator added, removed or replaced (`!x` → `x`, `i++` → `i--`).
    ChangeUnaryOperator,
    /// One operand of a binary expression replaced by another expression.
    ChangeOperand,
    /// A change inside the header of a counted `for`, `while` or `do … while` loop (Python: `for … in
    /// range(…)` or `while`).
    ChangeLoopBound,
    /// A number literal changed.
    ChangeNumeral,
    /// A string, character or boolean literal changed (ManySStuBs4J's SWAP_BOOLEAN_LITERAL
    /// is this kind with `true`/`false` tokens).
    ChangeLiteral,
    /// An identifier (variable, field, type) replaced by another.
    ChangeIdentifier,
    /// The arguments of a call reordered.
    SwapArguments,
    /// Another method called with the same arguments.
    DifferentMethodSameArgs,
    /// A call gained arguments (an overload with more).
    MoreArguments,
    /// A call lost arguments.
    FewerArguments,
    /// The receiver of a call changed, added or removed (`a.f()` → `b.f()`).
    ChangeCaller,
    /// An `if` condition gained a conjunct (`&& x`) or lost a disjunct.
    MoreSpecificIf,
    /// An `if` condition gained a disjunct (`|| x`) or lost a conjunct.
    LessSpecificIf,
    /// A comparison with `null` / `None` added (a guard, a conjunct or a ternary).
    AddNullCheck,
    /// An `if` (guard, early return or wrapping condition) added.
    AddGuard,
    /// Code wrapped in `try` / `catch` (`except`), or a handler added.
    WrapTryCatch,
    /// A method call added (a statement, a wrapping call, a chained call).
    AddMethodCall,
    /// A method call removed.
    RemoveMethodCall,
    /// Another change inside a `return` statement.
    ChangeReturnValue,
    /// Modifiers or annotations of a declaration changed (Python: modifier decorators).
    ChangeModifier,
    /// A type added to a `throws` clause.
    AddThrowsException,
    /// A type removed from a `throws` clause.
    DeleteThrowsException,
    /// A statement added that fits no more specific kind.
    InsertStatement,
    /// A statement removed that fits no more specific kind.
    DeleteStatement,
    /// Anything else: a rewrite, several unrelated edits, no change, or unparsable input.
    Other,
}

impl ActionKind {
    /// Every kind, in declaration order.
    pub const ALL: [ActionKind; 26] = [
        Self::ChangeOperator,
        Self::ChangeUnaryOperator,
        Self::ChangeOperand,
        Self::ChangeLoopBound,
        Self::ChangeNumeral,
        Self::ChangeLiteral,
        Self::ChangeIdentifier,
        Self::SwapArguments,
        Self::DifferentMethodSameArgs,
        Self::MoreArguments,
        Self::FewerArguments,
        Self::ChangeCaller,
        Self::MoreSpecificIf,
        Self::LessSpecificIf,
        Self::AddNullCheck,
        Self::AddGuard,
        Self::WrapTryCatch,
        Self::AddMethodCall,
        Self::RemoveMethodCall,
        Self::ChangeReturnValue,
        Self::ChangeModifier,
        Self::AddThrowsException,
        Self::DeleteThrowsException,
        Self::InsertStatement,
        Self::DeleteStatement,
        Self::Other,
    ];

    /// The JSON name, e.g. `CHANGE_OPERATOR`.
    pub fn as_str(self) -> &'static str {
        self.names().0
    }

    /// The kind named `name` (its [`ActionKind::as_str`] JSON name), if any. O(kinds).
    pub fn from_name(name: &str) -> Option<ActionKind> {
        ActionKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The verb phrase of the one-line description, e.g. `change operator`.
    pub fn phrase(self) -> &'static str {
        self.names().1
    }

    fn names(self) -> (&'static str, &'static str) {
        use ActionKind::*;
        match self {
            ChangeOperator => ("CHANGE_OPERATOR", "change operator"),
            ChangeUnaryOperator => ("CHANGE_UNARY_OPERATOR", "change unary operator"),
            ChangeOperand => ("CHANGE_OPERAND", "change operand"),
            ChangeLoopBound => ("CHANGE_LOOP_BOUND", "change loop bound"),
            ChangeNumeral => ("CHANGE_NUMERAL", "change numeral"),
            ChangeLiteral => ("CHANGE_LITERAL", "change literal"),
            ChangeIdentifier => ("CHANGE_IDENTIFIER", "change identifier"),
            SwapArguments => ("SWAP_ARGUMENTS", "swap arguments"),
            DifferentMethodSameArgs => ("DIFFERENT_METHOD_SAME_ARGS", "call a different method"),
            MoreArguments => ("MORE_ARGUMENTS", "add arguments"),
            FewerArguments => ("FEWER_ARGUMENTS", "remove arguments"),
            ChangeCaller => ("CHANGE_CALLER", "change caller"),
            MoreSpecificIf => ("MORE_SPECIFIC_IF", "narrow condition"),
            LessSpecificIf => ("LESS_SPECIFIC_IF", "widen condition"),
            AddNullCheck => ("ADD_NULL_CHECK", "add null check"),
            AddGuard => ("ADD_GUARD", "add guard"),
            WrapTryCatch => ("WRAP_TRY_CATCH", "wrap in try-catch"),
            AddMethodCall => ("ADD_METHOD_CALL", "add method call"),
            RemoveMethodCall => ("REMOVE_METHOD_CALL", "remove method call"),
            ChangeReturnValue => ("CHANGE_RETURN_VALUE", "change return value"),
            ChangeModifier => ("CHANGE_MODIFIER", "change modifier"),
            AddThrowsException => ("ADD_THROWS_EXCEPTION", "add thrown exception"),
            DeleteThrowsException => ("DELETE_THROWS_EXCEPTION", "remove thrown exception"),
            InsertStatement => ("INSERT_STATEMENT", "insert statement"),
            DeleteStatement => ("DELETE_STATEMENT", "delete statement"),
            Other => ("OTHER", "other edit"),
        }
    }
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_match_as_str() {
        for k in ActionKind::ALL {
            let json = format!("\"{}\"", k.as_str());
            assert_eq!(serde_json::to_string(&k).unwrap(), json);
        }
    }
}
