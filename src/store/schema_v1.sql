-- mnemo store schema, version 1. Applied by src/store/sqlite/migrate.c
-- (embedded at build time); later versions add migration files, never edit
-- this one: stores made by it must keep opening (tests/data/migrations/).
-- Times are integer milliseconds since the epoch, UTC. Lists that are read
-- whole (keywords, error messages) are JSON arrays in TEXT; lists that are
-- filtered on (tags, scope paths) are also normalized into side tables.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE projects (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL UNIQUE,
  root_path  TEXT,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE config (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key        TEXT NOT NULL,
  value      TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, key)
) STRICT;

-- ---- the code index (filled by index/) ----
CREATE TABLE files (
  id           INTEGER PRIMARY KEY,
  project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  path         TEXT NOT NULL,
  language     TEXT,
  role         TEXT NOT NULL DEFAULT 'source'
               CHECK (role IN ('source','test','doc','config','build','generated','vendored','marker','lock')),
  content_hash TEXT NOT NULL,
  size         INTEGER NOT NULL,
  lines        INTEGER NOT NULL,
  mtime        INTEGER,
  rank         REAL NOT NULL DEFAULT 0,
  indexed_at   INTEGER NOT NULL,
  UNIQUE (project_id, path)
) STRICT;

CREATE TABLE symbols (
  id             INTEGER PRIMARY KEY,
  file_id        INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  name           TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  kind           TEXT NOT NULL,
  start_line     INTEGER NOT NULL,
  end_line       INTEGER NOT NULL,
  start_byte     INTEGER,
  end_byte       INTEGER,
  signature      TEXT,
  docstring      TEXT,
  content_hash   TEXT,
  rank           REAL NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX symbols_file ON symbols(file_id);
CREATE INDEX symbols_name ON symbols(name);

-- An edge goes from a file or symbol to a file or symbol; an import or call
-- not resolved (yet) keeps its target text in dst_name with dst_id NULL.
CREATE TABLE edges (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  src_kind   TEXT NOT NULL CHECK (src_kind IN ('file','symbol')),
  src_id     INTEGER NOT NULL,
  dst_kind   TEXT NOT NULL CHECK (dst_kind IN ('file','symbol')),
  dst_id     INTEGER,
  dst_name   TEXT,
  kind       TEXT NOT NULL CHECK (kind IN ('import','call','inherit','reference')),
  weight     REAL NOT NULL DEFAULT 1
) STRICT;
CREATE INDEX edges_src ON edges(src_kind, src_id);
CREATE INDEX edges_dst ON edges(dst_kind, dst_id);

-- Retrievable pieces of code and documents.
CREATE TABLE chunks (
  id           INTEGER PRIMARY KEY,
  file_id      INTEGER REFERENCES files(id) ON DELETE CASCADE,
  symbol_id    INTEGER REFERENCES symbols(id) ON DELETE CASCADE,
  doc_id       INTEGER REFERENCES docs(id) ON DELETE CASCADE,
  start_line   INTEGER NOT NULL,
  end_line     INTEGER NOT NULL,
  text         TEXT NOT NULL,
  content_hash TEXT NOT NULL
) STRICT;
CREATE INDEX chunks_file ON chunks(file_id);

-- ---- the team's knowledge ----
CREATE TABLE memories (
  id               INTEGER PRIMARY KEY,
  uid              TEXT NOT NULL UNIQUE,
  project_id       INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  kind             TEXT NOT NULL CHECK (kind IN
                     ('fact','decision','gotcha','pattern','rule','fewshot','episode','doc_link')),
  level            INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3),
  title            TEXT NOT NULL,
  body             TEXT NOT NULL DEFAULT '',
  situation        TEXT,
  solution         TEXT,
  trigger_keywords TEXT,            -- JSON array
  what_failed      TEXT,
  error_messages   TEXT,            -- JSON array
  files_modified   TEXT,            -- JSON array
  excerpt          BLOB,            -- zlib-compressed conversation excerpt
  excerpt_len      INTEGER,         -- its uncompressed length in bytes
  scope_paths      TEXT,            -- JSON array (also in memory_paths)
  scope_symbols    TEXT,            -- JSON array
  tags             TEXT,            -- JSON array (also in memory_tags)
  branch           TEXT,
  source           TEXT NOT NULL CHECK (source IN
                     ('manual','agent','git','document','issue','discovery','import')),
  author           TEXT,
  commit_sha       TEXT,
  task_ref         TEXT,
  dialog_ref       TEXT,
  session_ref      TEXT,
  status           TEXT NOT NULL CHECK (status IN
                     ('active','pending','quarantined','superseded','archived')),
  confidence       REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  quality          REAL CHECK (quality BETWEEN 0 AND 1),
  expires_at       INTEGER,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  accessed_at      INTEGER,
  deleted_at       INTEGER,         -- soft delete ("forget"); NULL when live
  hit_count        INTEGER NOT NULL DEFAULT 0,
  used_count       INTEGER NOT NULL DEFAULT 0,
  ignored_count    INTEGER NOT NULL DEFAULT 0,
  content_hash     TEXT NOT NULL,   -- xxh3 of kind + normalized title and body: exact dedup
  simhash          INTEGER          -- near-duplicate detection (text/)
) STRICT;
CREATE INDEX memories_listing ON memories(project_id, deleted_at, status, kind);
CREATE INDEX memories_updated ON memories(updated_at);
CREATE INDEX memories_hash ON memories(project_id, content_hash);

