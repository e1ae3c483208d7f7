//! Requests arriving in the library: where a request will go (instance, quality profile, root
//! folder, checked when it is made), handing an approved request over (added with only the
//! chosen seasons monitored, then one search started), and following it through the service:
//! approved -> added -> searching -> downloading -> available, or failed with the reason.

use adapters_library::{AddOptions, Found, Profile, RootFolder, SearchTarget};
use domain::{MediaId, MediaType};
use serde::Serialize;
use store::{LibraryLink, MediaRequest, RequestStatus, Store};

// Which library instance serves a request's media type is the library family's to say.
use crate::library::{
    reader::Reader,
    shapes,
    source::{Source, granted, one},
    title::media_ref,
};
use governance::{ErrorCode, context::Ctx, contract::ToolError};

/// Where a request goes, as `get_request_options` shows it and `request_media` checks it.
#[derive(Serialize)]
pub(crate) struct Destination {
    pub instance_id: String,
    pub quality_profiles: Vec<Profile>,
    pub root_folders: Vec<RootFolder>,
    pub quality_profile_id: i64,
    pub root_folder: String,
    /// The library already holds the title: its id there, and whether every file is on disk.
    pub in_library: bool,
    pub available: bool,
}

/// Reads the instance's profiles and folders, checks the chosen ones (default: the first of
/// each) and whether the title is already there. `seasons` decides availability for a series.
/// `known` is this instance's lookup answer when the title was already read from it (albums and
/// books): the title is then not looked up a second time.
pub(crate) async fn destination(
    source: &Source,
    media: &MediaId,
    media_type: MediaType,
    seasons: &[u32],
    choice: (Option<i64>, Option<&str>),
    known: Option<&Found>,
) -> Result<Destination, ToolError> {
    let (profile, folder) = choice;
    let client = source.client()?;
    let media = media_ref(media.media_source, &media.media_id, media_type)?;
    let lookup = async {
        match known {
            Some(found) => Ok(found.clone()),
            None => client.find(&media).await,
        }
    };
    let (profiles, folders, found) =
        tokio::join!(client.quality_profiles(), client.root_folders(), lookup);
    let profiles = profiles.map_err(|e| source.error(e))?;
    let folders = folders.map_err(|e| source.error(e))?;
    let quality_profile_id = match profile {
        Some(id) if profiles.iter().any(|p| p.id == id) => id,
        Some(id) => {
            let valid: Vec<String> = profiles
                .iter()
                .map(|p| format!("{} ({})", p.id, p.name))
                .collect();
            return Err(ToolError::invalid(format!(
                "unknown quality_profile_id {id} on {}; valid: {}",
                source.id,
                valid.join(", ")
            )));
        }
        None => profiles.first().map(|p| p.id).ok_or_else(|| {
            ToolError::new(
                ErrorCode::BackendMisconfigured,
                format!(
                    "library instance {} has no quality profile; add one in its settings",
                    source.id
                ),
            )
        })?,
    };
    let root_folder = match folder {
        Some(f) if folders.iter().any(|r| r.path == f) => f.to_string(),
        Some(f) => {
            let valid: Vec<&str> = folders.iter().map(|r| r.path.as_str()).collect();
            return Err(ToolError::invalid(format!(
                "unknown root_folder \"{f}\" on {}; valid: {}",
                source.id,
                valid.join(", ")
            )));
        }
        None => folders.first().map(|r| r.path.clone()).ok_or_else(|| {
            ToolError::new(
                ErrorCode::BackendMisconfigured,
                format!(
                    "library instance {} has no root folder; add one in its settings",
                    source.id
                ),
            )
        })?,
    };
    let (in_library, available) = match found {
        Ok(f) => match f.library_id {
            Some(id) => {
                let item = client.item(id).await.map_err(|e| source.error(e))?;
                (true, held_completely(&item, seasons))
            }
            None => (false, false),
        },
        // The service does not know the title: it can still be requested, and fails at hand-off.
        Err(adapters_library::Error::NotFound(_)) => (false, false),
        Err(e) => return Err(source.error(e)),
    };
    Ok(Destination {
        instance_id: source.id.clone(),
        quality_profiles: profiles,
        root_folders: folders,
        quality_profile_id,
        root_folder,
        in_library,
        available,
    })
}

