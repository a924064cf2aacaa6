-- mnemo store schema, version 19: a memory saved leaves what was kept for
-- the chunks' vectors valid: an epoch per kind of vector, and the corpus
-- epoch's chunk side.
--
-- The epoch (schema v5) names a model's vector set for the caches that hold
-- it (vector_cache.c in memory, vector_file.c on disk). It was one counter
-- per model, and a set is loaded per kind (the memories' or the chunks'):
-- saving one memory, whose vector the next search writes, moved the epoch of
-- the chunks' set too, and that search read every chunk vector from the rows
-- again and wrote the vectors file anew (67,000 chunks: ~60 ms and 18 MB per
-- memory saved). Now each kind has its own counter, moved with `epoch`
-- (which stays, for what names the model as a whole) by the same writes:
-- vector_put for inserts (src/store/sqlite/vector_store.c, once per kind and
-- transaction), the triggers below for updates and deletes. The new counters
-- start at the model's epoch, so a vectors file written before this version
-- still names the right state when nothing moved since, and an older one
-- never matches (the counters only grow).
--
-- Never edit this file once released: add schema_v20.sql.

ALTER TABLE embed_models ADD COLUMN memory_epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE embed_models ADD COLUMN chunk_epoch INTEGER NOT NULL DEFAULT 0;
UPDATE embed_models SET memory_epoch = epoch, chunk_epoch = epoch;

DROP TRIGGER vectors_epoch_update;
DROP TRIGGER vectors_epoch_delete;
CREATE TRIGGER vectors_epoch_update AFTER UPDATE ON vectors BEGIN
  UPDATE embed_models SET epoch = epoch + 1,
    memory_epoch = memory_epoch + (old.owner_kind = 'memory' OR new.owner_kind = 'memory'),
    chunk_epoch = chunk_epoch + (old.owner_kind = 'chunk' OR new.owner_kind = 'chunk')
  WHERE model IN (old.model, new.model);
END;
CREATE TRIGGER vectors_epoch_delete AFTER DELETE ON vectors BEGIN
  UPDATE embed_models SET epoch = epoch + 1,
    memory_epoch = memory_epoch + (old.owner_kind = 'memory'),
    chunk_epoch = chunk_epoch + (old.owner_kind = 'chunk')
  WHERE model = old.model;
END;

-- The corpus epoch's chunk side. embed_corpus.epoch (schema v5) moves on
-- every change of what is embedded, a memory's as a chunk's, and a sync that
-- finds it moved looked for chunks without a vector: on 67,000 chunks ~40 ms
-- of the first search after each memory saved, to find none. memory_epoch
-- moves with it on the memories' changes only (the three triggers of v16
-- again, with the one column more), so epoch - memory_epoch moves on the
-- chunks' changes only; synced_chunks is its value when a sync last left
-- nothing to embed (embed_model_synced), and while it stays a sync need not
-- look at the chunks (mn_store_embed_chunks_current).
ALTER TABLE embed_corpus ADD COLUMN memory_epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE embed_models ADD COLUMN synced_chunks INTEGER NOT NULL DEFAULT -1;

DROP TRIGGER embed_memory_insert;
DROP TRIGGER embed_memory_delete;
DROP TRIGGER embed_memory_update;
CREATE TRIGGER embed_memory_insert AFTER INSERT ON memories BEGIN
  UPDATE embed_corpus SET epoch = epoch + 1, memory_epoch = memory_epoch + 1;
END;
CREATE TRIGGER embed_memory_delete AFTER DELETE ON memories BEGIN
  DELETE FROM vectors WHERE owner_kind = 'memory' AND owner_id = old.id;
  UPDATE embed_corpus SET epoch = epoch + 1, memory_epoch = memory_epoch + 1;
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
  UPDATE embed_corpus SET epoch = epoch + 1, memory_epoch = memory_epoch + 1;
END;
