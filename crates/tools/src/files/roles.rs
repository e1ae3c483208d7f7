//! What a folder instance is for, as its config says (`role`, `media_type`): organising goes
//! into a library folder only, and leaves out the videos a one-kind library does not hold.

use domain::{FolderMedia, FolderRole, InstanceKind};
use governance::{Ctx, ToolError};

use super::naming;

/// What the target folder holds when its config says (`media_type`); a `downloads` folder is
/// refused as a target, naming the library folders the caller may organise into.
pub(crate) fn library_use(ctx: &Ctx, target: &str) -> Result<Option<FolderMedia>, ToolError> {
    let instances = ctx.instances();
    let used = instances.folder(target);
    if used.role == FolderRole::Library {
        return Ok(used.media_type);
    }
    let libraries: Vec<&str> = instances
        .all()
        .iter()
        .filter(|s| {
            s.kind == InstanceKind::Folder
                && ctx.covers(&s.id)
                && instances.folder(&s.id).role == FolderRole::Library
        })
        .map(|s| s.id.as_str())
        .collect();
    Err(ToolError::invalid(format!(
        "target_instance_id \"{target}\" is a downloads folder, where finished downloads land; organise into a library folder ({}); nothing was planned",
        if libraries.is_empty() {
            "none is configured: add one with role = \"library\"".to_string()
        } else {
            libraries.join(", ")
        }
    )))
}

/// Why a video does not belong in a target folder that holds one kind of media, if it does not.
pub(crate) fn misplaced(facts: &naming::Facts, holds: Option<FolderMedia>) -> Option<String> {
    let what = match holds? {
        FolderMedia::Movie if !facts.movie => "an episode",
        FolderMedia::Tv if facts.movie => "a film",
        FolderMedia::Music => {
            if facts.movie {
                "a film"
            } else {
                "an episode"
            }
        }
        _ => return None,
    };
    let holds = match holds? {
        FolderMedia::Movie => "films",
        FolderMedia::Tv => "TV shows",
        FolderMedia::Music => "music",
    };
    Some(format!(
        "{what}, and the target folder holds {holds} only (its media_type)"
    ))
}
