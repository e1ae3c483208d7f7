//! Readarr v1 (and forks such as Chaptarr): authors and books. Books are looked up by text
//! through Readarr's own search; their ids are the book source's (`foreignBookId`).

use serde::Deserialize;
use serde_json::{Value, json};

use crate::{
    Error, common,
    core::Core,
    model::{ExternalIds, HistoryEvent, ItemKind, LibraryItem, SearchTarget},
};

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct VStats {
    #[serde(default)]
    book_file_count: u32,
    #[serde(default)]
    book_count: u32,
    #[serde(default)]
    size_on_disk: u64,
}

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
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VAuthorName {
    #[serde(default)]
    author_name: Option<String>,
}

impl VBook {
    fn item(self) -> LibraryItem {
        let st = self.statistics.unwrap_or_default();
        LibraryItem {
            id: self.id,
            kind: ItemKind::Book,
            year: self
                .release_date
                .as_deref()
                .and_then(|d| d.get(..4))
                .and_then(|y| y.parse().ok()),
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

/// One book found by Readarr's own search: title, author, year and the book source's id.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BookHit {
    pub title: String,
    pub author: Option<String>,
    pub year: Option<i64>,
    pub book_source_id: Option<String>,
    /// Already in the library: its id there.
    pub library_id: Option<i64>,
}

pub async fn lookup(core: &Core, term: &str) -> Result<Vec<BookHit>, Error> {
    let rows: Vec<VBook> = core
        .get("book/lookup", &[("term", term.to_string())])
        .await?;
    Ok(rows
        .into_iter()
        .map(|b| BookHit {
            author: b.author.as_ref().and_then(|a| a.author_name.clone()),
            library_id: (b.id > 0).then_some(b.id),
            year: b
                .release_date
                .as_deref()
                .and_then(|d| d.get(..4))
                .and_then(|y| y.parse().ok()),
            title: b.title.unwrap_or_default(),
            book_source_id: b.foreign_book_id,
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
