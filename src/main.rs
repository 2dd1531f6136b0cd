//! `fixdex`: repair ingredients for automated program repair.
//!
//! Thin binary: parse arguments, set up logging, call the libraries, map errors to exit
//! codes (see [`cli::exit`]).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// fixdex: index historical bug-fix pairs and retrieve the most similar fixes for a bug,
/// by its buggy code and root cause (ReinFix-style external repair ingredients).
#[derive(Debug, Parser)]
#[command(name = "fixdex", version, about, long_about = None, propagate_version = true)]
struct Cli {
    /// Log more (-v: info, -vv: debug, -vvv: trace). RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Index corpus files (JSONL, Parquet, Arrow IPC) of bug-fix pairs into an index file.
    Index(cli::index::Args),
    /// Find the bug-fix pairs most similar to a buggy snippet and its root cause.
    Search(cli::search::Args),
    /// Show an index's header, model, spaces, counts and sizes (fast: reads no vectors).
    Inspect(cli::inspect::Args),
    /// Check every checksum and structure of an index (reads the whole file).
    Verify(cli::verify::Args),
    /// Benchmarks: ANN on raw vectors (`ann`), embedding (`embed`) and open time (`open`).
    Bench(cli::bench::Args),
    /// Repair a bug: ReinFix (root cause, similar fixes, model patches), or `--strategy
    /// patterns` (fix templates, no model), `tracerepair` (runtime probes, a debate, a judge) or
    /// `unidebugger` (escalation L1 → L2 → L3); patches are validated by the project's tests.
    Repair(Box<cli::repair::Args>),
    /// Combine segment files from sharded builds into one searchable manifest.
    Manifest(cli::manifest::Args),
    /// Merge the segments of a manifest (from `index --append` or sharded builds) into one
    /// index file, without embedding again.
    Compact(cli::compact::Args),
    /// Evaluations: any repair strategy on QuixBugs (`eval quixbugs`) or Defects4J (`eval
    /// defects4j`; `--check`: the benchmark's gold check), graded run folders (`eval report`,
    /// `compare`, `merge`), retrieval sanity on an index (`eval INDEX` or `eval retrieval
    /// INDEX`).
    Eval(cli::eval::Args),
    /// Serve search_similar_fixes and the code-analysis tools to other agents, over MCP
    /// (stdio) or a local JSON HTTP API.
    Serve(cli::serve::Args),
    /// Write a root cause into every row of a corpus (JSONL), with a model or
    /// `--mechanical` (from the fix's repair actions); resumable through its cache.
    Label(cli::label::Args),
    /// Mine bug-fix pairs from git histories (repositories or bundles): bug-fix commits by
    /// message, one pair per modified method (tree-sitter spans), in the corpus schema.
    Mine(cli::mine::Args),
}

impl Command {
    /// Whether the subcommand may run a project's build or test commands (each in a process
    /// group of its own, [`repair::validate::kill_running`]). `mine` takes its signals itself.
    fn runs_tests(&self) -> bool {
        matches!(self, Command::Repair(_) | Command::Eval(_) | Command::Serve(_) | Command::Bench(_))
    }

    /// Runs the subcommand: its exit code, or the error [`cli::exit::report`] maps to one.
    fn run(self) -> anyhow::Result<ExitCode> {
        match self {
            Command::Index(a) => cli::index::run(&a),
            Command::Search(a) => cli::search::run(&a),
            Command::Inspect(a) => cli::inspect::run(&a),
            Command::Verify(a) => cli::verify::run(&a),
            Command::Eval(a) => cli::eval::run(&a),
            Command::Manifest(a) => cli::manifest::run(&a),
            Command::Compact(a) => cli::compact::run(&a),
            Command::Bench(a) => cli::bench::run(&a),
            Command::Repair(a) => cli::repair::run(&a),
            Command::Serve(a) => cli::serve::run(&a),
            Command::Label(a) => cli::label::run(&a),
            Command::Mine(a) => cli::mine::run(&a),
        }
    }
}

/// Set first by the signal thread ([`exit_on_signal`]): `main` then waits for it to exit.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// On SIGINT (Ctrl-C), SIGTERM or SIGHUP: kills the running test commands, removes their
/// scratch copies and exits 128 + the signal's number (130, 143, 129), as a shell reports a
/// command a signal ended. The signals are taken by `signal-hook`'s iterator on a thread of
/// its own, so the clean-up runs as ordinary code; unlike a blocked mask taken by `sigwait`
/// (`fixdex mine`), a handler is reset by `exec`, so the build and test commands keep the
/// default dispositions.
///
/// # Errors
/// The handlers could not be installed.
fn exit_on_signal(hint: &'static str) -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new().name("fixdex-signals".into()).spawn(move || {
        let Some(signal) = signals.forever().next() else { return };
        // The main thread, seeing its command killed, must not exit first with its own code.
        INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        repair::validate::kill_running();
        repair::validate::scratch::remove_live();
        let name = match signal {
            SIGINT => "SIGINT",
            SIGTERM => "SIGTERM",
            _ => "SIGHUP",
        };
        eprintln!("fixdex: interrupted ({name}){hint}");
        std::process::exit(128 + signal);
    })?;
    Ok(())
}

fn main() -> ExitCode {
    // `--json` anywhere before a `--`: errors are then also a JSON object on stdout.
    let json = std::env::args_os().skip(1).take_while(|a| a != "--").any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if json && e.use_stderr() {
                let message = e.render().to_string();
                let first = message.lines().next().unwrap_or("").trim_start_matches("error: ");
                let _ = cli::exit::print_json_error(first, e.exit_code());
            }
            e.exit();
        }
    };
    cli::logging::init(cli.verbose);
    // Each test command runs in a process group of its own, which Ctrl-C or a SIGTERM sent
    // to fixdex does not reach: kill them on the way out (exit 128 + the signal, as a shell
    // reports an interrupted command), else a candidate looping forever outlives the run.
    // Their scratch copies of the project are removed too (`exit` runs no destructor).
    if cli.cmd.runs_tests() {
        let hint = match &cli.cmd {
            Command::Eval(_) => " (a --run-dir folder resumes with --resume)",
            _ => "",
        };
        if let Err(e) = exit_on_signal(hint) {
            eprintln!("fixdex: warning: no clean-up on Ctrl-C ({e}): test commands may outlive an interrupted run");
        }
    }
    let code = cli.cmd.run().unwrap_or_else(|err| cli::exit::report_json(&err, json));
    // Interrupted: the signal thread cleans up and exits; wait for it.
    while INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::park_timeout(std::time::Duration::from_secs(1));
    }
    code
}
