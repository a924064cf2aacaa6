-- mnemo store schema, version 5: embeddings (the semantic signal, issue 4;
-- src/retrieve/embed.h, docs/internals/embeddings.md). Never edit this file
-- once released: add schema_v6.sql.
--
-- vectors (schema v1) holds one vector per (owner, model). What v5 adds:
--
--   embed_models  every model vectors are stored under: its dimension, for
--                 the built-in one the corpus size it was trained on and its
--                 parameters, and two counters that make the common case
--                 cheap: `epoch` moves whenever one of its vectors is
--                 written or removed (an in-process cache of the vectors is
--                 valid while it stays; `nonce` tells apart two models of
--                 the same name created at different times), and
--                 `synced_epoch` is the corpus epoch at the end of the last
--                 sync that left nothing to embed.
--   embed_terms   the built-in model: one int8 vector and an idf per term
--                 (a query is embedded by looking up its few terms here, so
--                 a search never loads the whole model).
--   embed_corpus  one counter moved by every change of what is embedded
--                 (a memory's text, a chunk, the path or symbol a chunk is
--                 embedded with). A sync that finds it where it left it has
--                 nothing to do, without scanning the corpus.
--
-- Vectors never outlive what they embed: the triggers below delete a
-- memory's vectors when it is purged, forgotten (deleted_at set) or its
-- text changes, and a chunk's when it is deleted (re-indexing a file
-- re-creates its chunks), its text changes, or its file's path or its
-- symbol's name, signature or docstring change. Rows without a vector for
-- the current model are what the next sync embeds, so "text changed" and
-- "never embedded" are one case. The text embedded is the one the
-- full-text index reads (the memories_fts_src and chunks_fts_src views of
-- schema v3), so the conditions mirror the FTS triggers.

CREATE TABLE embed_models (
  model        TEXT PRIMARY KEY,
  project_id   INTEGER REFERENCES projects(id) ON DELETE CASCADE,  -- built-in: the corpus
  dim          INTEGER NOT NULL CHECK (dim BETWEEN 1 AND 8192),
  docs         INTEGER NOT NULL DEFAULT 0,
  params       TEXT,                                                -- JSON
  nonce        TEXT NOT NULL,
  epoch        INTEGER NOT NULL DEFAULT 0,
  synced_epoch INTEGER NOT NULL DEFAULT -1,
  created_at   INTEGER NOT NULL
) STRICT;

CREATE TABLE embed_terms (
  model TEXT NOT NULL REFERENCES embed_models(model) ON DELETE CASCADE,
  term  TEXT NOT NULL,
  idf   REAL NOT NULL,
  scale REAL NOT NULL,
  vec   BLOB NOT NULL,
  PRIMARY KEY (model, term)
) STRICT, WITHOUT ROWID;

CREATE TABLE embed_corpus (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  epoch INTEGER NOT NULL
) STRICT;
INSERT INTO embed_corpus VALUES (1, 0);

-- Loading every vector of a model for the top-k.
CREATE INDEX vectors_model ON vectors(model, owner_kind);

CREATE TRIGGER vectors_epoch_insert AFTER INSERT ON vectors BEGIN
  UPDATE embed_models SET epoch = epoch + 1 WHERE model = new.model;
END;
CREATE TRIGGER vectors_epoch_update AFTER UPDATE ON vectors BEGIN
  UPDATE embed_models SET epoch = epoch + 1 WHERE model IN (old.model, new.model);
END;
CREATE TRIGGER vectors_epoch_delete AFTER DELETE ON vectors BEGIN
  UPDATE embed_models SET epoch = epoch + 1 WHERE model = old.model;
END;

-- ---- memories ----
CREATE TRIGGER embed_memory_insert AFTER INSERT ON memories BEGIN
  UPDATE embed_corpus SET epoch = epoch + 1;
END;

CREATE TRIGGER embed_memory_delete AFTER DELETE ON memories BEGIN
  DELETE FROM vectors WHERE owner_kind = 'memory' AND owner_id = old.id;
  UPDATE embed_corpus SET epoch = epoch + 1;
END;

-- Counters, access times and status changes leave the vectors alone.
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

-- ---- chunks, and what their embedded text is made of ----
CREATE TRIGGER embed_chunk_insert AFTER INSERT ON chunks BEGIN
  UPDATE embed_corpus SET epoch = epoch + 1;
END;

CREATE TRIGGER embed_chunk_delete AFTER DELETE ON chunks BEGIN
  DELETE FROM vectors WHERE owner_kind = 'chunk' AND owner_id = old.id;
  UPDATE embed_corpus SET epoch = epoch + 1;
END;

CREATE TRIGGER embed_chunk_update AFTER UPDATE ON chunks
WHEN old.text IS NOT new.text OR old.file_id IS NOT new.file_id
  OR old.symbol_id IS NOT new.symbol_id OR old.id IS NOT new.id
BEGIN
  DELETE FROM vectors WHERE owner_kind = 'chunk' AND owner_id = old.id;
  UPDATE embed_corpus SET epoch = epoch + 1;
END;

CREATE TRIGGER embed_file_path AFTER UPDATE OF path ON files
WHEN old.path IS NOT new.path BEGIN
  DELETE FROM vectors WHERE owner_kind = 'chunk'
    AND owner_id IN (SELECT id FROM chunks WHERE file_id = new.id);
  UPDATE embed_corpus SET epoch = epoch + 1;
END;

CREATE TRIGGER embed_symbol_update AFTER UPDATE OF name, qualified_name, signature, docstring
  ON symbols
WHEN old.name IS NOT new.name OR old.qualified_name IS NOT new.qualified_name
  OR old.signature IS NOT new.signature OR old.docstring IS NOT new.docstring BEGIN
  DELETE FROM vectors WHERE owner_kind = 'chunk'
    AND owner_id IN (SELECT id FROM chunks WHERE symbol_id = new.id);
  UPDATE embed_corpus SET epoch = epoch + 1;
END;

-- Vectors written before these triggers existed (none were: nothing wrote
-- the table before v5) would be kept only if their owner is live.
DELETE FROM vectors WHERE owner_kind = 'memory'
  AND owner_id NOT IN (SELECT id FROM memories WHERE deleted_at IS NULL);
DELETE FROM vectors WHERE owner_kind = 'chunk' AND owner_id NOT IN (SELECT id FROM chunks);
