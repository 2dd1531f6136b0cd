//! `fixdex eval defects4j`: the repair workflow on Defects4J bugs built from git, without
//! Docker or a Defects4J installation ([`repair::bench::defects4j`]), into a run folder
//! ([`repair::bench::record`], [`repair::bench::batch`]); `--check` runs only the gold check.
//!
//! The binary parses flags, builds the harness and the repairer, and prints: a line per bug
//! on stderr as it ends, the summary (a table, or one JSON object with `--json`) on stdout.
//! Exit 1 when a bug ended in `error` (the machinery or the endpoint broke), when every bug
//! is `infra` (none could be set up: nothing was repaired), or with `--check` when a bug
//! failed the gold check; 0 otherwise (`infra` bugs are reported, and counted apart from
//! unfixed ones).

use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context;

use crate::cli::exit::Usage;
use engine::shard::Shard;
use repair::bench::batch;
use repair::bench::defects4j::{BugId, Harness, Installed, Repairer};
use repair::bench::record::{BugRecord, RunRecord, Status};
use repair::bench::summary::{Summary, count};

mod args;

pub use args::Defects4jArgs;

use crate::cli::workflow_args::run_config;

/// Runs `fixdex eval defects4j`.
pub fn run(a: &Defects4jArgs) -> anyhow::Result<ExitCode> {
    let harness = harness(a)?;
    let bugs = select(a, &harness)?;
    if a.check {
        return check(a, &harness, &bugs);
    }
    evaluate(a, &harness, &bugs)
}

/// The harness of `a`'s inputs.
fn harness(a: &Defects4jArgs) -> anyhow::Result<Harness> {
    let work = a.work_dir.clone().unwrap_or_else(Harness::default_work);
    let installed = a.d4j_home.as_deref().map(Installed::new).transpose()?;
    let meta = match (&a.d4j_meta, &installed) {
        (Some(meta), _) => meta.clone(),
        (None, Some(installed)) => installed.meta(),
        (None, None) => anyhow::bail!("give --d4j-meta DIR (Defects4J's framework/projects) or --d4j-home DIR"),
    };
    let mut h = Harness::new(&meta, &work);
    h.repos = repos(a, &meta)?;
    h.jars.clone_from(&a.jars);
    h.test_timeout = Duration::from_secs(a.timeout_s);
    h.installed = installed;
    Ok(h)
}

/// The `--repo` map, checked before anything runs: one per project, a project of the
/// metadata (a folder without any project is refused too), a path that exists and is a
/// git repository or bundle.
///
/// # Errors
/// A [`Usage`] error naming the `--repo` that is wrong.
fn repos(
    a: &Defects4jArgs,
    meta: &std::path::Path,
) -> anyhow::Result<std::collections::BTreeMap<String, std::path::PathBuf>> {
    // A folder that is not Defects4J's metadata is a wrong input, as a wrong --repo is.
    let known = repair::bench::defects4j::meta::projects(meta).map_err(|e| Usage(e.to_string()))?;
    let mut out = std::collections::BTreeMap::new();
    for (project, path) in &a.repos {
        let given = format!("--repo {project}={}", path.display());
        if !known.contains(project) {
            return Err(Usage(format!(
                "{given}: {project} is not a project of {} ({})",
                meta.display(),
                known.join(", ")
            ))
            .into());
        }
        if !path.exists() {
            return Err(Usage(format!("{given}: {} does not exist", path.display())).into());
        }
        if let Some(not) = not_git(path) {
            return Err(Usage(format!("{given}: {not} (give a work tree, a bare repository or a bundle)")).into());
        }
        if out.insert(project.clone(), path.clone()).is_some() {
            return Err(Usage(format!("{given}: {project} has another --repo already (give one per project)")).into());
        }
    }
    Ok(out)
}

/// Why `path` (which exists) is no git repository or bundle, as the end of a sentence;
/// `None` when it is one: a folder that `git rev-parse --git-dir` accepts (a work tree or a
/// bare repository), or a file that `git bundle list-heads` reads.
fn not_git(path: &std::path::Path) -> Option<String> {
    let (mut cmd, what) = if path.is_dir() {
        let mut cmd = std::process::Command::new("git");
        cmd.arg("-C").arg(path).args(["rev-parse", "--git-dir"]);
        (cmd, "a folder but not a git repository")
    } else {
        let mut cmd = std::process::Command::new("git");
        cmd.args(["bundle", "list-heads"]).arg(path);
        (cmd, "a file but not a git bundle")
    };
    let out = cmd.stdin(std::process::Stdio::null()).output();
    match out {
        Ok(o) if o.status.success() => None,
        Ok(_) => Some(format!("{} is {what}", path.display())),
        Err(e) => Some(format!("git could not be run to read {} ({e})", path.display())),
    }
}

