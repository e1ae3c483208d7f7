//! `get_download_history`: what `grab_release` put into the download clients from the indexers,
//! newest first: each torrent (download instance and info hash) with the title it was searched
//! for, the indexer, who grabbed it, when, and the request it served. Narrowed by title,
//! instance, torrent or request; rows of instances the caller's grant does not cover are left
//! out.

use chrono::{TimeZone, Utc};
use domain::{Capability, MediaSource, Role};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::search_indexers::not_for_kids;
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct GetDownloadHistory;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Only grabs for this title: its source as search_indexers was given it.
    #[serde(default)]
    pub media_source: Option<MediaSource>,
    /// Only grabs for this title: its id within media_source.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub media_id: Option<String>,
    /// Only grabs into this download instance.
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// Only grabs of this torrent: 40 hexadecimal characters.
    #[serde(default)]
    #[schemars(length(min = 40, max = 40), regex(pattern = r"^[0-9a-fA-F]{40}$"))]
    pub info_hash: Option<String>,
    /// Only grabs that served this request.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub request_id: Option<i64>,
    /// Rows, 1 to 200 (default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u32>,
}

/// One grab.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct GrabRow {
    pub download_instance_id: String,
    /// 40 hexadecimal characters, when known.
    pub info_hash: Option<String>,
    /// The release's name.
    pub release: String,
    /// The title it was grabbed for: "The Matrix (1999)".
    pub title: Option<String>,
    /// The identity searched for: "builtin tt0133093".
    pub media: Option<String>,
    /// The indexer it came from, as list_indexers names it.
    pub indexer: String,
    pub person_id: i64,
    /// The request it served.
    pub request_id: Option<i64>,
    /// RFC 3339.
    pub grabbed_at: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Data {
    pub grabs: Vec<GrabRow>,
}

impl Tool for GetDownloadHistory {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Data>);
    const META: Meta = Meta {
        name: "get_download_history",
        title: "Download history",
        description: "Lists what grab_release put into the download clients from search_indexers rows, newest first: download instance, info hash, release name, the title it was grabbed for (media identity and label), indexer, who grabbed it, when, and the request it served. Your own grabs, or everyone's when your grant sees everyone's requests. Narrow it with media_source + media_id, instance_id, info_hash or request_id; limit 1 to 200 (default 50).",
        effect: Effect::Read,
        capability: Capability::DownloadsRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Download),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if ctx.caller.authority.person.role == Role::Kid {
            return Err(not_for_kids());
        }
        let media = crate::discover::identity::optional(input.media_source, input.media_id)?
            .map(|m| format!("{} {}", m.media_source, m.media_id));
        if let Some(i) = &input.instance_id
            && !ctx.covers(i)
        {
            return Err(ToolError::new(
                ErrorCode::NotFound,
                format!("no download instance {i} your grant covers"),
            ));
        }
        let limit = input.limit.unwrap_or(50).clamp(1, 200);
        // The download instances the grant covers, applied before the limit; and everyone's
        // grabs only for those who see everyone's requests (the grabs serve them), else one's own.
        let covered: Vec<String> = ctx
            .instances()
            .all()
            .iter()
            .filter(|s| s.kind.family() == domain::KindFamily::Download && ctx.covers(&s.id))
            .map(|s| s.id.clone())
            .collect();
        let filter = store::GrabFilter {
            media,
            instance_id: input.instance_id,
            instance_ids: Some(covered),
            info_hash: input.info_hash,
            person_id: (!ctx.caller.scope.all_requests).then_some(ctx.caller.authority.person.id),
            request_id: input.request_id,
        };
        let grabs = ctx
            .store()
            .grab_history(&filter, limit)
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "the download history could not be read");
                ToolError::new(
                    ErrorCode::Internal,
                    "the download history could not be read; the server log has the details",
                )
            })?;
        let rows: Vec<GrabRow> = grabs
            .into_iter()
            .map(|g| GrabRow {
                grabbed_at: Utc
                    .timestamp_millis_opt(g.grabbed_at)
                    .single()
                    .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                    .unwrap_or_default(),
                download_instance_id: g.instance_id,
                info_hash: g.info_hash,
                release: g.release,
                title: g.title,
                media: g.media,
                indexer: g.indexer,
                person_id: g.person_id.0,
                request_id: g.request_id,
            })
            .collect();
        let summary = match rows.first() {
            None => "No grab matched.".to_string(),
            Some(newest) => format!(
                "{}; the newest: {} for {}.",
                crate::library::count(rows.len(), "grab", "grabs"),
                newest.release,
                newest.title.as_deref().unwrap_or("no named title")
            ),
        };
        Output::typed(summary, &Data { grabs: rows })
    }
}
