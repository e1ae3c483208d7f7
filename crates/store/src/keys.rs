//! API keys: issuing them (shown once), listing, revoking, and verifying them on every request.
//!
//! A key reads `mq_<key id>_<secret>`: a 10-character lowercase key id that finds the row, and a
//! 40-character secret. Only a verifier (hex SHA-256 of a versioned prefix and the whole key) is stored.

use std::sync::Arc;

use domain::{PersonId, Secret};
use rand::{Rng, distr::Alphanumeric};
use sha2::{Digest, Sha256};
use sqlx::{Row, SqliteConnection};
use subtle::ConstantTimeEq;

use crate::{
    Error, Grant, Person, Store,
    error::{is_foreign_key_violation, is_unique_violation},
    grants::{GRANT_COLUMNS, grant_from_row, grant_id_by_name},
    now_ms,
    people::{PERSON_COLUMNS, person_from_row},
};

const PREFIX: &str = "mq_";
const KEY_ID_LEN: usize = 10;
const SECRET_LEN: usize = 40;
const KEY_ID_ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
/// Versions the verifier, so the scheme can change without confusing old rows for new ones.
const VERIFIER_CONTEXT: &str = "marquee-key-v1:";

/// A key just issued. The secret is the whole `mq_…` text, shown to its holder once and never again.
#[derive(Clone, Debug)]
pub struct IssuedKey {
    pub info: KeyInfo,
    pub secret: Secret,
}

/// What can be shown about a key: never its secret or verifier.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct KeyInfo {
    pub key_id: String,
    /// The holder's name.
    pub person: String,
    /// The grant's name.
    pub grant: String,
    pub label: Option<String>,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
    pub expires_at: Option<i64>,
}

/// Who is calling and what they may do, read fresh from the database for this call.
#[derive(Clone, Debug)]
pub struct Authority {
    pub person: Person,
    pub key_id: String,
    pub grant: Grant,
}

/// A fresh key id: also names an OAuth connection, which is a credential without a key secret.
pub(crate) fn new_key_id() -> String {
    let mut rng = rand::rng();
    (0..KEY_ID_LEN)
        .map(|_| KEY_ID_ALPHABET[rng.random_range(0..KEY_ID_ALPHABET.len())] as char)
        .collect()
}

/// A fresh random key: (key id, whole key text). The thread RNG is a CSPRNG seeded from the OS.
fn generate_key() -> (String, String) {
    let mut rng = rand::rng();
    let key_id = new_key_id();
    let secret: String = (&mut rng)
        .sample_iter(Alphanumeric)
        .take(SECRET_LEN)
        .map(char::from)
        .collect();
    let full = format!("{PREFIX}{key_id}_{secret}");
    (key_id, full)
}

/// The key id of a well-formed key, or `None`. Never touches the database.
fn parse_key_id(presented: &str) -> Option<&str> {
    let rest = presented.strip_prefix(PREFIX)?;
    if rest.len() != KEY_ID_LEN + 1 + SECRET_LEN || !rest.is_ascii() {
        return None;
    }
    let (key_id, tail) = rest.split_at(KEY_ID_LEN);
    let secret = tail.strip_prefix('_')?;
    let id_ok = key_id
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let secret_ok = secret.bytes().all(|b| b.is_ascii_alphanumeric());
    (id_ok && secret_ok).then_some(key_id)
}

/// What the store keeps instead of the key: hex SHA-256 of the versioned context and the whole key.
fn verifier(full_key: &str) -> String {
    String::from_utf8_lossy(&verifier_hex(full_key)).into_owned()
}

/// [`verifier`] as bytes on the stack: what every authentication compares, with no allocation.
fn verifier_hex(full_key: &str) -> [u8; 64] {
    let mut hash = Sha256::new();
    hash.update(VERIFIER_CONTEXT.as_bytes());
    hash.update(full_key.as_bytes());
    let mut out = [0u8; 64];
    // 32 bytes of digest always fit 64 hex digits.
    let _ = hex::encode_to_slice(hash.finalize(), &mut out);
    out
}

