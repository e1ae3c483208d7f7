//! Finding the one instance a single-torrent read is about: the named one, or the one whose
//! catalogue has the hash.

use domain::InfoHash;

use super::{Source, chosen, freshness, one, refresher};
use governance::ErrorCode;
use governance::{context::Ctx, contract::ToolError};

/// The instance holding `hash`. With `instance_id` that instance, whether its catalogue has
/// the hash or not (the live call decides); without it, the single covered instance that has it.
pub(crate) async fn instance_of<'c>(
    ctx: &'c Ctx,
    hash: InfoHash,
    instance_id: Option<&str>,
) -> Result<&'c Source, ToolError> {
    if instance_id.is_some() {
        let s = one(ctx, instance_id)?;
        s.backend()?;
        return Ok(s);
    }
    let sources = chosen(ctx, None)?;
    refresher::ensure_loaded(&sources).await;
    if !sources.iter().any(|s| s.has(&hash)) {
        refresher::refresh_recent(&sources).await;
    }
    let on: Vec<&Source> = sources.iter().copied().filter(|s| s.has(&hash)).collect();
    match on.as_slice() {
        [s] => Ok(s),
        [] => {
            let ids: Vec<&str> = sources.iter().map(|s| s.id.as_str()).collect();
            let unread: Vec<&str> = sources
                .iter()
                .filter(|s| !freshness::loaded(s))
                .map(|s| s.id.as_str())
                .collect();
            let mut m = format!(
                "no torrent with info hash {hash} on any instance (searched {})",
                ids.join(", ")
            );
            if !unread.is_empty() {
                m.push_str(&format!("; {} could not be read", unread.join(", ")));
            }
            Err(ToolError::new(
                ErrorCode::NotFound,
                m + "; find_torrents lists what there is",
            ))
        }
        several => {
            let ids: Vec<&str> = several.iter().map(|s| s.id.as_str()).collect();
            Err(ToolError::invalid(format!(
                "the torrent {hash} is on several instances ({}); name instance_id to choose one",
                ids.join(", ")
            )))
        }
    }
}
