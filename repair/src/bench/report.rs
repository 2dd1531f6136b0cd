//! The pages of a run folder (`fixdex eval report RUN_DIR`): the saved patches re-graded
//! against the developer's fixes with no test run ([`regrade`]), then a Markdown page
//! ([`markdown`]) and a self-contained HTML page ([`html`]: inline CSS and SVG, no script,
//! nothing fetched) with the run's settings, the counts per project and tier with 95%
//! intervals, a table per bug (status, outcome, best tier, validations, first plausible patch, time,
//! cost), and a chart of the bugs fixed within a validation budget (in the Markdown page, a
//! table of the same points: [`budget_points`]).
//!
//! The chart is the "fixes against budget" curve of the repair literature (e.g. the
//! patch-generation budget curves of TBar, Liu et al. ISSTA 2019): for each number of
//! validations x, how many bugs had a plausible (and a correct) patch within their first x
//! validations.

use std::fmt::Write as _;
use std::path::Path;

use crate::bench::grade;
use crate::bench::record::{self, BugRecord, RunRecord, Status, Tier};
use crate::bench::summary::{Counts, Summary};

/// Re-grades every kept patch of `rec` (run folder `dir`) from its files, sets the patches'
/// tiers and the bug's best tier. Returns how many patches changed tier. A patch whose files
/// cannot be read keeps no tier (`None`), and the reason is returned in the list.
#[must_use]
pub fn regrade(dir: &Path, rec: &mut BugRecord) -> (usize, Vec<String>) {
    let folder = record::bug_dir(dir, &rec.bug);
    let mut changed = 0;
    let mut problems = Vec::new();
    for patch in &mut rec.patches {
        let tier = match grade::grade_folder(&folder, &patch.files, &rec.modified_files) {
            Ok(t) => Some(t),
            Err(e) => {
                problems.push(format!("{} patch {}: {e}", rec.bug, patch.files));
                None
            }
        };
        if tier != patch.tier {
            changed += 1;
            patch.tier = tier;
        }
    }
    rec.best_tier = grade::best(rec.patches.iter().filter_map(|p| p.tier));
    if rec.plausible && rec.best_tier.is_none() {
        rec.best_tier = Some(Tier::NeedsReview);
    }
    (changed, problems)
}

/// The validations that found a bug's first plausible patch and its first correct patch.
type Firsts = (Option<usize>, Option<usize>);

/// The validations that found `r`'s first plausible patch and its first correct patch.
fn firsts(r: &BugRecord) -> Firsts {
    let correct = r.patches.iter().filter(|p| p.tier.is_some_and(Tier::correct)).map(|p| p.validation).min();
    (r.first_plausible_validation, correct)
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn status(r: &BugRecord) -> &'static str {
    match r.status {
        Status::Finished => "finished",
        Status::Infra => "infra",
        Status::Error => "error",
    }
}

fn title(run: &RunRecord) -> String {
    format!(
        "fixdex eval {}: strategy {}, localization {}{}",
        run.benchmark,
        run.strategy,
        run.localization,
        run.model.as_ref().map_or(String::new(), |m| format!(", model {m}"))
    )
}

fn project_rows(s: &Summary) -> Vec<(String, Counts)> {
    let mut rows: Vec<(String, Counts)> = s.projects.iter().map(|(p, c)| (p.clone(), c.clone())).collect();
    rows.push(("all".into(), s.counts.clone()));
    rows
}

const PROJECT_HEAD: [&str; 10] =
    ["project", "bugs", "ran", "plausible", "exact", "ast", "needs review", "correct", "infra", "errors"];
const BUG_HEAD: [&str; 12] = [
    "bug",
    "project",
    "status",
    "outcome",
    "plausible",
    "best tier",
    "patches",
    "validations",
    "first plausible (validation)",
    "median validation s",
    "wall s",
    "cost USD",
];

