//! Grabbing an indexer row: what `grab_release` does with an `idx:` reference. The reference
//! must be the caller's own, unexpired and not yet grabbed; the row a torrent. Marquee fetches
//! the .torrent from the indexer's own host (a redirect to a magnet is followed, one to another
//! host is fetched under the outbound rule, any other scheme refused), checks the trackers it
//! names under the same rule, and adds it to the download instance. The reference is taken
//! before anything is added, so a replay (or two grabs at once) adds nothing; a grab that added
//! nothing gives it back. A `save_path` must lie beneath a folder the client already saves into
//! (its default folder or a category's); the grab is recorded in the download history, with the
//! request it serves, before the client is asked, so a torrent never shows without its title.

use adapters_downloads::{
    AddSource, AddStatus, AddTorrent, info_hash_of_magnet, info_hash_of_torrent,
};
use adapters_indexers::{Download, Link, Protocol};
use domain::{Capability, InfoHash, Role};
use schemars::JsonSchema;
use serde::Serialize;

use super::{
    indexers,
    refs::{Held, Refused},
    search_indexers::not_for_kids,
};
use crate::downloads::{add_torrent_url, granted, labels, refresher};
use governance::{Ctx, ErrorCode, Output, ToolError};

/// Grabs the row `reference` names into the download instance `download` (or the default one).
pub(crate) async fn grab(
    ctx: &Ctx,
    reference: &str,
    download: Option<&str>,
    category: Option<&str>,
    save_path: Option<&str>,
) -> Result<Output, ToolError> {
    if ctx.caller.authority.person.role == Role::Kid {
        return Err(not_for_kids());
    }
    if !ctx.caller.can(Capability::DownloadsWrite) {
        return Err(ToolError::denied(
            "your grant does not include the capability \"downloads.write\" that grabbing an indexer row into a download client needs; ask the owner for a grant that has it",
        ));
    }
    let family = indexers(ctx);
    let person = ctx.caller.authority.person.id;
    let held = family.refs.look(reference, person).map_err(refusal)?;
    if held.release.protocol != Protocol::Torrent {
        return Err(ToolError::invalid(
            "that row is not a torrent (usenet rows are shown but cannot be grabbed here); nothing was added",
        ));
    }
    if !ctx.covers(&held.instance) {
        return Err(refusal(Refused::Unknown));
    }
    let (target, allowed) = granted(ctx, download)?;
    let writer = target.writer(governance::authority::write_proof(&allowed)?)?;
    refresher::ensure_loaded(&[target]).await;
    if let Some(c) = category {
        labels::require_category(&[target], c)?;
    }
    let save_path = match save_path {
        Some(p) => Some(confined(target, p).await?),
        None => None,
    };
    let request_id = request_of(ctx, &held).await;
    // Taken before anything is fetched or added: a second grab of it is refused from here on.
    if !family.refs.take(reference, person) {
        return Err(refusal(Refused::Grabbed));
    }
    let history = |hash: Option<String>| store::Grab {
        instance_id: target.id.clone(),
        info_hash: hash,
        release: held.release.title.clone(),
        media: held.media.clone(),
        title: held.title.clone(),
        indexer: held.indexer_key.clone(),
        person_id: person,
        request_id,
        grabbed_at: 0,
    };
    let added = add(
        ctx,
        &held,
        &writer,
        category,
        save_path.as_deref(),
        &history,
    )
    .await;
    let (hash, status, recorded) = match added {
        Ok(done) => done,
        Err(e) => {
            family.refs.give_back(reference);
            return Err(e);
        }
    };
    if let Ok(b) = target.backend() {
        let refreshed = match hash {
            Some(h) => b.catalogue.refresh_hashes(&[h]).await,
            None => b.catalogue.refresh().await,
        };
        if let Err(e) = refreshed {
            tracing::debug!(instance = %target.id, error = %e, "re-reading after a grab failed");
        }
    }
    let hash_text = hash.map(|h| h.to_hex());
    let what = held
        .title
        .clone()
        .unwrap_or_else(|| held.release.title.clone());
    let verb = match status {
        AddStatus::Added => "added",
        AddStatus::AlreadyPresent => "already had",
    };
    let summary = match status {
        AddStatus::Added => format!(
            "{} added {} for {what} (from {}).",
            target.id, held.release.title, held.indexer_name
        ),
        AddStatus::AlreadyPresent => format!(
            "{} already had {}; nothing was changed.",
            target.id, held.release.title
        ),
    };
    let mut out = Output::typed(
        summary,
        &IndexerGrab {
            download_instance_id: target.id.clone(),
            status: verb,
            info_hash: hash_text.clone(),
            title: held.release.title.clone(),
            for_title: held.title.clone(),
            media: held.media.clone(),
            indexer: held.indexer_key.clone(),
            indexer_name: held.indexer_name.clone(),
            size_bytes: held.release.size,
            save_path,
            request_id,
            recorded,
        },
    )?;
    if !recorded {
        out = out.warn("the grab could not be written to the download history");
    }
    Ok(match hash_text {
        Some(h) => out.next(format!("torrent_detail {{\"info_hash\":\"{h}\"}}")),
        None => out,
    })
}

