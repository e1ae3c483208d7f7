//! The older HTTP+SSE transport (protocol 2024-11-05), for servers that predate Streamable
//! HTTP: a GET opens an event stream whose first `endpoint` event names where messages are
//! POSTed; answers and notifications come back as `message` events on that stream. rmcp's
//! client no longer speaks it, so this small one does, as an rmcp `Transport`.

use std::time::Duration;

use httpx::reqwest;
use rmcp::{
    RoleClient,
    service::{RxJsonRpcMessage, TxJsonRpcMessage},
    transport::Transport,
};
use tokio::{sync::mpsc, task::JoinHandle};

/// Messages read ahead of the client.
const QUEUED: usize = 64;

/// Why the transport failed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct SseError(String);

/// One connection: where messages are POSTed, and the events read so far.
pub(crate) struct LegacySse {
    client: reqwest::Client,
    endpoint: String,
    headers: http::HeaderMap,
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: JoinHandle<()>,
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Opens the event stream at `url` and waits for its `endpoint` event, which must name a URL
/// of the same origin (a server cannot send Marquee's messages, and their headers, elsewhere).
/// An event larger than `max_event` bytes ends the stream.
pub(crate) async fn connect(
    client: reqwest::Client,
    url: &str,
    headers: http::HeaderMap,
    max_event: usize,
) -> Result<LegacySse, String> {
    let base = url::Url::parse(url).map_err(|e| format!("{url} is not a URL: {e}"))?;
    let mut response = client
        .get(base.clone())
        .headers(headers.clone())
        .header(http::header::ACCEPT, "text/event-stream")
        .send()
        .await
        .map_err(|e| format!("GET {url} failed: {}", httpx::redact(&e.to_string())))?;
    let status = response.status();
    let event_stream = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !status.is_success() || !event_stream {
        return Err(format!("GET {url} answered {status}, not an event stream"));
    }
    let mut events = Events::new(max_event);
    let endpoint = loop {
        let chunk = response
            .chunk()
            .await
            .map_err(|e| format!("the event stream broke: {e}"))?
            .ok_or("the event stream ended before naming its endpoint")?;
        let found = events
            .feed(&chunk)
            .map_err(|e| e.0)?
            .into_iter()
            .find(|(name, _)| name == "endpoint");
        if let Some((_, data)) = found {
            break data;
        }
    };
    let endpoint = base
        .join(endpoint.trim())
        .map_err(|e| format!("its endpoint is not a URL: {e}"))?;
    if endpoint.origin() != base.origin() {
        return Err("its endpoint is on another origin; refused".into());
    }
    let (tx, incoming) = mpsc::channel(QUEUED);
    let reader = tokio::spawn(read(response, events, tx));
    Ok(LegacySse {
        client,
        endpoint: endpoint.into(),
        headers,
        incoming,
        reader,
    })
}

/// Hands every `message` event on to the client until the stream ends or breaks.
async fn read(
    mut response: reqwest::Response,
    mut events: Events,
    tx: mpsc::Sender<RxJsonRpcMessage<RoleClient>>,
) {
    loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) | Err(_) => return,
        };
        let Ok(found) = events.feed(&chunk) else {
            return;
        };
        for (name, data) in found {
            if name != "message" {
                continue;
            }
            // A message that does not parse is dropped; the call waiting for it times out.
            let Ok(message) = serde_json::from_str(&data) else {
                tracing::debug!("an SSE message that is not JSON-RPC was dropped");
                continue;
            };
            if tx.send(message).await.is_err() {
                return;
            }
        }
    }
}

impl Transport<RoleClient> for LegacySse {
    type Error = SseError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), SseError>> + Send + 'static {
        let post = self
            .client
            .post(&self.endpoint)
            .headers(self.headers.clone())
            .timeout(Duration::from_secs(30))
            .json(&item);
        async move {
            let response = post
                .send()
                .await
                .map_err(|e| SseError(httpx::redact(&e.to_string())))?;
            let status = response.status();
            if status.is_success() {
                Ok(())
            } else {
                Err(SseError(format!("the server refused a message: {status}")))
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), SseError> {
        self.reader.abort();
        Ok(())
    }
}

/// Server-sent events, as the bytes of a stream arrive: (event name, data) of each event
/// completed by a blank line; the name is `message` when none is given.
struct Events {
    line: Vec<u8>,
    name: String,
    data: String,
    max: usize,
}

impl Events {
    fn new(max: usize) -> Events {
        Events {
            line: Vec::new(),
            name: String::new(),
            data: String::new(),
            max,
        }
    }

    fn feed(&mut self, bytes: &[u8]) -> Result<Vec<(String, String)>, SseError> {
        let mut done = Vec::new();
        for &b in bytes {
            if b != b'\n' {
                self.line.push(b);
                if self.line.len() + self.data.len() > self.max {
                    return Err(SseError(format!("an event over {} bytes", self.max)));
                }
                continue;
            }
            let line = std::mem::take(&mut self.line);
            let line = String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(&line));
            if line.is_empty() {
                if !self.data.is_empty() || !self.name.is_empty() {
                    let name = std::mem::take(&mut self.name);
                    let name = if name.is_empty() {
                        "message".into()
                    } else {
                        name
                    };
                    done.push((name, std::mem::take(&mut self.data)));
                }
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (line.as_ref(), ""),
            };
            match field {
                "event" => self.name = value.to_owned(),
                "data" => {
                    if !self.data.is_empty() {
                        self.data.push('\n');
                    }
                    self.data.push_str(value);
                }
                _ => {} // id, retry and comments: nothing a client of ours needs
            }
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_read_across_chunks_with_their_names_and_lines() {
        let mut e = Events::new(1000);
        assert!(
            e.feed(b": hello\nevent: endpoint\r\ndata: /message?s")
                .unwrap()
                .is_empty()
        );
        let got = e.feed(b"=1\n\ndata: {\"a\":\ndata: 1}\n\n").unwrap();
        assert_eq!(
            got,
            [
                ("endpoint".to_string(), "/message?s=1".to_string()),
                ("message".to_string(), "{\"a\":\n1}".to_string()),
            ]
        );
    }

    #[test]
    fn an_event_over_the_limit_ends_the_stream() {
        let mut e = Events::new(16);
        assert!(e.feed(b"data: 0123456789abcdefghij\n\n").is_err());
    }
}