/// Every wanted file is on disk: the movie's, or every episode of the requested seasons.
fn held_completely(item: &adapters_library::LibraryItem, seasons: &[u32]) -> bool {
    if seasons.is_empty() || item.seasons.is_empty() {
        return item.available();
    }
    seasons.iter().all(|n| {
        item.seasons
            .iter()
            .any(|s| s.season == *n && s.episodes > 0 && s.episodes_with_files >= s.episodes)
    })
}

/// Requests being handed over in this process right now, so an approval and the background
/// pass never hand the same request over twice.
static HANDING: std::sync::LazyLock<parking_lot::Mutex<std::collections::HashSet<i64>>> =
    std::sync::LazyLock::new(Default::default);

/// The right to hand request `id` over, held until dropped; `None` while another holds it.
pub(crate) struct Claim(i64);

pub(crate) fn claim(id: i64) -> Option<Claim> {
    HANDING.lock().insert(id).then_some(Claim(id))
}

impl Drop for Claim {
    fn drop(&mut self) {
        HANDING.lock().remove(&self.0);
    }
}

/// Hands an approved request to its library instance: adds the title (when not held yet) and
/// starts one search. A failure marks the request `failed` with the reason; returns a sentence.
/// `known` is a lookup answer this same call already has (`(instance id, answer)`), used
/// instead of a second lookup when the request goes to that instance.
pub(crate) async fn hand_over(
    ctx: &Ctx,
    request: &MediaRequest,
    known: Option<(&str, &Found)>,
) -> Result<String, ToolError> {
    let Some(link) = ctx.store().library_link(request.id).await? else {
        return Ok(String::new());
    };
    let known = known
        .filter(|(instance, _)| *instance == link.instance_id)
        .map(|(_, found)| found);
    // The approver's call is decided on the instance the title goes to.
    let outcome = match granted(ctx, Some(&link.instance_id), Some(request.media_type)) {
        Ok((source, allowed)) => add_and_search(source, &allowed, request, &link, known).await,
        Err(e) => Err(e),
    };
    record(ctx.store(), request, &link, outcome).await
}

/// Hands an approved request to `source` with `allowed`, decided for it without a caller (the
/// background pass carrying out an approval made while no library served it); as
/// [`hand_over`], a failure marks the request `failed` with the reason.
pub(crate) async fn hand_over_approved(
    store: &Store,
    source: &Source,
    allowed: &policy::Allowed,
    request: &MediaRequest,
) -> Result<String, ToolError> {
    let Some(link) = store.library_link(request.id).await? else {
        return Ok(String::new());
    };
    let outcome = add_and_search(source, allowed, request, &link, None).await;
    record(store, request, &link, outcome).await
}

/// What a hand-over did, recorded: the item and search, or the failure with its reason.
async fn record(
    store: &Store,
    request: &MediaRequest,
    link: &LibraryLink,
    outcome: Result<(i64, Option<i64>, bool), ToolError>,
) -> Result<String, ToolError> {
    match outcome {
        Ok((item_id, command_id, added)) => {
            store
                .record_arrival(request.id, item_id, command_id)
                .await?;
            Ok(format!(
                " {} {} and a search was started.",
                if added {
                    "It was added to"
                } else {
                    "It was already in"
                },
                link.instance_id
            ))
        }
        Err(e) => {
            let reason = format!("handing it to {} failed: {}", link.instance_id, e.message);
            store.fail_arrival(request.id, &reason).await?;
            Ok(format!(" It failed: {reason}."))
        }
    }
}

