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

use std::io::BufRead;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::io::AsyncWriteExt;
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
    let served = rt.block_on(async move {
        let transport = LineTransport::stdio().map_err(|source| ServeError::Io { context: "reading stdin", source })?;
        let service = McpServer::new(host).serve(transport).await.map_err(|e| ServeError::Mcp(e.to_string()))?;
        tracing::info!("MCP session started");
        let reason = service.waiting().await.map_err(|e| ServeError::Mcp(e.to_string()))?;
        tracing::info!(?reason, "MCP session ended");
        Ok(())
    });
    // The stdin reader thread may still block in a read: do not wait for it.
    rt.shutdown_background();
    served
}

/// The MCP transport: lines from a reader thread ([`lines::read_line`],
/// [`lines::parse_line`]) and replies written to stdout, one JSON object per line. A line
/// that holds no message is answered here, in order with the server's own replies.
struct LineTransport {
    incoming: mpsc::Receiver<Line<RxJsonRpcMessage<RoleServer>>>,
    out: Arc<tokio::sync::Mutex<tokio::io::Stdout>>,
}

impl LineTransport {
    /// Reads stdin on a thread of its own (a blocking read cannot be cancelled; the thread
    /// ends at the end of the input).
    fn stdio() -> std::io::Result<LineTransport> {
        let (tx, incoming) = mpsc::channel(16);
        std::thread::Builder::new()
            .name("mcp-stdin".into())
            .spawn(move || read_lines(&mut std::io::stdin().lock(), &tx))?;
        Ok(LineTransport { incoming, out: Arc::new(tokio::sync::Mutex::new(tokio::io::stdout())) })
    }
}

/// Sends every line of `reader` that is not blank to `tx`, until the input ends, a read
/// fails or the transport is gone.
fn read_lines(reader: &mut dyn BufRead, tx: &mpsc::Sender<Line<RxJsonRpcMessage<RoleServer>>>) {
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
        if let Some(line) = line
            && tx.blocking_send(line).is_err()
        {
            return;
        }
    }
}

/// Writes `text` and a line end to `out`, flushed.
async fn write_line(out: &tokio::sync::Mutex<tokio::io::Stdout>, text: &str) -> std::io::Result<()> {
    let mut out = out.lock().await;
    out.write_all(text.as_bytes()).await?;
    out.write_all(b"\n").await?;
    out.flush().await
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = Arc::clone(&self.out);
        async move {
            let text = serde_json::to_string(&item).map_err(std::io::Error::other)?;
            write_line(&out, &text).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.incoming.recv().await? {
                Line::Message(m) => return Some(m),
                Line::Reply(reply) => {
                    if let Err(e) = write_line(&self.out, &reply.to_string()).await {
                        tracing::warn!(error = %e, "cannot write to stdout; the MCP session ends");
                        return None;
                    }
                }
            }
        }
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
