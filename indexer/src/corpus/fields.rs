//! Field extraction and validation rules shared by every corpus format.
//!
//! A reader turns one row into a [`RawRow`] (one [`Raw`] value per [`Field`], without
//! judging it), and [`Rules::record`] applies the rules of the table in
//! [`corpus`](super) to turn it into an [`engine::Record`] or a [`Bad`] naming the field.
//! Keeping the rules here, away from the formats, is what makes a JSONL file and a Parquet
//! file with the same rows read back equal.

use std::path::Path;

use engine::Record;
use engine::text::is_blank;

use super::ReadOptions;
use crate::Error;

/// The `project` stored when the corpus has none.
pub(crate) const UNKNOWN_PROJECT: &str = "unknown";

/// A field value as a reader found it, before validation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Raw {
    /// The field (or column) is absent.
    #[default]
    Missing,
    /// JSON `null` or an Arrow null.
    Null,
    /// A string, exactly as in the input.
    Str(String),
    /// A value of another type; the payload names it (`number`, `boolean`, `array`, ...).
    Other(&'static str),
}

/// The fields the readers extract; each has one slot in a [`RawRow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Id,
    Source,
    Project,
    Language,
    BuggyCode,
    FixedCode,
    RootCause,
    Description,
    License,
    Meta,
    /// The field named by `--cause-field` when it is none of the above.
    Cause,
}

impl Field {
    /// The fields with a fixed name, i.e. all but [`Field::Cause`].
    pub(crate) const KNOWN: [Field; 10] = [
        Field::Id,
        Field::Source,
        Field::Project,
        Field::Language,
        Field::BuggyCode,
        Field::FixedCode,
        Field::RootCause,
        Field::Description,
        Field::License,
        Field::Meta,
    ];

    /// Number of slots in a [`RawRow`].
    const COUNT: usize = 11;

    /// The corpus name of a known field; `Cause` has no fixed name (see [`Rules::wanted`]).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Field::Id => "id",
            Field::Source => "source",
            Field::Project => "project",
            Field::Language => "language",
            Field::BuggyCode => "buggy_code",
            Field::FixedCode => "fixed_code",
            Field::RootCause => "root_cause",
            Field::Description => "description",
            Field::License => "license",
            Field::Meta => "meta",
            Field::Cause => "<cause>",
        }
    }

    /// Whether a record without this field is refused.
    pub(crate) fn required(self) -> bool {
        matches!(self, Field::Id | Field::Language | Field::BuggyCode | Field::FixedCode)
    }
}

/// The raw values of one row, one slot per [`Field`].
#[derive(Debug, Clone, Default)]
pub(crate) struct RawRow([Raw; Field::COUNT]);

impl RawRow {
    /// Stores the value of `field`, replacing an earlier one (the last duplicate key wins).
    pub(crate) fn set(&mut self, field: Field, value: Raw) {
        self.0[field as usize] = value;
    }

    /// Moves the value of `field` out, leaving [`Raw::Missing`].
    fn take(&mut self, field: Field) -> Raw {
        std::mem::take(&mut self.0[field as usize])
    }

    /// The value of `field`.
    fn get(&self, field: Field) -> &Raw {
        &self.0[field as usize]
    }
}

/// A row that breaks a rule: the field (as the corpus names it) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bad {
    pub(crate) field: String,
    pub(crate) reason: String,
}

impl Bad {
    /// A rule violation on `field`.
    pub(crate) fn new(field: impl Into<String>, reason: impl Into<String>) -> Bad {
        Bad { field: field.into(), reason: reason.into() }
    }

    /// The [`Error::Row`] for this violation at 1-based `row` of `path`.
    pub(crate) fn at(self, path: &Path, row: u64) -> Error {
        Error::Row { path: path.to_path_buf(), row, field: self.field, reason: self.reason }
    }
}

/// Where the root cause comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum CauseSource {
    /// `root_cause` when non-blank, else `description`.
    Auto,
    /// A known field, e.g. `description`.
    Known(Field),
    /// A field the schema does not know, by name; filled into [`Field::Cause`].
    Custom(String),
}

/// The validation rules, configured by [`ReadOptions`].
#[derive(Debug, Clone)]
pub(crate) struct Rules {
    cause: CauseSource,
}

impl Rules {
    /// Rules for `opts`: `cause_field: None` selects the root cause automatically.
    pub(crate) fn new(opts: &ReadOptions) -> Rules {
        let cause = match opts.cause_field.as_deref() {
            None => CauseSource::Auto,
            Some(name) => match known(name) {
                Some(field) => CauseSource::Known(field),
                None => CauseSource::Custom(name.to_string()),
            },
        };
        Rules { cause }
    }

