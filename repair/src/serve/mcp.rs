//! The tools over the Model Context Protocol on stdio, with the official Rust SDK (rmcp).
//!
//! Stdout carries only the protocol (newline-delimited JSON-RPC); logs go to stderr. The
//! session ends when the client closes stdin. Lines are read by fixdex's own transport
//! ([`super::lines`]), not rmcp's: a line that holds no message (not UTF-8, not JSON, not
//! JSON-RPC, over 16 MiB) gets a JSON-RPC error reply (`-32700 Parse error` or `-32600
//! Invalid Request`) instead of silence, so a client never waits forever.
//!
//! `tools/list` gives every tool of the [`ToolHost`] with its JSON input schema;
//! `tools/call` runs one on tokio's blocking pool and answers its text as one `text`
//! content block (plus `structuredContent` for `search_similar_fixes`). A failed call is a
//! result with `isError: true` and the model-facing message, so the agent's model sees
//! it; only an unknown tool name is a JSON-RPC error (-32602), as the MCP spec asks.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::sync::mpsc;

use super::lines::{self, Line, MAX_LINE_BYTES};
use super::{CallError, ServeError, ToolHost, ToolOutput};

/// What the server tells the client about itself at `initialize`.
const INSTRUCTIONS: &str = "fixdex repair ingredients. `search_similar_fixes` finds historical bug fixes similar to \
                            buggy code and its root cause; the other tools analyse the Java and Python sources of \
                            the project under repair (paths relative to the project root).";

/// An rmcp [`ServerHandler`] that serves the tools of a [`ToolHost`].
#[derive(Debug, Clone)]
pub struct McpServer {
    host: Arc<ToolHost>,
    tools: Arc<Vec<Tool>>,
}

impl McpServer {
    /// A handler for `host`'s tools. Cost: O(number of tools).
    pub fn new(host: Arc<ToolHost>) -> McpServer {
        let tools = host.specs().into_iter().map(|s| Tool::new(s.name, s.description, schema(s.parameters))).collect();
        McpServer { host, tools: Arc::new(tools) }
    }

    /// The tools as listed by `tools/list`.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }
}

/// A tool's JSON schema as an object (the specs always are; anything else becomes `{}`).
fn schema(parameters: Value) -> JsonObject {
    match parameters {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("fixdex", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.into_owned();
        let args = Value::Object(request.arguments.unwrap_or_default());
        let host = Arc::clone(&self.host);
        let answer = tokio::task::spawn_blocking(move || host.call(&name, &args))
            .await
            .map_err(|e| ErrorData::internal_error(format!("tool call panicked: {e}"), None))?;
        to_result(answer).map(CallToolResponse::from)
    }
}

fn to_result(answer: Result<ToolOutput, CallError>) -> Result<CallToolResult, ErrorData> {
    match answer {
        Ok(out) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(out.text)]);
            result.structured_content = out.structured;
            Ok(result)
        }
        Err(e @ CallError::UnknownTool { .. }) => Err(ErrorData::invalid_params(e.to_string(), None)),
        Err(e) => {
            tracing::debug!(error = %e, "tool error");
            Ok(CallToolResult::error(vec![ContentBlock::text(e.to_string())]))
        }
    }
}

/// Serves `host` over MCP on stdin/stdout until the client closes stdin. Blocks; runs
/// its own single-threaded tokio runtime (tool calls run on its blocking pool).
///
/// # Errors
/// [`ServeError::Io`] when the runtime cannot start; [`ServeError::Mcp`] when the session
/// fails to initialise or its task fails.
pub fn run_stdio(host: Arc<ToolHost>) -> Result<(), ServeError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| ServeError::Io { context: "starting the async runtime", source })?;
    let out = Stdout::spawn().map_err(|source| ServeError::Io { context: "writing stdout", source })?;
    let session_out = out.clone();
    let served = rt.block_on(async move {
        let out = session_out;
        let transport =
            LineTransport::stdio(out.clone()).map_err(|source| ServeError::Io { context: "reading stdin", source })?;
        let service = McpServer::new(host).serve(transport).await.map_err(|e| ServeError::Mcp(e.to_string()))?;
        tracing::info!("MCP session started");
        let reason = service.waiting().await.map_err(|e| ServeError::Mcp(e.to_string()))?;
        tracing::info!(?reason, "MCP session ended");
        Ok(())
    });
    // The stdin reader thread may still block in a read: do not wait for it; but every
    // reply queued must reach stdout before the process exits.
    rt.shutdown_background();
    out.drain();
    served
}

/// The MCP transport: lines from a reader thread ([`lines::read_line`],
/// [`lines::parse_line`]) and every line of stdout from one writer thread ([`Stdout`]), one
/// JSON object per line. A line that holds no message is answered by the reader thread
/// itself (through the writer), so no reply depends on a future that rmcp may drop: rmcp
/// polls `receive` inside a `select!` and drops it whenever another branch is ready, and a
/// reply written there could be lost, or cut between its text and its line end.
struct LineTransport {
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    out: Stdout,
}