/// What a grab of an indexer row answers.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct IndexerGrab {
    pub download_instance_id: String,
    /// added, or already had (the client held it; nothing was changed).
    pub status: &'static str,
    /// 40 hexadecimal characters, when known.
    pub info_hash: Option<String>,
    /// The release's name.
    pub title: String,
    /// The title it was grabbed for: "The Matrix (1999)".
    #[serde(rename = "for")]
    pub for_title: Option<String>,
    /// The identity searched for: "builtin tt0133093".
    pub media: Option<String>,
    /// The indexer it came from, as list_indexers names it, and that indexer's name.
    pub indexer: String,
    pub indexer_name: String,
    pub size_bytes: Option<u64>,
    /// The folder it is saved into, when one was asked for.
    pub save_path: Option<String>,
    /// The open request of that title the grab serves.
    pub request_id: Option<i64>,
    /// Whether the download history has it (get_download_history, find_torrents).
    pub recorded: bool,
}

/// A refused reference, in one sentence each; nothing was added.
fn refusal(why: Refused) -> ToolError {
    match why {
        Refused::Unknown => ToolError::new(
            ErrorCode::NotFound,
            "that release_ref is not one search_indexers gave you (references are your own and last an hour); nothing was added; run search_indexers again",
        ),
        Refused::Expired => ToolError::new(
            ErrorCode::NotFound,
            "that release_ref has expired (references last an hour); nothing was added; run search_indexers again",
        ),
        Refused::Grabbed => ToolError::new(
            ErrorCode::Conflict,
            "that release_ref was already grabbed; nothing was added again",
        ),
    }
}

/// Fetches the release, records the grab and adds it: its info hash, what the client did, and
/// whether the download history has it. A record whose add failed is forgotten.
async fn add(
    ctx: &Ctx,
    held: &Held,
    writer: &adapters_downloads::Writer<'_>,
    category: Option<&str>,
    save_path: Option<&str>,
    history: &(dyn Fn(Option<String>) -> store::Grab + Sync),
) -> Result<(Option<InfoHash>, AddStatus, bool), ToolError> {
    let (source, hash) = fetch(ctx, held).await?;
    let outbound = ctx.settings().outbound();
    add_torrent_url::check_contacts(&outbound, &source).await?;
    let request = AddTorrent {
        source,
        category: category.map(str::to_string),
        tags: Vec::new(),
        paused: false,
        save_path: save_path.map(str::to_string),
    };
    let store = ctx.store();
    let record = store.record_grab(&history(hash.map(|h| h.to_hex()))).await;
    if let Err(e) = &record {
        tracing::warn!(error = %e, "a grab could not be written to the download history");
    }
    let out = match writer.add(&request).await {
        Ok(out) => out,
        Err(e) => {
            if let Ok(id) = record
                && let Err(e) = store.forget_grab(id).await
            {
                tracing::warn!(error = %e, "a grab that added nothing stays in the download history");
            }
            return Err(ToolError::new(
                ErrorCode::BackendError,
                format!("the download client did not add it ({e}); nothing was added"),
            ));
        }
    };
    let mut recorded = record.is_ok();
    if hash.is_none()
        && let Some(h) = out.info_hash
    {
        // Only the client knew the hash: the record is written again with it.
        if let Ok(id) = record
            && let Err(e) = store.forget_grab(id).await
        {
            tracing::warn!(error = %e, "a grab's first record stays in the download history");
        }
        recorded = store.record_grab(&history(Some(h.to_hex()))).await.is_ok();
    }
    Ok((out.info_hash.or(hash), out.status, recorded))
}

/// `path`, checked to lie beneath a folder `target` already saves into and written plainly; a
/// relative path, one with `.` or `..` parts, or one elsewhere is refused, nothing added.
async fn confined(target: &crate::downloads::Source, path: &str) -> Result<String, ToolError> {
    let roots = target.backend()?.reads().save_roots().await.map_err(|e| {
        ToolError::new(
            ErrorCode::BackendError,
            format!(
                "{} did not say which folders it saves into ({e}); nothing was added",
                target.id
            ),
        )
    })?;
    confine(path, &roots).map_err(|why| {
        ToolError::invalid(format!(
            "invalid argument \"save_path\": {why}; {} saves into {}; nothing was added",
            target.id,
            roots.join(", ")
        ))
    })
}

/// The parts of an absolute path, or why it is not one Marquee accepts.
fn parts(path: &str) -> Result<Vec<&str>, &'static str> {
    if path.chars().any(char::is_control) {
        return Err("a path has no control characters");
    }
    let windows = path.len() > 2 && path.as_bytes()[1] == b':';
    if !(path.starts_with('/') || windows) {
        return Err("give an absolute path");
    }
    let split: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    if split.iter().any(|p| *p == "." || *p == "..") {
        return Err("a path has no . or .. parts");
    }
    Ok(split)
}

