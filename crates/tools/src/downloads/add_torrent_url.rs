//! The http(s) source of `add_torrent`: Marquee fetches the .torrent itself under the outbound
//! rule (`httpx::outbound`: public addresses only, unless the owner allows the host; every
//! redirect checked), at most 10 MiB, and hands the client the bytes, so the torrent client
//! is never sent to an address a caller chose. A redirect to a magnet link is followed as one.
//! The trackers and web seeds a torrent or magnet names (which the client contacts) are held
//! to the same rule, whatever the source.

use std::time::Duration;

use adapters_downloads::{
    AddSource, contact_urls_of_magnet, contact_urls_of_torrent, info_hash_of_magnet,
    info_hash_of_torrent,
};
use domain::InfoHash;
use httpx::{
    Timeouts,
    outbound::{FetchError, Fetched, Outbound},
};

use governance::ToolError;

/// The largest .torrent fetched.
const MAX_TORRENT: usize = 10 * 1024 * 1024;

/// How long connecting to, and fetching from, a caller's URL may take.
const TIMEOUTS: Timeouts = Timeouts {
    connect: Duration::from_secs(5),
    request: Duration::from_secs(20),
};

/// The .torrent at `url` (or the magnet link it redirects to), checked, ready for the client.
pub(crate) async fn fetch(
    rule: &Outbound,
    url: &str,
) -> Result<(AddSource, Option<InfoHash>), ToolError> {
    match rule.fetch(url, MAX_TORRENT, TIMEOUTS).await {
        Ok(Fetched::Body(bytes)) => {
            let h = info_hash_of_torrent(&bytes).map_err(|_| {
                ToolError::invalid("the URL did not answer with a .torrent file; nothing was added")
            })?;
            Ok((AddSource::File(bytes), Some(h)))
        }
        Ok(Fetched::Magnet(magnet)) => {
            let h = info_hash_of_magnet(&magnet).ok_or_else(|| {
                ToolError::invalid(
                    "the URL redirected to a magnet link without a btih info hash; nothing was added",
                )
            })?;
            Ok((AddSource::Url(magnet), Some(h)))
        }
        // One sentence, whatever the address or its port did: nothing was sent to it.
        Err(FetchError::Refused(refused)) => {
            tracing::info!(why = %refused.why, "an add_torrent URL was refused");
            Err(ToolError::invalid(format!("{refused}; nothing was added")))
        }
        Err(FetchError::TooLarge { .. }) => Err(ToolError::invalid(
            "the file at that URL is larger than 10 MiB, too large for a .torrent; nothing was added",
        )),
        Err(FetchError::Failed(e)) => Err(ToolError::invalid(format!(
            "the .torrent could not be fetched from that URL ({e}); nothing was added"
        ))),
    }
}

/// The most trackers and web seeds one torrent may name.
const MAX_CONTACTS: usize = 200;

/// Refuses a torrent or magnet that would send the client to an address on this machine or its
/// networks (a tracker, a web seed, a source), unless the owner allows the host: the same
/// sentence as a refused URL.
pub(crate) async fn check_contacts(rule: &Outbound, source: &AddSource) -> Result<(), ToolError> {
    let mut urls = match source {
        AddSource::File(bytes) => contact_urls_of_torrent(bytes),
        AddSource::Url(magnet) => contact_urls_of_magnet(magnet),
    };
    urls.sort();
    urls.dedup();
    if urls.len() > MAX_CONTACTS {
        return Err(ToolError::invalid(format!(
            "the torrent names more than {MAX_CONTACTS} trackers and web seeds; nothing was added"
        )));
    }
    let checks = urls.iter().map(|u| rule.check_contact(u));
    for checked in futures::future::join_all(checks).await {
        if let Err(refused) = checked {
            tracing::info!(why = %refused.why, "a torrent's tracker or web seed was refused");
            return Err(ToolError::invalid(format!(
                "the torrent names a tracker or web seed that {refused}; nothing was added"
            )));
        }
    }
    Ok(())
}
