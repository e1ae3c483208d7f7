//! OAuth tokens: exchanging a code (which makes the connection, a credential of kind `oauth`),
//! rotating refresh tokens (a reused one revokes the whole connection), revocation (RFC 7009),
//! and the access-token side of `authenticate`. Only verifiers are stored.

use std::sync::Arc;

use subtle::ConstantTimeEq;

use sqlx::{Row, SqliteConnection};

use crate::{
    Authenticated, Authority, Error, Store,
    grants::{GRANT_COLUMNS, grant_from_row},
    keys::{KeyRow, new_key_id},
    now_ms,
    oauth::{fresh_secret, verifier},
    people::{PERSON_COLUMNS, person_from_row},
};
use domain::Secret;

/// Prefix of an access token; only these are accepted as OAuth bearer tokens.
pub const ACCESS_PREFIX: &str = "mqa_";
/// Prefix of a refresh token.
const REFRESH_PREFIX: &str = "mqr_";

/// True when `presented` has the shape of an access token (says nothing of its validity).
pub fn is_access_token(presented: &str) -> bool {
    presented.starts_with(ACCESS_PREFIX)
}

/// How long tokens live, from the configuration.
#[derive(Clone, Copy, Debug)]
pub struct TokenLifetimes {
    pub access_ms: i64,
    pub refresh_ms: i64,
}

/// A token pair just issued: the only copies of the secrets.
#[derive(Debug)]
pub struct IssuedTokens {
    pub access: Secret,
    /// `None` for a client that did not register the refresh_token grant.
    pub refresh: Option<Secret>,
    /// Seconds the access token lives.
    pub expires_in: i64,
}

/// The outcome of a token request.
#[derive(Debug)]
pub enum TokenOutcome {
    Issued(IssuedTokens),
    Refused(TokenRefusal),
}

/// Why a token request is refused. The sentence is what the client reads; the authorization
/// server (`web::oauth`) gives each reason its RFC 6749 error code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenRefusal {
    #[error("the authorization code is not valid")]
    CodeUnknown,
    /// Presented a second time: the connection its first exchange made is revoked.
    #[error("the authorization code was already used; the tokens issued for it are revoked")]
    CodeReused,
    #[error("the authorization code expired; authorize again")]
    CodeExpired,
    #[error("the authorization code was issued to another client")]
    CodeOtherClient,
    #[error("redirect_uri is not the one of the authorization request")]
    RedirectUriMismatch,
    #[error("code_verifier does not match the code_challenge (S256)")]
    VerifierMismatch,
    /// The grant chosen at consent was revoked or expired before the exchange.
    #[error("the grant chosen at consent was revoked or expired")]
    CodeGrantGone,
    /// The client named a resource other than the one the code or connection is bound to.
    #[error("resource must be the one authorized: {authorized}")]
    ResourceMismatch { authorized: String },
    #[error("the refresh token is not valid")]
    RefreshUnknown,
    #[error("the refresh token was issued to another client")]
    RefreshOtherClient,
    #[error("the refresh token was revoked; authorize again")]
    RefreshRevoked,
    /// Presented after its rotation: it leaked, so its connection is revoked.
    #[error(
        "the refresh token was already used; its connection is revoked as a precaution; authorize again"
    )]
    RefreshReused,
    #[error("the refresh token expired; authorize again")]
    RefreshExpired,
    /// The grant of the connection was revoked or expired since the tokens were issued.
    #[error("the grant of this connection was revoked or expired")]
    ConnectionGrantGone,
}

/// A code exchange as the token endpoint received it (PKCE already turned into a challenge).
#[derive(Debug)]
pub struct CodeExchange<'a> {
    pub code: &'a str,
    pub client_id: &'a str,
    pub redirect_uri: &'a str,
    /// base64url(SHA-256(code_verifier)): compared with the code's S256 challenge.
    pub challenge_of_verifier: &'a str,
    /// The `resource` the client named, if it named one; it must be the code's.
    pub resource: Option<&'a str>,
}

/// What a revocation request found.
#[derive(Debug, PartialEq, Eq)]
pub enum Revocation {
    /// Revoked (an access token alone; a refresh token with its whole connection).
    Revoked,
    /// No such token: nothing to do (RFC 7009 answers 200 all the same).
    Unknown,
    /// The token belongs to another client: refused, nothing done.
    OtherClient,
}

