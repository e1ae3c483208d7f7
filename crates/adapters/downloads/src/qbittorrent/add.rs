//! qBittorrent `torrents/add`: a file or a URL/magnet, never skipping the hash check.

use httpx::reqwest::multipart::{Form, Part};

use super::{
    client::{Effect, QbClient},
    write::check_tags,
};
use crate::{
    error::{Error, Result},
    metainfo::{info_hash_of_magnet, info_hash_of_torrent},
    model::{AddOutcome, AddSource, AddStatus, AddTorrent},
};

impl QbClient {
    /// Adds a torrent file or URL/magnet. Never skips the hash check. Not repeated on a 403.
    pub async fn add(&self, req: &AddTorrent) -> Result<AddOutcome> {
        let tags = check_tags(&req.tags)?;
        let hash = match &req.source {
            AddSource::File(bytes) => Some(info_hash_of_torrent(bytes)?),
            AddSource::Url(u) if u.starts_with("magnet:") => Some(
                info_hash_of_magnet(u)
                    .ok_or_else(|| Error::invalid("the magnet link names no btih info hash"))?,
            ),
            AddSource::Url(u) if u.starts_with("http://") || u.starts_with("https://") => None,
            AddSource::Url(_) => {
                return Err(Error::invalid(
                    "a torrent URL must be http(s):// or magnet:",
                ));
            }
        };
        if let Some(h) = hash
            && !self.existing(&[h]).await?.is_empty()
        {
            return Ok(AddOutcome {
                info_hash: Some(h),
                status: AddStatus::AlreadyPresent,
            });
        }
        let paused_field = if self.api_version().await?.uses_stop_start() {
            "stopped"
        } else {
            "paused"
        };
        let url = self.url("torrents/add");
        let body = self
            .send(Effect::Write, |c| {
                let mut form = match &req.source {
                    AddSource::File(bytes) => Form::new().part(
                        "torrents",
                        Part::bytes(bytes.clone())
                            .file_name("upload.torrent")
                            .mime_str("application/x-bittorrent")
                            .unwrap_or_else(|_| {
                                Part::bytes(bytes.clone()).file_name("upload.torrent")
                            }),
                    ),
                    AddSource::Url(u) => Form::new().text("urls", u.clone()),
                };
                if let Some(cat) = &req.category {
                    form = form.text("category", cat.clone());
                }
                if !tags.is_empty() {
                    form = form.text("tags", tags.join(","));
                }
                if let Some(p) = &req.save_path {
                    form = form.text("savepath", p.clone()).text("autoTMM", "false");
                }
                form = form.text(paused_field, req.paused.to_string());
                c.post(url.clone()).multipart(form)
            })
            .await?;
        add_answer(&body)?;
        Ok(AddOutcome {
            info_hash: hash,
            status: AddStatus::Added,
        })
    }
}

/// `Ok.` (4.x), `Fails.`, or on newer versions a JSON count of successes and failures.
fn add_answer(body: &str) -> Result<()> {
    let b = body.trim();
    if b == "Ok." {
        return Ok(());
    }
    if b == "Fails." {
        return Err(Error::Refused {
            detail: "qBittorrent did not add the torrent (invalid, or already present)".into(),
        });
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(b) {
        let failed = v.get("failure_count").and_then(|x| x.as_u64()).unwrap_or(0);
        let ok = v.get("success_count").and_then(|x| x.as_u64()).unwrap_or(0);
        let pending = v.get("pending_count").and_then(|x| x.as_u64()).unwrap_or(0);
        if ok + pending > 0 || failed == 0 {
            return Ok(());
        }
        return Err(Error::Refused {
            detail: "qBittorrent did not add the torrent".into(),
        });
    }
    Err(Error::decode(
        "torrents/add",
        format!(
            "unexpected answer {:?}",
            b.chars().take(80).collect::<String>()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_add_answers() {
        assert!(add_answer("Ok.").is_ok());
        assert!(matches!(add_answer("Fails."), Err(Error::Refused { .. })));
        assert!(add_answer(r#"{"success_count":1,"failure_count":0}"#).is_ok());
        assert!(matches!(
            add_answer(r#"{"success_count":0,"failure_count":1}"#),
            Err(Error::Refused { .. })
        ));
        assert!(matches!(add_answer("<html>"), Err(Error::Decode { .. })));
    }
}
