//! People ↔ media-server users: which user of a Jellyfin, Emby or Plex instance a person is,
//! so that "my continue watching" reads that user's state. Written by `marquee people link`.

use domain::PersonId;
use sqlx::Row;

use crate::{Error, Store, now_ms};

/// The longest media-server user name kept.
const MAX_USER_CHARS: usize = 128;

/// One link: the person is `user_name` on `instance_id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MediaLink {
    pub person_id: PersonId,
    pub instance_id: String,
    pub user_name: String,
}

impl Store {
    /// Links a person to a media-server user on one instance, replacing an earlier link there.
    /// `NotFound` when there is no such person; `Invalid` for an empty, padded, over-long or
    /// control-character name.
    pub async fn link_media_user(
        &self,
        person: PersonId,
        instance_id: &str,
        user_name: &str,
    ) -> Result<(), Error> {
        for (what, v) in [("instance id", instance_id), ("user name", user_name)] {
            if v.is_empty()
                || v.trim() != v
                || v.chars().count() > MAX_USER_CHARS
                || v.chars().any(char::is_control)
            {
                return Err(Error::Invalid(format!(
                    "the {what} must be 1 to {MAX_USER_CHARS} characters, without surrounding spaces or control characters"
                )));
            }
        }
        if self.person(person).await?.is_none() {
            return Err(Error::NotFound(format!("no person with id {person}")));
        }
        sqlx::query(
            "INSERT INTO media_links (person_id, instance_id, user_name, created_at) VALUES (?, ?, ?, ?) \
             ON CONFLICT (person_id, instance_id) DO UPDATE SET user_name = excluded.user_name, created_at = excluded.created_at",
        )
        .bind(person.0)
        .bind(instance_id)
        .bind(user_name)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Removes a person's link on one instance; whether there was one.
    pub async fn unlink_media_user(
        &self,
        person: PersonId,
        instance_id: &str,
    ) -> Result<bool, Error> {
        let done = sqlx::query("DELETE FROM media_links WHERE person_id = ? AND instance_id = ?")
            .bind(person.0)
            .bind(instance_id)
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// A person's links, by instance id.
    pub async fn media_links(&self, person: PersonId) -> Result<Vec<MediaLink>, Error> {
        let rows = sqlx::query(
            "SELECT person_id, instance_id, user_name FROM media_links WHERE person_id = ? ORDER BY instance_id",
        )
        .bind(person.0)
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(MediaLink {
                    person_id: PersonId(r.try_get("person_id")?),
                    instance_id: r.try_get("instance_id")?,
                    user_name: r.try_get("user_name")?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use domain::Role;

    use super::*;

    #[tokio::test]
    async fn a_link_is_kept_replaced_and_removed_per_instance() {
        let store = Store::open_in_memory().await.unwrap();
        let alice = store.add_person("alice", Role::User).await.unwrap();
        assert!(store.media_links(alice.id).await.unwrap().is_empty());
        store
            .link_media_user(alice.id, "jellyfin", "alice-jf")
            .await
            .unwrap();
        store
            .link_media_user(alice.id, "plex", "alice")
            .await
            .unwrap();
        store
            .link_media_user(alice.id, "jellyfin", "alice2")
            .await
            .unwrap();
        let links = store.media_links(alice.id).await.unwrap();
        let pairs: Vec<(&str, &str)> = links
            .iter()
            .map(|l| (l.instance_id.as_str(), l.user_name.as_str()))
            .collect();
        assert_eq!(pairs, [("jellyfin", "alice2"), ("plex", "alice")]);
        assert!(store.unlink_media_user(alice.id, "plex").await.unwrap());
        assert!(!store.unlink_media_user(alice.id, "plex").await.unwrap());
        assert_eq!(store.media_links(alice.id).await.unwrap().len(), 1);
        assert!(matches!(
            store.link_media_user(alice.id, "jellyfin", " padded").await,
            Err(Error::Invalid(_))
        ));
        assert!(matches!(
            store.link_media_user(PersonId(9999), "jellyfin", "x").await,
            Err(Error::NotFound(_))
        ));
    }
}