/// The bugs of `--bugs`, `--bugs-file` or every project given a `--repo`, then this shard's.
fn select(a: &Defects4jArgs, h: &Harness) -> anyhow::Result<Vec<BugId>> {
    let bugs = match (&a.bugs, &a.bugs_file) {
        (Some(spec), _) => h.select(spec)?,
        (None, Some(file)) => h.select_file(file)?,
        (None, None) if a.repos.is_empty() => {
            anyhow::bail!(
                "name the bugs (--bugs Cli-1,Cli-5..9,Lang or --bugs-file){}",
                if a.d4j_home.is_some() { "" } else { ", or give --repo PROJECT=PATH for whole projects" }
            )
        }
        (None, None) => h.select(&a.repos.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>().join(","))?,
    };
    if h.installed.is_none() {
        let missing: std::collections::BTreeSet<&str> =
            bugs.iter().map(|b| b.project.as_str()).filter(|p| !h.repos.contains_key(*p)).collect();
        if !missing.is_empty() {
            // Every project without one, so a user fixes the command once.
            let each: Vec<String> = missing
                .iter()
                .map(|project| {
                    let list: Vec<String> =
                        bugs.iter().filter(|b| b.project == *project).map(ToString::to_string).take(5).collect();
                    format!("{project} (bugs {}{})", list.join(", "), if list.len() == 5 { ", ..." } else { "" })
                })
                .collect();
            let give: Vec<String> = missing.iter().map(|p| format!("--repo {p}=PATH")).collect();
            let or = if a.own_history { " (--own-history reads it)" } else { ", or --d4j-home" };
            return Err(Usage(format!(
                "no --repo for {}: give {} (a work tree, a bare repository or a bundle of its upstream history){or}",
                each.join("; "),
                give.join(" ")
            ))
            .into());
        }
    }
    let Some(spec) = &a.shard else { return Ok(bugs) };
    let shard: Shard = spec.parse()?;
    // By position in the selection, not by a hash of the id: n shards of a small or patterned
    // selection (every odd Cli bug) get as many bugs as they can, ±1.
    let (index, count) = (usize::try_from(shard.index)?, usize::try_from(shard.count)?);
    let mine: Vec<BugId> = bugs.into_iter().enumerate().filter(|(i, _)| i % count == index).map(|(_, b)| b).collect();
    Ok(mine)
}

/// `--check`: every bug set up and gold-checked (`-j` at once); a table or JSON. With
/// `--own-history`, also the commits before each bug's fix (`history_commits`): a shallow or
/// wrong `--repo` shows here, not only in the run.
fn check(a: &Defects4jArgs, h: &Harness, bugs: &[BugId]) -> anyhow::Result<ExitCode> {
    let done = std::sync::atomic::AtomicUsize::new(0);
    let results = batch::parallel(bugs.len(), jobs(a), |i| {
        let started = Instant::now();
        let outcome = h.prepare(&bugs[i]).and_then(|p| {
            let history = if a.own_history { Some(h.history(&p.meta)?.len()) } else { None };
            Ok((p.check, history))
        });
        let n = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let line = match &outcome {
            Ok((c, _)) if c.passed => "passed".to_string(),
            Ok((c, _)) => format!("infra: {}", c.reason.clone().unwrap_or_default()),
            Err(e) => format!("infra: {}", e.detail()),
        };
        eprintln!("[{n}/{}] {}: {line} ({:.1} s)", bugs.len(), bugs[i], started.elapsed().as_secs_f64());
        (outcome, started.elapsed().as_secs_f64())
    });
    let mut rows = Vec::new();
    let mut infra = Vec::new();
    for (bug, (outcome, seconds)) in bugs.iter().zip(&results) {
        let (passed, reason, check, history) = match outcome {
            Ok((c, history)) => (c.passed, c.reason.clone(), Some(c), *history),
            Err(e) => (false, Some(e.detail()), None, None),
        };
        if !passed {
            infra.push(serde_json::json!({"bug": bug.to_string(), "reason": reason}));
        }
        rows.push(serde_json::json!({
            "bug": bug.to_string(), "passed": passed, "reason": reason, "seconds": seconds,
            "fixed_test_s": check.map(|c| c.fixed_test_ms as f64 / 1000.0),
            "failing_triggers": check.map(|c| &c.failing_triggers), "excluded": check.map(|c| &c.excluded),
        }));
        if a.own_history {
            rows.last_mut().expect("pushed")["history_commits"] = history.into();
        }
    }
    let passed = bugs.len() - infra.len();
    if a.json {
        let summary = serde_json::json!({"total": bugs.len(), "passed": passed, "infra": infra, "bugs": rows});
        out!("{summary}")?;
    } else {
        out!("{passed} of {} pass the gold check", count(bugs.len(), "bug"))?;
        for i in &infra {
            out!("  infra {}: {}", i["bug"].as_str().unwrap_or(""), i["reason"].as_str().unwrap_or(""))?;
        }
    }
    Ok(if infra.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(crate::cli::exit::ERROR) })
}

