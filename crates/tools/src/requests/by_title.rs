//! A request that names its title by words (`title`, optional `year`) instead of an id: the
//! catalogue is searched through the caller's content limits, and the titles whose name is the
//! one given are the candidates. One is taken as named; several are put to the person as a
//! question (a kid is only ever offered what their limits allow); none is refused with the
//! nearest titles found, so the model can call again with an id.

use adapters_catalogue::{TitleSearch, TitleSummary};
use domain::{InstanceKind, MediaSource, MediaType};
use serde_json::json;

use crate::discover::{
    identity::TitleScope,
    limits::{Gate, pass_titles},
    pick, render,
};
use governance::{
    ErrorCode,
    ask::{Choice, Question},
    context::Ctx,
    contract::ToolError,
};

/// Titles offered in one question at most.
const MAX_CHOICES: usize = 10;
/// Longest title accepted.
pub(crate) const MAX_TITLE: usize = 200;

/// The pair of the one title named `title` (and first released in `year`) the caller may see.
pub(crate) async fn resolve(
    ctx: &Ctx,
    title: &str,
    year: Option<i32>,
    media_type: MediaType,
    instance_id: Option<&str>,
) -> Result<(MediaSource, String), ToolError> {
    let (scope, kinds): (TitleScope, &[InstanceKind]) = match media_type {
        MediaType::Movie => (
            TitleScope::Movie,
            &[InstanceKind::Builtin, InstanceKind::Tmdb],
        ),
        MediaType::Tv => (TitleScope::Tv, &[InstanceKind::Tmdb]),
        MediaType::Music | MediaType::Book => {
            return Err(ToolError::invalid(
                "title names movies and shows; name an album by search_music's media_source + media_id, a book by search_books'",
            ));
        }
    };
    let words = title.trim();
    if words.is_empty() || words.chars().count() > MAX_TITLE {
        return Err(ToolError::invalid(format!(
            "invalid argument \"title\": give the title's name (1 to {MAX_TITLE} characters)"
        )));
    }
    let entry = pick(ctx, instance_id, kinds, "title search")?;
    let catalogue = entry.catalogue().await?;
    let search = TitleSearch {
        kind: scope.kind(),
        query: words.to_owned(),
        year,
        page: 1,
    };
    let mut gate = Gate::for_caller(ctx, entry, catalogue.clone());
    let page = catalogue
        .search_titles(&search)
        .await
        .map_err(|e| render::catalogue_error(e, &entry.id))?;
    let mut rows = page.items;
    rows.retain(|r| r.media_type == media_type && year.is_none_or(|y| r.year == Some(y)));
    let passed = pass_titles(&mut gate, rows).await?;
    let wanted = fold(words);
    let (named, others): (Vec<TitleSummary>, Vec<TitleSummary>) = passed
        .rows
        .into_iter()
        .partition(|r| fold(&r.title) == wanted);
    match named.as_slice() {
        [one] => Ok((one.id.media_source, one.id.media_id.clone())),
        [] => Err(none_named(words, year, &entry.id, &others, passed.hidden)),
        several => {
            let question = Question {
                key: "title",
                argument: "media_source + media_id",
                message: format!(
                    "Several titles are called \"{words}\"; which one should be requested?"
                ),
                choices: several.iter().take(MAX_CHOICES).map(choice).collect(),
            };
            let chosen = ctx.choose(&question).await?;
            let i = question
                .choices
                .iter()
                .position(|c| c.value == chosen.value)
                .unwrap_or_default();
            let picked = &several[i];
            Ok((picked.id.media_source, picked.id.media_id.clone()))
        }
    }
}

/// A title as the person reads it and as a model names it: `builtin:tt0101414`.
fn choice(r: &TitleSummary) -> Choice {
    let mut label = r.title.clone();
    if let Some(y) = r.year {
        label.push_str(&format!(" ({y})"));
    }
    Choice {
        value: format!("{}:{}", r.id.media_source, r.id.media_id),
        label,
        data: json!({ "media_source": r.id.media_source, "media_id": r.id.media_id,
            "title": r.title, "year": r.year }),
    }
}

/// No title this caller may see has that name: the nearest ones found, with their ids.
fn none_named(
    words: &str,
    year: Option<i32>,
    instance: &str,
    others: &[TitleSummary],
    hidden: u32,
) -> ToolError {
    let when = year.map(|y| format!(" from {y}")).unwrap_or_default();
    let near: Vec<String> = others
        .iter()
        .take(5)
        .map(|r| {
            let c = choice(r);
            format!("{} ({})", c.label, c.value)
        })
        .collect();
    let found = if near.is_empty() {
        "nothing close was found".to_string()
    } else {
        format!("nearest: {}", near.join(", "))
    };
    let suggestions: Vec<_> = others.iter().take(5).map(|r| choice(r).data).collect();
    ToolError::new(
        ErrorCode::NotFound,
        format!(
            "no title called \"{words}\"{when} in {instance} that this account can request; {found}; nothing was requested; name one by media_source + media_id{}",
            render::hidden_sentence(hidden)
        ),
    )
    .with_data(json!({ "nearest": suggestions }))
}

/// A title folded for comparison: letters and digits only, lowercase.
fn fold(title: &str) -> String {
    title
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::fold;

    #[test]
    fn titles_fold_to_letters_and_digits() {
        assert_eq!(fold("Beauty and the Beast"), fold("beauty and the  beast"));
        assert_eq!(fold("Se7en"), "se7en");
        assert_eq!(fold("Amélie!"), "amélie");
        assert_ne!(fold("Heat"), fold("Heat 2"));
    }
}
