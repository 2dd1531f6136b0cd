//! Project identity: which project names denote the same code base?
//!
//! Benchmarks name their projects briefly (Defects4J `Closure`, BugsInPy `pandas`), while
//! corpora mined from GitHub use `owner/name` (`google/closure-compiler`,
//! `pandas-dev/pandas`). Leakage control must treat them as one project: excluding
//! `Closure` must also drop the mined history of `google/closure-compiler`, which holds
//! later versions of the very functions the benchmark asks to repair.
//!
//! [`KNOWN_PROJECTS`] lists the 17 Defects4J projects, the 17 BugsInPy projects and
//! QuixBugs with their GitHub repositories (current location first, then former ones).
//! Names are compared after [`normalize`]: case-insensitively, without a
//! `https://github.com/` prefix, a `.git` suffix or a trailing `/`; a bare repository name
//! (`commons-cli`, as `fixdex mine` names a project after its bundle), or a fork's
//! (`someone/commons-cli`), is its project's too ([`lookup`]). A name that is not in the
//! table is its own identity; [`look_alikes`] finds the names that resemble a project's
//! without being it, for a warning.
//!
//! ```
//! use engine::projects::{identity, same_project};
//!
//! assert!(same_project("Closure", "google/closure-compiler"));
//! assert!(same_project("https://github.com/Google/Closure-Compiler.git", "closure"));
//! assert!(same_project("httpie", "jakubroztocil/httpie"));
//! assert!(!same_project("Lang", "apache/commons-io"));
//! assert_eq!(identity("netty/netty"), identity("Netty/Netty"));
//! ```

/// A benchmark project and the GitHub repositories its code lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownProject {
    /// The benchmark: `Defects4J`, `BugsInPy` or `QuixBugs`.
    pub benchmark: &'static str,
    /// The benchmark's name for the project, e.g. `Closure`, `pandas`.
    pub name: &'static str,
    /// GitHub `owner/name` of the repository: the current location first, then former ones.
    pub repositories: &'static [&'static str],
}

const fn p(benchmark: &'static str, name: &'static str, repositories: &'static [&'static str]) -> KnownProject {
    KnownProject { benchmark, name, repositories }
}

/// The benchmark projects fixdex knows, with their upstream repositories.
pub const KNOWN_PROJECTS: &[KnownProject] = &[
    p("Defects4J", "Chart", &["jfree/jfreechart"]),
    p("Defects4J", "Cli", &["apache/commons-cli"]),
    p("Defects4J", "Closure", &["google/closure-compiler"]),
    p("Defects4J", "Codec", &["apache/commons-codec"]),
    p("Defects4J", "Collections", &["apache/commons-collections"]),
    p("Defects4J", "Compress", &["apache/commons-compress"]),
    p("Defects4J", "Csv", &["apache/commons-csv"]),
    p("Defects4J", "Gson", &["google/gson"]),
    p("Defects4J", "JacksonCore", &["FasterXML/jackson-core"]),
    p("Defects4J", "JacksonDatabind", &["FasterXML/jackson-databind"]),
    p("Defects4J", "JacksonXml", &["FasterXML/jackson-dataformat-xml"]),
    p("Defects4J", "Jsoup", &["jhy/jsoup"]),
    p("Defects4J", "JxPath", &["apache/commons-jxpath"]),
    p("Defects4J", "Lang", &["apache/commons-lang"]),
    p("Defects4J", "Math", &["apache/commons-math"]),
    p("Defects4J", "Mockito", &["mockito/mockito"]),
    p("Defects4J", "Time", &["JodaOrg/joda-time"]),
    p("BugsInPy", "ansible", &["ansible/ansible"]),
    p("BugsInPy", "black", &["psf/black", "python/black", "ambv/black"]),
    p("BugsInPy", "cookiecutter", &["cookiecutter/cookiecutter", "audreyr/cookiecutter", "audreyfeldroy/cookiecutter"]),
    p("BugsInPy", "fastapi", &["fastapi/fastapi", "tiangolo/fastapi"]),
    p("BugsInPy", "httpie", &["httpie/cli", "httpie/httpie", "jakubroztocil/httpie"]),
    p("BugsInPy", "keras", &["keras-team/keras", "fchollet/keras"]),
    p("BugsInPy", "luigi", &["spotify/luigi"]),
    p("BugsInPy", "matplotlib", &["matplotlib/matplotlib"]),
    p("BugsInPy", "pandas", &["pandas-dev/pandas", "pydata/pandas"]),
    p("BugsInPy", "PySnooper", &["cool-RR/PySnooper"]),
    p("BugsInPy", "sanic", &["sanic-org/sanic", "huge-success/sanic", "channelcat/sanic"]),
    p("BugsInPy", "scrapy", &["scrapy/scrapy"]),
    p("BugsInPy", "spacy", &["explosion/spaCy"]),
    p("BugsInPy", "thefuck", &["nvbn/thefuck"]),
    p("BugsInPy", "tornado", &["tornadoweb/tornado", "facebook/tornado"]),
    p("BugsInPy", "tqdm", &["tqdm/tqdm", "noamraph/tqdm"]),
    p("BugsInPy", "youtube-dl", &["ytdl-org/youtube-dl", "rg3/youtube-dl"]),
    p("QuixBugs", "QuixBugs", &["jkoppel/QuixBugs"]),
];

