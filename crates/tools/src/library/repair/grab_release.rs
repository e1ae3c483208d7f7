//! `grab_release`: searches the same scope again on the same instance and grabs the release
//! whose reference matches; none matching is refused without grabbing. A write with an
//! external cost, audited.

use domain::{Capability, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

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
    pub media_id: String,
    pub media_type: MediaType,
    #[serde(default)]
    pub season: Option<u32>,
    #[serde(default)]
    pub episode: Option<u32>,
    /// A release_ref from search_releases.
    pub release_ref: String,
    /// The indexer_id of that row.
    pub indexer_id: i64,
}

impl Tool for GrabRelease {
    type Input = Input;
    const META: Meta = Meta {
        name: "grab_release",
        title: "Grab a release",
        description: "Grabs one release found by search_releases: give the same instance and scope, the row's release_ref and indexer_id. The scope is searched again and the release must still be there; otherwise nothing is grabbed and the answer says why. The download then shows in get_queue.",
        effect: Effect::ExternalCost,
        capability: Capability::LibraryWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: Some(domain::AllowanceKind::Grabs),
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let wanted = input.release_ref.trim().to_ascii_lowercase();
        if wanted.len() != 32 || !wanted.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(ToolError::invalid(
                "invalid argument \"release_ref\": give a release_ref exactly as search_releases showed it",
            ));
        }
        let scope = Scope {
            instance_id: input.instance_id,
            media_source: input.media_source,
            media_id: input.media_id,
            media_type: input.media_type,
            season: input.season,
            episode: input.episode,
        };
        let (source, scope, label) = resolve(ctx, &scope).await?;
        let client = source.client()?;
        let releases = client.releases(&scope).await.map_err(|e| source.error(e))?;
        let matching: Vec<_> = releases
            .iter()
            .filter(|r| {
                r.indexer_id == input.indexer_id
                    && client.release_ref(&source.id, &scope, r) == wanted
            })
            .collect();
        // A reference is a keyed hash of instance, scope, indexer and GUID, and a grab posts
        // only GUID and indexer: every row that matches is the same release (an indexer that
        // lists it twice), so a reference can never be ambiguous and nothing is asked.
        let Some(release) = matching.first().copied() else {
            return Err(ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "no release of {label} on {} matches that release_ref and indexer_id (it may have left the indexer, or it came from another scope or instance); nothing was grabbed; run search_releases again",
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
        Ok(Output::new(
            format!("{} is grabbing {} for {label}.", source.id, release.title),
            json!({ "instance_id": source.id, "scope": label, "title": release.title,
                "indexer": release.indexer, "size_bytes": release.size }),
        )
        .next("get_queue shows the download's progress"))
    }
}