/// Revokes a connection and every token of it, on `conn`.
pub(crate) async fn revoke_connection(
    conn: &mut SqliteConnection,
    credential: i64,
    now: i64,
) -> Result<(), Error> {
    sqlx::query("UPDATE credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
        .bind(now)
        .bind(credential)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "UPDATE oauth_tokens SET revoked_at = ? WHERE credential_id = ? AND revoked_at IS NULL",
    )
    .bind(now)
    .bind(credential)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Writes a new access token (and a refresh token when the client may refresh) for `credential`.
async fn issue(
    conn: &mut SqliteConnection,
    credential: i64,
    may_refresh: bool,
    life: TokenLifetimes,
    now: i64,
) -> Result<IssuedTokens, Error> {
    let insert = "INSERT INTO oauth_tokens (verifier, kind, credential_id, created_at, expires_at) \
                  VALUES (?, ?, ?, ?, ?)";
    let access = fresh_secret(ACCESS_PREFIX);
    sqlx::query(insert)
        .bind(verifier(&access))
        .bind("access")
        .bind(credential)
        .bind(now)
        .bind(now + life.access_ms)
        .execute(&mut *conn)
        .await?;
    let refresh = if may_refresh {
        let refresh = fresh_secret(REFRESH_PREFIX);
        sqlx::query(insert)
            .bind(verifier(&refresh))
            .bind("refresh")
            .bind(credential)
            .bind(now)
            .bind(now + life.refresh_ms)
            .execute(&mut *conn)
            .await?;
        Some(Secret::new(refresh))
    } else {
        None
    };
    Ok(IssuedTokens {
        access: Secret::new(access),
        refresh,
        expires_in: life.access_ms / 1000,
    })
}

impl Store {
    /// Exchanges an authorization code: checked against everything it was issued for, used
    /// once. A replayed code revokes the connection its first exchange made (RFC 6749 §4.1.2);
    /// a wrong PKCE verifier burns the code.
    pub async fn exchange_code(
        &self,
        x: &CodeExchange<'_>,
        life: TokenLifetimes,
    ) -> Result<TokenOutcome, Error> {
        let now = now_ms();
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let row = sqlx::query(
            "SELECT k.client_id AS client_row, cl.client_id, cl.client_name, cl.grant_types, \
             k.person_id, k.grant_id, k.redirect_uri, k.code_challenge, k.resource, k.expires_at, \
             k.used_at, k.credential_id, g.expires_at AS grant_expires_at \
             FROM oauth_codes k JOIN oauth_clients cl ON cl.id = k.client_id \
             JOIN grants g ON g.id = k.grant_id WHERE k.verifier = ?",
        )
        .bind(verifier(x.code))
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(TokenOutcome::Refused(TokenRefusal::CodeUnknown));
        };
        let burn = "UPDATE oauth_codes SET used_at = ? WHERE verifier = ?";
        if row.try_get::<Option<i64>, _>("used_at")?.is_some() {
            if let Some(credential) = row.try_get::<Option<i64>, _>("credential_id")? {
                revoke_connection(&mut tx, credential, now).await?;
            }
            tx.commit().await?;
            tracing::warn!("an authorization code was presented twice; its connection is revoked");
            return Ok(TokenOutcome::Refused(TokenRefusal::CodeReused));
        }
        let client_id: String = row.try_get("client_id")?;
        let resource: String = row.try_get("resource")?;
        let challenge: String = row.try_get("code_challenge")?;
        let problem = if row.try_get::<i64, _>("expires_at")? <= now {
            Some(TokenRefusal::CodeExpired)
        } else if client_id != x.client_id {
            Some(TokenRefusal::CodeOtherClient)
        } else if row.try_get::<String, _>("redirect_uri")? != x.redirect_uri {
            Some(TokenRefusal::RedirectUriMismatch)
        } else if x.resource.is_some_and(|r| r != resource) {
            Some(TokenRefusal::ResourceMismatch {
                authorized: resource.clone(),
            })
        } else if !bool::from(
            challenge
                .as_bytes()
                .ct_eq(x.challenge_of_verifier.as_bytes()),
        ) {
            Some(TokenRefusal::VerifierMismatch)
        } else if row
            .try_get::<Option<i64>, _>("grant_expires_at")?
            .is_some_and(|at| at <= now)
        {
            Some(TokenRefusal::CodeGrantGone)
        } else {
            None
        };
        if let Some(refusal) = problem {
            // Fail closed: a code presented wrongly cannot be tried again.
            sqlx::query(burn)
                .bind(now)
                .bind(verifier(x.code))
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            return Ok(TokenOutcome::Refused(refusal));
        }
        let name: String = row.try_get("client_name")?;
        let credential: i64 = sqlx::query_scalar(
            "INSERT INTO credentials (key_id, verifier, person_id, grant_id, label, created_at, \
             kind, oauth_client_id, resource) VALUES (?, '-', ?, ?, ?, ?, 'oauth', ?, ?) RETURNING id",
        )
        .bind(new_key_id())
        .bind(row.try_get::<i64, _>("person_id")?)
        .bind(row.try_get::<i64, _>("grant_id")?)
        .bind(format!("OAuth: {name}"))
        .bind(now)
        .bind(row.try_get::<i64, _>("client_row")?)
        .bind(&resource)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("UPDATE oauth_codes SET used_at = ?, credential_id = ? WHERE verifier = ?")
            .bind(now)
            .bind(credential)
            .bind(verifier(x.code))
            .execute(&mut *tx)
            .await?;
        let grants: Vec<String> =
            serde_json::from_str(&row.try_get::<String, _>("grant_types")?).unwrap_or_default();
        let may_refresh = grants.iter().any(|g| g == "refresh_token");
        let issued = issue(&mut tx, credential, may_refresh, life, now).await?;
        tx.commit().await?;
        Ok(TokenOutcome::Issued(issued))
    }

    /// Exchanges a refresh token for a new pair. The old one is used up; presenting a used one
    /// again means it leaked, so the whole connection is revoked.
    pub async fn refresh_tokens(
        &self,
        presented: &str,
        client_id: &str,
        resource: Option<&str>,
        life: TokenLifetimes,
    ) -> Result<TokenOutcome, Error> {
        let now = now_ms();
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let row = sqlx::query(
            "SELECT t.id, t.expires_at, t.rotated_at, t.revoked_at, c.id AS credential, \
             c.revoked_at AS credential_revoked_at, c.resource, cl.client_id, \
             g.expires_at AS grant_expires_at FROM oauth_tokens t \
             JOIN credentials c ON c.id = t.credential_id \
             JOIN oauth_clients cl ON cl.id = c.oauth_client_id \
             JOIN grants g ON g.id = c.grant_id WHERE t.verifier = ? AND t.kind = 'refresh'",
        )
        .bind(verifier(presented))
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(TokenOutcome::Refused(TokenRefusal::RefreshUnknown));
        };
        let credential: i64 = row.try_get("credential")?;
        if row.try_get::<String, _>("client_id")? != client_id {
            return Ok(TokenOutcome::Refused(TokenRefusal::RefreshOtherClient));
        }
        if row.try_get::<Option<i64>, _>("revoked_at")?.is_some()
            || row
                .try_get::<Option<i64>, _>("credential_revoked_at")?
                .is_some()
        {
            return Ok(TokenOutcome::Refused(TokenRefusal::RefreshRevoked));
        }
        if row.try_get::<Option<i64>, _>("rotated_at")?.is_some() {
            revoke_connection(&mut tx, credential, now).await?;
            tx.commit().await?;
            tracing::warn!("a used refresh token was presented again; its connection is revoked");
            return Ok(TokenOutcome::Refused(TokenRefusal::RefreshReused));
        }
        if row.try_get::<i64, _>("expires_at")? <= now {
            return Ok(TokenOutcome::Refused(TokenRefusal::RefreshExpired));
        }
        let bound: String = row.try_get("resource")?;
        if resource.is_some_and(|r| r != bound) {
            return Ok(TokenOutcome::Refused(TokenRefusal::ResourceMismatch {
                authorized: bound,
            }));
        }
        if row
            .try_get::<Option<i64>, _>("grant_expires_at")?
            .is_some_and(|at| at <= now)
        {
            return Ok(TokenOutcome::Refused(TokenRefusal::ConnectionGrantGone));
        }
        sqlx::query("UPDATE oauth_tokens SET rotated_at = ? WHERE id = ?")
            .bind(now)
            .bind(row.try_get::<i64, _>("id")?)
            .execute(&mut *tx)
            .await?;
        let issued = issue(&mut tx, credential, true, life, now).await?;
        tx.commit().await?;
        Ok(TokenOutcome::Issued(issued))
    }

    /// Revokes a token for the client it was issued to (RFC 7009): an access token alone, a
    /// refresh token with its whole connection.
    pub async fn revoke_token(
        &self,
        presented: &str,
        client_id: &str,
    ) -> Result<Revocation, Error> {
        let now = now_ms();
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let row = sqlx::query(
            "SELECT t.id, t.kind, t.credential_id, cl.client_id FROM oauth_tokens t \
             JOIN credentials c ON c.id = t.credential_id \
             JOIN oauth_clients cl ON cl.id = c.oauth_client_id WHERE t.verifier = ?",
        )
        .bind(verifier(presented))
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(Revocation::Unknown);
        };
        if row.try_get::<String, _>("client_id")? != client_id {
            return Ok(Revocation::OtherClient);
        }
        if row.try_get::<String, _>("kind")? == "refresh" {
            revoke_connection(&mut tx, row.try_get("credential_id")?, now).await?;
        } else {
            sqlx::query(
                "UPDATE oauth_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
            )
            .bind(now)
            .bind(row.try_get::<i64, _>("id")?)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(Revocation::Revoked)
    }

    /// The live authority behind an access token presented for `resource`, and the tool switches,
    /// read under one state of the database like a key's (`authenticate_with_switches`): `None`
    /// when the token is malformed, unknown, revoked, expired, issued for another resource, or
    /// its connection or grant was revoked or expired.
    pub async fn authenticate_token_with_switches(
        &self,
        presented: &str,
        resource: &str,
    ) -> Result<Option<Authenticated>, Error> {
        if !is_access_token(presented) {
            return Ok(None);
        }
        let token = self.version();
        let token_verifier = verifier(presented);
        let cache_key = format!("t:{token_verifier}");
        let cached = token.and_then(|t| self.fresh().key(t, &cache_key));
        let row = match cached {
            Some(row) => row,
            None => {
                let Some(row) = self.load_token_row(&token_verifier).await? else {
                    return Ok(None);
                };
                let row = Arc::new(row);
                if let Some(t) = token {
                    self.fresh().put_key(t, &cache_key, row.clone());
                }
                row
            }
        };
        if row.audience.as_deref() != Some(resource) {
            return Ok(None);
        }
        let Some(authority) = row.check(token_verifier.as_bytes(), now_ms()) else {
            return Ok(None);
        };
        // The connection's last use, like a key's: at most once a minute, off the request's path.
        self.stamp_last_use(&authority.key_id);
        Ok(Some(Authenticated {
            authority,
            switches: self.tool_switches_under(token).await?,
            version: token,
        }))
    }

    async fn load_token_row(&self, token_verifier: &str) -> Result<Option<KeyRow>, Error> {
        let sql = format!(
            "SELECT t.expires_at AS token_expires_at, t.revoked_at AS token_revoked_at, \
             c.key_id, c.revoked_at, c.expires_at AS key_expires_at, c.resource, \
             {PERSON_COLUMNS}, {GRANT_COLUMNS} FROM oauth_tokens t \
             JOIN credentials c ON c.id = t.credential_id \
             JOIN people p ON p.id = c.person_id JOIN grants g ON g.id = c.grant_id \
             WHERE t.verifier = ? AND t.kind = 'access' AND c.kind = 'oauth'"
        );
        let Some(row) = sqlx::query(&sql)
            .bind(token_verifier)
            .fetch_optional(self.pool())
            .await?
        else {
            return Ok(None);
        };
        let token_expires: i64 = row.try_get("token_expires_at")?;
        let key_expires: Option<i64> = row.try_get("key_expires_at")?;
        let revoked: Option<i64> = row.try_get("token_revoked_at")?;
        Ok(Some(KeyRow {
            verifier: token_verifier.to_owned(),
            revoked_at: revoked.or(row.try_get("revoked_at")?),
            expires_at: Some(key_expires.map_or(token_expires, |k| k.min(token_expires))),
            audience: row.try_get("resource")?,
            authority: Arc::new(Authority {
                person: person_from_row(&row)?,
                key_id: row.try_get("key_id")?,
                grant: grant_from_row(&row)?,
            }),
        }))
    }
}
