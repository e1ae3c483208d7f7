//! First start: on an empty store, create the owner and the owner's first key in one transaction.

use domain::{PersonId, Role};

use crate::{
    ContentLimits, Error, IssuedKey, Person, Store,
    grants::{OWNER_GRANT, grant_id_by_name},
    keys::insert_key,
    now_ms,
    people::validate_name,
};

/// The label on the key printed at first start.
const FIRST_KEY_LABEL: &str = "owner key (first start)";

impl Store {
    /// When there are no people at all, creates the owner named `name` and an owner key bound to
    /// the "owner" grant, in one transaction, and returns the plaintext key (its only copy).
    /// Returns `None` when people already exist, so concurrent first starts create one owner.
    pub async fn bootstrap_owner(&self, name: &str) -> Result<Option<(Person, IssuedKey)>, Error> {
        validate_name(name)?;
        let mut tx = self.pool().begin().await?;
        let created_at = now_ms();
        // Write first: the insert takes the write lock before it looks for people, so two
        // concurrent first starts serialise here and the second finds the first's owner.
        let id: Option<i64> = sqlx::query_scalar(
            "INSERT INTO people (name, role, created_at, block_unrated, blocked_genres) \
             SELECT ?, ?, ?, 0, '[]' WHERE NOT EXISTS (SELECT 1 FROM people) RETURNING id",
        )
        .bind(name)
        .bind(Role::Owner.as_str())
        .bind(created_at)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(id) = id else {
            tx.rollback().await?;
            return Ok(None);
        };
        let owner = Person {
            id: PersonId(id),
            name: name.to_owned(),
            role: Role::Owner,
            created_at,
            limits: ContentLimits::default(),
        };
        let grant_id = grant_id_by_name(&mut tx, OWNER_GRANT).await?;
        let key = insert_key(
            &mut tx,
            &owner,
            grant_id,
            OWNER_GRANT,
            Some(FIRST_KEY_LABEL),
            None,
        )
        .await?;
        tx.commit().await?;
        tracing::info!(owner = %owner.name, key_id = %key.info.key_id, "created the owner on first start");
        Ok(Some((owner, key)))
    }
}
