//! Grabbing an indexer row: what `grab_release` does with an `idx:` reference. The reference
//! must be the caller's own, unexpired and not yet grabbed; the row a torrent. Marquee fetches
//! the .torrent from the indexer's own host (a redirect to a magnet is followed, one to another
//! host is fetched under the outbound rule, any other scheme refused), checks the trackers it
//! names under the same rule, and adds it to the download instance. The reference is taken
//! before anything is added, so a replay (or two grabs at once) adds nothing; a grab that added
//! nothing gives it back.

use adapters_downloads::{
    AddSource, AddStatus, AddTorrent, info_hash_of_magnet, info_hash_of_torrent,
};
use adapters_indexers::{Download, Link, Protocol};
use domain::{Capability, InfoHash, Role};
use serde_json::json;

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
    // Taken before anything is fetched or added: a second grab of it is refused from here on.
    if !family.refs.take(reference, person) {
        return Err(refusal(Refused::Grabbed));
    }
    let added = add(ctx, &held, &writer, category).await;
    let (hash, status) = match added {
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
    let recorded = ctx
        .store()
        .record_grab(&store::Grab {
            instance_id: target.id.clone(),
            info_hash: hash_text.clone(),
            release: held.release.title.clone(),
            media: held.media.clone(),
            title: held.title.clone(),
            indexer: held.indexer_key.clone(),
            person_id: person,
            request_id: None,
            grabbed_at: 0,
        })
        .await;
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
    let mut out = Output::new(
        summary,
        json!({
            "download_instance_id": target.id,
            "status": verb,
            "info_hash": hash_text,
            "title": held.release.title,
            "for": held.title,
            "media": held.media,
            "indexer": held.indexer_key,
            "indexer_name": held.indexer_name,
            "size_bytes": held.release.size,
            "recorded": recorded.is_ok(),
        }),
    );
    if let Err(e) = recorded {
        tracing::warn!(error = %e, "a grab could not be written to the download history");
        out = out.warn("the grab could not be written to the download history");
    }
    Ok(match hash_text {
        Some(h) => out.next(format!("torrent_detail {{\"info_hash\":\"{h}\"}}")),
        None => out,
    })
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

/// Fetches the release and adds it: the source sent, its info hash, what the client did.
async fn add(
    ctx: &Ctx,
    held: &Held,
    writer: &adapters_downloads::Writer<'_>,
    category: Option<&str>,
) -> Result<(Option<InfoHash>, AddStatus), ToolError> {
    let (source, hash) = fetch(ctx, held).await?;
    let outbound = ctx.settings().outbound();
    add_torrent_url::check_contacts(&outbound, &source).await?;
    let request = AddTorrent {
        source,
        category: category.map(str::to_string),
        tags: Vec::new(),
        paused: false,
    };
    let out = writer.add(&request).await.map_err(|e| {
        ToolError::new(
            ErrorCode::BackendError,
            format!("the download client did not add it ({e}); nothing was added"),
        )
    })?;
    Ok((out.info_hash.or(hash), out.status))
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
