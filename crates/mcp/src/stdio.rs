//! `marquee stdio`: the same dispatcher as HTTP, one JSON-RPC message per line, for the
//! person behind one credential, re-checked on every request. stdout belongs to the
//! protocol (answers, notifications, questions); logs go to stderr.

use std::sync::Arc;

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
    let mut lines = BufReader::new(input).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let (host, peers, credential, tx) =
            (host.clone(), peers.clone(), credential.clone(), tx.clone());
        running.spawn(async move {
            let reply = answer(host.as_ref(), &peers, &credential, &line, tx.clone()).await;
            if let Some(body) = reply.body {
                let _ = tx.send(body);
            }
        });
        while running.try_join_next().is_some() {}
    }
    while running.join_next().await.is_some() {}
    drop(tx);
    writer.await.map_err(std::io::Error::other)?
}

async fn answer<H: ToolHost>(
    host: &H,
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
    };
    dispatch::dispatch(host, &caller, message, Headers::default(), link).await
}