CREATE TABLE memory_tags (
  tag       TEXT NOT NULL,
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  PRIMARY KEY (tag, memory_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX memory_tags_memory ON memory_tags(memory_id);

CREATE TABLE memory_paths (
  path      TEXT NOT NULL,
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  PRIMARY KEY (path, memory_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX memory_paths_memory ON memory_paths(memory_id);

-- The code spans a memory talks about, with their hash when saved, so the
-- memory can be checked against today's code (stale when they differ).
CREATE TABLE citations (
  id           INTEGER PRIMARY KEY,
  memory_id    INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  seq          INTEGER NOT NULL,
  path         TEXT NOT NULL,
  symbol       TEXT,
  start_line   INTEGER,
  end_line     INTEGER,
  content_hash TEXT,
  stale        INTEGER NOT NULL DEFAULT 0,
  checked_at   INTEGER,
  UNIQUE (memory_id, seq)
) STRICT;

-- Links from a memory to another memory (dst_memory_id) or to anything
-- else named by a reference such as 'file:src/a.c', 'task:PROJ-12',
-- 'commit:<sha>', 'doc:docs/adr/0001.md' (dst_ref).
CREATE TABLE links (
  id            INTEGER PRIMARY KEY,
  src_id        INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  kind          TEXT NOT NULL CHECK (kind IN
                  ('caused_by','supersedes','relates_to','contradicts','derived_from','about')),
  dst_memory_id INTEGER REFERENCES memories(id) ON DELETE CASCADE,
  dst_ref       TEXT,
  note          TEXT,
  created_at    INTEGER NOT NULL,
  CHECK ((dst_memory_id IS NULL) <> (dst_ref IS NULL))
) STRICT;
CREATE UNIQUE INDEX links_unique_memory ON links(src_id, kind, dst_memory_id) WHERE dst_memory_id IS NOT NULL;
CREATE UNIQUE INDEX links_unique_ref ON links(src_id, kind, dst_ref) WHERE dst_ref IS NOT NULL;
CREATE INDEX links_src ON links(src_id);
CREATE INDEX links_dst ON links(dst_memory_id);

-- ---- sources of knowledge (filled by ingest/) ----
CREATE TABLE tasks (
  id          INTEGER PRIMARY KEY,
  project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  tracker     TEXT NOT NULL,
  external_id TEXT NOT NULL,
  title       TEXT NOT NULL,
  body        TEXT,
  state       TEXT,
  url         TEXT,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  UNIQUE (project_id, tracker, external_id)
) STRICT;

CREATE TABLE docs (
  id           INTEGER PRIMARY KEY,
  project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  path         TEXT NOT NULL,
  kind         TEXT NOT NULL,       -- adr, wiki, readme, design, ...
  title        TEXT,
  body         TEXT,
  content_hash TEXT NOT NULL,
  updated_at   INTEGER NOT NULL,
  UNIQUE (project_id, path)
) STRICT;

CREATE TABLE dialogs (
  id          INTEGER PRIMARY KEY,
  project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  external_id TEXT,
  agent       TEXT,
  summary     TEXT,
  body        BLOB,                 -- zlib-compressed distilled conversation
  body_len    INTEGER,
  created_at  INTEGER NOT NULL
) STRICT;

-- Embeddings per chunk or memory, by model; a changed model re-embeds.
CREATE TABLE vectors (
  owner_kind TEXT NOT NULL CHECK (owner_kind IN ('chunk','memory')),
  owner_id   INTEGER NOT NULL,
  model      TEXT NOT NULL,
  dim        INTEGER NOT NULL,
  encoding   TEXT NOT NULL CHECK (encoding IN ('f32','i8')),
  scale      REAL,
  data       BLOB NOT NULL,
  PRIMARY KEY (owner_kind, owner_id, model)
) STRICT;

-- ---- what happened: audit, serving and feedback ----
CREATE TABLE audit (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  ts         INTEGER NOT NULL,
  actor      TEXT NOT NULL,
  action     TEXT NOT NULL,
  target     TEXT,
  detail     TEXT                  -- JSON
) STRICT;
CREATE INDEX audit_ts ON audit(ts);

-- One row per answer served (context, recall, search), for feedback and learning.
CREATE TABLE served (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  ts         INTEGER NOT NULL,
  op         TEXT NOT NULL,
  query      TEXT,
  items      TEXT NOT NULL          -- JSON array of {kind, id, score, signals}
) STRICT;

CREATE TABLE feedback (
  id         INTEGER PRIMARY KEY,
  served_id  INTEGER REFERENCES served(id) ON DELETE SET NULL,
  ts         INTEGER NOT NULL,
  actor      TEXT,
  item_kind  TEXT NOT NULL,
  item_id    TEXT NOT NULL,
  signal     TEXT NOT NULL CHECK (signal IN ('used','ignored','refined')),
  note       TEXT
) STRICT;
CREATE INDEX feedback_item ON feedback(item_kind, item_id);

-- Learned, bounded and reversible weights per project (learn/).
CREATE TABLE weights (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  value      REAL NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, name)
) STRICT;
