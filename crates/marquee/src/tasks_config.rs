//! `[tasks]` and `[[notifiers]]`: the time zone scheduled tasks are read in, and where their
//! results are told (a signed webhook, an ntfy topic or email), secrets read from `_file`s.

use std::{path::PathBuf, time::Duration};

use anyhow::{Context, bail};
use domain::Secret;
use serde::{Deserialize, Serialize};
use tools::tasks::{
    TasksConfig,
    notify::{Email, Notifier, NotifierKind, SmtpSecurity},
    schedule,
};

use crate::config::Config;

/// `[tasks]`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TasksSection {
    /// The IANA time zone cron expressions and local dates are read in (`Europe/Paris`);
    /// default the machine's.
    pub time_zone: Option<String>,
}

/// One `[[notifiers]]` entry.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NotifierConfig {
    /// What a task's `notifier` names.
    pub id: String,
    /// `webhook`, `ntfy` or `email`.
    pub kind: String,
    /// The webhook's URL, the ntfy topic's (`https://ntfy.sh/my-topic`), or the SMTP relay's:
    /// `smtp://host:587` (STARTTLS, required), `smtps://host:465` (TLS), or
    /// `smtp+plain://127.0.0.1:25` (no TLS: a relay on this machine only).
    pub url: String,
    /// webhook: the file holding the HMAC-SHA256 signing secret.
    pub secret_file: Option<PathBuf>,
    /// ntfy: the file holding an access token, when the topic needs one.
    pub token_file: Option<PathBuf>,
    /// email: the relay's user name, when it asks for one (with `password_file`).
    pub username: Option<String>,
    /// email: the file holding the relay password.
    pub password_file: Option<PathBuf>,
    /// email: the sender (`Marquee <marquee@example.org>`).
    pub from: Option<String>,
    /// email: the recipients.
    pub to: Vec<String>,
    /// How long one try may take (default 10 s); a notifier never holds a run up.
    pub timeout_seconds: Option<u64>,
}

impl Config {
    /// The scheduler's settings, secret files read: refused with a clear message for an
    /// unknown time zone, an unknown kind, a missing URL or secret, or a duplicated id.
    pub fn tasks_config(&self) -> anyhow::Result<TasksConfig> {
        let zone = match &self.tasks.time_zone {
            Some(name) => name.parse().map_err(|_| {
                anyhow::anyhow!("[tasks] time_zone \"{name}\" is not an IANA time zone name (Europe/Paris, America/New_York, UTC)")
            })?,
            None => schedule::machine_zone(),
        };
        let mut notifiers: Vec<Notifier> = Vec::new();
        for n in &self.notifiers {
            if n.id.trim().is_empty() {
                bail!("a [[notifiers]] entry has no id");
            }
            if notifiers.iter().any(|m| m.id == n.id) {
                bail!("two [[notifiers]] have the id \"{}\"", n.id);
            }
            let parsed = url::Url::parse(&n.url).ok();
            let web_url = || {
                parsed
                    .clone()
                    .filter(|u| matches!(u.scheme(), "http" | "https"))
                    .ok_or_else(|| {
                        anyhow::anyhow!(
                            "notifier \"{}\": url must be an http:// or https:// address",
                            n.id
                        )
                    })
            };
            let read = |path: &PathBuf, what: &str| -> anyhow::Result<Secret> {
                let text = std::fs::read_to_string(path).with_context(|| {
                    format!(
                        "notifier \"{}\": {what} {} cannot be read",
                        n.id,
                        path.display()
                    )
                })?;
                let text = text.trim();
                if text.is_empty() {
                    bail!(
                        "notifier \"{}\": {what} {} is empty; put the secret in it",
                        n.id,
                        path.display()
                    );
                }
                Ok(Secret::new(text))
            };
            let kind = match n.kind.as_str() {
                "webhook" => {
                    let Some(path) = &n.secret_file else {
                        bail!(
                            "notifier \"{}\": a webhook needs secret_file (its signing secret)",
                            n.id
                        );
                    };
                    NotifierKind::Webhook {
                        url: web_url()?,
                        secret: read(path, "secret_file")?,
                    }
                }
                "email" => NotifierKind::Email(Box::new(email(n, parsed.as_ref(), &read)?)),
                "ntfy" => NotifierKind::Ntfy {
                    url: web_url()?,
                    token: n
                        .token_file
                        .as_ref()
                        .map(|p| read(p, "token_file"))
                        .transpose()?,
                },
                other => bail!(
                    "notifier \"{}\": unknown kind \"{other}\"; kinds: webhook, ntfy, email",
                    n.id
                ),
            };
            notifiers.push(Notifier {
                id: n.id.clone(),
                kind,
                timeout: Duration::from_secs(n.timeout_seconds.unwrap_or(10).clamp(1, 120)),
            });
        }
        Ok(TasksConfig { zone, notifiers })
    }
}