    /// The slot that a corpus field called `name` fills, if the readers want it.
    pub(crate) fn slot(&self, name: &str) -> Option<Field> {
        match &self.cause {
            CauseSource::Custom(custom) if custom == name => Some(Field::Cause),
            _ => known(name),
        }
    }

    /// Every field the readers should look for, with its corpus name.
    pub(crate) fn wanted(&self) -> impl Iterator<Item = (Field, &str)> {
        let custom = match &self.cause {
            CauseSource::Custom(name) => Some((Field::Cause, name.as_str())),
            _ => None,
        };
        Field::KNOWN.iter().map(|&f| (f, f.name())).chain(custom)
    }

    /// Validates `row` and builds the record, or names the first field that breaks a rule.
    pub(crate) fn record(&self, mut row: RawRow) -> Result<Record, Bad> {
        let root_cause = self.root_cause(&row)?;
        let record = Record {
            id: non_blank(Field::Id, required(&mut row, Field::Id)?)?,
            source: optional(&mut row, Field::Source)?.unwrap_or_default(),
            project: project(optional(&mut row, Field::Project)?),
            language: language(required(&mut row, Field::Language)?)?,
            buggy_code: non_blank(Field::BuggyCode, required(&mut row, Field::BuggyCode)?)?,
            fixed_code: required(&mut row, Field::FixedCode)?,
            root_cause,
            description: optional(&mut row, Field::Description)?.unwrap_or_default(),
            license: optional(&mut row, Field::License)?.unwrap_or_default(),
            meta: meta(row.take(Field::Meta))?,
            // Computed by the build (crate::classify), never read from the corpus.
            ..Record::default()
        };
        changes_something(&record.buggy_code, &record.fixed_code)?;
        Ok(record)
    }

    /// The root cause of `row` under the configured [`CauseSource`].
    fn root_cause(&self, row: &RawRow) -> Result<String, Bad> {
        match &self.cause {
            CauseSource::Auto => auto_cause(row),
            CauseSource::Known(field) => Ok(peek(row, *field, field.name())?.unwrap_or_default()),
            CauseSource::Custom(name) => Ok(peek(row, Field::Cause, name)?.unwrap_or_default()),
        }
    }
}

/// The known field called `name`.
fn known(name: &str) -> Option<Field> {
    Field::KNOWN.into_iter().find(|f| f.name() == name)
}

/// `root_cause` when present and non-blank, else `description`, else "".
fn auto_cause(row: &RawRow) -> Result<String, Bad> {
    let root_cause = peek(row, Field::RootCause, Field::RootCause.name())?;
    match root_cause {
        Some(cause) if !is_blank(&cause) => Ok(cause),
        _ => Ok(peek(row, Field::Description, Field::Description.name())?.unwrap_or_default()),
    }
}

/// A copy of an optional string field (`name` is how errors call it).
fn peek(row: &RawRow, field: Field, name: &str) -> Result<Option<String>, Bad> {
    match row.get(field) {
        Raw::Missing | Raw::Null => Ok(None),
        Raw::Str(s) => Ok(Some(s.clone())),
        Raw::Other(kind) => Err(Bad::new(name, expected_string(kind))),
    }
}

/// An optional string field: missing and null give `None`, other types are refused.
fn optional(row: &mut RawRow, field: Field) -> Result<Option<String>, Bad> {
    match row.take(field) {
        Raw::Missing | Raw::Null => Ok(None),
        Raw::Str(s) => Ok(Some(s)),
        Raw::Other(kind) => Err(Bad::new(field.name(), expected_string(kind))),
    }
}

/// A required string field: it must be present and a string (it may still be empty).
fn required(row: &mut RawRow, field: Field) -> Result<String, Bad> {
    debug_assert!(field.required());
    match row.take(field) {
        Raw::Str(s) => Ok(s),
        Raw::Missing => Err(Bad::new(field.name(), "required field is missing")),
        Raw::Null => Err(Bad::new(field.name(), expected_string("null"))),
        Raw::Other(kind) => Err(Bad::new(field.name(), expected_string(kind))),
    }
}

/// `s` unchanged, unless it is [blank](is_blank).
fn non_blank(field: Field, s: String) -> Result<String, Bad> {
    if s.trim().is_empty() {
        return Err(Bad::new(field.name(), "must not be empty or only whitespace"));
    }
    if is_blank(&s) {
        let c = s.chars().find(|c| !c.is_whitespace()).unwrap_or(' ');
        let reason = format!(
            "holds only whitespace and invisible characters (such as U+{:04X}: zero-width, control or \
             combining characters), which embed like an empty string",
            u32::from(c)
        );
        return Err(Bad::new(field.name(), reason));
    }
    Ok(s)
}

