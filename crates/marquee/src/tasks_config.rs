//! `[tasks]` and `[[notifiers]]`: the time zone scheduled tasks are read in, and where their
//! results are told (a signed webhook or an ntfy topic), secrets read from `_file`s.

use std::{path::PathBuf, time::Duration};

use anyhow::{Context, bail};
use domain::Secret;
use serde::{Deserialize, Serialize};
use tools::tasks::{
    TasksConfig,
    notify::{Notifier, NotifierKind},
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
    /// `webhook` or `ntfy`.
    pub kind: String,
    /// The webhook's URL, or the ntfy topic's (`https://ntfy.sh/my-topic`).
    pub url: String,
    /// webhook: the file holding the HMAC-SHA256 signing secret.
    pub secret_file: Option<PathBuf>,
    /// ntfy: the file holding an access token, when the topic needs one.
    pub token_file: Option<PathBuf>,
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
            let url = url::Url::parse(&n.url)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https"))
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "notifier \"{}\": url must be an http:// or https:// address",
                        n.id
                    )
                })?;
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
                        url,
                        secret: read(path, "secret_file")?,
                    }
                }
                "ntfy" => NotifierKind::Ntfy {
                    url,
                    token: n
                        .token_file
                        .as_ref()
                        .map(|p| read(p, "token_file"))
                        .transpose()?,
                },
                other => bail!(
                    "notifier \"{}\": unknown kind \"{other}\"; kinds: webhook, ntfy",
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
}
