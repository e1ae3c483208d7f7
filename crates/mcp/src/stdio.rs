//! `marquee stdio`: the same dispatcher as HTTP, one JSON-RPC message per line, for the
//! person behind one credential, re-checked on every request. stdout belongs to the
//! protocol (answers, notifications, questions); logs go to stderr. Once the client has
//! initialized, the person's tool list is read again every few seconds, and a change (a
//! federated server came or went, a switch or a grant changed) is told to the client as
//! `notifications/tools/list_changed`.

use std::{sync::Arc, time::Duration};

use rmcp::model::ErrorCode;
use serde_json::Value;
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader},
    sync::mpsc,
    task::JoinSet,
};

use crate::{
    Peers, ToolHost,
    dispatch::{self, Headers, Link, Reply},
};

/// Serves stdin/stdout until the client closes stdin.
pub async fn serve<H: ToolHost>(host: Arc<H>, credential: String) -> Result<(), std::io::Error> {
    serve_on(host, credential, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves one client on any pair of byte streams (tests use pipes). Every line is handled
/// on its own task, so a client can answer a question while the call that asked it waits.
pub async fn serve_on<H, R, W>(
    host: Arc<H>,
    credential: String,
    input: R,
    mut output: W,
) -> Result<(), std::io::Error>
where
    H: ToolHost,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        while let Some(mut line) = rx.recv().await {
            line.push(b'\n');
            output.write_all(&line).await?;
            output.flush().await?;
        }
        Ok::<_, std::io::Error>(())
    });
    let peers = Arc::new(Peers::default());
    let credential: Arc<str> = credential.into();
    let mut running = JoinSet::new();
    let mut watching: Option<tokio::task::JoinHandle<()>> = None;
    let mut lines = BufReader::new(input).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        if watching.is_none() && is_initialized(&line) {
            watching = Some(tokio::spawn(watch_tools(
                host.clone(),
                credential.clone(),
                tx.clone(),
            )));
        }
        let (host, peers, credential, tx) =
            (host.clone(), peers.clone(), credential.clone(), tx.clone());
        running.spawn(async move {
            let reply = answer(&host, &peers, &credential, &line, tx.clone()).await;
            if let Some(body) = reply.body {
                let _ = tx.send(body);
            }
        });
        while running.try_join_next().is_some() {}
    }
    while running.join_next().await.is_some() {}
    if let Some(w) = watching {
        w.abort();
    }
    drop(tx);
    writer.await.map_err(std::io::Error::other)?
}

/// How often the tool list is read again for a change.
const LIST_EVERY: Duration = Duration::from_secs(2);

/// Whether a line is the client's `notifications/initialized`.
fn is_initialized(line: &str) -> bool {
    serde_json::from_str::<Value>(line)
        .is_ok_and(|m| m.get("method").and_then(Value::as_str) == Some("notifications/initialized"))
}

/// The names this credential's `tools/list` holds now; `None` when it cannot be read (a
/// revoked key: the next request says so).
async fn names<H: ToolHost>(host: &H, credential: &str) -> Option<Vec<String>> {
    let caller = host.authenticate(credential).await.ok()??;
    let tools = host.list_tools(&caller).await.ok()?;
    Some(tools.iter().map(|t| t.tool().name.to_string()).collect())
}

/// Tells the client each time its tool list differs from the one before.
async fn watch_tools<H: ToolHost>(
    host: Arc<H>,
    credential: Arc<str>,
    out: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut last = names(host.as_ref(), &credential).await;
    loop {
        tokio::time::sleep(LIST_EVERY).await;
        let now = names(host.as_ref(), &credential).await;
        if now.is_some() && now != last {
            let note = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
            if out.send(note.to_vec()).is_err() {
                return;
            }
            last = now;
        }
    }
}

async fn answer<H: ToolHost>(
    host: &Arc<H>,
    peers: &Arc<Peers>,
    credential: &str,
    line: &str,
    out: mpsc::UnboundedSender<Vec<u8>>,
) -> Reply {
    let message: Value = match serde_json::from_str(line) {
        Ok(m) => m,
        Err(_) => {
            let why = "parse error: the line is not valid JSON";
            return Reply::error(400, None, ErrorCode::PARSE_ERROR, why, None);
        }
    };
    if message.is_array() {
        let why = "invalid request: batches are not supported; send one JSON-RPC message per line";
        return Reply::error(400, None, ErrorCode::INVALID_REQUEST, why, None);
    }
    if message.get("id").is_none() {
        // Notifications and answers need no caller; nothing is ever written back for them.
        if message.get("method").is_some() {
            return Reply::accepted("notification");
        }
    }
    let caller = match host.authenticate(credential).await {
        Ok(Some(caller)) => caller,
        Ok(None) => {
            let why = "the credential in MARQUEE_KEY is no longer valid (revoked or expired)";
            return Reply::error(
                401,
                message.get("id").cloned(),
                ErrorCode::INVALID_REQUEST,
                why,
                None,
            );
        }
        Err(e) => {
            tracing::error!(error = %e, "authentication failed");
            let why = "internal error; the server log has the details";
            return Reply::error(
                500,
                message.get("id").cloned(),
                ErrorCode::INTERNAL_ERROR,
                why,
                None,
            );
        }
    };
    let link = Link {
        peers,
        owner: 0,
        out: Some(out),
        tells_list_changes: true,
    };
    dispatch::dispatch(host, &caller, message, Headers::default(), link).await
}