/// `name` as compared: trimmed, lower case, without a GitHub URL prefix (`https://`,
/// `http://`, `git@github.com:`, `www.`, `github.com/`), a trailing `/` or a `.git` suffix.
pub fn normalize(name: &str) -> String {
    let mut s = name.trim().to_lowercase();
    for prefix in ["https://", "http://", "git@github.com:", "www.", "github.com/"] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest.to_string();
        }
    }
    let s = s.trim_end_matches('/');
    s.strip_suffix(".git").unwrap_or(s).to_string()
}

/// The known project `name` denotes (by benchmark name or any of its repositories, after
/// [`normalize`]), if any; else by a repository's own name when exactly one project has a
/// repository so named: a bare name (`commons-cli` → Defects4J `Cli`, `closure-compiler` →
/// `Closure`: the name `fixdex mine` gives a project by default is its folder's or
/// bundle's) or a fork's `owner/name` (`someone/commons-cli`, the same code base), but not
/// an `owner/name` whose name is another project's benchmark name (`urfave/cli` is not
/// httpie's `httpie/cli`). Leakage control errs towards excluding. O(table size).
pub fn lookup(name: &str) -> Option<&'static KnownProject> {
    let n = normalize(name);
    let known = KNOWN_PROJECTS
        .iter()
        .find(|k| k.name.eq_ignore_ascii_case(&n) || k.repositories.iter().any(|r| r.eq_ignore_ascii_case(&n)));
    let tail = n.rsplit('/').next().unwrap_or(&n);
    if known.is_some() || tail.is_empty() {
        return known;
    }
    let own_name = |r: &&str| r.rsplit('/').next().is_some_and(|t| t.eq_ignore_ascii_case(tail));
    let mut by_repository = KNOWN_PROJECTS.iter().filter(|k| k.repositories.iter().any(own_name));
    let (Some(k), None) = (by_repository.next(), by_repository.next()) else { return None };
    // A fork's `owner/cli` is not httpie's `httpie/cli` (`cli` names Defects4J's Cli).
    let names_another = KNOWN_PROJECTS.iter().any(|o| o.name != k.name && o.name.eq_ignore_ascii_case(tail));
    (!(n.contains('/') && names_another)).then_some(k)
}

/// The names of `names` that look like project `name`'s (the same letters and digits, case
/// and punctuation aside, as `name` or one of its repositories' own names, or holding the
/// latter when it is 5 characters or longer: `commons_cli`, `org.apache.commons:commons-cli`,
/// `commons-cli-master` for `Cli`) but are not `name` by [`identity`]: names a leakage check
/// warns about, since excluding `name` keeps them. O(names · repositories).
pub fn look_alikes<'a>(name: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let bare = |s: &str| -> String { s.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_lowercase() };
    let id = identity(name);
    let mut own: Vec<String> = vec![bare(name)];
    if let Some(k) = lookup(name) {
        own.extend(k.repositories.iter().map(|r| bare(r.rsplit('/').next().unwrap_or(r))));
    }
    let mut out: Vec<String> = names
        .into_iter()
        .filter(|n| identity(n) != id)
        .filter(|n| {
            let b = bare(n);
            own.iter().any(|o| !o.is_empty() && (b == *o || (o.len() >= 5 && b.contains(o.as_str()))))
        })
        .map(String::from)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The identity of project `name`: `benchmark:name` (lower case) for a known project,
