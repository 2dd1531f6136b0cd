//! The licence of a repository, recognised from its licence file's text ([`recognise`]).

/// Licence file names looked for at the repository root, case-insensitively, by prefix.
pub const FILE_PREFIXES: [&str; 3] = ["license", "licence", "copying"];

/// Phrases that identify a licence (SPDX id, phrases that must all occur). Checked in
/// order; every match is reported (a dual-licensed project's file names both).
const KNOWN: [(&str, &[&str]); 12] = [
    ("Apache-2.0", &["Apache License", "Version 2.0"]),
    ("MPL-2.0", &["Mozilla Public License", "2.0"]),
    ("LGPL-3.0", &["GNU LESSER GENERAL PUBLIC LICENSE", "Version 3"]),
    ("LGPL-2.1", &["GNU LESSER GENERAL PUBLIC LICENSE", "Version 2.1"]),
    ("GPL-3.0", &["GNU GENERAL PUBLIC LICENSE", "Version 3"]),
    ("GPL-2.0", &["GNU GENERAL PUBLIC LICENSE", "Version 2"]),
    ("EPL-2.0", &["Eclipse Public License", "2.0"]),
    ("EPL-1.0", &["Eclipse Public License", "1.0"]),
    ("BSD-3-Clause", &["Redistribution and use", "Neither the name"]),
    ("BSD-2-Clause", &["Redistribution and use", "THIS SOFTWARE IS PROVIDED"]),
    ("MIT", &["Permission is hereby granted, free of charge"]),
    ("Unlicense", &["This is free and unencumbered software released into the public domain"]),
];

/// The SPDX ids of the licences a licence file's `text` states, joined with ` / ` in the
/// order of the table of known licences (`MPL-2.0 / MIT` for tqdm's dual licence); `None` when none is
/// recognised. A GPL text is not also reported as LGPL (and BSD-3 not also as BSD-2).
pub fn recognise(text: &str) -> Option<String> {
    let upper = text.to_uppercase();
    let has = |phrase: &str| upper.contains(&phrase.to_uppercase());
    let mut found: Vec<&str> = Vec::new();
    for (id, phrases) in KNOWN {
        if !phrases.iter().all(|p| has(p)) {
            continue;
        }
        let shadowed = match id {
            "GPL-3.0" | "GPL-2.0" => found.iter().any(|f| f.starts_with("LGPL") || *f == "GPL-3.0"),
            "LGPL-2.1" => found.contains(&"LGPL-3.0"),
            "BSD-2-Clause" => found.contains(&"BSD-3-Clause"),
            _ => false,
        };
        if !shadowed {
            found.push(id);
        }
    }
    (!found.is_empty()).then(|| found.join(" / "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_licences_are_recognised() {
        assert_eq!(
            recognise(
                "                                 Apache License\n                           Version 2.0, January 2004"
            ),
            Some("Apache-2.0".into())
        );
        let tqdm = "`tqdm` is a product of collaborative work.\nMozilla Public Licence (MPL) v. 2.0 - Exhibit A\n... Mozilla Public License, v. 2.0 ...\nMIT License (MIT)\nPermission is hereby granted, free of charge, to any person";
        assert_eq!(recognise(tqdm), Some("MPL-2.0 / MIT".into()));
        assert_eq!(
            recognise("GNU LESSER GENERAL PUBLIC LICENSE Version 3 ... GNU GENERAL PUBLIC LICENSE"),
            Some("LGPL-3.0".into())
        );
        assert_eq!(recognise("all rights reserved"), None);
    }
}
