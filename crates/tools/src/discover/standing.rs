//! Where a title stands for the household: its open request (pending, approved, available), read
//! from the store, and whether the library holds it, asked of the default library instance of its
//! kind when this call may read that instance. Unknown stays unknown (`None`), never "no".

use std::collections::BTreeMap;

use adapters_catalogue::TitleSummary;
use domain::MediaType;
use futures::{StreamExt, stream};

use crate::library::{
    source::kind_for,
    title::{find, media_ref},
};
use governance::{context::Ctx, contract::ToolError};

/// Library lookups at once.
const CONCURRENCY: usize = 4;

/// One title's standing.
pub(crate) struct Standing {
    /// The status of the title's oldest open request, if any.
    pub requested: Option<&'static str>,
    /// `None` when no library instance could be asked.
    pub in_library: Option<bool>,
}

/// The standing of each title, in order, and one warning per library instance that failed.
pub(crate) async fn of(
    ctx: &Ctx,
    titles: &[TitleSummary],
) -> Result<(Vec<Standing>, Vec<String>), ToolError> {
    let mut requested = Vec::with_capacity(titles.len());
    for t in titles {
        let open = ctx.store().open_requests_for(&t.id).await?;
        requested.push(open.first().map(|r| r.status.as_str()));
    }
    let held: Vec<Result<Option<bool>, (String, String)>> = stream::iter(0..titles.len())
        .map(|i| in_library(ctx, &titles[i]))
        .buffered(CONCURRENCY)
        .collect()
        .await;
    let mut failed: BTreeMap<String, String> = BTreeMap::new();
    let standings = requested
        .into_iter()
        .zip(held)
        .map(|(requested, held)| {
            let in_library = match held {
                Ok(h) => h,
                Err((instance, why)) => {
                    failed.entry(instance).or_insert(why);
                    None
                }
            };
            let in_library = in_library.or((requested == Some("available")).then_some(true));
            Standing {
                requested,
                in_library,
            }
        })
        .collect();
    let warnings = failed
        .into_iter()
        .map(|(instance, why)| {
            format!("library instance {instance} could not be read ({why}); in_library is unknown for its titles")
        })
        .collect();
    Ok((standings, warnings))
}

/// Asks the default library instance of the title's kind, when this call may read it.
async fn in_library(ctx: &Ctx, t: &TitleSummary) -> Result<Option<bool>, (String, String)> {
    if !matches!(t.media_type, MediaType::Movie | MediaType::Tv) {
        return Ok(None);
    }
    let Some(spec) = ctx.instances().default_of(kind_for(t.media_type)) else {
        return Ok(None);
    };
    if ctx.authorize(&spec.id).is_err() {
        return Ok(None);
    }
    let Some(source) = crate::library::libraries(ctx).by_id(&spec.id) else {
        return Ok(None);
    };
    // A builtin id that is no IMDb id cannot be looked up: unknown, not an error.
    let Ok(media) = media_ref(t.id.media_source, &t.id.media_id, t.media_type) else {
        return Ok(None);
    };
    match find(source, &media).await {
        Ok(found) => Ok(Some(found.library_id.is_some())),
        Err(e) if e.code == governance::ErrorCode::NotFound => Ok(Some(false)),
        Err(e) => Err((spec.id.clone(), e.code.as_str().to_string())),
    }
}