async fn add_and_search(
    source: &Source,
    allowed: &policy::Allowed,
    request: &MediaRequest,
    link: &LibraryLink,
    known: Option<&Found>,
) -> Result<(i64, Option<i64>, bool), ToolError> {
    let client = source.client()?;
    let media = media_ref(
        request.media.media_source,
        &request.media.media_id,
        request.media_type,
    )?;
    let found = match known {
        Some(found) => found.clone(),
        None => client.find(&media).await.map_err(|e| source.error(e))?,
    };
    let (item_id, added) = match found.library_id {
        Some(id) => (id, false),
        None => {
            let opts = add_options(client, source, link, &request.seasons).await?;
            let item = source
                .writer(governance::authority::write_proof(allowed)?)?
                .add(&found, &opts)
                .await
                .map_err(|e| source.error(e))?;
            (item.id, true)
        }
    };
    let target = match request.media_type {
        MediaType::Movie => SearchTarget::Movie(item_id),
        // Only the chosen seasons are monitored, so a series search covers exactly them.
        MediaType::Tv => SearchTarget::Series(item_id),
        MediaType::Music => SearchTarget::Album(item_id),
        MediaType::Book => SearchTarget::Book(item_id),
    };
    let command = source
        .writer(governance::authority::write_proof(allowed)?)?
        .search(&target)
        .await
        .map_err(|e| source.error(e))?;
    Ok((item_id, Some(command.id), added))
}

async fn add_options(
    client: Reader<'_>,
    source: &Source,
    link: &LibraryLink,
    seasons: &[u32],
) -> Result<AddOptions, ToolError> {
    let quality_profile_id = match link.quality_profile_id {
        Some(id) => id,
        None => client
            .quality_profiles()
            .await
            .map_err(|e| source.error(e))?
            .first()
            .map(|p| p.id)
            .ok_or_else(|| ToolError::new(ErrorCode::BackendUnavailable, "no quality profile"))?,
    };
    let root_folder_path = match &link.root_folder {
        Some(f) => f.clone(),
        None => client
            .root_folders()
            .await
            .map_err(|e| source.error(e))?
            .first()
            .map(|r| r.path.clone())
            .ok_or_else(|| ToolError::new(ErrorCode::BackendUnavailable, "no root folder"))?,
    };
    let metadata_profile_id = client
        .metadata_profiles()
        .await
        .map_err(|e| source.error(e))?
        .first()
        .map(|p| p.id);
    Ok(AddOptions {
        quality_profile_id,
        root_folder_path,
        seasons: seasons.to_vec(),
        metadata_profile_id,
    })
}

/// Where an approved request stands in its library, read live from the service.
pub(crate) struct Progress {
    /// added, searching, downloading, available or failed.
    pub state: &'static str,
    pub detail: String,
    pub data: Followed,
}

/// Where a followed request is in its library, as `check_request_status` shows it.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct Followed {
    /// The library instance it was handed to.
    pub instance_id: String,
    /// Its item there, once added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_id: Option<i64>,
    /// Percent downloaded, while it downloads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<f64>,
    /// Its downloads in the library's queue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub downloads: Option<Vec<shapes::QueueItem>>,
    /// The library's search command for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<shapes::Command>,
    /// The sentence the state was told with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Followed {
    fn at(instance_id: &str, item_id: Option<i64>) -> Followed {
        Followed {
            instance_id: instance_id.to_string(),
            item_id,
            progress: None,
            downloads: None,
            command: None,
            detail: None,
        }
    }
}

/// Follows an approved request through its service; `available` is also recorded in the store.
pub(crate) async fn follow(
    ctx: &Ctx,
    request: &MediaRequest,
) -> Result<Option<Progress>, ToolError> {
    follow_with(ctx.store(), request, |id| {
        one(ctx, Some(id), Some(request.media_type))
    })
    .await
}

