-- mnemo PostgreSQL store schema, version 6: a memory written leaves what is
-- kept of the chunks' vectors valid (the SQLite schema's v19).
--
-- A server keeps each vector set it loaded (vector_cache.c) while the
-- model's epoch stays; a memory's vector moved that one epoch, so after any
-- memory written by anyone on the team the next search read every chunk
-- vector of the project again over the connection. Each kind now has its
-- epoch (memory_epoch, chunk_epoch, moved with `epoch` by the same
-- statements), starting at the model's, so a set loaded before keeps
-- naming the right state. And the corpus epoch gets its memories' side
-- (embed_corpus.memory_epoch, moved with `epoch` by the memories' trigger
-- function): epoch - memory_epoch moves on the chunks' changes only, a
-- complete sync records it (embed_models.synced_chunks), and a sync after a
-- memory saved does not look for chunks without a vector.
--
-- Never edit a released version: add schema_v7.sql.
ALTER TABLE embed_models ADD COLUMN memory_epoch BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN chunk_epoch BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN synced_chunks BIGINT NOT NULL DEFAULT -1;
UPDATE embed_models SET memory_epoch = epoch, chunk_epoch = epoch;
ALTER TABLE embed_corpus ADD COLUMN memory_epoch BIGINT NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION vectors_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE embed_models m SET epoch = epoch + 1,
      memory_epoch = memory_epoch + (EXISTS (SELECT 1 FROM new_rows r
        WHERE r.model = m.model AND r.owner_kind = 'memory'))::int,
      chunk_epoch = chunk_epoch + (EXISTS (SELECT 1 FROM new_rows r
        WHERE r.model = m.model AND r.owner_kind = 'chunk'))::int
      WHERE model IN (SELECT model FROM new_rows);
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE embed_models m SET epoch = epoch + 1,
      memory_epoch = memory_epoch + (EXISTS (SELECT 1 FROM old_rows r
        WHERE r.model = m.model AND r.owner_kind = 'memory'))::int,
      chunk_epoch = chunk_epoch + (EXISTS (SELECT 1 FROM old_rows r
        WHERE r.model = m.model AND r.owner_kind = 'chunk'))::int
      WHERE model IN (SELECT model FROM old_rows);
  ELSE
    UPDATE embed_models m SET epoch = epoch + 1,
      memory_epoch = memory_epoch + (EXISTS (SELECT 1 FROM (SELECT model, owner_kind FROM new_rows
        UNION ALL SELECT model, owner_kind FROM old_rows) r
        WHERE r.model = m.model AND r.owner_kind = 'memory'))::int,
      chunk_epoch = chunk_epoch + (EXISTS (SELECT 1 FROM (SELECT model, owner_kind FROM new_rows
        UNION ALL SELECT model, owner_kind FROM old_rows) r
        WHERE r.model = m.model AND r.owner_kind = 'chunk'))::int
      WHERE model IN (SELECT model FROM new_rows UNION SELECT model FROM old_rows);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION embed_corpus_move_memory(p BIGINT) RETURNS void LANGUAGE sql AS $$
  INSERT INTO embed_corpus(project_id, epoch, memory_epoch) VALUES (p, 1, 1)
    ON CONFLICT (project_id) DO UPDATE SET epoch = embed_corpus.epoch + 1,
      memory_epoch = embed_corpus.memory_epoch + 1;
$$;

CREATE OR REPLACE FUNCTION embed_memory() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM vectors WHERE owner_kind = 'memory' AND owner_id = OLD.id;
    PERFORM embed_corpus_move_memory(OLD.project_id);
  ELSE
    PERFORM embed_corpus_move_memory(NEW.project_id);
  END IF;
  RETURN NULL;
END $$;