/// Issues a key for `person` under `grant_id` on the given connection (pool or transaction).
/// How often a key's last use is written at most: the list says when a key was last used to the
/// minute, and a busy key writes once a minute, not once a request.
const LAST_USE_EVERY_MS: i64 = 60_000;

/// Longest key label: it names a device or a use, and is shown in lists and pages.
const MAX_LABEL_CHARS: usize = 100;

pub(crate) async fn insert_key(
    conn: &mut SqliteConnection,
    person: &Person,
    grant_id: i64,
    grant_name: &str,
    label: Option<&str>,
    expires_at: Option<i64>,
) -> Result<IssuedKey, Error> {
    if let Some(label) = label
        && (label.chars().count() > MAX_LABEL_CHARS || label.chars().any(char::is_control))
    {
        return Err(Error::Invalid(format!(
            "a key label is at most {MAX_LABEL_CHARS} characters on one line"
        )));
    }
    let (key_id, full) = generate_key();
    let created_at = now_ms();
    sqlx::query(
        "INSERT INTO credentials (key_id, verifier, person_id, grant_id, label, created_at, \
         last_used_at, revoked_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?)",
    )
    .bind(&key_id)
    .bind(verifier(&full))
    .bind(person.id.0)
    .bind(grant_id)
    .bind(label)
    .bind(created_at)
    .bind(expires_at)
    .execute(&mut *conn)
    .await
    .map_err(|e| {
        if is_foreign_key_violation(&e) {
            Error::NotFound(format!("no person with id {}", person.id))
        } else if is_unique_violation(&e) {
            Error::Conflict(format!("key id {key_id} collided; try again"))
        } else {
            Error::Database(e)
        }
    })?;
    Ok(IssuedKey {
        info: KeyInfo {
            key_id,
            person: person.name.clone(),
            grant: grant_name.to_owned(),
            label: label.map(str::to_owned),
            created_at,
            last_used_at: None,
            revoked_at: None,
            expires_at,
        },
        secret: Secret::new(full),
    })
}

impl Store {
    /// Issues a key for `person` bound to the grant named `grant_name`. The returned secret is
    /// the only copy. `NotFound` (naming the valid grants) when the grant is unknown.
    pub async fn create_key(
        &self,
        person: PersonId,
        grant_name: &str,
        label: Option<&str>,
        expires_at: Option<i64>,
    ) -> Result<IssuedKey, Error> {
        let holder = self
            .person(person)
            .await?
            .ok_or_else(|| Error::NotFound(format!("no person with id {person}")))?;
        let mut conn = self.pool().acquire().await?;
        let grant_id = grant_id_by_name(&mut conn, grant_name).await?;
        insert_key(&mut conn, &holder, grant_id, grant_name, label, expires_at).await
    }

