//! Readarr v1 (and forks such as Chaptarr): authors and books. Books are looked up by text
//! through Readarr's own search; their ids are the book source's (`foreignBookId`).

use domain::MediaSource;
use serde::Deserialize;

use crate::redact::redacted;
use serde_json::{Value, json};

use crate::{
    Error, common,
    core::Core,
    model::{
        AddOptions, ExternalIds, Found, HistoryEvent, ItemKind, LibraryItem, MediaRef, SearchTarget,
    },
};

redacted! {
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct VStats {
    #[serde(default, deserialize_with = "crate::core::non_negative")]
    book_file_count: u32,
    #[serde(default, deserialize_with = "crate::core::non_negative")]
    book_count: u32,
    #[serde(default, deserialize_with = "crate::core::non_negative")]
    size_on_disk: u64,
}
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VAuthor {
    #[serde(default)]
    id: i64,
    #[serde(default)]
    author_name: Option<String>,
    #[serde(default)]
    foreign_author_id: Option<String>,
    #[serde(default)]
    monitored: bool,
    #[serde(default)]
    quality_profile_id: Option<i64>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    added: Option<String>,
    #[serde(default)]
    statistics: Option<VStats>,
}
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VBook {
    #[serde(default)]
    id: i64,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    release_date: Option<String>,
    #[serde(default)]
    monitored: bool,
    #[serde(default)]
    author_id: Option<i64>,
    #[serde(default)]
    foreign_book_id: Option<String>,
    #[serde(default)]
    statistics: Option<VStats>,
    #[serde(default)]
    author: Option<VAuthorName>,
    #[serde(default)]
    genres: Vec<String>,
}
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VAuthorName {
    #[serde(default)]
    author_name: Option<String>,
}
}

impl VBook {
    fn item(self) -> LibraryItem {
        let st = self.statistics.unwrap_or_default();
        LibraryItem {
            id: self.id,
            kind: ItemKind::Book,
            year: year_of(&self.release_date),
            title: self.title.unwrap_or_default(),
            monitored: self.monitored,
            files_held: st.book_file_count,
            files_wanted: st.book_count.max(1),
            size_on_disk: st.size_on_disk,
            quality_profile_id: None,
            path: None,
            added: None,
            ids: ExternalIds {
                book_source: self.foreign_book_id,
                ..ExternalIds::default()
            },
            seasons: Vec::new(),
            parent_id: self.author_id,
        }
    }
}

pub async fn library(core: &Core) -> Result<Vec<LibraryItem>, Error> {
    let rows: Vec<VAuthor> = core.get("author", &[]).await?;
    Ok(rows
        .into_iter()
        .map(|a| {
            let st = a.statistics.unwrap_or_default();
            LibraryItem {
                id: a.id,
                kind: ItemKind::Author,
                title: a.author_name.unwrap_or_default(),
                year: None,
                monitored: a.monitored,
                files_held: st.book_file_count,
                files_wanted: st.book_count,
                size_on_disk: st.size_on_disk,
                quality_profile_id: a.quality_profile_id,
                path: a.path,
                added: a.added,
                ids: ExternalIds {
                    book_source: a.foreign_author_id,
                    ..ExternalIds::default()
                },
                seasons: Vec::new(),
                parent_id: None,
            }
        })
        .collect())
}

/// An author's books.
pub async fn books(core: &Core, author_id: i64) -> Result<Vec<LibraryItem>, Error> {
    let rows: Vec<VBook> = core
        .get("book", &[("authorId", author_id.to_string())])
        .await?;
    Ok(rows.into_iter().map(VBook::item).collect())
}

/// Every book the library holds, of every author.
pub async fn all_books(core: &Core) -> Result<Vec<LibraryItem>, Error> {
    let rows: Vec<VBook> = core.get("book", &[]).await?;
    Ok(rows.into_iter().map(VBook::item).collect())
}

/// One book by its id in Readarr.
pub async fn item(core: &Core, id: i64) -> Result<LibraryItem, Error> {
    let v: VBook = core.get(&format!("book/{id}"), &[]).await?;
    Ok(v.item())
}

