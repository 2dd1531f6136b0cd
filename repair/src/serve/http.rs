//! The tools over a small JSON HTTP API (axum on tokio).
//!
//! | route | answer |
//! |---|---|
//! | `GET /health` | 200 `{"status": "ok", "tools": N, "index": {...}}`; 503 with `"status": "unavailable"` and `index.error` when the index's files changed on disk and cannot be served |
//! | `GET /tools` | 200 `{"tools": [{"name", "description", "parameters"}]}` (`parameters`: the JSON schema of the arguments) |
//! | `POST /tools/{name}` | body: the arguments as a JSON object (an empty body is `{}`); 200 `{"result": text}` plus `"structured"` for `search_similar_fixes` |
//!
//! `index` (when `search_similar_fixes` is served) is a [`crate::retrieve::reload::IndexStatus`]: the
//! path, `load` (`mmap` or `memory`), `generation` (1, plus one per reload), `documents`,
//! `bytes`, and `files` (each with `path`, `device`, `inode`, `bytes`, `modified_ns`,
//! `changed_ns`) of the index served (last served, when `error` is set).
//!
//! Errors are `{"error": message}` with 400 (body not a JSON object), 404 (no such tool or
//! route), 408 (the body did not arrive within [`HttpConfig::body_timeout`] of the request's
//! headers: the connection is then closed, so a stalled client cannot hold it), 413 (body
//! over [`HttpConfig::max_body_bytes`]), 422 (bad arguments: an unknown
//! argument name, a wrong type, a value out of range, an empty query, a space the index
//! lacks; or a file, method, class or variable that does not exist: the same message a
//! model would get), 500 (internal failure) or 503 (the index changed on disk and the files
//! now there cannot be served; the next request looks again).
//!
//! The server binds loopback addresses only unless [`HttpConfig::allow_remote`] is set:
//! there is no authentication, and the tools read the project's files.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::{CallError, ServeError, ToolHost};

/// Address bound when none is given.
pub const DEFAULT_ADDR: &str = "127.0.0.1:7878";

/// Default request body limit: 1 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1 << 20;

/// Default time a request's body may take to arrive after its headers: 30 seconds.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// Knobs of the HTTP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpConfig {
    /// Largest request body accepted, in bytes; larger ones get 413.
    pub max_body_bytes: usize,
    /// Longest a request's body may take to arrive once its headers have; a slower one gets
    /// 408 and its connection is closed.
    pub body_timeout: Duration,
    /// Allow binding an address that is not loopback (anyone who can reach it may call the
    /// tools; there is no authentication).
    pub allow_remote: bool,
}

impl Default for HttpConfig {
    /// 1 MiB bodies arriving within 30 s, loopback only.
    fn default() -> Self {
        HttpConfig { max_body_bytes: DEFAULT_MAX_BODY_BYTES, body_timeout: DEFAULT_BODY_TIMEOUT, allow_remote: false }
    }
}

/// A bound, not yet serving, HTTP server.
#[derive(Debug)]
pub struct HttpServer {
    listener: std::net::TcpListener,
    config: HttpConfig,
}

impl HttpServer {
    /// Resolves `addr` (`host:port`; port 0 picks a free port) and binds it.
    ///
    /// # Errors
    /// [`ServeError::NotLoopback`] when `addr` resolves to a non-loopback address and
    /// `config.allow_remote` is false; [`ServeError::Bind`] when it does not resolve or
    /// cannot be bound.
    pub fn bind(addr: &str, config: HttpConfig) -> Result<HttpServer, ServeError> {
        let bind_err = |source| ServeError::Bind { addr: addr.to_string(), source };
        let addrs: Vec<SocketAddr> = addr.to_socket_addrs().map_err(bind_err)?.collect();
        if !config.allow_remote && (addrs.is_empty() || addrs.iter().any(|a| !a.ip().is_loopback())) {
            return Err(ServeError::NotLoopback { addr: addr.to_string() });
        }
        let listener = std::net::TcpListener::bind(&addrs[..]).map_err(bind_err)?;
        listener.set_nonblocking(true).map_err(bind_err)?;
        Ok(HttpServer { listener, config })
    }

    /// The address bound (with the real port when port 0 was asked for).
    ///
    /// # Errors
    /// [`ServeError::Io`] if the socket cannot tell.
    pub fn local_addr(&self) -> Result<SocketAddr, ServeError> {
        self.listener.local_addr().map_err(|source| ServeError::Io { context: "reading the bound address", source })
    }

    /// Serves `host` until the process ends. Blocks; runs its own single-threaded tokio
    /// runtime (tool calls run on its blocking pool).
    ///
    /// # Errors
    /// [`ServeError::Io`] when the runtime cannot start or the listener fails.
    pub fn run(self, host: Arc<ToolHost>) -> Result<(), ServeError> {
        let io = |context| move |source| ServeError::Io { context, source };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(io("starting the async runtime"))?;
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(self.listener).map_err(io("registering the listener"))?;
            axum::serve(listener, router(host, self.config)).await.map_err(io("serving HTTP"))
        })
    }
}