    /// Every key ever issued, oldest first, without secrets or verifiers.
    pub async fn keys(&self) -> Result<Vec<KeyInfo>, Error> {
        let rows = sqlx::query(
            "SELECT c.key_id, p.name AS person, g.name AS grant_name, c.label, c.created_at, \
             c.last_used_at, c.revoked_at, c.expires_at FROM credentials c \
             JOIN people p ON p.id = c.person_id JOIN grants g ON g.id = c.grant_id \
             ORDER BY c.id",
        )
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(KeyInfo {
                    key_id: row.try_get("key_id")?,
                    person: row.try_get("person")?,
                    grant: row.try_get("grant_name")?,
                    label: row.try_get("label")?,
                    created_at: row.try_get("created_at")?,
                    last_used_at: row.try_get("last_used_at")?,
                    revoked_at: row.try_get("revoked_at")?,
                    expires_at: row.try_get("expires_at")?,
                })
            })
            .collect()
    }

    /// Revokes a key from now on. Revoking a revoked key changes nothing; an unknown id is `NotFound`.
    pub async fn revoke_key(&self, key_id: &str) -> Result<(), Error> {
        let done = sqlx::query(
            "UPDATE credentials SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
        )
        .bind(now_ms())
        .bind(key_id)
        .execute(self.pool())
        .await?;
        if done.rows_affected() == 0 {
            let exists: Option<i64> =
                sqlx::query_scalar("SELECT id FROM credentials WHERE key_id = ?")
                    .bind(key_id)
                    .fetch_optional(self.pool())
                    .await?;
            if exists.is_none() {
                return Err(Error::NotFound(format!("no key with id \"{key_id}\"")));
            }
        }
        Ok(())
    }

    /// Verifies a presented key and returns the live authority behind it: `None` when the key is
    /// malformed, unknown, wrong, revoked or expired, or its grant expired. One indexed SELECT,
    /// no writes, and none at all while the database is unchanged since the last read of this key
    /// (see `fresh.rs`); the verifier comparison and the expiry checks run on every call.
    pub async fn authenticate(&self, presented: &str) -> Result<Option<Arc<Authority>>, Error> {
        self.authenticate_under(presented, self.version()).await
    }

    /// A key's authority and the tool switches, both read under one state of the database: a
    /// request sees one consistent picture and checks the database's state once.
    pub async fn authenticate_with_switches(
        &self,
        presented: &str,
    ) -> Result<Option<Authenticated>, Error> {
        let token = self.version();
        let Some(authority) = self.authenticate_under(presented, token).await? else {
            return Ok(None);
        };
        Ok(Some(Authenticated {
            authority,
            switches: self.tool_switches_under(token).await?,
            version: token,
        }))
    }

    async fn authenticate_under(
        &self,
        presented: &str,
        token: Option<crate::Version>,
    ) -> Result<Option<Arc<Authority>>, Error> {
        let Some(key_id) = parse_key_id(presented) else {
            return Ok(None);
        };
        let cached = token.and_then(|t| self.fresh().key(t, key_id));
        let row = match cached {
            Some(row) => row,
            None => {
                let Some(row) = self.load_key_row(key_id, false).await? else {
                    return Ok(None);
                };
                let row = Arc::new(row);
                if let Some(t) = token {
                    self.fresh().put_key(t, key_id, row.clone());
                }
                row
            }
        };
        let authority = row.check(&verifier_hex(presented), now_ms());
        if authority.is_some() {
            self.stamp_last_use(key_id);
        }
        Ok(authority)
    }

    /// Writes the key's last-use stamp, at most once a minute per key and process, without
    /// holding the request up: a stamp is no part of the key's authority, so it changes no
    /// version (`migrations/0142_versions.sql`) and no kept answer is let go for it.
    pub(crate) fn stamp_last_use(&self, key_id: &str) {
        let now = now_ms();
        {
            let mut stamped = self.stamped.lock();
            if stamped
                .get(key_id)
                .is_some_and(|at| now - at < LAST_USE_EVERY_MS)
            {
                return;
            }
            if stamped.len() >= 4096 {
                stamped.clear();
            }
            stamped.insert(key_id.to_owned(), now);
        }
        let pool = self.pool().clone();
        let key_id = key_id.to_owned();
        tokio::spawn(async move {
            let written = sqlx::query("UPDATE credentials SET last_used_at = ? WHERE key_id = ?")
                .bind(now)
                .bind(&key_id)
                .execute(&pool)
                .await;
            if let Err(e) = written {
                tracing::warn!(error = %e, "a key's last-use stamp could not be written");
            }
        });
    }

    /// The live authority behind the key `key_id`, for the owner's tools (`marquee tools list
    /// --person`): `None` when the key is unknown, revoked or expired, or its grant expired.
    /// Does not verify a secret: the owner's command line holds the database already.
    pub async fn key_authority(&self, key_id: &str) -> Result<Option<Arc<Authority>>, Error> {
        let Some(row) = self.load_key_row(key_id, true).await? else {
            return Ok(None);
        };
        let now = now_ms();
        let dead = row.revoked_at.is_some()
            || row.expires_at.is_some_and(|at| at <= now)
            || row.authority.grant.is_expired(now);
        Ok((!dead).then(|| row.authority.clone()))
    }

    /// `any_kind`: also an OAuth connection (never for authenticating a presented key).
    async fn load_key_row(&self, key_id: &str, any_kind: bool) -> Result<Option<KeyRow>, Error> {
        let sql = format!(
            "SELECT c.verifier, c.revoked_at, c.expires_at AS key_expires_at, \
             {PERSON_COLUMNS}, {GRANT_COLUMNS} FROM credentials c \
             JOIN people p ON p.id = c.person_id JOIN grants g ON g.id = c.grant_id \
             WHERE c.key_id = ? AND (c.kind = 'key' OR ?)"
        );
        let Some(row) = sqlx::query(&sql)
            .bind(key_id)
            .bind(any_kind)
            .fetch_optional(self.pool())
            .await?
        else {
            return Ok(None);
        };
        Ok(Some(KeyRow {
            verifier: row.try_get("verifier")?,
            revoked_at: row.try_get("revoked_at")?,
            expires_at: row.try_get("key_expires_at")?,
            audience: None,
            authority: Arc::new(Authority {
                person: person_from_row(&row)?,
                key_id: key_id.to_owned(),
                grant: grant_from_row(&row)?,
            }),
        }))
    }
}

