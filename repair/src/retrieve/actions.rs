//! What a retrieved fix did: the repair actions stored with each document of an index
//! (format v2 columns `action_label`, `action_reason`, `actions`, filled by `fixdex index`
//! with [`actions::classify`]), read back and written as one line for people and models.

use actions::Action;
use engine::Record;
use serde::{Deserialize, Serialize};

/// Actions shown in one [`FixActions::line`]; the rest are counted.
pub const LINE_ACTIONS: usize = 3;

/// The repair actions of one stored bug-fix pair.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixActions {
    /// The primary label, an [`actions::ActionKind`] JSON name (`CHANGE_OPERATOR`, ...,
    /// `OTHER`); empty when the document was never classified.
    #[serde(default)]
    pub action_label: String,
    /// Why the label is `OTHER` (`parse error`, `mixed edits: …`), when there is a reason.
    #[serde(default)]
    pub action_reason: Option<String>,
    /// The actions, in the order of the buggy code.
    #[serde(default)]
    pub actions: Vec<Action>,
}

impl FixActions {
    /// Reads the action columns of `rec`. O(length of the `actions` column).
    ///
    /// # Errors
    /// [`engine::Error::Corrupt`] naming the document when the `actions` column does not
    /// hold a list of actions this build understands (`fixdex verify` reports the same).
    pub fn of(rec: &Record) -> engine::Result<FixActions> {
        let actions = if rec.actions.is_empty() {
            Vec::new()
        } else {
            serde_json::from_str(&rec.actions).map_err(|e| {
                engine::Error::corrupt(format!(
                    "document {}: the actions column does not hold repair actions: {e}",
                    rec.id
                ))
            })?
        };
        let reason = Some(rec.action_reason.clone()).filter(|r| !r.is_empty());
        Ok(FixActions { action_label: rec.action_label.clone(), action_reason: reason, actions })
    }

    /// One line for people and prompts, `None` for an unclassified document: the first
    /// [`LINE_ACTIONS`] actions' one-liners joined by `; ` (`change operator < → <= in for
    /// condition`), then `(+N more)`; led by the label and its reason when the label is not
    /// the kind of every action (`OTHER (parse error)`, `ADD_NULL_CHECK: insert statement …`).
    pub fn line(&self) -> Option<String> {
        if self.action_label.is_empty() {
            return None;
        }
        let shown: Vec<String> = self.actions.iter().take(LINE_ACTIONS).map(Action::to_string).collect();
        let mut list = shown.join("; ");
        if self.actions.len() > LINE_ACTIONS {
            list.push_str(&format!(" (+{} more)", self.actions.len() - LINE_ACTIONS));
        }
        let uniform = !self.actions.is_empty() && self.actions.iter().all(|a| a.kind.as_str() == self.action_label);
        if uniform {
            return Some(list);
        }
        let mut head = self.action_label.clone();
        if let Some(reason) = &self.action_reason {
            head.push_str(&format!(" ({reason})"));
        }
        Some(if list.is_empty() { head } else { format!("{head}: {list}") })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(i: usize) -> FixActions {
        FixActions::of(&engine::testing::sample_records(4)[i]).unwrap()
    }

    #[test]
    fn lines_of_the_sample_records() {
        assert_eq!(stored(0).line().unwrap(), "change loop bound <= → < in for condition");
        assert_eq!(stored(1).line().unwrap(), "OTHER (parse error)");
        assert_eq!(stored(0).actions[0].kind, actions::ActionKind::ChangeLoopBound);
        assert_eq!(FixActions::of(&Record::default()).unwrap().line(), None);
    }

    #[test]
    fn long_lists_are_cut_and_mixed_ones_led_by_the_label() {
        let mut f = stored(0);
        f.actions = vec![f.actions[0].clone(); 5];
        assert!(f.line().unwrap().ends_with("in for condition (+2 more)"), "{:?}", f.line());
        f.action_label = "OTHER".into();
        f.action_reason = Some("mixed edits".into());
        assert!(f.line().unwrap().starts_with("OTHER (mixed edits): change loop bound"), "{:?}", f.line());
    }

    #[test]
    fn an_unreadable_actions_column_is_corrupt() {
        let rec = Record {
            id: "x".into(),
            action_label: "OTHER".into(),
            actions: "[{\"kind\": 3}]".into(),
            ..Record::default()
        };
        let e = FixActions::of(&rec).unwrap_err().to_string();
        assert!(e.contains("document x") && e.contains("actions column"), "{e}");
    }
}