/// The routes of the API over `host` (see the module docs), for embedding in another
/// axum server.
pub fn router(host: Arc<ToolHost>, config: HttpConfig) -> axum::Router {
    axum::Router::new()
        .route("/health", get(health))
        .route("/tools", get(list))
        .route("/tools/{name}", post(call))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such route; see GET /tools and POST /tools/{name}") })
        .layer(DefaultBodyLimit::max(config.max_body_bytes))
        .with_state(App { host, config })
}

/// What the handlers share: the tools and the server's knobs.
#[derive(Debug, Clone)]
struct App {
    host: Arc<ToolHost>,
    config: HttpConfig,
}

async fn health(State(App { host, .. }): State<App>) -> Response {
    let tools = host.specs().len();
    let index = match tokio::task::spawn_blocking(move || host.index_status()).await {
        Ok(index) => index,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, &format!("health check panicked: {e}")),
    };
    let Some(index) = index else {
        return (StatusCode::OK, Json(json!({"status": "ok", "tools": tools}))).into_response();
    };
    let (code, status) = match index.error {
        None => (StatusCode::OK, "ok"),
        Some(_) => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
    };
    (code, Json(json!({"status": status, "tools": tools, "index": index}))).into_response()
}

async fn list(State(App { host, .. }): State<App>) -> Json<Value> {
    Json(json!({"tools": host.specs()}))
}

async fn call(State(App { host, config }): State<App>, Path(name): Path<String>, request: Request) -> Response {
    let body = match body(request, config.body_timeout).await {
        Ok(b) => b,
        Err(response) => return response,
    };
    if !host.has(&name) {
        return error(StatusCode::NOT_FOUND, &host.unknown(&name).to_string());
    }
    let args = match arguments(&body) {
        Ok(v) => v,
        Err(msg) => return error(StatusCode::BAD_REQUEST, &msg),
    };
    let answer = tokio::task::spawn_blocking(move || host.call(&name, &args)).await;
    match answer {
        Ok(Ok(out)) => {
            let mut body = json!({"result": out.text});
            if let Some(s) = out.structured {
                body["structured"] = s;
            }
            (StatusCode::OK, Json(body)).into_response()
        }
        Ok(Err(e)) => error(status(&e), &e.to_string()),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, &format!("tool call panicked: {e}")),
    }
}

/// The request's body, read within `timeout` (and the body limit layer's size).
///
/// # Errors
/// The response to send instead: 408 (the connection is closed with it), 413 or 400.
async fn body(request: Request, timeout: Duration) -> Result<Bytes, Response> {
    match tokio::time::timeout(timeout, Bytes::from_request(request, &())).await {
        Ok(Ok(b)) => Ok(b),
        Ok(Err(e)) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            Err(error(e.status(), &format!("request body too large: {}", e.body_text())))
        }
        Ok(Err(e)) => Err(error(e.status(), &e.body_text())),
        Err(_) => {
            let message = format!("the request body did not arrive within {} s of its headers", timeout.as_secs_f64());
            let mut response = error(StatusCode::REQUEST_TIMEOUT, &message);
            response.headers_mut().insert(axum::http::header::CONNECTION, "close".parse().expect("a header value"));
            Err(response)
        }
    }
}

/// The call's arguments: the body as a JSON object; an empty body is `{}`.
fn arguments(body: &[u8]) -> Result<Value, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(other) => Err(format!("the body must be a JSON object of arguments, got: {other}")),
        Err(e) => Err(format!("the body is not valid JSON: {e}")),
    }
}

fn status(e: &CallError) -> StatusCode {
    match e {
        CallError::UnknownTool { .. } => StatusCode::NOT_FOUND,
        CallError::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
        CallError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        CallError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

fn error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({"error": message}))).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_must_be_an_object() {
        assert_eq!(arguments(b"").unwrap(), json!({}));
        assert_eq!(arguments(br#"{"a": 1}"#).unwrap(), json!({"a": 1}));
        assert!(arguments(b"[1]").unwrap_err().contains("JSON object"));
        assert!(arguments(b"{").unwrap_err().contains("not valid JSON"));
    }

    #[test]
    fn non_loopback_addresses_are_refused_unless_allowed() {
        let err = HttpServer::bind("0.0.0.0:0", HttpConfig::default()).unwrap_err();
        assert!(matches!(err, ServeError::NotLoopback { .. }), "{err}");
        let ok = HttpServer::bind("127.0.0.1:0", HttpConfig::default()).unwrap();
        assert_ne!(ok.local_addr().unwrap().port(), 0);
        let remote = HttpConfig { allow_remote: true, ..HttpConfig::default() };
        assert!(HttpServer::bind("0.0.0.0:0", remote).is_ok());
    }
}
