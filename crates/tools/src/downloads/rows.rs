//! How a torrent looks in an answer: a compact row naming its instance, times as RFC 3339,
//! sizes in bytes, speeds in bytes per second.

use adapters_downloads::Torrent;
use serde_json::{Value, json};

use super::freshness::unix_rfc3339;

/// One torrent on one instance.
pub(crate) fn row(instance: &str, t: &Torrent) -> Value {
    json!({
        "info_hash": t.info_hash,
        "instance_id": instance,
        "name": &*t.name,
        "state": t.state,
        "progress": (t.progress * 1000.0).round() / 1000.0,
        "size": t.size,
        "ratio": (t.ratio * 100.0).round() / 100.0,
        "dl_speed": t.dl_speed,
        "ul_speed": t.ul_speed,
        "eta_seconds": t.eta,
        "category": t.category.as_deref(),
        "tags": t.tags.iter().map(|s| &**s).collect::<Vec<&str>>(),
        "added_at": unix_rfc3339(t.added_at),
        "tracker": t.tracker.as_deref(),
        "tracker_error": t.tracker_error,
    })
}

/// One torrent with everything the catalogue knows about it.
pub(crate) fn full_row(instance: &str, t: &Torrent) -> Value {
    let mut v = row(instance, t);
    let extra = json!({
        "downloaded": t.downloaded,
        "uploaded": t.uploaded,
        "save_path": &*t.save_path,
        "completed_at": t.completed_at.and_then(unix_rfc3339),
        "tracker_message": t.tracker_message.as_deref(),
        "trackers": t.trackers,
        "num_seeds": t.num_seeds,
        "num_peers": t.num_peers,
    });
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    v
}
