//! `fixdex serve`: the repair tools for outside agents, over MCP on stdio or a local HTTP API.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use engine::Load;
use repair::retrieve::Exclusion;
use repair::serve::http::{self, HttpConfig, HttpServer};
use repair::serve::{ToolHost, mcp};
use repair::tools::Toolbox;

/// How the served index follows its path, and how to publish a new one (`serve --help`).
const REPLACING_HELP: &str = "\
Replacing the index while serving:
  Before each call the server checks that the files it read (device, inode, size, times; a
  manifest and each segment) are still the ones at INDEX, and opens INDEX anew when they are
  not (a warning is logged; GET /health shows the generation served). Publish a new index by
  writing it elsewhere on the same file system and renaming it onto INDEX: `fixdex index -o
  INDEX` does this (temporary file, then rename), or `cp new.fdx DIR/.tmp && mv DIR/.tmp INDEX`.
  Calls that come while the file there cannot be opened (truncated, half copied) fail (HTTP
  503, MCP isError) and name the path, until a complete index is there.";

/// Arguments of `fixdex serve`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["mcp", "http"])))]
#[command(after_help = REPLACING_HELP)]
pub struct Args {
    /// The index file, or a manifest of segments, that `search_similar_fixes` searches.
    index: PathBuf,
    /// Speak the Model Context Protocol on stdin/stdout (for Claude Code, OpenHands, ...).
    #[arg(long)]
    mcp: bool,
    /// Serve a JSON HTTP API on ADDR (GET /tools, POST /tools/{name}, GET /health); `--http`
    /// alone serves on 127.0.0.1:7878.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = http::DEFAULT_ADDR)]
    http: Option<String>,
    /// Allow --http on an address that is not loopback (no authentication: anyone who can
    /// reach it can read the project's sources through the tools).
    #[arg(long)]
    allow_remote: bool,
    /// Largest HTTP request body, in bytes (larger: 413).
    #[arg(long, default_value_t = http::DEFAULT_MAX_BODY_BYTES)]
    max_body_bytes: usize,
    /// Seconds an HTTP request's body may take to arrive after its headers (slower: 408,
    /// and the connection is closed).
    #[arg(long, default_value_t = http::DEFAULT_BODY_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout_s: u64,
    /// Project the internal-ingredient tools analyse [default: the current directory].
    #[arg(long)]
    project: Option<PathBuf>,
    /// Never return this id, e.g. the bug under repair (repeatable).
    #[arg(long, allow_hyphen_values = true, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    exclude_id: Vec<String>,
    /// Never return fixes from this project (repeatable), by identity: `Closure` also
    /// excludes `google/closure-compiler`.
    #[arg(long, allow_hyphen_values = true, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    exclude_project: Vec<String>,
    /// Embedding model folder; must be the index's model [default: data/models/all-MiniLM-L6-v2].
    #[arg(long, env = "FIXDEX_MODEL")]
    model: Option<PathBuf>,
    /// How the index files are held. `memory`: read whole into RAM (RAM = the index files'
    /// size; nothing done to the files can crash the server). `mmap`: mapped (O(1) start, RAM
    /// shared with the page cache), but a file rewritten or truncated in place during a call
    /// (`cp other.fdx INDEX`) kills the server with SIGBUS; publish only by rename.
    #[arg(long, value_enum, default_value_t = LoadArg::Memory)]
    load: LoadArg,
    /// With --http: print where the server listens as one JSON object on stdout
    /// (`{"listening": URL, "tools": [names], "index": path}`) once it is ready. Not with
    /// --mcp, whose stdout carries the protocol.
    #[arg(long, conflicts_with = "mcp")]
    json: bool,
    /// Ranking of search_similar_fixes answers: `dense`, `hybrid` or `action` (see `fixdex
    /// search --help`).
    #[arg(long, default_value = "action", value_parser = |s: &str| s.parse::<repair::retrieve::rank::Rank>())]
    rank: repair::retrieve::rank::Rank,
}

/// `--load`: see [`Args`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LoadArg {
    /// Read the index files into memory.
    Memory,
    /// Memory-map the index files.
    Mmap,
}

impl From<LoadArg> for Load {
    fn from(l: LoadArg) -> Load {
        match l {
            LoadArg::Memory => Load::Memory,
            LoadArg::Mmap => Load::Mmap,
        }
    }
}

/// Runs `fixdex serve` until the client disconnects (MCP) or the process is stopped (HTTP).
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    // Bind before the slow model load, so a bad address fails fast.
    let server = match &args.http {
        Some(addr) => {
            let config = HttpConfig {
                max_body_bytes: args.max_body_bytes,
                body_timeout: std::time::Duration::from_secs(args.body_timeout_s),
                allow_remote: args.allow_remote,
            };
            Some(HttpServer::bind(addr, config)?)
        }
        None => None,
    };
    let (host, excluded) = host(args)?;
    let host = Arc::new(host);
    match server {
        Some(server) => {
            // The first line on stderr: scripts and tests read the port from it.
            let url = format!("http://{}", server.local_addr()?);
            eprintln!("fixdex: listening on {url}");
            if args.json {
                let tools: Vec<String> = host.specs().into_iter().map(|t| t.name).collect();
                let index = args.index.display().to_string();
                out!("{}", serde_json::json!({"listening": url, "tools": tools, "index": index}))?;
            }
            super::search::warn_unmatched(&excluded);
            server.run(host)?;
        }
        None => {
            super::search::warn_unmatched(&excluded);
            mcp::run_stdio(host)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The tool host, and what each `--exclude-project` matched (warned about after the HTTP
/// address line, which scripts read first).
fn host(args: &Args) -> anyhow::Result<(ToolHost, Vec<engine::ProjectMatch>)> {
    let exclusion =
        Exclusion { ids: args.exclude_id.clone(), projects: args.exclude_project.clone(), keep_ids: Vec::new() };
    let retriever = super::model::open_retriever_with(&args.index, args.model.as_deref(), exclusion, args.load.into())?
        .with_rank(args.rank);
    let excluded = retriever.excluded_projects();
    let project = match &args.project {
        Some(p) => p.clone(),
        None => std::env::current_dir().context("reading the current directory")?,
    };
    anyhow::ensure!(project.is_dir(), "--project {} is not a directory", project.display());
    tracing::info!(index = %args.index.display(), project = %project.display(), load = ?args.load, "serving repair tools");
    Ok((ToolHost::new(Some(retriever), Some(Toolbox::new(project))), excluded))
}