/// The book (a Goodreads work id, Readarr's `foreignBookId`) through Readarr's own lookup
/// (`work:{id}`); a book the library holds comes back with its id there. Readarr reads the
/// prefixes `author:`, `work:` and `edition:` followed by a whole number, and `isbn:`/`asin:`
/// (`BookInfoProxy.SearchForNewBook` in Readarr's source, behind `BookLookupController`); any
/// other id after `work:` is answered with no books, so it is refused here first.
pub async fn find(core: &Core, media: &MediaRef) -> Result<Found, Error> {
    if media.source != MediaSource::Goodreads {
        return Err(Error::Unsupported(format!(
            "readarr cannot look up a {} id; name the book by its goodreads id (search_books shows it)",
            media.source
        )));
    }
    let id = media.id.trim();
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) || id.parse::<i32>().is_err() {
        return Err(Error::Unsupported(format!(
            "goodreads id {id:?} is not a goodreads work id (a whole number, as search_books shows it)"
        )));
    }
    let rows: Option<Vec<Value>> = core
        .get("book/lookup", &[("term", format!("work:{id}"))])
        .await?;
    let raw =
        rows.unwrap_or_default().into_iter().next().ok_or_else(|| {
            Error::NotFound(format!("readarr's lookup does not know goodreads:{id}"))
        })?;
    let b: VBook = serde_json::from_value(raw.clone()).map_err(|e| {
        Error::NotFound(format!("readarr's lookup answered an unreadable book: {e}"))
    })?;
    Ok(Found {
        title: b.title.clone().unwrap_or_default(),
        year: year_of(&b.release_date),
        ids: ExternalIds {
            book_source: b.foreign_book_id.clone(),
            ..ExternalIds::default()
        },
        library_id: (b.id > 0).then_some(b.id),
        genres: b.genres,
        raw,
    })
}

/// Adds the book, monitored, with its author added (if new) monitoring nothing else, so one
/// request is one book; no search (the caller starts one it can follow).
pub async fn add(core: &Core, found: &Found, opts: &AddOptions) -> Result<LibraryItem, Error> {
    let metadata = opts
        .metadata_profile_id
        .ok_or_else(|| Error::Config("readarr needs a metadata profile to add an author".into()))?;
    let mut body = found.raw.clone();
    let mut author = body.get("author").cloned().unwrap_or_else(|| json!({}));
    author["qualityProfileId"] = json!(opts.quality_profile_id);
    author["metadataProfileId"] = json!(metadata);
    author["rootFolderPath"] = json!(opts.root_folder_path);
    author["monitored"] = json!(true);
    author["monitorNewItems"] = json!("none");
    author["addOptions"] = json!({ "monitor": "none", "searchForMissingBooks": false });
    body["author"] = author;
    body["monitored"] = json!(true);
    body["addOptions"] = json!({ "searchForNewBook": false });
    // Readarr adds the edition marked monitored; the lookup's first one when none is.
    if let Some(editions) = body.get_mut("editions").and_then(Value::as_array_mut)
        && !editions.iter().any(|e| e["monitored"] == json!(true))
        && let Some(first) = editions.first_mut()
    {
        first["monitored"] = json!(true);
    }
    if let Value::Object(m) = &mut body {
        m.remove("id");
    }
    common::without_computed(&mut body);
    let v: VBook = core.post("book", &body).await?;
    Ok(v.item())
}

fn year_of(date: &Option<String>) -> Option<i64> {
    date.as_deref()
        .and_then(|d| d.get(..4))
        .and_then(|y| y.parse().ok())
        .filter(|y| *y > 1000)
}

/// One book found by Readarr's own search: title, author, year and the book source's id.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BookHit {
    pub title: String,
    pub author: Option<String>,
    pub year: Option<i64>,
    pub book_source_id: Option<String>,
    /// Already in the library: its id there.
    pub library_id: Option<i64>,
    /// The genres the book source gives it (content limits hide blocked ones).
    pub genres: Vec<String>,
}

pub async fn lookup(core: &Core, term: &str) -> Result<Vec<BookHit>, Error> {
    // Readarr's document declares no body for its lookup: an empty answer is no books.
    let rows: Option<Vec<VBook>> = core
        .get("book/lookup", &[("term", term.to_string())])
        .await?;
    Ok(rows
        .unwrap_or_default()
        .into_iter()
        .map(|b| BookHit {
            author: b.author.as_ref().and_then(|a| a.author_name.clone()),
            library_id: (b.id > 0).then_some(b.id),
            year: year_of(&b.release_date),
            title: b.title.unwrap_or_default(),
            book_source_id: b.foreign_book_id,
            genres: b.genres,
        })
        .collect())
}

/// The held book whose `foreignBookId` is `id` (the whole book list: Readarr filters it by
/// author or internal id only).
pub async fn held_book(core: &Core, id: &str) -> Result<Option<LibraryItem>, Error> {
    let rows: Vec<VBook> = core.get("book", &[]).await?;
    Ok(rows
        .into_iter()
        .find(|b| b.foreign_book_id.as_deref() == Some(id))
        .map(VBook::item))
}

pub fn search_command(target: &SearchTarget) -> Result<Value, Error> {
    match target {
        SearchTarget::Book(id) => Ok(json!({ "name": "BookSearch", "bookIds": [id] })),
        other => Err(Error::Unsupported(format!(
            "readarr searches books only, not {other:?}"
        ))),
    }
}

/// Rescans an author's folder.
pub fn rescan_command(author_id: i64) -> Value {
    json!({ "name": "RefreshAuthor", "authorId": author_id })
}

pub async fn history(
    core: &Core,
    book_id: i64,
    author_id: i64,
) -> Result<Vec<HistoryEvent>, Error> {
    common::item_history(
        core,
        "history/author",
        &[
            ("authorId", author_id.to_string()),
            ("bookId", book_id.to_string()),
        ],
    )
    .await
}
