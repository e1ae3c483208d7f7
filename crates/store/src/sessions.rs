//! Owner-page sign-in: a person's password, kept only as an argon2id verifier, and browser
//! sessions, kept only as the SHA-256 of their cookie value, each with its CSRF token.

use argon2::{Argon2, PasswordHash, PasswordHasher, PasswordVerifier, password_hash::SaltString};
use domain::{PersonId, Secret};
use rand::Rng;
use sha2::{Digest, Sha256};
use sqlx::Row;

use crate::{Error, Person, Store, changes::fresh_id, now_ms, people::PERSON_COLUMNS};

/// How long a browser session lasts.
const SESSION_MS: i64 = 12 * 60 * 60 * 1000;
/// Shortest accepted password, in characters.
const MIN_PASSWORD_CHARS: usize = 12;

/// A signed-in browser: who, and the token its forms must carry.
#[derive(Clone, Debug)]
pub struct Session {
    pub person: Person,
    pub csrf: String,
}

fn session_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

impl Store {
    /// Sets `name`'s password for the owner pages (argon2id, random salt). `Invalid` for a
    /// password under 12 characters, `NotFound` for an unknown person. Ends their sessions.
    pub async fn set_password(&self, name: &str, password: &Secret) -> Result<(), Error> {
        if password.expose().chars().count() < MIN_PASSWORD_CHARS {
            return Err(Error::Invalid(format!(
                "the password is too short; use at least {MIN_PASSWORD_CHARS} characters"
            )));
        }
        let person = self
            .person_by_name(name)
            .await?
            .ok_or_else(|| Error::NotFound(format!("no person named \"{name}\"")))?;
        let salt = SaltString::encode_b64(&rand::rng().random::<[u8; 16]>())
            .map_err(|e| Error::Invalid(format!("the password could not be salted: {e}")))?;
        let verifier = Argon2::default()
            .hash_password(password.expose().as_bytes(), &salt)
            .map_err(|e| Error::Invalid(format!("the password could not be hashed: {e}")))?
            .to_string();
        let mut tx = self.pool().begin().await?;
        sqlx::query("UPDATE people SET password_hash = ? WHERE id = ?")
            .bind(verifier)
            .bind(person.id.0)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM sessions WHERE person_id = ?")
            .bind(person.id.0)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The person when `password` is theirs; `None` for an unknown name, a person without a
    /// password, or a wrong one (the same answer, after the same work where a verifier exists).
    pub async fn check_password(
        &self,
        name: &str,
        password: &Secret,
    ) -> Result<Option<Person>, Error> {
        let row = sqlx::query(&format!(
            "SELECT {PERSON_COLUMNS}, p.password_hash FROM people p WHERE p.name = ?"
        ))
        .bind(name)
        .fetch_optional(self.pool())
        .await?;
        let Some(row) = row else { return Ok(None) };
        let verifier: Option<String> = row.try_get("password_hash")?;
        let Some(verifier) = verifier else {
            return Ok(None);
        };
        let Ok(parsed) = PasswordHash::new(&verifier) else {
            tracing::warn!(person = %name, "a stored password verifier cannot be read; set the password again");
            return Ok(None);
        };
        if Argon2::default()
            .verify_password(password.expose().as_bytes(), &parsed)
            .is_err()
        {
            return Ok(None);
        }
        Ok(Some(crate::people::person_from_row(&row)?))
    }

    /// Starts a session for `person`: the cookie value (shown once, stored only hashed).
    pub async fn create_session(&self, person: PersonId) -> Result<Secret, Error> {
        let token = fresh_id("") + &fresh_id("");
        let now = now_ms();
        sqlx::query(
            "INSERT INTO sessions (id_hash, person_id, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
        )
        .bind(session_hash(&token))
        .bind(person.0)
        .bind(fresh_id("") + &fresh_id(""))
        .bind(now)
        .bind(now + SESSION_MS)
        .execute(self.pool())
        .await?;
        Ok(Secret::new(token))
    }

    /// The live session a cookie value names, if any.
    pub async fn session(&self, token: &str) -> Result<Option<Session>, Error> {
        let row = sqlx::query(&format!(
            "SELECT {PERSON_COLUMNS}, s.csrf FROM sessions s JOIN people p ON p.id = s.person_id \
             WHERE s.id_hash = ? AND s.expires_at > ?"
        ))
        .bind(session_hash(token))
        .bind(now_ms())
        .fetch_optional(self.pool())
        .await?;
        row.map(|row| {
            Ok(Session {
                person: crate::people::person_from_row(&row)?,
                csrf: row.try_get("csrf")?,
            })
        })
        .transpose()
    }

    pub async fn end_session(&self, token: &str) -> Result<(), Error> {
        sqlx::query("DELETE FROM sessions WHERE id_hash = ?")
            .bind(session_hash(token))
            .execute(self.pool())
            .await?;
        Ok(())
    }
}
