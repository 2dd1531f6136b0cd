//! Does an excluded id name a record of the index? An id of [`super::Exclusion::ids`] that
//! no record has excludes nothing, which is silent leakage when it is the bug's own record
//! in another form (`Jsoup-41` for the corpus id `defects4j:Jsoup-41`). [`match_ids`] says,
//! per id, whether a record has it and, when none does, which ids are that id in another
//! form. Use for: checking `--bug-id` when an index is opened. Not for: filtering (the
//! engine's filter does that, by exact id).

use engine::Segments;
use serde::{Deserialize, Serialize};

use super::error::RetrieveError;

/// Most ids in another form listed per id ([`IdMatch::similar`]).
pub const MAX_SIMILAR: usize = 5;

/// What one excluded id names in an index ([`match_ids`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdMatch {
    /// The id given (`--bug-id`).
    pub given: String,
    /// Whether a record has exactly this id (it is then excluded).
    pub found: bool,
    /// When no record has it: the ids of the index that are this id in another form, sorted,
    /// at most [`MAX_SIMILAR`]: those equal to it, or ending in `:` and it, after dropping
    /// its own `source:` prefix, case aside (`defects4j:Jsoup-41` for `Jsoup-41`,
    /// `d4j:Jsoup-41` or `defects4j:jsoup-41`). Empty when found or when nothing is similar.
    pub similar: Vec<String>,
}

/// What each of `ids` names in `index`, in order. Cost: O(segments · log n) per id; when
/// some id is not found, one pass over the stored ids of every segment (O(documents),
/// decoding the document batches).
///
/// # Errors
/// [`RetrieveError::Engine`] when a document batch cannot be decoded.
pub fn match_ids(index: &Segments, ids: &[String]) -> Result<Vec<IdMatch>, RetrieveError> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        out.push(IdMatch { given: id.clone(), found: index.contains_id(id)?, similar: Vec::new() });
    }
    let missing: Vec<(usize, String)> = out
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.found)
        .map(|(i, m)| (i, bare(&m.given).to_lowercase()))
        .filter(|(_, tail)| !tail.is_empty())
        .collect();
    if !missing.is_empty() {
        collect_similar(index, &missing, &mut out)?;
    }
    Ok(out)
}

/// Fills [`IdMatch::similar`] of the entries `missing` names (`(position in out, lowercase
/// id without its source prefix)`) from one pass over the ids of `index`.
fn collect_similar(index: &Segments, missing: &[(usize, String)], out: &mut [IdMatch]) -> Result<(), RetrieveError> {
    for segment in index.indexes() {
        segment.docs()?.for_each_fields(["id"], |_, [id]| {
            let lower = id.to_lowercase();
            for (i, tail) in missing {
                let similar = &mut out[*i].similar;
                if is_form_of(&lower, tail) && similar.len() < MAX_SIMILAR && !similar.iter().any(|s| s == id) {
                    similar.push(id.to_string());
                }
            }
            Ok(())
        })?;
    }
    out.iter_mut().for_each(|m| m.similar.sort());
    Ok(())
}

/// `id` without its `source:` prefix (the text before the first `:`), or `id` itself.
fn bare(id: &str) -> &str {
    id.split_once(':').map_or(id, |(_, rest)| rest)
}

/// Whether the stored id `stored` (lowercase) is `tail` (lowercase, without a source
/// prefix) in some form: equal, or ending in `:` and `tail`.
fn is_form_of(stored: &str, tail: &str) -> bool {
    stored == tail || stored.strip_suffix(tail).is_some_and(|head| head.ends_with(':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_of_an_id() {
        assert_eq!(bare("Jsoup-41"), "Jsoup-41");
        assert_eq!(bare("d4j:Jsoup-41"), "Jsoup-41");
        assert_eq!(bare("quixbugs:BITCOUNT"), "BITCOUNT");
        assert!(is_form_of("defects4j:jsoup-41", "jsoup-41"));
        assert!(is_form_of("quixbugs:java:bitcount", "bitcount"));
        assert!(is_form_of("jsoup-41", "jsoup-41"));
        assert!(!is_form_of("defects4j:jsoup-411", "jsoup-41"));
        assert!(!is_form_of("defects4j:xjsoup-41", "jsoup-41"));
    }
}
