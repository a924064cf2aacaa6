-- mnemo store schema, version 16: a memory id is unique per project, not per
-- store (issue 24, "Access": a token of project A learns nothing of project B).
--
-- memories.uid was UNIQUE over the whole store, so an import into project A
-- of project B's export skipped every memory (its ids were taken), and a
-- save, import or link naming an id of B answered otherwise than for an id
-- that exists nowhere: an existence oracle across projects. The key is now
-- (project_id, uid); every lookup by uid in src/store/ names the project.
--
-- SQLite cannot drop a column's UNIQUE: the table is rebuilt (the 12 steps of
-- sqlite.org/lang_altertable.html). migrate.c runs this file with foreign
-- keys off (the marker below), so that dropping the old table neither
-- cascades to the rows that reference it (tags, paths, citations, links,
-- fingerprints, keys) nor checks them; every row keeps its id (the rowid),
-- so those references, the vectors (owner_id) and the full-text index
-- (external content, content_rowid = id) stay right without being rebuilt.
-- The view memories_fts_src names memories: legacy_alter_table lets the
-- rename pass over it while the name is briefly missing. The indexes and
-- triggers on memories went with the old table and are made again as they
-- were (schema v3, v5, v6, v13); the unique index memories_uid (project_id,
-- uid) serves the lookups by id and by prefix that uid's own index served.
-- mnemo-migration: foreign_keys off
--
-- Never edit this file once released: add schema_v17.sql.

CREATE TABLE memories_v16 (
  id               INTEGER PRIMARY KEY,
  uid              TEXT NOT NULL,
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
  simhash          INTEGER,         -- near-duplicate detection (text/)
  extraction_method TEXT
    CHECK (extraction_method IN ('manual','agent','auto','hybrid')), -- schema v9
  judgement        TEXT,            -- JSON object (schema v9)
  saved_at         INTEGER          -- when this store took it in (schema v10)
) STRICT;

INSERT INTO memories_v16 (id, uid, project_id, kind, level, title, body, situation, solution,
  trigger_keywords, what_failed, error_messages, files_modified, excerpt, excerpt_len,
  scope_paths, scope_symbols, tags, branch, source, author, commit_sha, task_ref, dialog_ref,
  session_ref, status, confidence, quality, expires_at, created_at, updated_at, accessed_at,
  deleted_at, hit_count, used_count, ignored_count, content_hash, simhash, extraction_method,
  judgement, saved_at)
SELECT id, uid, project_id, kind, level, title, body, situation, solution,
  trigger_keywords, what_failed, error_messages, files_modified, excerpt, excerpt_len,
  scope_paths, scope_symbols, tags, branch, source, author, commit_sha, task_ref, dialog_ref,
  session_ref, status, confidence, quality, expires_at, created_at, updated_at, accessed_at,
  deleted_at, hit_count, used_count, ignored_count, content_hash, simhash, extraction_method,
  judgement, saved_at
FROM memories ORDER BY id;

DROP TABLE memories;
PRAGMA legacy_alter_table = ON;
ALTER TABLE memories_v16 RENAME TO memories;
PRAGMA legacy_alter_table = OFF;

-- the key, by name: mn_sqlite__memory_resolve's prefix range scan names it
CREATE UNIQUE INDEX memories_uid ON memories(project_id, uid);
CREATE INDEX memories_listing ON memories(project_id, deleted_at, status, kind);
CREATE INDEX memories_updated ON memories(updated_at);
CREATE INDEX memories_hash ON memories(project_id, content_hash);
CREATE INDEX memories_level ON memories(project_id, level, uid) WHERE deleted_at IS NULL;
CREATE INDEX memories_created ON memories(created_at);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts(rowid, title, keywords, body, context)
    SELECT id, title, keywords, body, context FROM memories_fts_src WHERE id = new.id;
END;
CREATE TRIGGER memories_fts_delete BEFORE DELETE ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, title, keywords, body, context)
    SELECT 'delete', id, title, keywords, body, context FROM memories_fts_src WHERE id = old.id;
END;
CREATE TRIGGER memories_fts_update_old BEFORE UPDATE ON memories
WHEN old.title IS NOT new.title OR old.body IS NOT new.body
  OR old.situation IS NOT new.situation OR old.solution IS NOT new.solution
  OR old.trigger_keywords IS NOT new.trigger_keywords OR old.what_failed IS NOT new.what_failed
  OR old.error_messages IS NOT new.error_messages OR old.files_modified IS NOT new.files_modified
  OR old.scope_paths IS NOT new.scope_paths OR old.scope_symbols IS NOT new.scope_symbols
  OR old.tags IS NOT new.tags OR old.deleted_at IS NOT new.deleted_at OR old.id IS NOT new.id
BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, title, keywords, body, context)
    SELECT 'delete', id, title, keywords, body, context FROM memories_fts_src WHERE id = old.id;
END;
CREATE TRIGGER memories_fts_update_new AFTER UPDATE ON memories
WHEN old.title IS NOT new.title OR old.body IS NOT new.body
  OR old.situation IS NOT new.situation OR old.solution IS NOT new.solution
  OR old.trigger_keywords IS NOT new.trigger_keywords OR old.what_failed IS NOT new.what_failed
  OR old.error_messages IS NOT new.error_messages OR old.files_modified IS NOT new.files_modified
  OR old.scope_paths IS NOT new.scope_paths OR old.scope_symbols IS NOT new.scope_symbols
  OR old.tags IS NOT new.tags OR old.deleted_at IS NOT new.deleted_at OR old.id IS NOT new.id
BEGIN
  INSERT INTO memories_fts(rowid, title, keywords, body, context)
    SELECT id, title, keywords, body, context FROM memories_fts_src WHERE id = new.id;
END;
CREATE TRIGGER embed_memory_insert AFTER INSERT ON memories BEGIN
  UPDATE embed_corpus SET epoch = epoch + 1;
END;
CREATE TRIGGER embed_memory_delete AFTER DELETE ON memories BEGIN
  DELETE FROM vectors WHERE owner_kind = 'memory' AND owner_id = old.id;
  UPDATE embed_corpus SET epoch = epoch + 1;
END;
CREATE TRIGGER embed_memory_update AFTER UPDATE ON memories
WHEN old.title IS NOT new.title OR old.body IS NOT new.body
  OR old.situation IS NOT new.situation OR old.solution IS NOT new.solution
  OR old.trigger_keywords IS NOT new.trigger_keywords OR old.what_failed IS NOT new.what_failed
  OR old.error_messages IS NOT new.error_messages OR old.files_modified IS NOT new.files_modified
  OR old.scope_paths IS NOT new.scope_paths OR old.scope_symbols IS NOT new.scope_symbols
  OR old.tags IS NOT new.tags OR old.deleted_at IS NOT new.deleted_at OR old.id IS NOT new.id
BEGIN
  DELETE FROM vectors WHERE owner_kind = 'memory' AND owner_id = old.id;
  UPDATE embed_corpus SET epoch = epoch + 1;
END;
