//! Argument completion: the values Marquee knows for a prompt argument or a resource
//! template variable, limited to what the caller's grant lets them see.

use std::collections::BTreeSet;

use domain::{Capability, KindFamily, MediaType};
use serde_json::{Map, Value};

use crate::{
    discover::{Catalogues, ratings::Ladder},
    downloads::Downloads,
    guides::Topic,
    prompts::PromptSpec,
};
use governance::{App, Caller};

/// What is being completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    Prompt(&'a str),
    Resource(&'a str),
}

/// Values for `argument`, those starting with `typed` first, then those containing it.
/// Empty for anything this caller cannot use. `chosen` holds the arguments already
/// picked (a chosen `instance` narrows categories and tags to it).
pub async fn complete(
    app: &App,
    caller: &Caller,
    target: Target<'_>,
    argument: &str,
    typed: &str,
    chosen: &Map<String, Value>,
) -> Result<Vec<String>, store::Error> {
    let values: Vec<String> = match target {
        Target::Resource("marquee://guides/{topic}") if argument == "topic" => {
            Topic::ALL.iter().map(|t| t.name().to_string()).collect()
        }
        Target::Resource(_) => Vec::new(),
        Target::Prompt(name) => {
            let usable = crate::prompts::usable(app, caller);
            match PromptSpec::find(name) {
                Some(p) if usable.iter().any(|u| u.name == p.name) => {
                    prompt_values(app, caller, argument, chosen).await?
                }
                _ => Vec::new(),
            }
        }
    };
    Ok(rank(values, typed))
}

async fn prompt_values(
    app: &App,
    caller: &Caller,
    argument: &str,
    chosen: &Map<String, Value>,
) -> Result<Vec<String>, store::Error> {
    Ok(match argument {
        "instance" => app
            .instances()
            .all()
            .iter()
            .filter(|i| i.kind.family() == KindFamily::Download)
            .filter(|i| governance::authority::covers(&caller.authority, &i.id))
            .map(|i| i.id.clone())
            .collect(),
        "category" | "tag" => download_labels(
            app,
            caller,
            argument == "tag",
            chosen.get("instance").and_then(Value::as_str),
        ),
        "media_type" => vec!["movie".into(), "tv".into()],
        // The built-in US ladders; other regions' lists come from the catalogue.
        "max_rating" => Ladder::us_fallback(MediaType::Movie)
            .map(|l| l.names().to_vec())
            .unwrap_or_default(),
        "max_tv_rating" => Ladder::us_fallback(MediaType::Tv)
            .map(|l| l.names().to_vec())
            .unwrap_or_default(),
        "blocked_genre" => genres(app, caller).await,
        // People's names are for admins only.
        "person" if caller.scope.household => app
            .store()
            .people()
            .await?
            .into_iter()
            .map(|p| p.name)
            .collect(),
        _ => Vec::new(),
    })
}

/// The categories (or tags) in the cached catalogues of the download instances this caller
/// may read (`downloads.read` and the grant's instances), or of `instance` alone; no
/// backend call.
fn download_labels(app: &App, caller: &Caller, tags: bool, instance: Option<&str>) -> Vec<String> {
    if !caller.can(Capability::DownloadsRead) {
        return Vec::new();
    }
    let mut names = BTreeSet::new();
    let Some(downloads) = app.family::<Downloads>() else {
        return Vec::new();
    };
    for source in downloads.sources() {
        if instance.is_some_and(|i| i != source.id)
            || !governance::authority::covers(&caller.authority, &source.id)
        {
            continue;
        }
        let Some(backend) = source.working() else {
            continue;
        };
        if tags {
            names.extend(backend.catalogue.tags());
        } else {
            names.extend(
                backend
                    .catalogue
                    .categories()
                    .items
                    .into_iter()
                    .map(|c| c.name),
            );
        }
    }
    names.into_iter().collect()
}

/// Genre names of the catalogues this caller may read (the builtin catalogue's, TMDB's for
/// films and shows); a catalogue that cannot answer adds none.
async fn genres(app: &App, caller: &Caller) -> Vec<String> {
    if !caller.can(Capability::Discover) {
        return Vec::new();
    }
    let mut names = BTreeSet::new();
    let Some(catalogues) = app.family::<Catalogues>() else {
        return Vec::new();
    };
    for spec in app.instances().all() {
        if !spec.kind.family().answers_titles()
            || !governance::authority::covers(&caller.authority, &spec.id)
        {
            continue;
        }
        let Some(entry) = catalogues.entry(&spec.id) else {
            continue;
        };
        let Ok(catalogue) = entry.catalogue().await else {
            continue;
        };
        for media_type in [MediaType::Movie, MediaType::Tv] {
            if let Ok(list) = catalogue.genres(media_type).await {
                names.extend(list);
            }
        }
    }
    names.into_iter().collect()
}

/// Prefix matches first, then other matches, case-insensitively; order kept within each.
fn rank(values: Vec<String>, typed: &str) -> Vec<String> {
    let typed = typed.to_lowercase();
    let (mut first, rest): (Vec<_>, Vec<_>) = values
        .into_iter()
        .filter(|v| v.to_lowercase().contains(&typed))
        .partition(|v| v.to_lowercase().starts_with(&typed));
    first.extend(rest);
    first
}

#[cfg(test)]
mod tests {
    use super::rank;

    #[test]
    fn prefix_matches_come_before_inner_matches() {
        let v = ["tv-hd", "movies", "tv", "old-tv"]
            .map(String::from)
            .to_vec();
        assert_eq!(rank(v, "TV"), ["tv-hd", "tv", "old-tv"]);
    }
}
