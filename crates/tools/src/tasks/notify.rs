//! Where a task's results and a person's chosen notices go (`[[notifiers]]`): a webhook (a JSON body signed with
//! HMAC-SHA256 of the notifier's secret in `X-Marquee-Signature: sha256=<hex>`) or an ntfy
//! topic (a text message, with a bearer token when one is configured). Each send is tried a
//! few times with back-off, each try under a timeout, on a task of its own: a notifier that
//! hangs or fails never holds a run up.

use std::time::Duration;

use domain::Secret;
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::Sha256;

/// One configured notifier.
#[derive(Debug, Clone)]
pub struct Notifier {
    pub id: String,
    pub kind: NotifierKind,
    /// How long one try may take before it is given up.
    pub timeout: Duration,
}

#[derive(Debug, Clone)]
pub enum NotifierKind {
    /// POSTs the JSON body to `url`, signed with `secret`.
    Webhook { url: url::Url, secret: Secret },
    /// POSTs a text message to the topic URL.
    Ntfy {
        url: url::Url,
        token: Option<Secret>,
    },
    /// Mails the message over SMTP.
    Email(Box<Email>),
}

/// An SMTP relay and the message's envelope.
#[derive(Debug, Clone)]
pub struct Email {
    pub host: String,
    pub port: u16,
    pub security: SmtpSecurity,
    /// Credentials for the relay, when it asks for them.
    pub login: Option<(String, Secret)>,
    pub from: String,
    pub to: Vec<String>,
}

/// How the SMTP connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpSecurity {
    /// STARTTLS, required (`smtp://`, port 587 by default).
    StartTls,
    /// TLS from the first byte (`smtps://`, port 465 by default).
    Tls,
    /// No TLS: only a relay on this machine (`smtp+plain://127.0.0.1`).
    Plain,
}

/// What is said about a finished run.
#[derive(Debug, Clone, Serialize)]
pub struct Message {
    pub task: TaskRef,
    pub run_id: i64,
    pub status: &'static str,
    /// One line per call made: the tool and its summary (or its error).
    pub summaries: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TaskRef {
    pub id: i64,
    pub name: String,
}

/// What a notifier sends, whatever it tells: the signed JSON body of a webhook, and an ntfy
/// message's title and text.
#[derive(Debug, Clone)]
pub struct Payload {
    pub json: Vec<u8>,
    pub title: String,
    pub text: String,
    /// What the log names it by ("run 7", "change chg_…").
    pub about: String,
}

impl Message {
    pub fn payload(&self) -> Payload {
        let mut text = self.summaries.join("\n");
        if let Some(e) = &self.error {
            text.push_str(&format!("\n{e}"));
        }
        Payload {
            json: serde_json::to_vec(self).unwrap_or_default(),
            title: format!("{}: {}", self.task.name, self.status),
            text,
            about: format!("run {}", self.run_id),
        }
    }
}

/// A change waiting for the owner's approval, told to whoever chose to hear of them
/// (`marquee people notify NAME --notifier ID --on approvals`).
#[derive(Debug, Clone, Serialize)]
pub struct ApprovalWaiting {
    /// Always "approval_waiting".
    pub event: &'static str,
    pub change_id: String,
    pub tool: String,
    /// Who asked.
    pub person: String,
    pub summary: String,
    /// The review page, when `public_url` is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
}

impl ApprovalWaiting {
    pub fn payload(&self) -> Payload {
        let mut text = format!("{} asked: {}", self.person, self.summary);
        if let Some(r) = &self.review {
            text.push_str(&format!("\n{r}"));
        }
        Payload {
            json: serde_json::to_vec(self).unwrap_or_default(),
            title: format!("Approval waiting: {}", self.tool),
            text,
            about: format!("change {}", self.change_id),
        }
    }
}

/// A request that became available, told to the person who asked for it (`marquee people
/// notify NAME --notifier ID --on downloads`).
#[derive(Debug, Clone, Serialize)]
pub struct Available {
    /// Always "available".
    pub event: &'static str,
    pub request_id: i64,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    pub media_type: String,
}

impl Available {
    pub fn payload(&self) -> Payload {
        let label = match self.year {
            Some(y) => format!("{} ({y})", self.title),
            None => self.title.clone(),
        };
        Payload {
            json: serde_json::to_vec(self).unwrap_or_default(),
            title: format!("Ready to watch: {label}"),
            text: format!("{label}, which you asked for, is in the library now."),
            about: format!("request {}", self.request_id),
        }
    }
}

/// Tries after the first, and the wait before each.
const BACKOFF: [Duration; 2] = [Duration::from_secs(1), Duration::from_secs(4)];

/// `sha256=<hex HMAC-SHA256 of body under secret>`.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        // HMAC takes a key of any length; this branch is unreachable in practice.
        return String::new();
    };
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Sends `message` to `notifier`, retrying with back-off; logs (never returns) the outcome.
pub async fn send(notifier: &Notifier, message: &Payload) {
    if let NotifierKind::Email(email) = &notifier.kind {
        return retried(notifier, message, || mail(email, notifier.timeout, message)).await;
    }
    let timeouts = httpx::Timeouts {
        connect: notifier.timeout,
        request: notifier.timeout,
    };
    let client = match httpx::client(timeouts) {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(notifier = %notifier.id, error = %e, "a notifier's client could not be built");
            return;
        }
    };
    retried(notifier, message, || try_once(&client, notifier, message)).await
}