fn project_cells(name: &str, c: &Counts) -> Vec<String> {
    vec![
        name.to_string(),
        c.total.to_string(),
        c.ran().to_string(),
        c.plausible.to_string(),
        c.exact.to_string(),
        c.ast.to_string(),
        c.needs_review.to_string(),
        c.correct.to_string(),
        c.infra.to_string(),
        c.errors.to_string(),
    ]
}

fn bug_cells(r: &BugRecord) -> Vec<String> {
    vec![
        r.bug.clone(),
        r.project.clone(),
        status(r).to_string(),
        r.outcome.clone().unwrap_or_else(|| "-".into()),
        if r.plausible { "yes" } else { "no" }.to_string(),
        r.best_tier.map_or("-", Tier::as_str).to_string(),
        r.patches.len().to_string(),
        r.validations.to_string(),
        opt(r.first_plausible_validation),
        opt(r.validation_median_s.map(|s| format!("{s:.2}"))),
        format!("{:.1}", r.wall_s),
        opt(r.cost_usd.map(|c| format!("{c:.4}"))),
    ]
}

/// The page's header lines: version, counts, rates, cost, infra and error bugs, and the
/// run's bugs that have no result in `records` yet.
fn settings_lines(run: &RunRecord, s: &Summary, records: &[BugRecord]) -> Vec<String> {
    let mut lines = vec![
        format!("fixdex {} · seed {} · {}", run.fixdex_version, run.seed, super::summary::count(run.bugs.len(), "bug")),
        format!("plausible: {} of {} that ran, {}", s.counts.plausible, s.counts.ran(), s.plausible_rate.percent()),
        format!(
            "correct (exact or AST match with the developer's fix): {} of {}, {}",
            s.counts.correct,
            s.counts.ran(),
            s.correct_rate.percent()
        ),
        format!(
            "validations: {} in all, median {} per bug, median {} s each",
            s.validations,
            opt(s.validations_per_bug_median),
            opt(s.validation_median_s.map(|v| format!("{v:.2}")))
        ),
        format!(
            "LLM: {}, {} tokens, cost {}, {} per plausible bug",
            super::summary::count(s.calls, "call"),
            s.tokens,
            opt(s.cost_usd.map(|c| format!("${c:.4}"))),
            opt(s.cost_usd_per_plausible.map(|c| format!("${c:.4}")))
        ),
    ];
    lines.extend(s.stages.iter().map(|t| format!("stage {}", t.line())));
    for a in &s.at_k {
        lines.push(format!(
            "plausible@{k} {:.3}, correct@{k} {:.3} over {}",
            a.plausible,
            a.correct,
            super::summary::count(a.bugs, "bug"),
            k = a.k
        ));
    }
    for (bug, why) in &s.infra_bugs {
        lines.push(format!("infra {bug}: {why}"));
    }
    for (bug, why) in &s.error_bugs {
        lines.push(format!("error {bug}: {why}"));
    }
    let have: std::collections::HashSet<&str> = records.iter().map(|r| r.bug.as_str()).collect();
    let missing: Vec<&str> = run.bugs.iter().map(String::as_str).filter(|b| !have.contains(b)).collect();
    if !missing.is_empty() {
        lines.push(format!(
            "no result yet for {} of {} (still running, or stopped: `--resume` finishes them): {}",
            missing.len(),
            super::summary::count(run.bugs.len(), "bug"),
            missing.join(", ")
        ));
    }
    lines
}

