//! Integration tests of the store on real SQLite: files in a temp dir, and in memory.
//! One test binary (modules below) keeps linking cheap.

#![allow(clippy::unwrap_used)]

mod audit;
mod changes;
mod fresh;
mod keys;
mod oauth;
mod oauth_clients;
mod open;
mod people;
mod protocol_tasks;
mod reconcile;
mod requests;
mod shortlists;
mod switches;

use std::path::Path;

use domain::Role;
use sqlx::{Connection, SqliteConnection, sqlite::SqliteConnectOptions};
use store::{Person, Store};

/// A store on a file in a fresh temp dir; keep the dir alive as long as the store.
async fn file_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.unwrap();
    (dir, store)
}

/// A second, raw connection to a store's file, to look under the API.
async fn raw(store: &Store) -> SqliteConnection {
    raw_at(store.path().unwrap()).await
}

async fn raw_at(path: &Path) -> SqliteConnection {
    let options = SqliteConnectOptions::new().filename(path);
    SqliteConnection::connect_with(&options).await.unwrap()
}

async fn person(store: &Store, name: &str, role: Role) -> Person {
    store.add_person(name, role).await.unwrap()
}
