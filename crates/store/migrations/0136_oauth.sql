-- OAuth 2.1 for remote connectors (issue 13 item 6). Same conventions as 0001: portable SQL,
-- INTEGER unix milliseconds, JSON as TEXT. Codes and tokens are stored only as verifiers
-- (hex SHA-256 of a versioned context and the value), never as themselves.

-- A client registered itself (RFC 7591). Public clients only: no secret exists.
CREATE TABLE oauth_clients (
    id            INTEGER PRIMARY KEY,
    client_id     TEXT    NOT NULL UNIQUE,
    client_name   TEXT    NOT NULL,
    -- JSON list of the exact redirect URIs the client may use.
    redirect_uris TEXT    NOT NULL,
    -- JSON list of grant types: authorization_code, and refresh_token when it asked for it.
    grant_types   TEXT    NOT NULL,
    created_at    INTEGER NOT NULL
);

-- The owner's consent to one client, once its code is exchanged, is a credential like an API
-- key (kind 'oauth'): bound to a person and a grant, listed and revoked like a key, named in
-- the audit log. It has no key secret; its tokens are bound to one resource (RFC 8707).
ALTER TABLE credentials ADD COLUMN kind TEXT NOT NULL DEFAULT 'key' CHECK (kind IN ('key', 'oauth'));
ALTER TABLE credentials ADD COLUMN oauth_client_id INTEGER NULL REFERENCES oauth_clients (id);
ALTER TABLE credentials ADD COLUMN resource TEXT NULL;

-- An authorization code: single use, short-lived, bound to client, redirect URI, PKCE
-- challenge (S256) and resource. `credential_id` is the connection its exchange made, so a
-- replayed code can revoke it.
CREATE TABLE oauth_codes (
    verifier       TEXT    PRIMARY KEY,
    client_id      INTEGER NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    person_id      INTEGER NOT NULL REFERENCES people (id),
    grant_id       INTEGER NOT NULL REFERENCES grants (id),
    redirect_uri   TEXT    NOT NULL,
    code_challenge TEXT    NOT NULL,
    resource       TEXT    NOT NULL,
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    used_at        INTEGER NULL,
    credential_id  INTEGER NULL REFERENCES credentials (id)
);

-- Access and refresh tokens of one connection (its credential). A refresh token is used once:
-- `rotated_at` marks it exchanged, and presenting it again revokes the whole connection.
CREATE TABLE oauth_tokens (
    id            INTEGER PRIMARY KEY,
    verifier      TEXT    NOT NULL UNIQUE,
    kind          TEXT    NOT NULL CHECK (kind IN ('access', 'refresh')),
    credential_id INTEGER NOT NULL REFERENCES credentials (id),
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL,
    rotated_at    INTEGER NULL,
    revoked_at    INTEGER NULL
);

CREATE INDEX oauth_tokens_credential ON oauth_tokens (credential_id);
