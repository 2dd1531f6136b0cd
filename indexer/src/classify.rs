//! Repair actions of every document, computed at index time with [`actions::classify`]
//! and stored in the document columns `action_label`, `action_reason` and `actions`
//! ([`engine::Record::actions`]).

use engine::Record;
use rayon::prelude::*;

/// Fills the action columns of every record, in parallel (rayon, one pair per task).
/// Costs well under a millisecond per typical pair (see [`actions::classify`]); never fails.
pub fn classify_all(docs: &mut [Record]) {
    docs.par_iter_mut().with_min_len(16).for_each(classify);
}

/// Fills the action columns of one record: its language's grammar (Java, Python) diffs
/// buggy → fixed; another language is `OTHER` with the reason `no grammar for language …`.
pub fn classify(rec: &mut Record) {
    let c = match rec.language.parse::<actions::Language>() {
        Ok(lang) => actions::classify(&rec.buggy_code, &rec.fixed_code, lang),
        Err(_) => actions::Classification {
            label: actions::ActionKind::Other,
            actions: Vec::new(),
            reason: Some(format!("no grammar for language {}", rec.language)),
        },
    };
    rec.action_label = c.label.as_str().to_string();
    rec.action_reason = c.reason.unwrap_or_default();
    rec.actions = serde_json::to_string(&c.actions).expect("actions serialise to JSON");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_records_carry_what_classify_gives() {
        let mut docs = engine::testing::sample_records(8);
        let stored = docs.clone();
        classify_all(&mut docs);
        for (got, want) in docs.iter().zip(&stored) {
            assert_eq!(
                (&got.action_label, &got.action_reason, &got.actions),
                (&want.action_label, &want.action_reason, &want.actions),
                "{}",
                got.id
            );
        }
    }

    #[test]
    fn unknown_language_is_other_with_a_reason() {
        let mut r =
            Record { language: "cobol".into(), buggy_code: "a".into(), fixed_code: "b".into(), ..Record::default() };
        classify(&mut r);
        assert_eq!(
            (r.action_label.as_str(), r.action_reason.as_str(), r.actions.as_str()),
            ("OTHER", "no grammar for language cobol", "[]")
        );
        engine::docs::check_action_columns(&r).unwrap();
    }
}
