//! Pages of the long tables (requests, audit) read as one value. sqlx hands each row of a query
//! from its database thread to the caller on its own, with a copy of every column made and freed
//! under SQLite's memory lock; for a page of 50 to 200 rows that traffic, and the threads waking
//! each other for it, cost far more than the query. So a page is asked of SQLite as one JSON
//! array of rows (`json_group_array`), which crosses once and is read by serde.
//!
//! An aggregate's input order is unspecified, and asking for one (`json_group_array(... ORDER
//! BY ...)`) makes SQLite sort the page again in a temporary b-tree; so the array is read in
//! whatever order it comes and [`fetch`] puts the rows newest first (highest id) itself.

use serde::de::DeserializeOwned;
use sqlx::{QueryBuilder, Sqlite, SqlitePool};

use crate::{Error, error::corrupt};

/// Starts a page query: `SELECT` the JSON array of `columns` (names of the inner query's
/// result columns, in the order `T` reads them) `FROM (SELECT {inner}`; the caller pushes the
/// rest of the inner query (conditions, order, limit), and [`fetch`] closes it.
pub(crate) fn select(columns: &[&str], inner: &str) -> QueryBuilder<'static, Sqlite> {
    QueryBuilder::new(format!(
        "SELECT json_group_array(json_array({})) FROM (SELECT {inner}",
        columns.join(", ")
    ))
}

/// Runs a page query begun with [`select`]: its rows newest first (by `id`, highest first),
/// each read by `T` from its array (a tuple struct, or a struct whose fields come in the
/// columns' order).
pub(crate) async fn fetch<T: DeserializeOwned>(
    mut sql: QueryBuilder<'_, Sqlite>,
    pool: &SqlitePool,
    id: impl Fn(&T) -> i64,
) -> Result<Vec<T>, Error> {
    sql.push(")");
    let json: String = sql.build_query_scalar().fetch_one(pool).await?;
    let mut rows: Vec<T> = serde_json::from_str(&json)
        .map_err(|e| corrupt(format!("a stored page does not read: {e}")))?;
    rows.sort_unstable_by_key(|r| std::cmp::Reverse(id(r)));
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    /// SQLite is free to feed the aggregate in any order; here the inner query asks for oldest
    /// first on purpose, and the page must still come newest first.
    #[tokio::test]
    async fn a_page_comes_newest_first_whatever_order_sqlite_gives() {
        let store = Store::open_in_memory().await.unwrap();
        let pool = store.pool();
        sqlx::query("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            .execute(pool)
            .await
            .unwrap();
        for (id, name) in [(3, "c"), (1, "a"), (7, "g"), (5, "e")] {
            sqlx::query("INSERT INTO t (id, name) VALUES (?, ?)")
                .bind(id)
                .bind(name)
                .execute(pool)
                .await
                .unwrap();
        }
        let mut sql = select(&["id", "name"], "id, name FROM t WHERE 1 = 1");
        sql.push(" ORDER BY id ASC LIMIT 10");
        let rows: Vec<(i64, String)> = fetch(sql, pool, |r: &(i64, String)| r.0).await.unwrap();
        let ids: Vec<i64> = rows.iter().map(|r| r.0).collect();
        assert_eq!(ids, [7, 5, 3, 1]);
        assert_eq!(rows[0].1, "g");
    }
}