/// The repair strategy on every bug into the run folder; a summary.
fn evaluate(a: &Defects4jArgs, h: &Harness, bugs: &[BugId]) -> anyhow::Result<ExitCode> {
    let dir = a.run_dir.clone().expect("clap: --run-dir is required without --check");
    let strategy = a.strategy.strategy()?;
    let client = a.llm.client_for(strategy.as_ref())?;
    let config = run_config(&a.llm, &a.retrieval, &a.run, &client, strategy.as_ref())?;
    let retriever = a.retrieval.eval_retriever(strategy.as_ref())?;
    check_retrieval(a, retriever.as_ref(), strategy.as_ref(), bugs)?;
    let content = crate::cli::workflow_args::index_content(retriever.as_ref())?;
    let record = run_record(a, bugs, strategy.name(), strategy.needs_model().then(|| client.model.clone()), content)?;
    let todo = batch::open(&dir, &record, a.resume, a.retry_failed)?;
    let skipped = bugs.len() - todo.len();
    if skipped > 0 {
        eprintln!("resuming {}: {skipped} of {} done, {} to run", dir.display(), count(bugs.len(), "bug"), todo.len());
    }
    let make = || a.strategy.strategy().expect("the strategy was built once already");
    let repairer = Repairer {
        harness: h,
        client: client.get(),
        retriever,
        config,
        prices: a.llm.prices(&client.model),
        strategy: &make,
        localization: a.localization,
        timeout: Duration::from_secs(a.timeout_s),
        own_project: a.own_project,
        own_history: a.own_history,
    };
    let count = std::sync::atomic::AtomicUsize::new(skipped);
    let job = |id: &str, folder: &std::path::Path| {
        // A bug can take minutes (set-up, then up to --max-validations builds and test runs).
        eprintln!("{id}: started");
        repairer.repair(&id.parse().expect("ids come from BugId"), folder)
    };
    let line = |r: &BugRecord| {
        let n = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        eprintln!("[{n}/{}] {}", bugs.len(), progress_line(r));
    };
    batch::run_bugs(&dir, &todo, jobs(a), job, line)?;
    client.finish(true)?;
    let all = batch::results(&dir, &record);
    print_summary(a.json, &dir, &all)?;
    let errors = all.iter().filter(|r| r.status == Status::Error).count();
    let all_infra = !all.is_empty() && all.iter().all(|r| r.status == Status::Infra);
    if all_infra {
        eprintln!("error: every bug is infra (set-up or gold check failed): nothing was repaired");
    }
    Ok(if errors > 0 || all_infra { ExitCode::from(crate::cli::exit::ERROR) } else { ExitCode::SUCCESS })
}

/// Refuses `--own-history` and `--own-project` without a search of an index; warns of what
/// excluding each bug's project from retrieval keeps ([`warn_unexcluded`]) and, with
/// `--own-history`, of a project whose history the index lacks ([`warn_no_history`]).
///
/// # Errors
/// Those flags without an index searched (a usage error); the index cannot be read.
fn check_retrieval(
    a: &Defects4jArgs,
    retriever: Option<&repair::retrieve::Retriever>,
    strategy: &dyn repair::strategies::Strategy,
    bugs: &[BugId],
) -> anyhow::Result<()> {
    if (a.own_history || a.own_project) && (retriever.is_none() || !strategy.searches()) {
        let flag = if a.own_history { "--own-history" } else { "--own-project" };
        return Err(Usage(format!(
            "{flag} keeps documents of an index in retrieval: give --index (without --no-retrieval)"
        ))
        .into());
    }
    if let Some(r) = retriever
        && !a.own_project
        && strategy.searches()
    {
        warn_unexcluded(r, bugs)?;
        if a.own_history {
            warn_no_history(r, bugs)?;
        }
    }
    Ok(())
}

