-- A mnemo store at schema v2, made by mnemo 0.1.0 (schema v2): the v1
-- fixture's store (same three memories, links, config) opened once by the
-- schema-v2 build with MNEMO_NOW_MS=1795248000000, which migrated it; then
-- dumped with `sqlite3 mnemo.db .dump`. `.dump` does not write
-- PRAGMA user_version, so it is appended at the end by hand.
-- Never edit this file: see README.md in this directory.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
INSERT INTO meta VALUES('schema_version','2');
INSERT INTO meta VALUES('written_by','mnemo 0.1.0');
CREATE TABLE projects (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL UNIQUE,
  root_path  TEXT,
  created_at INTEGER NOT NULL
) STRICT;
INSERT INTO projects VALUES(1,'default',NULL,1795248000000);
CREATE TABLE config (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key        TEXT NOT NULL,
  value      TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, key)
) STRICT;
INSERT INTO config VALUES(1,'memory.excerpt_cap','4096',1795248000000);
INSERT INTO config VALUES(1,'memory.review_threshold','0.6',1795248000000);
INSERT INTO config VALUES(1,'user.name','fixture',1795248000000);
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
INSERT INTO memories VALUES(1,'01JD3Q7Y8Z00000000000000A1',1,'gotcha',3,'Cart sessions expire when delay is nil é€',replace('Line one\nLine ''two''','\n',char(10)),'checkout returned 401 after idle','default delay to 30s','["cart","session","401"]','raising the timeout','["SessionExpired: delay=None"]','["cart/session.py"]',X'789c2b2d4e2db25228cfa854303130b4e74a4c4fcd2bb1524849cd49ac54c82c56f0cbcf4b0500ce050b94',35,'["cart/session.py","cart"]','["Session.refresh"]','["auth","cart"]','main','agent','ada','0123abcd','PROJ-12','dlg-7','sess-9','active',0.75,0.5,1798761600000,1795239445123,1795240800000,1795305600001,NULL,3,2,1,'fa20257a166fa299',NULL);
INSERT INTO memories VALUES(2,'01JD3Q7Y8Z00000000000000B2',1,'decision',1,'Use Postgres for the team server','Because of row-level locks.',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'manual','bob',NULL,NULL,NULL,NULL,'active',0.9000000000000000222,NULL,NULL,1795244400000,1795244400000,NULL,NULL,0,0,0,'b189b6d594fa59a1',NULL);
INSERT INTO memories VALUES(3,'01JD3Q7Y8Z00000000000000C3',1,'fact',2,'SQLite was the team server store','',NULL,NULL,NULL,NULL,NULL,NULL,X'789c95d1b90dc2401040d19c2aa602e4b938dc8d8dd6608100d96b21328aa0422a2125e417f0a2b7cc656a65aee52e4d2343375e66f9bcded21dcbb5b632953a3de531d693f4dde17c1b86f56af921ca8971e29c0427c9c986932d273b4ef69828df57beaf7c5ff9bef27de5fbcaf795ef2bdf57be6f7cdff8bef17de3fbc6f78def1bdf37be6f7cdff8bef37de7fbcef79def3bdf77beef7cdff9bef37de7fbc1f783ef07df0fbe1f7c3ff87ef0fde0fbc1f783ef27df4fbe9f7c3ff97ef2fde4fbc9f793ef27dfcf3ff7bf64df4ebd',3060,'["server"]',NULL,'["db"]',NULL,'git',NULL,'feedbeef',NULL,NULL,NULL,'superseded',0.59999999999999997779,NULL,NULL,1795132800000,1795244403000,NULL,1795248000000,0,0,5,'3befacd040f901ec',NULL);
CREATE TABLE memory_tags (
  tag       TEXT NOT NULL,
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  PRIMARY KEY (tag, memory_id)
) STRICT, WITHOUT ROWID;
INSERT INTO memory_tags VALUES('auth',1);
INSERT INTO memory_tags VALUES('cart',1);
INSERT INTO memory_tags VALUES('db',3);
CREATE TABLE memory_paths (
  path      TEXT NOT NULL,
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  PRIMARY KEY (path, memory_id)
) STRICT, WITHOUT ROWID;
INSERT INTO memory_paths VALUES('cart',1);
INSERT INTO memory_paths VALUES('cart/session.py',1);
INSERT INTO memory_paths VALUES('server',3);
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
INSERT INTO citations VALUES(1,1,0,'cart/session.py','Session.refresh',10,20,'abc123',0,NULL);
INSERT INTO citations VALUES(2,1,1,'cart/tests.py',NULL,NULL,NULL,NULL,0,NULL);
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
INSERT INTO links VALUES(1,2,'caused_by',1,NULL,'the outage',1795244401000);
INSERT INTO links VALUES(2,2,'about',NULL,'file:server/db.c',NULL,1795244402000);
INSERT INTO links VALUES(3,2,'supersedes',3,NULL,NULL,1795244403000);
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
CREATE TABLE audit (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  ts         INTEGER NOT NULL,
  actor      TEXT NOT NULL,
  action     TEXT NOT NULL,
  target     TEXT,
  detail     TEXT                  -- JSON
) STRICT;
INSERT INTO audit VALUES(1,1,1795248000000,'fixture','import',NULL,'{"imported":3,"replaced":0,"skipped":0,"links":3}');
INSERT INTO audit VALUES(2,1,1795248000000,'fixture','config','memory.excerpt_cap','{"key":"memory.excerpt_cap","value":"4096"}');
INSERT INTO audit VALUES(3,1,1795248000000,'fixture','config','memory.review_threshold','{"key":"memory.review_threshold","value":"0.6"}');
INSERT INTO audit VALUES(4,1,1795248000000,'fixture','config','user.name','{"key":"user.name","value":"fixture"}');
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
CREATE TABLE weights (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  value      REAL NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, name)
) STRICT;
CREATE INDEX symbols_file ON symbols(file_id);
CREATE INDEX symbols_name ON symbols(name);
CREATE INDEX edges_src ON edges(src_kind, src_id);
CREATE INDEX edges_dst ON edges(dst_kind, dst_id);
CREATE INDEX chunks_file ON chunks(file_id);
CREATE INDEX memories_listing ON memories(project_id, deleted_at, status, kind);
CREATE INDEX memories_updated ON memories(updated_at);
CREATE INDEX memories_hash ON memories(project_id, content_hash);
CREATE INDEX memory_tags_memory ON memory_tags(memory_id);
CREATE INDEX memory_paths_memory ON memory_paths(memory_id);
CREATE UNIQUE INDEX links_unique_memory ON links(src_id, kind, dst_memory_id) WHERE dst_memory_id IS NOT NULL;
CREATE UNIQUE INDEX links_unique_ref ON links(src_id, kind, dst_ref) WHERE dst_ref IS NOT NULL;
CREATE INDEX links_src ON links(src_id);
CREATE INDEX links_dst ON links(dst_memory_id);
CREATE INDEX audit_ts ON audit(ts);
CREATE INDEX feedback_item ON feedback(item_kind, item_id);
CREATE INDEX chunks_symbol ON chunks(symbol_id);
COMMIT;
PRAGMA user_version=2;
