//! The ratings a content limit may name: a region's certifications (movies) or content
//! ratings (TV), mildest first, as the configured catalogues list them, the same lists the
//! limits are read against when a limited person searches. For `marquee people set-limits`,
//! so a cap no list has (`PG13`, `banana`) is refused instead of hiding everything.

use adapters_catalogue::Error as CatalogueError;
use domain::MediaType;

use super::{Catalogues, ratings::Ladder};
use governance::App;

/// The names `region`'s `media_type` ratings list has, from the first configured catalogue
/// that lists them (the built-in US ladders for US when none does); why none could be read.
pub async fn rating_names(
    app: &App,
    region: &str,
    media_type: MediaType,
) -> Result<Vec<String>, String> {
    let region = region.trim().to_ascii_uppercase();
    let mut tried = Vec::new();
    if let Some(catalogues) = app.family::<Catalogues>() {
        for spec in app.instances().all() {
            if !spec.kind.family().answers_titles() {
                continue;
            }
            let Some(entry) = catalogues.entry(&spec.id) else {
                continue;
            };
            let Ok(catalogue) = entry.catalogue().await else {
                tried.push(format!("{} cannot be used", spec.id));
                continue;
            };
            match catalogue.certifications(media_type, &region).await {
                Ok(list) => {
                    let names = Ladder::from_list(&region, &list).names().to_vec();
                    if !names.is_empty() {
                        return Ok(names);
                    }
                    tried.push(format!("{} lists none", spec.id));
                }
                Err(CatalogueError::Unsupported { .. } | CatalogueError::UnknownName { .. }) => {
                    tried.push(format!("{} has no such list", spec.id));
                }
                Err(e) => tried.push(format!("{}: {e}", spec.id)),
            }
        }
    }
    if region == "US"
        && let Some(ladder) = Ladder::us_fallback(media_type)
    {
        return Ok(ladder.names().to_vec());
    }
    let what = match media_type {
        MediaType::Tv => "TV",
        _ => "movie",
    };
    Err(format!(
        "no configured catalogue lists {region} {what} ratings ({}); configure a tmdb instance, or use --region US",
        if tried.is_empty() {
            "none is configured".to_string()
        } else {
            tried.join("; ")
        }
    ))
}
