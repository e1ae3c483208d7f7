//! Where a row shows on its media server, whichever way it shows: a collection (for everyone
//! it is for) or a playlist (one person's, owned by their linked user there). Read, created,
//! filled, emptied and deleted through one set of calls, so runs, previews, cleanup and a
//! replaced row treat both alike. Only what Marquee made is ever named here.

use adapters_media::{Error, Library, MediaClient};
use store::ShortlistRow;

use governance::{Ctx, ToolError};

/// A row shown as a playlist is for one person: their user on the row's server, by name.
/// `None` for a collection.
pub(crate) async fn owner(ctx: &Ctx, row: &ShortlistRow) -> Result<Option<String>, ToolError> {
    if row.display.kind != "playlist" {
        return Ok(None);
    }
    let Some(person) = row.audience.first() else {
        return Err(ToolError::invalid(format!(
            "row {} is a playlist but is for no one; plan_row gives it one person",
            row.id
        )));
    };
    user_of(ctx, *person, &row.instance_id).await.map(Some)
}

/// `person`'s user on `instance_id` (plan_people links them), or why there is none.
pub(crate) async fn user_of(
    ctx: &Ctx,
    person: domain::PersonId,
    instance_id: &str,
) -> Result<String, ToolError> {
    let links = ctx.store().media_links(person).await?;
    match links.into_iter().find(|l| l.instance_id == instance_id) {
        Some(link) => Ok(link.user_name),
        None => {
            let name = ctx.store().person(person).await?.map(|p| p.name);
            Err(ToolError::invalid(format!(
                "{} has no user on {instance_id} to own the playlist; plan_people links them",
                name.unwrap_or_else(|| format!("person {}", person.0))
            )))
        }
    }
}

/// The item ids it holds, in order. One that is gone is not found.
pub(crate) async fn items(
    client: &MediaClient,
    user: Option<&str>,
    id: &str,
) -> Result<Vec<String>, Error> {
    match user {
        None => client.collection_items(id).await,
        Some(user) => Ok(client
            .playlist_entries(user, id)
            .await?
            .into_iter()
            .map(|e| e.item_id)
            .collect()),
    }
}

async fn library(client: &MediaClient, library_id: &str) -> Result<Library, Error> {
    client
        .libraries()
        .await?
        .into_iter()
        .find(|l| l.id == library_id)
        .ok_or_else(|| Error::Invalid(format!("the server has no library {library_id} any more")))
}

/// Makes it, named `name`, holding `items` in that order: its id.
pub(crate) async fn create(
    client: &MediaClient,
    user: Option<&str>,
    library_id: &str,
    name: &str,
    items: &[String],
) -> Result<String, Error> {
    match user {
        None => {
            let library = library(client, library_id).await?;
            client.create_collection(&library, name, items).await
        }
        Some(user) => client.create_playlist(user, name, items).await,
    }
}

/// Adds `items` (at the end of a playlist).
pub(crate) async fn add(
    client: &MediaClient,
    user: Option<&str>,
    id: &str,
    items: &[String],
) -> Result<(), Error> {
    match user {
        None => client.add_to_collection(id, items).await,
        Some(user) => client.add_to_playlist(user, id, items).await,
    }
}

/// Takes `items` out (a playlist names its entries: read now, every entry of each item).
pub(crate) async fn remove(
    client: &MediaClient,
    user: Option<&str>,
    id: &str,
    items: &[String],
) -> Result<(), Error> {
    match user {
        None => client.remove_from_collection(id, items).await,
        Some(user) => {
            let entries: Vec<String> = client
                .playlist_entries(user, id)
                .await?
                .into_iter()
                .filter(|e| items.contains(&e.item_id))
                .map(|e| e.entry_id)
                .collect();
            if entries.is_empty() {
                return Ok(());
            }
            client.remove_from_playlist(user, id, &entries).await
        }
    }
}

/// Deletes it (its items stay in the library).
pub(crate) async fn delete(
    client: &MediaClient,
    user: Option<&str>,
    library_id: &str,
    id: &str,
) -> Result<(), Error> {
    match user {
        None => {
            let library = library(client, library_id).await?;
            client.delete_collection(&library, id).await
        }
        Some(user) => client.delete_playlist(user, id).await,
    }
}