/// else the [normalized](normalize) name. Two names denote the same project exactly when
/// their identities are equal.
pub fn identity(name: &str) -> String {
    match lookup(name) {
        Some(k) => format!("{}:{}", k.benchmark, k.name).to_lowercase(),
        None => normalize(name),
    }
}

/// Whether `a` and `b` denote the same project (see [`identity`]).
pub fn same_project(a: &str, b: &str) -> bool {
    identity(a) == identity(b)
}

/// Up to `n` names from `candidates` closest to `value`, best first, for "did you mean"
/// messages: same project identity or same spelling ignoring case first, then by edit
/// distance (of the whole name, or of its part after `owner/`) within a third of the
/// length (at least 2). Never returns `value` itself.
pub fn closest<'a>(value: &str, candidates: impl IntoIterator<Item = &'a str>, n: usize) -> Vec<String> {
    let (want, id) = (value.to_lowercase(), identity(value));
    let limit = (want.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter(|c| *c != value)
        .filter_map(|c| {
            let lower = c.to_lowercase();
            let tail = lower.rsplit('/').next().unwrap_or(&lower);
            let d = if identity(c) == id {
                0
            } else if want.chars().count() >= 3 && lower.contains(&want) {
                // `commons` → `apache/commons-cli`: a part of the name given.
                1
            } else {
                levenshtein(&want, &lower).min(levenshtein(&want, tail))
            };
            (d <= limit).then_some((d, c))
        })
        .collect();
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(n).map(|(_, c)| c.to_string()).collect()
}

/// ([`closest`], 0), or, when no name is close, (the first [`LIST_ALL`] names in sorted
/// order, how many names there are): a user who guessed wrong sees what there is (`--lang
/// cobol` → `java`, `python`), or for many projects how they are spelled (`owner/name`).
pub fn closest_or_all<'a>(
    value: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> (Vec<String>, usize) {
    let all: Vec<&str> = candidates.into_iter().collect();
    let close = closest(value, all.iter().copied(), n);
    if !close.is_empty() {
        return (close, 0);
    }
    let mut all: Vec<String> = all.into_iter().map(String::from).collect();
    all.sort_unstable();
    all.dedup();
    let count = all.len();
    all.truncate(LIST_ALL);
    (all, count)
}

/// Most names [`closest_or_all`] lists when none is close.
pub const LIST_ALL: usize = 8;

/// Edit distance (insertions, deletions, substitutions) between `a` and `b`, in
/// characters. O(|a| · |b|).
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_benchmark_name_and_repository_maps_to_its_project() {
        assert_eq!(KNOWN_PROJECTS.iter().filter(|k| k.benchmark == "Defects4J").count(), 17);
        assert_eq!(KNOWN_PROJECTS.iter().filter(|k| k.benchmark == "BugsInPy").count(), 17);
        for k in KNOWN_PROJECTS {
            for r in k.repositories {
                assert!(same_project(k.name, r), "{} / {r}", k.name);
                assert!(same_project(&format!("https://github.com/{r}.git"), &k.name.to_uppercase()));
            }
        }
        let ids: std::collections::HashSet<String> = KNOWN_PROJECTS.iter().map(|k| identity(k.name)).collect();
        assert_eq!(ids.len(), KNOWN_PROJECTS.len(), "two table entries share a name or repository");
    }

    #[test]
    fn a_bare_repository_name_is_its_project() {
        // What `fixdex mine` names a project after: its folder or bundle.
        assert!(same_project("commons-cli", "Cli"));
        assert!(same_project("Closure-Compiler", "google/closure-compiler"));
        assert!(same_project("joda-time", "Time"));
        assert!(same_project("jackson-dataformat-xml", "JacksonXml"));
        assert!(same_project("youtube-dl", "rg3/youtube-dl"));
        assert!(!same_project("commons-cli", "Lang"));
        // A fork's `owner/name` is its project too, but for a name another project has.
        assert!(same_project("someone/commons-cli", "Cli"));
        assert!(same_project("https://github.com/me/gson.git", "Gson"));
        assert!(!same_project("urfave/cli", "httpie") && !same_project("urfave/cli", "Cli"));
        assert_eq!(identity("commons-cli2"), "commons-cli2");
        // Every repository's own name is unique in the table, so each maps back, but one
        // that is another project's benchmark name: `cli` (httpie/cli) is Defects4J's Cli.
        assert!(same_project("cli", "Cli") && !same_project("cli", "httpie"));
        for k in KNOWN_PROJECTS {
            for r in k.repositories {
                let tail = r.rsplit('/').next().unwrap();
                if KNOWN_PROJECTS.iter().any(|o| o.name.eq_ignore_ascii_case(tail) && o.name != k.name) {
                    continue;
                }
                assert!(same_project(tail, k.name), "{tail} / {}", k.name);
            }
        }
    }

    #[test]
    fn look_alikes_are_names_like_the_projects_that_are_not_it() {
        let names = [
            "commons-cli",
            "apache/commons-cli",
            "commons_cli",
            "org.apache.commons:commons-cli",
            "commons-cli\u{200b}",
            "commons-cli-master",
            "apache/commons-lang",
            "clickhouse",
            "CLI",
        ];
        assert_eq!(
            look_alikes("Cli", names),
            ["commons-cli-master", "commons-cli\u{200b}", "commons_cli", "org.apache.commons:commons-cli"]
        );
        assert!(look_alikes("netty/netty", ["netty/netty", "Netty/Netty"]).is_empty());
        assert_eq!(look_alikes("netty/netty", ["netty_netty", "netty"]), ["netty_netty"]);
    }

    #[test]
    fn unknown_names_are_their_own_identity() {
        assert!(same_project("netty/netty", "https://github.com/Netty/Netty/"));
        assert!(!same_project("netty/netty", "netty"));
        assert!(!same_project("Lang", "apache/commons-io"));
        assert_eq!(normalize("  git@github.com:Foo/Bar.git "), "foo/bar");
    }

    #[test]
    fn closest_names() {
        let names = ["Lang", "Math", "google/closure-compiler", "Closure", "apache/commons-lang", "proj1"];
        assert_eq!(closest("lang", names, 3), vec!["Lang", "apache/commons-lang"]);
        assert_eq!(closest("closure", names, 3), vec!["Closure", "google/closure-compiler"]);
        assert_eq!(closest("proj", names, 3), vec!["proj1"]);
        assert!(closest("zzzzzzzz", names, 3).is_empty());
        // A part of a name is close to it.
        assert_eq!(closest("commons", names, 3), vec!["apache/commons-lang"]);
        assert_eq!(closest("compiler", names, 3), vec!["google/closure-compiler"]);
        // Nothing close: every name when they are few, the first LIST_ALL and their count
        // when they are many.
        assert_eq!(closest_or_all("cobol", ["python", "java"], 3), (vec!["java".to_string(), "python".into()], 2));
        assert_eq!(closest_or_all("jav", ["python", "java"], 3), (vec!["java".to_string()], 0));
        let many: Vec<String> = (0..=LIST_ALL + 2).rev().map(|i| format!("project{i}")).collect();
        let (first, count) = closest_or_all("zzzzzzzz", many.iter().map(String::as_str), 3);
        assert_eq!((first.len(), count, first[0].as_str()), (LIST_ALL, LIST_ALL + 3, "project0"));
        // What a user reads: how the names are spelled, and that there are more.
        let e = crate::Error::NoMatch {
            flag: "--project",
            value: "zzzzzzzz".into(),
            what: "project",
            suggestions: first,
            all: count,
        };
        let text = e.to_string();
        assert!(text.starts_with("--project `zzzzzzzz` matches no project in the index; none is close: it has 11, the first in order `project0`, `project1`,"), "{text}");
        assert!(text.ends_with("`project6`, …"), "{text}");
        assert_eq!(levenshtein("kitten", "sitting"), 3);
    }
}