/// `attempt` tried with back-off, each try under the notifier's timeout; the outcome logged.
async fn retried<F, Fut>(notifier: &Notifier, message: &Payload, attempt: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    let mut last = String::new();
    for round in 0..=BACKOFF.len() {
        if let Some(wait) = round.checked_sub(1).and_then(|i| BACKOFF.get(i)) {
            tokio::time::sleep(*wait).await;
        }
        match tokio::time::timeout(notifier.timeout, attempt()).await {
            Ok(Ok(())) => {
                tracing::info!(notifier = %notifier.id, about = %message.about, "notified");
                return;
            }
            Ok(Err(e)) => last = e,
            Err(_) => last = format!("no answer within {:?}", notifier.timeout),
        }
    }
    tracing::warn!(notifier = %notifier.id, about = %message.about, error = %last, "a notice could not be sent");
}

/// One try of mailing `message`: its title as the subject, its text as the body.
async fn mail(email: &Email, timeout: Duration, message: &Payload) -> Result<(), String> {
    use lettre::{
        AsyncSmtpTransport, AsyncTransport, Tokio1Executor, message::Mailbox,
        transport::smtp::authentication::Credentials,
    };
    let from: Mailbox = email.from.parse().map_err(|e| format!("from: {e}"))?;
    let mut builder = lettre::Message::builder()
        .from(from)
        .subject(message.title.replace(char::is_control, " "));
    for to in &email.to {
        builder = builder.to(to.parse::<Mailbox>().map_err(|e| format!("to: {e}"))?);
    }
    let mail = builder
        .body(message.text.clone())
        .map_err(|e| e.to_string())?;
    let relay = match email.security {
        SmtpSecurity::StartTls => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&email.host),
        SmtpSecurity::Tls => AsyncSmtpTransport::<Tokio1Executor>::relay(&email.host),
        SmtpSecurity::Plain => Ok(AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(
            &email.host,
        )),
    }
    .map_err(|e| e.to_string())?;
    let mut relay = relay.port(email.port).timeout(Some(timeout));
    if let Some((user, password)) = &email.login {
        relay = relay.credentials(Credentials::new(user.clone(), password.expose().to_owned()));
    }
    relay
        .build()
        .send(mail)
        .await
        .map(|_| ())
        // The relay's answer, never the credentials: lettre's error names neither.
        .map_err(|e| httpx::redact(&e.to_string()))
}

async fn try_once(
    client: &httpx::reqwest::Client,
    notifier: &Notifier,
    message: &Payload,
) -> Result<(), String> {
    let request = match &notifier.kind {
        NotifierKind::Webhook { url, secret } => {
            let body = message.json.clone();
            client
                .post(url.clone())
                .header("content-type", "application/json")
                .header("x-marquee-signature", signature(secret.expose(), &body))
                .body(body)
        }
        NotifierKind::Email(_) => return Err("an email notifier is not sent over HTTP".into()),
        NotifierKind::Ntfy { url, token } => {
            let request = client
                .post(url.clone())
                // A header value takes no control character: a task's name may hold any.
                .header("title", message.title.replace(char::is_control, " "))
                .body(message.text.clone());
            match token {
                Some(t) => request.bearer_auth(t.expose()),
                None => request,
            }
        }
    };
    let answer = request
        .send()
        .await
        // Without the URL: an ntfy topic's path is its credential.
        .map_err(|e| httpx::redact(&e.without_url().to_string()))?;
    let status = answer.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("answered HTTP {}", status.as_u16()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_rfc_4231s_hmac_sha256() {
        // RFC 4231, test case 2.
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