/// Refuses a no-op fix: `fixed` equal to `buggy` once line endings (`\r\n`, `\n`) and
/// trailing whitespace (at the end of each line and of the text) are ignored. Such a fix
/// changes no token a compiler sees, and would come back as a perfect match with an empty
/// diff. Leading whitespace counts (Python indentation is code). O(length).
fn changes_something(buggy: &str, fixed: &str) -> Result<(), Bad> {
    if buggy == fixed || code_lines(buggy).eq(code_lines(fixed)) {
        let how = if buggy == fixed { "byte for byte" } else { "but for line endings and trailing whitespace" };
        let reason = format!("equals buggy_code {how}: a no-op fix, with nothing to retrieve");
        return Err(Bad::new(Field::FixedCode.name(), reason));
    }
    Ok(())
}

/// The lines of `s` without line endings and trailing whitespace, trailing blank lines
/// dropped.
fn code_lines(s: &str) -> impl Iterator<Item = &str> {
    s.trim_end().lines().map(str::trim_end)
}

/// The language, trimmed and lower-cased.
fn language(s: String) -> Result<String, Bad> {
    Ok(non_blank(Field::Language, s)?.trim().to_lowercase())
}

/// The project, or [`UNKNOWN_PROJECT`] when missing or blank.
fn project(s: Option<String>) -> String {
    match s {
        Some(s) if !is_blank(&s) => s,
        _ => UNKNOWN_PROJECT.to_string(),
    }
}

/// The meta text: readers pass a JSON object as its compact text in [`Raw::Str`].
fn meta(raw: Raw) -> Result<String, Bad> {
    match raw {
        Raw::Missing | Raw::Null => Ok(String::new()),
        Raw::Str(s) => Ok(s),
        Raw::Other(kind) => Err(Bad::new(Field::Meta.name(), format!("expected a JSON object, found {kind}"))),
    }
}