/// What the database says about one key or OAuth access token, as read (or cached) for
/// `authenticate`.
#[derive(Debug)]
pub(crate) struct KeyRow {
    pub(crate) verifier: String,
    pub(crate) revoked_at: Option<i64>,
    pub(crate) expires_at: Option<i64>,
    /// The resource an access token is bound to (RFC 8707); `None` for an API key.
    pub(crate) audience: Option<String>,
    pub(crate) authority: Arc<Authority>,
}

/// A credential that passed its check: the authority behind it, the owner's tool switches, and
/// the state of the database both were read under (`None` when it cannot be told). Whatever a
/// request goes on to read under that state is as of its check.
#[derive(Clone, Debug)]
pub struct Authenticated {
    pub authority: Arc<Authority>,
    pub switches: Arc<crate::ToolSwitches>,
    pub version: Option<crate::Version>,
}

impl KeyRow {
    /// The authority behind the credential, if the verifier of what was presented matches and
    /// nothing has expired by `now`.
    pub(crate) fn check(&self, presented_verifier: &[u8], now: i64) -> Option<Arc<Authority>> {
        let matches: bool = presented_verifier.ct_eq(self.verifier.as_bytes()).into();
        let key_dead = self.revoked_at.is_some() || self.expires_at.is_some_and(|at| at <= now);
        if !matches || key_dead || self.authority.grant.is_expired(now) {
            return None;
        }
        Some(self.authority.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_parse_and_have_the_documented_shape() {
        for _ in 0..100 {
            let (key_id, full) = generate_key();
            assert_eq!(full.len(), 3 + KEY_ID_LEN + 1 + SECRET_LEN);
            assert_eq!(parse_key_id(&full), Some(key_id.as_str()));
        }
    }

    #[test]
    fn malformed_keys_do_not_parse() {
        let good = format!("mq_{}_{}", "a1".repeat(5), "Ab3".repeat(13) + "x");
        assert!(parse_key_id(&good).is_some());
        for bad in [
            String::new(),
            "mq_".into(),
            good.replacen("mq_", "mk_", 1),
            good.replacen("a1a1", "A1a1", 1),
            good.replacen('_', "-", 2),
            format!("{good}x"),
            good[..good.len() - 1].to_owned(),
            good.replacen('x', "é", 1),
            good.replacen('x', " ", 1),
        ] {
            assert_eq!(parse_key_id(&bad), None, "{bad:?}");
        }
    }

    #[test]
    fn verifier_is_versioned_sha256_hex() {
        let v = verifier("mq_x");
        assert_eq!(v.len(), 64);
        assert_ne!(v, hex::encode(Sha256::digest(b"mq_x")));
        assert_eq!(v.as_bytes(), verifier_hex("mq_x"), "both forms agree");
    }
}
