//! One title by identity, read through the caller's content limits: the path `get_title_details`,
//! `get_recommendations` and the request tools share.

use adapters_catalogue::TitleDetails;
use domain::{MediaId, MediaSource};
use serde_json::{Value, json};

use super::{
    catalogues::{Entry, pick},
    identity::{self, TitleType},
    limits::{Gate, not_available},
    render,
};
use crate::{context::Ctx, contract::ToolError};

/// A title's details and where they were read.
pub(crate) struct Looked<'c> {
    pub entry: &'c Entry,
    pub details: TitleDetails,
    /// Content limits were checked (and passed).
    pub limited: bool,
}

/// Reads a title named by `media_source` + `media_id`; a title the limits forbid answers
/// exactly `That title is not available for this account.`
pub(crate) async fn title<'c>(
    ctx: &'c Ctx,
    source: Option<MediaSource>,
    id: Option<String>,
    media_type: TitleType,
    instance_id: Option<&str>,
) -> Result<Looked<'c>, ToolError> {
    let (entry, id) = entry_for(ctx, source, id, media_type, instance_id)?;
    read(ctx, entry, id, media_type).await
}

/// The catalogue that answers for a title named by `media_source` + `media_id` (the named
/// `instance_id`, or the default one that knows such ids), and the id, checked.
pub(crate) fn entry_for<'c>(
    ctx: &'c Ctx,
    source: Option<MediaSource>,
    id: Option<String>,
    media_type: TitleType,
    instance_id: Option<&str>,
) -> Result<(&'c Entry, MediaId), ToolError> {
    let id = identity::required(source, id)?;
    identity::check_type(&id, media_type.media_type())?;
    let what = format!("{} ids", id.media_source);
    let entry = pick(
        ctx,
        instance_id,
        identity::kinds_for(id.media_source),
        &what,
    )?;
    Ok((entry, id))
}

/// Reads title `id` from `entry` through the caller's content limits (see [`title`]).
pub(crate) async fn read<'c>(
    ctx: &Ctx,
    entry: &'c Entry,
    id: MediaId,
    media_type: TitleType,
) -> Result<Looked<'c>, ToolError> {
    let media_type = media_type.media_type();
    let catalogue = entry.catalogue().await?;
    let mut gate = Gate::for_caller(ctx, entry, catalogue.clone());
    let region = gate
        .as_ref()
        .map_or_else(|| "US".to_string(), |g| g.region.clone());
    let details = catalogue
        .title_details(&id, media_type, &region)
        .await
        .map_err(|e| render::catalogue_error(e, &entry.id))?;
    if let Some(g) = &mut gate
        && !g.allows(&details).await?
    {
        return Err(not_available());
    }
    Ok(Looked {
        entry,
        details,
        limited: gate.is_some(),
    })
}

/// "Heat (1995)".
pub(crate) fn label(d: &TitleDetails) -> String {
    match d.summary.year {
        Some(y) => format!("{} ({y})", d.summary.title),
        None => d.summary.title.clone(),
    }
}

/// The details as shown: the row's fields plus the full record.
pub(crate) fn details_data(instance: &str, d: &TitleDetails) -> Value {
    let mut v = render::title_row(&d.summary);
    let extra = json!({
        "instance_id": instance,
        "overview": d.summary.overview,
        "certifications": d.certifications,
        "runtime_minutes": d.runtime_minutes,
        "cast": d.cast,
        "directors": d.directors,
        "release_dates": d.release_dates,
        "languages": d.languages,
        "countries": d.countries,
        "seasons": d.seasons,
    });
    if let (Value::Object(row), Value::Object(extra)) = (&mut v, extra) {
        for (k, val) in extra {
            if !val.is_null() {
                row.insert(k, val);
            }
        }
    }
    v
}