/// Warns, once per project, of what excluding a selected bug's project from retrieval (the
/// default) keeps: project names of the index that look like the project's but are not it
/// by identity (`engine::projects::look_alikes`: `commons_cli` for Cli), whose documents may
/// be the project's own history, the bug's fix among them; and an exclusion that drops
/// nothing at all.
fn warn_unexcluded(r: &repair::retrieve::Retriever, bugs: &[BugId]) -> anyhow::Result<()> {
    let projects: std::collections::BTreeSet<String> = bugs.iter().map(|b| b.project.clone()).collect();
    let names = r.project_names()?;
    for project in &projects {
        let alike = engine::projects::look_alikes(project, names.iter().map(String::as_str));
        if !alike.is_empty() {
            eprintln!(
                "warning: the index holds projects named like {project} that are not {project} by project identity, so they stay in retrieval: {} (if they are {project}'s code, its later fixes and the bugs' own are searched: name them as the project, e.g. `fixdex mine --project`)",
                alike.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
            );
        }
    }
    let exclusion = repair::retrieve::Exclusion { projects: projects.into_iter().collect(), ..Default::default() };
    for m in r.with_exclusion(exclusion).excluded_projects() {
        if m.matched.is_empty() {
            eprintln!(
                "warning: the index holds no document of project {} (by project identity), so excluding it from retrieval drops nothing: if it holds {}'s history under another name (`fixdex mine --project`), that history is searched, the bugs' own fixes among it",
                m.given, m.given
            );
        }
    }
    Ok(())
}

/// Warns, once per project, when the index holds no document of a selected bug's project
/// with a commit to keep: `--own-history` then keeps nothing for its bugs.
fn warn_no_history(r: &repair::retrieve::Retriever, bugs: &[BugId]) -> anyhow::Result<()> {
    let projects: std::collections::BTreeSet<&str> = bugs.iter().map(|b| b.project.as_str()).collect();
    for project in projects {
        let docs = r.project_docs(project)?;
        let with_commit = docs.iter().filter(|d| repair::bench::defects4j::commit_of(d).is_some()).count();
        if with_commit == 0 {
            eprintln!(
                "warning: --own-history keeps nothing for {project}: the index holds {} of its documents, none with a full `meta.commit` (index the project's mined history: `fixdex mine`, or the corpus's mined_git_history)",
                docs.len()
            );
        }
    }
    Ok(())
}

fn jobs(a: &Defects4jArgs) -> usize {
    usize::try_from(a.jobs).unwrap_or(1)
}

/// `run.json` of this run: every setting that changes a number.
/// `content`: what `--index` holds ([`crate::cli::workflow_args::index_content`]).
fn run_record(
    a: &Defects4jArgs,
    bugs: &[BugId],
    strategy: &str,
    model: Option<String>,
    content: Option<String>,
) -> anyhow::Result<RunRecord> {
    let shard = a.shard.as_deref().map(str::parse::<Shard>).transpose()?.map(|s| (s.index, s.count));
    // Where the inputs are may change between a run and its resume (a moved bundle); what
    // they are is the bugs' revisions and whether Defects4J itself set them up.
    let mut settings = a.strategy.options(crate::cli::workflow_args::NOT_SETTINGS);
    settings["setup"] = (if a.d4j_home.is_some() { "defects4j" } else { "git" }).into();
    settings["projects"] =
        a.repos.iter().map(|(p, _)| p.as_str()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    if let Some(content) = content {
        settings["index_content"] = content.into();
    }
    Ok(RunRecord {
        benchmark: "defects4j".into(),
        fixdex_version: env!("CARGO_PKG_VERSION").into(),
        started_unix: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        strategy: strategy.into(),
        localization: a.localization.name().into(),
        model,
        seed: a.llm.seed.unwrap_or(0),
        shard,
        bugs: bugs.iter().map(ToString::to_string).collect(),
        settings,
    })
}

/// `Cli-3: plausible (exact), 12 validations, 34.2 s` and the like.
pub(crate) fn progress_line(r: &BugRecord) -> String {
    let what = match r.status {
        Status::Finished if r.plausible => {
            format!("plausible ({})", r.best_tier.map_or("ungraded", |t| t.as_str()))
        }
        Status::Finished => r.outcome.clone().unwrap_or_default(),
        Status::Infra => format!("infra: {}", r.reason.clone().unwrap_or_default()),
        Status::Error => format!("error: {}", r.reason.clone().unwrap_or_default()),
    };
    let s = if r.validations == 1 { "" } else { "s" };
    format!("{}: {what}, {} validation{s}, {:.1} s", r.bug, r.validations, r.wall_s)
}

/// A run folder's summary ([`Summary`]): one line, the infra and error bugs and where the
/// folder is, or one JSON object (`json`). `eval quixbugs --run-dir` prints the same.
pub(crate) fn print_summary(json: bool, dir: &std::path::Path, all: &[BugRecord]) -> anyhow::Result<()> {
    let summary = Summary::of(all);
    if json {
        out!("{}", serde_json::json!({"run_dir": dir, "summary": summary, "bugs": all}))?;
        return Ok(());
    }
    out!("{}", summary.line())?;
    for stage in &summary.stages {
        out!("  stage {}", stage.line())?;
    }
    for (bug, why) in summary.infra_bugs.iter().chain(&summary.error_bugs) {
        out!("  {bug}: {why}")?;
    }
    out!("run folder {}; pages: fixdex eval report {}", dir.display(), dir.display()).context("writing the summary")
}