/// The reason for a value of the wrong type.
fn expected_string(found: &str) -> String {
    format!("expected a string, found {found}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A valid row; tests change one field at a time.
    fn row(fields: &[(Field, Raw)]) -> RawRow {
        let mut row = RawRow::default();
        row.set(Field::Id, Raw::Str("t:1".into()));
        row.set(Field::Language, Raw::Str(" Java ".into()));
        row.set(Field::BuggyCode, Raw::Str("  a(); ".into()));
        row.set(Field::FixedCode, Raw::Str("".into()));
        for (field, value) in fields {
            row.set(*field, value.clone());
        }
        row
    }

    fn str(s: &str) -> Raw {
        Raw::Str(s.to_string())
    }

    fn auto() -> Rules {
        Rules::new(&ReadOptions::default())
    }

    fn cause(name: &str) -> Rules {
        Rules::new(&ReadOptions { cause_field: Some(name.to_string()) })
    }

    fn bad(field: &str, reason: &str) -> Bad {
        Bad::new(field, reason)
    }

    #[test]
    fn defaults_and_normalisation() {
        let r = auto().record(row(&[])).unwrap();
        assert_eq!(r.language, "java");
        assert_eq!(r.buggy_code, "  a(); ", "code is kept exactly");
        assert_eq!(r.fixed_code, "", "a deletion fix is allowed");
        assert_eq!(r.project, UNKNOWN_PROJECT);
        assert_eq!((r.source, r.root_cause, r.description, r.license, r.meta), Default::default());
    }

    #[test]
    fn blank_project_is_unknown_and_null_optionals_default() {
        let r = auto().record(row(&[(Field::Project, str(" ")), (Field::License, Raw::Null)])).unwrap();
        assert_eq!((r.project.as_str(), r.license.as_str()), (UNKNOWN_PROJECT, ""));
    }

    #[test]
    fn required_fields_are_checked() {
        let cases = [
            (Field::Id, Raw::Missing, bad("id", "required field is missing")),
            (Field::Id, str(" \t"), bad("id", "must not be empty or only whitespace")),
            (Field::Language, str(""), bad("language", "must not be empty or only whitespace")),
            (Field::BuggyCode, str(" \n "), bad("buggy_code", "must not be empty or only whitespace")),
            (Field::BuggyCode, Raw::Null, bad("buggy_code", "expected a string, found null")),
            (Field::BuggyCode, Raw::Other("number"), bad("buggy_code", "expected a string, found number")),
            (Field::FixedCode, Raw::Missing, bad("fixed_code", "required field is missing")),
        ];
        for (field, value, want) in cases {
            assert_eq!(auto().record(row(&[(field, value)])).unwrap_err(), want);
        }
    }

    /// Issue 8 item 5: only zero-width, control or combining characters is blank.
    #[test]
    fn issue_8_invisible_only_values_are_blank() {
        for (field, value) in [
            (Field::BuggyCode, "\u{200B}"),
            (Field::BuggyCode, " \u{200B}\u{200C}\u{200D}\u{2060}\n"),
            (Field::BuggyCode, "\t\u{200B}\u{7}\u{301}\u{20DD}\u{FEFF}"),
            (Field::Id, "\u{200B}"),
            (Field::Language, "\u{200B} "),
        ] {
            let err = auto().record(row(&[(field, str(value))])).unwrap_err();
            assert_eq!(err.field, field.name(), "{value:?}");
            assert!(err.reason.starts_with("holds only whitespace and invisible"), "{value:?}: {err:?}");
        }
        let err = auto().record(row(&[(Field::BuggyCode, str("\u{301}"))])).unwrap_err();
        assert!(err.reason.contains("U+0301"), "{err:?}");
        for visible in ["\u{200B}x", "e\u{301}", "\u{00A0}é", "変数"] {
            assert!(auto().record(row(&[(Field::BuggyCode, str(visible))])).is_ok(), "{visible:?}");
        }
        let r = auto().record(row(&[
            (Field::Project, str("\u{200B}")),
            (Field::RootCause, str("\u{200B}")),
            (Field::Description, str("d")),
        ]));
        let r = r.unwrap();
        assert_eq!((r.project.as_str(), r.root_cause.as_str()), (UNKNOWN_PROJECT, "d"));
    }

    /// Issue 8 item 7: a fix equal to the buggy code (but for line endings and trailing
    /// whitespace) is refused on `fixed_code`; other whitespace changes are fixes.
    #[test]
    fn issue_8_noop_fix_is_refused() {
        let same = |b: &str, f: &str| auto().record(row(&[(Field::BuggyCode, str(b)), (Field::FixedCode, str(f))]));
        let err = same("a();\nb();", "a();\nb();").unwrap_err();
        assert_eq!(err.field, "fixed_code");
        assert!(err.reason.contains("byte for byte") && err.reason.contains("no-op"), "{err:?}");
        for fixed in ["a();\r\nb();\r\n", "a();   \nb();\t\n\n\n", "a();\nb(); "] {
            let err = same("a();\nb();", fixed).unwrap_err();
            assert!(err.reason.contains("line endings and trailing whitespace"), "{fixed:?}: {err:?}");
        }
        for fixed in ["  a();\nb();", "a();\n\nb();", "a(); b();", "a();\nb();\nc();", ""] {
            assert!(same("a();\nb();", fixed).is_ok(), "{fixed:?}");
        }
    }

    #[test]
    fn optional_fields_of_the_wrong_type_are_refused() {
        let err = auto().record(row(&[(Field::Project, Raw::Other("array"))])).unwrap_err();
        assert_eq!(err, bad("project", "expected a string, found array"));
        let err = auto().record(row(&[(Field::Meta, Raw::Other("string"))])).unwrap_err();
        assert_eq!(err, bad("meta", "expected a JSON object, found string"));
    }

    #[test]
    fn auto_cause_prefers_root_cause_then_description() {
        let both = [(Field::RootCause, str("rc")), (Field::Description, str("desc"))];
        assert_eq!(auto().record(row(&both)).unwrap().root_cause, "rc");
        let blank = [(Field::RootCause, str("  ")), (Field::Description, str("desc"))];
        let r = auto().record(row(&blank)).unwrap();
        assert_eq!((r.root_cause.as_str(), r.description.as_str()), ("desc", "desc"));
        let null = [(Field::RootCause, Raw::Null), (Field::Description, str("d"))];
        assert_eq!(auto().record(row(&null)).unwrap().root_cause, "d");
    }

    #[test]
    fn explicit_cause_field() {
        let fields = [(Field::RootCause, str("rc")), (Field::Description, str("desc"))];
        assert_eq!(cause("description").record(row(&fields)).unwrap().root_cause, "desc");
        let rules = cause("diagnosis");
        assert_eq!(rules.slot("diagnosis"), Some(Field::Cause));
        assert_eq!(rules.record(row(&fields)).unwrap().root_cause, "", "missing custom field");
        let custom = [(Field::Cause, str("npe"))];
        assert_eq!(rules.record(row(&custom)).unwrap().root_cause, "npe");
        let wrong = [(Field::Cause, Raw::Other("number"))];
        assert_eq!(rules.record(row(&wrong)).unwrap_err(), bad("diagnosis", "expected a string, found number"));
    }

    #[test]
    fn wanted_lists_known_fields_and_the_custom_cause() {
        assert_eq!(auto().wanted().count(), 10);
        assert_eq!(cause("description").wanted().count(), 10);
        assert_eq!(cause("why").wanted().last(), Some((Field::Cause, "why")));
        assert_eq!(auto().slot("diff"), None);
    }
}
