//! `grab_release`: for a library service's reference (`search_releases`), searches the same
//! scope again on the same instance and grabs the release whose reference matches; none
//! matching is refused without grabbing. For an indexer's reference (`search_indexers`,
//! `idx:…`), adds the row to a download instance (`indexers::grab`). A write with an external
//! cost, audited, spending the grabs allowance either way.

use domain::{Capability, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Scope, resolve};
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct GrabRelease;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The instance search_releases ran on.
    #[serde(default)]
    pub instance_id: Option<String>,
    /// The same scope search_releases was given (media_source left out for a book).
    #[serde(default)]
    pub media_source: Option<MediaSource>,
    /// Required for a search_releases reference; left out for a search_indexers one.
    #[serde(default)]
    pub media_id: Option<String>,
    /// Required for a search_releases reference; left out for a search_indexers one.
    #[serde(default)]
    pub media_type: Option<MediaType>,
    #[serde(default)]
    pub season: Option<u32>,
    #[serde(default)]
    pub episode: Option<u32>,
    /// A release_ref from search_releases or search_indexers.
    #[schemars(length(min = 1, max = 200))]
    pub release_ref: String,
    /// The indexer_id of a search_releases row (required for those).
    #[serde(default)]
    pub indexer_id: Option<i64>,
    /// For a search_indexers row: the download instance to add it to (default: the default
    /// download instance).
    #[serde(default)]
    #[schemars(length(max = 100))]
    pub download_instance_id: Option<String>,
    /// For a search_indexers row: the download category to file it under, as list_categories
    /// shows it.
    #[serde(default)]
    #[schemars(length(max = 200))]
    pub category: Option<String>,
    /// For a search_indexers row: the folder to save into, on the download client's machine;
    /// it must lie beneath a folder the client already saves into (its default folder or a
    /// category's).
    #[serde(default)]
    #[schemars(length(min = 1, max = 1024))]
    pub save_path: Option<String>,
}

/// A release from search_releases, grabbed by its library service.
#[derive(Debug, Serialize, JsonSchema)]
struct LibraryGrab {
    /// The library instance grabbing it.
    instance_id: String,
    /// The title (and season or episode) it is for, as people name it.
    scope: String,
    /// The release's title.
    title: String,
    indexer: String,
    size_bytes: i64,
}

/// The answer's data: a [`LibraryGrab`] for a search_releases reference, an indexer grab
/// (`indexers::grab::IndexerGrab`) for a search_indexers one.
fn grabbed(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let library = generator.subschema_for::<LibraryGrab>();
    let indexer = generator.subschema_for::<crate::indexers::grab::IndexerGrab>();
    schemars::json_schema!({ "anyOf": [library, indexer] })
}

impl Tool for GrabRelease {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> = Some(grabbed);
    const META: Meta = Meta {
        name: "grab_release",
        title: "Grab a release",
        description: "Grabs one release. From search_releases: give the same instance and scope, the row's release_ref (yours, valid for an hour) and indexer_id; the scope is searched again and the release must still be there, otherwise nothing is grabbed and the answer says why; the download then shows in get_queue. From search_indexers: give only the row's release_ref (yours, valid for an hour, grabbed once), download_instance_id and optionally category and save_path (beneath a folder the client saves into); torrent rows only; Marquee fetches the .torrent from the indexer and adds it to qBittorrent or Transmission, where find_torrents shows it.",
        effect: Effect::ExternalCost,
        capability: Capability::LibraryWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: Some(domain::AllowanceKind::Grabs),
        or_capabilities: &[Capability::DownloadsWrite],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if input
            .release_ref
            .trim()
            .starts_with(crate::indexers::refs::PREFIX)
        {
            if input.media_id.is_some()
                || input.media_type.is_some()
                || input.indexer_id.is_some()
                || input.instance_id.is_some()
            {
                return Err(ToolError::invalid(
                    "a search_indexers release_ref takes only download_instance_id and category (and save_path) beside it; instance_id, media_id, media_type and indexer_id are for search_releases references",
                ));
            }
            return crate::indexers::grab::grab(
                ctx,
                input.release_ref.trim(),
                input.download_instance_id.as_deref(),
                input.category.as_deref(),
                input.save_path.as_deref(),
            )
            .await;
        }
        if input.download_instance_id.is_some()
            || input.category.is_some()
            || input.save_path.is_some()
        {
            return Err(ToolError::invalid(
                "download_instance_id, category and save_path are for search_indexers references; a search_releases release is grabbed by its library service",
            ));
        }
        if !ctx.caller.can(Capability::LibraryWrite) {
            return Err(ToolError::denied(
                "your grant does not include the capability \"library.write\" that grabbing through a library service needs; ask the owner for a grant that has it",
            ));
        }
        let (Some(media_id), Some(media_type), Some(indexer_id)) =
            (input.media_id, input.media_type, input.indexer_id)
        else {
            return Err(ToolError::invalid(
                "a search_releases release_ref needs the same media_id and media_type as the search, and the row's indexer_id",
            ));
        };
        let wanted = super::refs::given(&input.release_ref)?;
        let person = ctx.caller.authority.person.id;
        let scope = Scope {
            instance_id: input.instance_id,
            media_source: input.media_source,
            media_id,
            media_type,
            season: input.season,
            episode: input.episode,
        };
        let (source, scope, label) = resolve(ctx, &scope).await?;
        let client = source.client()?;
        let releases = client.releases(&scope).await.map_err(|e| source.error(e))?;
        let matching: Vec<_> = releases
            .iter()
            .filter(|r| {
                r.indexer_id == indexer_id
                    && wanted.is(&client.release_ref(&source.id, &scope, r), person)
            })
            .collect();
        // A reference is a keyed hash of instance, scope, indexer and GUID, and a grab posts
        // only GUID and indexer: every row that matches is the same release (an indexer that
        // lists it twice), so a reference can never be ambiguous and nothing is asked.
        let Some(release) = matching.first().copied() else {
            return Err(ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "no release of {label} on {} matches that release_ref and indexer_id (it may have left the indexer, or it came from another scope, instance or person); nothing was grabbed; run search_releases again",
                    source.id
                ),
            ));
        };
        let allowed = ctx.authorize(&source.id)?;
        source
            .writer(governance::authority::write_proof(&allowed)?)?
            .grab(release)
            .await
            .map_err(|e| source.error(e))?;
        Ok(Output::typed(
            format!("{} is grabbing {} for {label}.", source.id, release.title),
            &LibraryGrab {
                instance_id: source.id.clone(),
                scope: label,
                title: release.title.clone(),
                indexer: release.indexer.clone(),
                size_bytes: release.size,
            },
        )?
        .next("get_queue shows the download's progress"))
    }
}