/// `path` in plain form when it is one of `roots` or beneath one.
pub(crate) fn confine(path: &str, roots: &[String]) -> Result<String, &'static str> {
    let path = path.trim();
    let wanted = parts(path)?;
    let inside = roots.iter().any(|root| {
        parts(root.trim()).is_ok_and(|r| wanted.len() >= r.len() && wanted[..r.len()] == r[..])
    });
    if !inside {
        return Err("it is not beneath a folder the download client saves into");
    }
    let joined = wanted.join("/");
    Ok(if path.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    })
}

/// The open request this grab serves: one for the very title searched, approved first, then
/// pending, the oldest of each.
async fn request_of(ctx: &Ctx, held: &Held) -> Option<i64> {
    let media = held.media_id.as_ref()?;
    let open = match ctx.store().open_requests_for(media).await {
        Ok(open) => open,
        Err(e) => {
            tracing::warn!(error = %e, "the requests of a grabbed title could not be read");
            return None;
        }
    };
    [
        store::RequestStatus::Approved,
        store::RequestStatus::Pending,
    ]
    .iter()
    .find_map(|s| open.iter().find(|r| r.status == *s).map(|r| r.id))
}

/// The release's .torrent (or magnet), from the indexer's own host or under the outbound rule.
async fn fetch(ctx: &Ctx, held: &Held) -> Result<(AddSource, Option<InfoHash>), ToolError> {
    let release = &held.release;
    let link = match (&release.download, &release.magnet) {
        (Some(l), _) => l,
        (None, Some(m)) => return magnet(m),
        (None, None) => {
            return Err(ToolError::invalid(
                "the indexer gave that row no download link; nothing was added",
            ));
        }
    };
    let scheme = link
        .expose()
        .split(':')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    if !matches!(scheme.as_str(), "http" | "https" | "magnet") {
        return Err(ToolError::invalid(
            "the indexer's download link is neither http(s) nor a magnet link; nothing was added",
        ));
    }
    let source = indexers(ctx)
        .sources()
        .find(|s| s.id == held.instance)
        .ok_or_else(|| refusal(Refused::Unknown))?;
    let client = source.client()?;
    let what = format!("indexer {}", held.indexer_key);
    let fetched = client.download(link).await.map_err(|e| {
        ToolError::new(
            ErrorCode::BackendError,
            format!(
                "{}; nothing was added",
                super::source::sentence(&what, &e).1
            ),
        )
    })?;
    match fetched {
        Download::Torrent(bytes) => {
            let h = info_hash_of_torrent(&bytes).map_err(|_| {
                ToolError::new(
                    ErrorCode::BackendError,
                    format!("{what} did not answer with a .torrent file; nothing was added"),
                )
            })?;
            Ok((AddSource::File(bytes), Some(h)))
        }
        Download::Magnet(m) => magnet(&m),
        Download::Elsewhere(url) => {
            if !(url.expose().starts_with("http://") || url.expose().starts_with("https://")) {
                return Err(ToolError::invalid(
                    "the indexer redirected to a link that is neither http(s) nor a magnet link; nothing was added",
                ));
            }
            add_torrent_url::fetch(&ctx.settings().outbound(), url.expose()).await
        }
    }
}

fn magnet(m: &Link) -> Result<(AddSource, Option<InfoHash>), ToolError> {
    let h = info_hash_of_magnet(m.expose()).ok_or_else(|| {
        ToolError::invalid("the release's magnet link names no btih info hash; nothing was added")
    })?;
    Ok((AddSource::Url(m.expose().to_string()), Some(h)))
}

#[cfg(test)]
mod tests {
    use super::confine;

    #[test]
    fn a_save_path_lies_beneath_a_folder_the_client_saves_into() {
        let roots = vec!["/data/downloads/".to_string(), "/data/tv".to_string()];
        assert_eq!(
            confine("/data/downloads", &roots).as_deref(),
            Ok("/data/downloads")
        );
        assert_eq!(
            confine(" /data/downloads//movies/ ", &roots).as_deref(),
            Ok("/data/downloads/movies")
        );
        assert_eq!(confine("/data/tv/s1", &roots).as_deref(), Ok("/data/tv/s1"));
        for bad in [
            "/data",
            "/data/downloadsX",
            "/data/downloads/../etc",
            "/data/downloads/./x",
            "data/downloads/x",
            "/data/tv\n/x",
            "",
        ] {
            assert!(confine(bad, &roots).is_err(), "{bad:?}");
        }
        let windows = vec!["D:\\Downloads".to_string()];
        assert_eq!(
            confine("D:\\Downloads\\Movies", &windows).as_deref(),
            Ok("D:/Downloads/Movies")
        );
        assert!(confine("D:\\Other", &windows).is_err());
    }
}
