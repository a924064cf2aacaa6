-- mnemo store schema, version 15: access tokens of the team server (issue
-- 24; src/api/access.c, src/store/sqlite/token_store.c). Global, not per
-- project: a token names the one project it opens (by name, so a token may
-- be made before its project's first write) and its role. The secret itself
-- is never stored: only its SHA-256 in hex, looked up by that hash and
-- compared in constant time. Times are ms since 1970; expires_at NULL never
-- expires, revoked_at NULL is not revoked; last_used_at is refreshed at
-- most once a minute.
-- Never edit this file once released: add schema_v16.sql.
CREATE TABLE tokens (
  id           INTEGER PRIMARY KEY,
  name         TEXT NOT NULL UNIQUE,
  project      TEXT NOT NULL,
  role         TEXT NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
  secret_hash  TEXT NOT NULL UNIQUE,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER,
  revoked_at   INTEGER,
  last_used_at INTEGER
) STRICT;
