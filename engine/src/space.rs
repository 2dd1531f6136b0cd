//! [`Space`]: the named vector spaces an index can hold.

use std::fmt;
use std::str::FromStr;

use crate::Error;

/// A named vector space: which parts of a bug-fix pair were embedded.
///
/// - `code+cause` (default): root cause ⊕ buggy code, the ReinFix retrieval key
///   (ReinFix §3.2, eq. 3).
/// - `code`: buggy code only, the RAP-Gen-style baseline.
/// - `cause`: root cause only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Space {
    /// Root cause ⊕ buggy code.
    #[default]
    CodeCause,
    /// Buggy code only.
    Code,
    /// Root cause only.
    Cause,
}

impl Space {
    /// Every space, in canonical order.
    pub const ALL: [Space; 3] = [Space::CodeCause, Space::Code, Space::Cause];

    /// The space's name as the CLI and the index metadata spell it.
    pub fn name(self) -> &'static str {
        match self {
            Space::CodeCause => "code+cause",
            Space::Code => "code",
            Space::Cause => "cause",
        }
    }

    /// Parses a comma-separated list such as `code+cause,code`, without duplicates.
    ///
    /// # Errors
    /// [`Error::UnknownSpace`] for a name that is not a space; [`Error::InvalidParameter`]
    /// for an empty list or a repeated name.
    pub fn parse_list(list: &str) -> Result<Vec<Space>, Error> {
        let mut out = Vec::new();
        for name in list.split(',').map(str::trim) {
            let s: Space = name.parse()?;
            if out.contains(&s) {
                return Err(Error::InvalidParameter { name: "--spaces", reason: format!("`{name}` is listed twice") });
            }
            out.push(s);
        }
        Ok(out)
    }
}

impl FromStr for Space {
    type Err = Error;

    fn from_str(s: &str) -> Result<Space, Error> {
        Space::ALL.into_iter().find(|sp| sp.name() == s).ok_or_else(|| Error::UnknownSpace(s.to_string()))
    }
}

/// Serialized by its [`name`](Space::name) (`"code+cause"`, `"code"`, `"cause"`).
impl serde::Serialize for Space {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Deserialized from its name through [`FromStr`]; an unknown name is an error with the
/// same text as [`Error::UnknownSpace`].
impl<'de> serde::Deserialize<'de> for Space {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Space, D::Error> {
        <String as serde::Deserialize>::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Space::ALL {
            assert_eq!(s.name().parse::<Space>().unwrap(), s);
        }
        assert_eq!(Space::parse_list("code+cause, code").unwrap(), vec![Space::CodeCause, Space::Code]);
    }

    #[test]
    fn unknown_and_repeated_names_are_refused() {
        let e = "codes".parse::<Space>().unwrap_err();
        assert!(e.to_string().contains("unknown vector space `codes`"), "{e}");
        assert!(Space::parse_list("code,code").is_err());
        assert!(Space::parse_list("").is_err());
    }

    #[test]
    fn serde_uses_the_names() {
        for s in Space::ALL {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.name()));
            assert_eq!(serde_json::from_str::<Space>(&json).unwrap(), s);
        }
        let e = serde_json::from_str::<Space>("\"codes\"").unwrap_err();
        assert!(e.to_string().contains("unknown vector space `codes`"), "{e}");
    }
}
