//! The query of `fixdex search` from its flags: the snippet from `--code` (a file or
//! standard input, at most 1 MiB), its `--lines`, and the check that the space searched has
//! text to embed.

use std::io::Read;
use std::path::Path;

use anyhow::Context;
use engine::Space;
use engine::embed::LineRange;

use super::Args;

/// Refuses a query with nothing to embed in `space`, naming the flag it came from.
///
/// # Errors
/// [`engine::Error::EmptyQuery`], with the flag as context.
pub(super) fn check_text(args: &Args, space: Space, code: &str) -> anyhow::Result<()> {
    engine::query::check_query_text(space, code, &args.cause).with_context(|| match &args.code {
        Some(path) if space != Space::Cause => format!("the query from --code {path}"),
        _ => "the query from --cause".to_string(),
    })
}

/// The `--lines` range, checked against the snippet's line count.
pub(super) fn buggy_lines(arg: Option<&str>, code: &str) -> anyhow::Result<Option<LineRange>> {
    let Some(arg) = arg else { return Ok(None) };
    let r: LineRange = arg.parse()?;
    let n = code.lines().count();
    if r.last > n {
        return Err(crate::cli::exit::Usage(format!("--lines {r} is outside the --code snippet ({n} lines)")).into());
    }
    Ok(Some(r))
}

pub(super) fn read_code(arg: Option<&str>, space: Space) -> anyhow::Result<String> {
    match arg {
        None if space == Space::Cause => Ok(String::new()),
        None => {
            Err(crate::cli::exit::Usage(format!("--code FILE (or - for stdin) is required for the {space} space"))
                .into())
        }
        Some(path) => read_query_text(path, "--code"),
    }
}

/// Reads query text from the file `path` given with `flag` (`-`: standard input), at most
/// [`engine::text::MAX_QUERY_BYTES`]: a longer input is refused, never read to the end.
///
/// # Errors
/// The file cannot be read, is longer than the limit, or is not UTF-8; the message names
/// the flag and the path.
pub(super) fn read_query_text(path: &str, flag: &str) -> anyhow::Result<String> {
    let limit = engine::text::MAX_QUERY_BYTES;
    let name = if path == "-" { "- (standard input)" } else { path };
    let mut bytes = Vec::new();
    open(path, flag, name)?
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {flag} {name}"))?;
    if bytes.len() > limit {
        anyhow::bail!(
            "{flag} {name} is longer than {limit} bytes (1 MiB), the most fixdex reads for one query; \
             pass the buggy function or hunk, not a whole file or a device"
        );
    }
    engine::text::decode_utf8(bytes).map_err(|why| anyhow::anyhow!("{flag} {name}: {why}"))
}

/// The input `path` (`-`: standard input) of `flag`, `name` in messages.
fn open(path: &str, flag: &str, name: &str) -> anyhow::Result<Box<dyn Read>> {
    if path == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    let file = std::fs::File::open(Path::new(path)).with_context(|| format!("reading {flag} {name}"))?;
    Ok(Box::new(file))
}
