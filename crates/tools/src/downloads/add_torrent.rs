//! `add_torrent`: adds a .torrent file, an http(s) URL of one, or a magnet link to a download
//! instance, into an existing category. The client always checks the data's hashes.

use adapters_downloads::{
    AddSource, AddStatus, AddTorrent as AddRequest, info_hash_of_magnet, info_hash_of_torrent,
};
use domain::{Capability, InfoHash};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    add_torrent_url, granted, labels,
    outcome::{Outcomes, TorrentResult},
    refresher, torrent_file,
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct AddTorrent;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// What to add: the absolute path of a .torrent file in one of the torrent folders the owner configured on the Marquee machine, an http(s) URL of a .torrent file, or a magnet link with a btih info hash.
    pub source: String,
    /// The category to file it under, exactly as list_categories shows it (default: none).
    #[serde(default)]
    pub category: Option<String>,
    /// Tags to give it, each already known on the instance (list_categories).
    #[serde(default)]
    #[schemars(length(max = super::labels::MAX_TAGS))]
    pub tags: Vec<String>,
    /// Add it without starting it.
    #[serde(default)]
    pub paused: bool,
    /// The download instance to add it to (default: the default download instance).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for AddTorrent {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Outcomes>);
    const META: Meta = Meta {
        name: "add_torrent",
        title: "Add a torrent",
        description: "Adds a torrent to a download instance from a .torrent file path (in a torrent folder the owner configured on the Marquee machine), an http(s) URL or a magnet link, optionally paused, into an existing category with known tags (list_categories; unknown names are refused with the valid ones). The client always verifies the data; an already present torrent is left unchanged. Answers {ok, failed, results}.",
        effect: Effect::Write,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: Some(domain::AllowanceKind::Adds),
        or_capabilities: &[],
        family: Some(domain::KindFamily::Download),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let folders = ctx.settings().torrent_folders();
        let outbound = ctx.settings().outbound();
        let (source, hash) = read_source(
            &folders,
            &outbound,
            ctx.caller.scope.household,
            &input.source,
        )
        .await?;
        let tags = labels::tag_list(&input.tags)?;
        let (instance, allowed) = granted(ctx, input.instance_id.as_deref())?;
        let b = instance.backend()?;
        let writer = instance.writer(governance::authority::write_proof(&allowed)?)?;
        refresher::ensure_loaded(&[instance]).await;
        if let Some(c) = &input.category {
            labels::require_category(&[instance], c)?;
        }
        if !tags.is_empty() {
            labels::require_tags(&[instance], &tags)?;
        }
        let req = AddRequest {
            source,
            category: input.category.clone(),
            tags,
            paused: input.paused,
            save_path: None,
        };
        let id = instance.id.as_str();
        let row = match writer.add(&req).await {
            Ok(out) => {
                let h = out.info_hash.or(hash);
                let refreshed = match h {
                    Some(h) => b.catalogue.refresh_hashes(&[h]).await,
                    None => b.catalogue.refresh().await,
                };
                if let Err(e) = refreshed {
                    tracing::debug!(instance = id, error = %e, "re-reading after an add failed");
                }
                match out.status {
                    AddStatus::Added => TorrentResult::done(
                        h,
                        id,
                        "added",
                        format!(
                            "added to instance {id}{}",
                            if input.paused { ", paused" } else { "" }
                        ),
                    ),
                    AddStatus::AlreadyPresent => TorrentResult::done(
                        h,
                        id,
                        "already_present",
                        format!("instance {id} already had this torrent; nothing was changed"),
                    ),
                }
            }
            Err(e) => TorrentResult::from_error(hash, id, &e),
        };
        let summary = if row.ok {
            format!("{}.", capital(&row.message))
        } else {
            format!("Not added: {}", row.message)
        };
        let (ok, hash) = (row.ok, row.info_hash);
        let data = Outcomes {
            ok: usize::from(ok),
            failed: usize::from(!ok),
            results: vec![row],
        };
        let out = crate::typed::output(summary, &data)?;
        Ok(match hash {
            Some(h) if ok => out.next(format!("torrent_detail {{\"info_hash\":\"{h}\"}}")),
            _ => out,
        })
    }
}

/// Classifies and checks the source before anything is sent: a magnet must name a btih hash,
/// a URL is fetched here under the outbound rule (the client gets the bytes), a file must be a
/// valid .torrent inside the torrent folders; the trackers and web seeds any of them names are
/// held to the outbound rule.
async fn read_source(
    folders: &[std::path::PathBuf],
    outbound: &httpx::outbound::Outbound,
    show_folders: bool,
    raw: &str,
) -> Result<(AddSource, Option<InfoHash>), ToolError> {
    let read = classify_source(folders, outbound, show_folders, raw).await?;
    add_torrent_url::check_contacts(outbound, &read.0).await?;
    Ok(read)
}

async fn classify_source(
    folders: &[std::path::PathBuf],
    outbound: &httpx::outbound::Outbound,
    show_folders: bool,
    raw: &str,
) -> Result<(AddSource, Option<InfoHash>), ToolError> {
    if raw.starts_with("magnet:") {
        let h = info_hash_of_magnet(raw).ok_or_else(|| {
            ToolError::invalid("the magnet link names no btih info hash (xt=urn:btih:...)")
        })?;
        return Ok((AddSource::Url(raw.to_string()), Some(h)));
    }
    if raw.starts_with("http://") || raw.starts_with("https://") {
        url::Url::parse(raw)
            .map_err(|_| ToolError::invalid("source is not a valid http(s) URL"))?;
        return add_torrent_url::fetch(outbound, raw).await;
    }
    let path = std::path::Path::new(raw);
    if !path.is_absolute() {
        return Err(ToolError::invalid(format!(
            "source \"{raw}\" is neither a magnet link, an http(s) URL nor an absolute path of a .torrent file"
        )));
    }
    let bytes = torrent_file::read(folders, show_folders, raw).await?;
    let h = info_hash_of_torrent(&bytes)
        .map_err(|_| ToolError::invalid("source is not a valid .torrent file"))?;
    Ok((AddSource::File(bytes), Some(h)))
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