impl LineTransport {
    /// Reads stdin on a thread of its own (a blocking read cannot be cancelled; the thread
    /// ends at the end of the input) and writes stdout through `out`.
    fn stdio(out: Stdout) -> std::io::Result<LineTransport> {
        let (tx, incoming) = mpsc::channel(16);
        let replies = out.clone();
        std::thread::Builder::new()
            .name("mcp-stdin".into())
            .spawn(move || read_lines(&mut std::io::stdin().lock(), &tx, &replies))?;
        Ok(LineTransport { incoming, out })
    }
}

/// Sends every message of `reader` to `tx` and answers every other non-blank line through
/// `out`, until the input ends, a read fails, or the transport or stdout is gone.
fn read_lines(reader: &mut dyn BufRead, tx: &mpsc::Sender<RxJsonRpcMessage<RoleServer>>, out: &Stdout) {
    loop {
        let line = match lines::read_line(reader, MAX_LINE_BYTES) {
            Ok(Some(Ok(bytes))) => lines::parse_line(&bytes),
            Ok(Some(Err(too_long))) => Some(Line::Reply(lines::too_long_reply(too_long))),
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read stdin; the MCP session ends");
                return;
            }
        };
        let sent = match line {
            Some(Line::Message(m)) => tx.blocking_send(m).is_ok(),
            Some(Line::Reply(reply)) => out.line(reply.to_string()).is_ok(),
            None => true,
        };
        if !sent {
            return;
        }
    }
}

/// What the stdout writer thread is given.
enum Out {
    /// One line, written whole with its line end and flushed.
    Line(String),
    /// Answered once every line queued before it is written.
    Drained(std::sync::mpsc::Sender<()>),
}

/// Stdout's only writer: a thread that writes whole lines in the order they are queued,
/// so no two replies share a line and none is cut. Cloned by the reader thread and the
/// transport; queuing never blocks.
#[derive(Clone)]
struct Stdout {
    queue: std::sync::mpsc::Sender<Out>,
    broken: Arc<AtomicBool>,
}

impl Stdout {
    /// Starts the writer thread.
    fn spawn() -> std::io::Result<Stdout> {
        let (queue, rx) = std::sync::mpsc::channel();
        let broken = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&broken);
        std::thread::Builder::new().name("mcp-stdout".into()).spawn(move || write_lines(&rx, &flag))?;
        Ok(Stdout { queue, broken })
    }

    /// Queues `text` as one line.
    ///
    /// # Errors
    /// `BrokenPipe` once a write to stdout failed (the client is gone).
    fn line(&self, text: String) -> std::io::Result<()> {
        let gone = || std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed");
        if self.broken.load(Ordering::Relaxed) {
            return Err(gone());
        }
        self.queue.send(Out::Line(text)).map_err(|_| gone())
    }

    /// Blocks until every line queued so far is written (or stdout failed).
    fn drain(&self) {
        let (ack, done) = std::sync::mpsc::channel();
        if self.queue.send(Out::Drained(ack)).is_ok() {
            let _ = done.recv();
        }
    }
}

/// The writer thread: writes each queued line to stdout until every sender is gone; after a
/// failed write it sets `broken` and drops the lines still queued.
fn write_lines(rx: &std::sync::mpsc::Receiver<Out>, broken: &AtomicBool) {
    let stdout = std::io::stdout();
    for item in rx {
        match item {
            Out::Line(text) if !broken.load(Ordering::Relaxed) => {
                let mut out = stdout.lock();
                let written =
                    out.write_all(text.as_bytes()).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush());
                if let Err(e) = written {
                    tracing::warn!(error = %e, "cannot write to stdout; the MCP session ends");
                    broken.store(true, Ordering::Relaxed);
                }
            }
            Out::Line(_) => {}
            Out::Drained(ack) => {
                let _ = ack.send(());
            }
        }
    }
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let queued = serde_json::to_string(&item).map_err(std::io::Error::other).and_then(|text| self.out.line(text));
        std::future::ready(queued)
    }

    /// Cancel-safe: only a channel receive.
    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        if self.out.broken.load(Ordering::Relaxed) {
            return None;
        }
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Toolbox;

    #[test]
    fn every_tool_is_listed_with_an_object_schema() {
        let dir = tempfile::tempdir().unwrap();
        let server = McpServer::new(Arc::new(ToolHost::new(None, Some(Toolbox::new(dir.path())))));
        assert_eq!(server.tools().len(), 9);
        for t in server.tools() {
            assert_eq!(t.input_schema.get("type"), Some(&Value::from("object")), "{}", t.name);
            assert!(t.description.as_deref().is_some_and(|d| !d.is_empty()));
        }
    }

    #[test]
    fn failures_are_tool_errors_and_unknown_tools_protocol_errors() {
        let err = to_result(Err(CallError::Invalid("bad `k`".into()))).unwrap();
        assert_eq!(err.is_error, Some(true));
        assert_eq!(err.content[0].as_text().map(|t| t.text.as_str()), Some("bad `k`"));
        let unknown = CallError::UnknownTool { name: "x".into(), available: "y".into() };
        assert_eq!(to_result(Err(unknown)).unwrap_err().code, rmcp::model::ErrorCode::INVALID_PARAMS);
    }
}