/// An email notifier's relay and envelope, checked: the scheme says how the connection is
/// protected, and a relay without TLS must be on this machine.
fn email(
    n: &NotifierConfig,
    url: Option<&url::Url>,
    read: &dyn Fn(&PathBuf, &str) -> anyhow::Result<Secret>,
) -> anyhow::Result<Email> {
    let id = &n.id;
    let url = url.ok_or_else(|| {
        anyhow::anyhow!("notifier \"{id}\": url must be smtp://host:587, smtps://host:465 or smtp+plain://127.0.0.1:25")
    })?;
    let (security, port) = match url.scheme() {
        "smtp" => (SmtpSecurity::StartTls, 587),
        "smtps" => (SmtpSecurity::Tls, 465),
        "smtp+plain" => (SmtpSecurity::Plain, 25),
        other => bail!(
            "notifier \"{id}\": unknown scheme \"{other}\"; use smtp:// (STARTTLS), smtps:// (TLS) or smtp+plain:// (a relay on this machine)"
        ),
    };
    if !url.username().is_empty() || url.password().is_some() {
        bail!(
            "notifier \"{id}\": put the user in username and the password in password_file, not in the url"
        );
    }
    let host = url
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| anyhow::anyhow!("notifier \"{id}\": the url names no host"))?
        .to_string();
    let local = matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]" | "::1");
    if security == SmtpSecurity::Plain && !local {
        bail!(
            "notifier \"{id}\": smtp+plain:// sends in the clear, so only a relay on this machine (127.0.0.1) may take it; use smtp:// or smtps://"
        );
    }
    let login = match (&n.username, &n.password_file) {
        (Some(user), Some(path)) => Some((user.clone(), read(path, "password_file")?)),
        (None, None) => None,
        _ => bail!("notifier \"{id}\": username and password_file go together"),
    };
    let from = n.from.clone().filter(|f| f.contains('@')).ok_or_else(|| {
        anyhow::anyhow!("notifier \"{id}\": an email notifier needs from (an address)")
    })?;
    if n.to.is_empty() || n.to.iter().any(|t| !t.contains('@')) {
        bail!("notifier \"{id}\": an email notifier needs to, a list of addresses");
    }
    Ok(Email {
        host: host.trim_matches(['[', ']']).to_string(),
        port: url.port().unwrap_or(port),
        security,
        login,
        from,
        to: n.to.clone(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn notifier(kind: &str, secret_file: Option<PathBuf>) -> NotifierConfig {
        NotifierConfig {
            id: "hook".into(),
            kind: kind.into(),
            url: "http://127.0.0.1:9/hook".into(),
            secret_file,
            ..NotifierConfig::default()
        }
    }

    #[test]
    fn notifiers_read_their_secret_files_and_bad_ones_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("hook.secret");
        std::fs::write(&secret, "s3cret\n").unwrap();
        let mut config = Config::default();
        config.tasks.time_zone = Some("Europe/Paris".into());
        config.notifiers = vec![notifier("webhook", Some(secret))];
        let tasks = config.tasks_config().unwrap();
        assert_eq!(tasks.zone.name(), "Europe/Paris");
        let NotifierKind::Webhook { secret, .. } = &tasks.notifiers[0].kind else {
            panic!("not a webhook");
        };
        assert_eq!(secret.expose(), "s3cret");

        config.tasks.time_zone = Some("Mars/Olympus".into());
        let e = config.tasks_config().unwrap_err().to_string();
        assert!(e.contains("not an IANA time zone"), "{e}");
        config.tasks.time_zone = None;
        config.notifiers = vec![notifier("webhook", None)];
        let e = config.tasks_config().unwrap_err().to_string();
        assert!(e.contains("needs secret_file"), "{e}");
        config.notifiers = vec![notifier("pager", None)];
        let e = config.tasks_config().unwrap_err().to_string();
        assert!(e.contains("unknown kind \"pager\""), "{e}");
    }

    #[test]
    fn an_email_notifier_says_how_it_is_protected_and_keeps_its_password_in_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let password = dir.path().join("smtp.password");
        std::fs::write(&password, "hunter22\n").unwrap();
        let mail = |url: &str| NotifierConfig {
            id: "mail".into(),
            kind: "email".into(),
            url: url.into(),
            username: Some("marquee".into()),
            password_file: Some(password.clone()),
            from: Some("Marquee <marquee@example.org>".into()),
            to: vec!["olga@example.org".into()],
            ..NotifierConfig::default()
        };
        let mut config = Config {
            notifiers: vec![mail("smtp://mail.example.org")],
            ..Config::default()
        };
        let tasks = config.tasks_config().unwrap();
        let NotifierKind::Email(email) = &tasks.notifiers[0].kind else {
            panic!("not an email notifier");
        };
        assert_eq!((email.security, email.port), (SmtpSecurity::StartTls, 587));
        assert_eq!(email.login.as_ref().unwrap().1.expose(), "hunter22");
        for (url, says) in [
            (
                "smtp+plain://mail.example.org",
                "only a relay on this machine",
            ),
            ("smtp://u:p@mail.example.org", "not in the url"),
            ("imap://mail.example.org", "unknown scheme \"imap\""),
        ] {
            config.notifiers = vec![mail(url)];
            let e = config.tasks_config().unwrap_err().to_string();
            assert!(e.contains(says), "{url}: {e}");
        }
        config.notifiers = vec![NotifierConfig {
            to: Vec::new(),
            ..mail("smtps://mail.example.org")
        }];
        let e = config.tasks_config().unwrap_err().to_string();
        assert!(e.contains("needs to, a list of addresses"), "{e}");
    }
}