/// [`follow`], reading the instance `source` gives for the request's link (the caller's, or
/// the background pass's own).
pub(crate) async fn follow_with<'s>(
    store: &Store,
    request: &MediaRequest,
    source: impl FnOnce(&str) -> Result<&'s Source, ToolError>,
) -> Result<Option<Progress>, ToolError> {
    let Some(link) = store.library_link(request.id).await? else {
        return Ok(None);
    };
    if let Some(failure) = &link.failure {
        return Ok(Some(Progress {
            state: "failed",
            detail: failure.clone(),
            data: Followed::at(&link.instance_id, None),
        }));
    }
    let Some(item_id) = link.item_id else {
        return Ok(Some(Progress {
            state: "approved",
            detail: format!("not handed to {} yet", link.instance_id),
            data: Followed::at(&link.instance_id, None),
        }));
    };
    let source = source(&link.instance_id)?;
    let client = source.client()?;
    let item = match client.item(item_id).await {
        Ok(item) => item,
        Err(adapters_library::Error::Http {
            source: httpx::Error::NotFound,
            ..
        }) => {
            let reason = format!(
                "{} no longer holds it (removed from the library)",
                link.instance_id
            );
            store.fail_arrival(request.id, &reason).await?;
            return Ok(Some(Progress {
                state: "failed",
                detail: reason,
                data: Followed::at(&link.instance_id, None),
            }));
        }
        Err(e) => return Err(source.error(e)),
    };
    let base = Followed::at(&link.instance_id, Some(item_id));
    if held_completely(&item, &request.seasons) {
        if request.status == RequestStatus::Approved {
            store.mark_available(request.id).await?;
        }
        return Ok(Some(Progress {
            state: "available",
            detail: format!("on disk in {}", link.instance_id),
            data: base,
        }));
    }
    let queue = client.queue().await.map_err(|e| source.error(e))?;
    let mine: Vec<_> = queue
        .iter()
        .filter(|q| q.item_id == Some(item_id))
        .collect();
    if !mine.is_empty() {
        let size: f64 = mine.iter().map(|q| q.size).sum();
        let left: f64 = mine.iter().map(|q| q.size_left).sum();
        let progress = if size > 0.0 {
            ((size - left) / size * 1000.0).round() / 10.0
        } else {
            0.0
        };
        let mut data = base;
        data.progress = Some(progress);
        data.downloads = Some(mine.iter().map(|q| shapes::QueueItem::of(q)).collect());
        let trouble: Vec<&str> = mine
            .iter()
            .flat_map(|q| q.messages.iter().map(String::as_str))
            .collect();
        let mut detail = format!("{progress}% downloaded in {}", link.instance_id);
        if !trouble.is_empty() {
            detail.push_str(&format!(" ({})", trouble.join("; ")));
        }
        return Ok(Some(Progress {
            state: "downloading",
            detail,
            data,
        }));
    }
    let Some(command_id) = link.command_id else {
        return Ok(Some(Progress {
            state: "added",
            detail: format!("in {}, no search started", link.instance_id),
            data: base,
        }));
    };
    let command = client
        .command(command_id)
        .await
        .map_err(|e| source.error(e))?;
    let mut data = base;
    data.command = Some(shapes::Command::of(&command));
    Ok(Some(match command.status.as_str() {
        "failed" | "aborted" | "cancelled" | "orphaned" => Progress {
            state: "failed",
            detail: format!(
                "the search in {} {}{}",
                link.instance_id,
                command.status,
                command
                    .message
                    .as_deref()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default()
            ),
            data,
        },
        "completed" => Progress {
            state: "searching",
            detail: format!(
                "{} searched and found nothing to grab yet; it keeps watching its indexers",
                link.instance_id
            ),
            data,
        },
        _ => Progress {
            state: "searching",
            detail: format!("{} is searching its indexers", link.instance_id),
            data,
        },
    }))
}