/// The run as a Markdown page.
#[must_use]
pub fn markdown(run: &RunRecord, records: &[BugRecord]) -> String {
    let s = Summary::of(records);
    let mut md = format!("# {}\n\n", title(run));
    for line in settings_lines(run, &s, records) {
        let _ = writeln!(md, "- {line}");
    }
    let table = |md: &mut String, head: &[&str], rows: Vec<Vec<String>>| {
        let _ = writeln!(md, "| {} |\n|{}", head.join(" | "), "---|".repeat(head.len()));
        for row in rows {
            let _ = writeln!(md, "| {} |", row.join(" | "));
        }
    };
    md.push_str("\n## Fixes within a validation budget\n\n");
    let total = records.iter().filter(|r| r.status != Status::Infra).count();
    let _ = writeln!(md, "Bugs with a plausible and a correct patch within x validations, of {total} that ran:\n");
    let points = budget_points(records).into_iter().map(|(x, p, c)| vec![x.to_string(), p.to_string(), c.to_string()]);
    table(&mut md, &["validations x", "plausible", "correct"], points.collect());
    md.push_str("\n## Per project\n\n");
    table(&mut md, &PROJECT_HEAD, project_rows(&s).iter().map(|(p, c)| project_cells(p, c)).collect());
    md.push_str("\n## Per bug\n\n");
    table(&mut md, &BUG_HEAD, records.iter().map(bug_cells).collect());
    md
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The run as one self-contained HTML page (inline CSS and SVG; no script, no fetch).
#[must_use]
pub fn html(run: &RunRecord, records: &[BugRecord]) -> String {
    let s = Summary::of(records);
    let mut h = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\n<style>\
         body{{font-family:sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse;margin:1em 0}}\
         td,th{{border:1px solid #bbb;padding:.25em .6em;text-align:right}}td{{white-space:nowrap}}td:first-child,th:first-child{{text-align:left}}\
         tr.exact td,tr.ast td{{background:#e6f4e6}}tr.needs_review td{{background:#fff6dd}}tr.infra td,tr.error td{{background:#f4e0e0}}\
         </style></head><body>\n<h1>{t}</h1>\n<ul>\n",
        t = esc(&title(run))
    );
    for line in settings_lines(run, &s, records) {
        let _ = writeln!(h, "<li>{}</li>", esc(&line));
    }
    h.push_str("</ul>\n<h2>Fixes within a validation budget</h2>\n");
    h.push_str(&chart(records));
    let table = |h: &mut String, id: &str, head: &[&str], rows: Vec<(String, Vec<String>)>| {
        let _ = write!(h, "<table id=\"{id}\"><thead><tr>");
        for c in head {
            let _ = write!(h, "<th>{}</th>", esc(c));
        }
        h.push_str("</tr></thead><tbody>\n");
        for (class, row) in rows {
            if class.is_empty() {
                h.push_str("<tr>");
            } else {
                let _ = write!(h, "<tr class=\"{class}\">");
            }
            for c in row {
                let _ = write!(h, "<td>{}</td>", esc(&c));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody></table>\n");
    };
    h.push_str("<h2>Per project</h2>\n");
    let rows = project_rows(&s).iter().map(|(p, c)| (String::new(), project_cells(p, c))).collect();
    table(&mut h, "projects", &PROJECT_HEAD, rows);
    h.push_str("<h2>Per bug</h2>\n");
    let rows = records
        .iter()
        .map(|r| {
            let class = match (r.status, r.best_tier) {
                (Status::Finished, Some(t)) if r.plausible => t.as_str(),
                (Status::Infra, _) => "infra",
                (Status::Error, _) => "error",
                _ => "unfixed",
            };
            (class.to_string(), bug_cells(r))
        })
        .collect();
    table(&mut h, "bugs", &BUG_HEAD, rows);
    h.push_str("</body></html>\n");
    h
}

/// The points where the chart's curves step, as `(x, plausible, correct)`: the bugs with a
/// plausible and with a correct patch within their first `x` validations, for each `x` at
/// which either count grows, and the largest validation count of any bug (the curves' end).
#[must_use]
pub fn budget_points(records: &[BugRecord]) -> Vec<(usize, usize, usize)> {
    let firsts: Vec<Firsts> = records.iter().map(firsts).collect();
    let max_x = records.iter().map(|r| r.validations).max().unwrap_or(0);
    let mut xs: Vec<usize> = firsts.iter().flat_map(|(p, c)| [*p, *c]).flatten().chain([max_x]).collect();
    xs.sort_unstable();
    xs.dedup();
    let within = |x: usize, pick: fn(&Firsts) -> Option<usize>| {
        firsts.iter().filter(|f| pick(f).is_some_and(|v| v <= x)).count()
    };
    xs.into_iter().map(|x| (x, within(x, |f| f.0), within(x, |f| f.1))).collect()
}

/// The inline SVG chart: bugs plausible and bugs correct within x validations, x from 0 to
/// the largest validation count of any bug.
#[must_use]
pub fn chart(records: &[BugRecord]) -> String {
    let (w, hgt, left, bottom, top, right) = (640.0_f64, 320.0_f64, 50.0, 40.0, 20.0, 120.0);
    let max_x = records.iter().map(|r| r.validations).max().unwrap_or(0).max(1);
    let total = records.iter().filter(|r| r.status != Status::Infra).count().max(1);
    let firsts: Vec<Firsts> = records.iter().map(firsts).collect();
    let px = |x: usize| left + (w - left - right) * x as f64 / max_x as f64;
    let py = |y: usize| hgt - bottom - (hgt - bottom - top) * y as f64 / total as f64;
    let steps = |pick: &dyn Fn(&Firsts) -> Option<usize>| {
        let mut at: Vec<usize> = firsts.iter().filter_map(pick).collect();
        at.sort_unstable();
        let mut pts = vec![format!("{:.1},{:.1}", px(0), py(0))];
        for (i, x) in at.iter().enumerate() {
            pts.push(format!("{:.1},{:.1}", px(*x), py(i)));
            pts.push(format!("{:.1},{:.1}", px(*x), py(i + 1)));
        }
        pts.push(format!("{:.1},{:.1}", px(max_x), py(at.len())));
        (pts.join(" "), at.len())
    };
    let (plausible, n_plausible) = steps(&|f| f.0);
    let (correct, n_correct) = steps(&|f| f.1);
    let mut svg = format!(
        "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{hgt}\" viewBox=\"0 0 {w} {hgt}\" role=\"img\" \
         aria-label=\"bugs fixed within a validation budget\">\n"
    );
    let (x0, y0, x1, y1) = (px(0), py(0), px(max_x), py(total));
    let _ = writeln!(svg, "<line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\" stroke=\"#444\"/>");
    let _ = writeln!(svg, "<line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x0}\" y2=\"{y1}\" stroke=\"#444\"/>");
    let _ = writeln!(svg, "<text x=\"{x0}\" y=\"{}\" font-size=\"12\">0</text>", y0 + 16.0);
    let _ = writeln!(svg, "<text x=\"{x1}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">{max_x}</text>", y0 + 16.0);
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">validations per bug</text>",
        f64::midpoint(x0, x1),
        y0 + 30.0
    );
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">{total}</text>",
        x0 - 6.0,
        y1 + 4.0
    );
    let _ = writeln!(svg, "<text x=\"{}\" y=\"{y0}\" font-size=\"12\" text-anchor=\"end\">0</text>", x0 - 6.0);
    // Labels at the curves' ends; the correct one moves below the plausible one when close.
    let plausible_y = py(n_plausible) + 4.0;
    let correct_y = (py(n_correct) + 4.0).max(plausible_y + 14.0);
    for (points, n, colour, name, y) in [
        (plausible, n_plausible, "#d08000", "plausible", plausible_y),
        (correct, n_correct, "#208020", "correct", correct_y),
    ] {
        let _ = writeln!(
            svg,
            "<polyline class=\"{name}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{points}\"/>"
        );
        let _ =
            writeln!(svg, "<text x=\"{}\" y=\"{y:.1}\" font-size=\"12\" fill=\"{colour}\">{name} {n}</text>", x1 + 6.0);
    }
    let (lx, ly) = (x0 - 24.0, f64::midpoint(y0, y1));
    let _ = writeln!(
        svg,
        "<text x=\"{lx}\" y=\"{ly}\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 {lx} {ly})\">bugs</text>"
    );
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::record::PatchRecord;
    use crate::bench::summary::tests::record;

    fn run() -> RunRecord {
        RunRecord {
            benchmark: "defects4j".into(),
            fixdex_version: "0.2.0".into(),
            started_unix: 1,
            strategy: "patterns".into(),
            localization: "perfect".into(),
            model: None,
            seed: 7,
            shard: None,
            bugs: vec!["Cli-1".into(), "Cli-2".into()],
            settings: serde_json::json!({}),
        }
    }

    /// A run folder with one bug whose two kept patches are an AST match and a wrong fix.
    fn folder() -> (tempfile::TempDir, BugRecord) {
        let dir = tempfile::tempdir().unwrap();
        let bug = record::bug_dir(dir.path(), "Cli-1");
        let file = "src/A.java";
        let write = |rel: String, text: &str| {
            let path = bug.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(format!("fixed/{file}"), "class A { int f(int x) { return (x + 1) * 2; } }");
        write(format!("patches/1/{file}"), "class A { int f(int x) { return x + 1 * 2; } }");
        write(format!("patches/2/{file}"), "class A { int f(int x) { return ((x + 1)) * 2; } }");
        let mut rec = record("Cli-1", "Cli", None, 12);
        rec.plausible = true;
        rec.outcome = Some("plausible".into());
        rec.first_plausible_validation = Some(4);
        rec.modified_files = vec![file.into()];
        rec.patches = (1..=2)
            .map(|n| PatchRecord {
                diff: String::new(),
                tier: None,
                validation: 4 * n,
                at_s: 1.0,
                files: format!("patches/{n}"),
            })
            .collect();
        (dir, rec)
    }

    #[test]
    fn regrade_reads_the_kept_files() {
        let (dir, mut rec) = folder();
        let (changed, problems) = regrade(dir.path(), &mut rec);
        assert_eq!((changed, problems.len()), (2, 0));
        assert_eq!(rec.patches.iter().map(|p| p.tier).collect::<Vec<_>>(), [Some(Tier::NeedsReview), Some(Tier::Ast)]);
        assert_eq!(rec.best_tier, Some(Tier::Ast));
        assert_eq!(regrade(dir.path(), &mut rec).0, 0);
        std::fs::remove_dir_all(record::bug_dir(dir.path(), "Cli-1").join("patches/2")).unwrap();
        let (_, problems) = regrade(dir.path(), &mut rec);
        assert!(problems[0].contains("patches/2") && problems[0].contains("A.java"), "{problems:?}");
        assert_eq!(rec.best_tier, Some(Tier::NeedsReview));
    }

    #[test]
    fn pages_hold_the_tables_and_the_chart() {
        let (dir, mut rec) = folder();
        let _ = regrade(dir.path(), &mut rec);
        let unfixed = record("Cli-2", "Cli", None, 30);
        let records = vec![rec, unfixed];
        let md = markdown(&run(), &records);
        assert!(md.contains("| all | 2 | 2 | 1 | 0 | 1 | 0 | 1 | 0 | 0 |"), "{md}");
        assert!(md.contains("| Cli-1 | Cli | finished | plausible | yes | ast | 2 | 12 | 4 |"), "{md}");
        assert!(md.contains("| Cli-2 | Cli | finished | budget_exhausted | no |"), "{md}");
        // The chart's points as a table: plausible at 4, correct (the AST match) at 8, end at 30.
        assert_eq!(budget_points(&records), [(4, 1, 0), (8, 1, 1), (30, 1, 1)]);
        assert!(md.contains("## Fixes within a validation budget") && md.contains("| 8 | 1 | 1 |"), "{md}");
        assert!(md.contains("| 30 | 1 | 1 |") && md.contains("of 2 that ran"), "{md}");
        assert!(html(&run(), &records).contains("<td>budget_exhausted</td>"));
        let page = html(&run(), &records);
        assert!(page.contains("<table id=\"bugs\">") && page.contains("<tr class=\"ast\"><td>Cli-1</td>"), "{page}");
        // Self-contained: no script, and the only URL is the SVG namespace.
        assert!(!page.contains("<script") && page.matches("http").count() == 1, "{page}");
        let svg = chart(&records);
        // plausible: one bug at validation 4; correct: the AST match at validation 8; x to 30.
        assert!(svg.contains("plausible 1") && svg.contains("correct 1") && svg.contains(">30</text>"), "{svg}");
    }
}
