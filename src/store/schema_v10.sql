-- mnemo store schema, version 10: the life cycle of a memory (issue 20):
-- citations checked against the code, expiry (docs/internals/memory.md,
-- "Life cycle"). Never edit this file once released: add schema_v11.sql.
--
-- Citations (schema v1: path, symbol, lines, content_hash, stale,
-- checked_at) gain:
--   text   the cited span's text when it was cited or last revalidated,
--          taken from the index's chunks (already scrubbed of secrets
--          when indexed), at most 16 KB: what `mnemo stale` diffs against
--          today's code. NULL for a citation of a whole file.
--   dirty  1 when the cited file changed since the citation was checked:
--          the index run's check (memory/citations.c) looks at these and
--          only these, through the partial index below, and clears them.
--   stale  (v1) now 0 fresh, 1 the span changed, 2 it is gone.
-- The triggers mark a citation dirty whenever the file at its path is
-- replaced with other content, removed or added: an index run that
-- touches no cited file costs the check one index probe.
--
-- memories.saved_at: when this store took the memory in (a save or an
-- import), set by the store; never exported. A kind's time to live
-- (config memory.ttl.<kind>) counts from the last of saved_at,
-- updated_at and accessed_at: a chat log saved today with last year's
-- created_at is not expired on arrival. Existing rows start the clock at
-- this migration: an upgrade expires nothing at once.

ALTER TABLE citations ADD COLUMN text TEXT;
ALTER TABLE citations ADD COLUMN dirty INTEGER NOT NULL DEFAULT 0;
CREATE INDEX citations_path ON citations(path);
CREATE INDEX citations_dirty ON citations(memory_id) WHERE dirty <> 0;
CREATE INDEX citations_stale ON citations(memory_id) WHERE stale <> 0;

ALTER TABLE memories ADD COLUMN saved_at INTEGER;
UPDATE memories SET saved_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER);

CREATE TRIGGER citations_file_changed AFTER UPDATE OF content_hash ON files
WHEN old.content_hash IS NOT new.content_hash BEGIN
  UPDATE citations SET dirty = 1 WHERE path = old.path AND dirty = 0;
END;

CREATE TRIGGER citations_file_removed AFTER DELETE ON files BEGIN
  UPDATE citations SET dirty = 1 WHERE path = old.path AND dirty = 0;
END;

CREATE TRIGGER citations_file_added AFTER INSERT ON files BEGIN
  UPDATE citations SET dirty = 1 WHERE path = new.path AND dirty = 0;
END;

-- Already checked citations of stores made before: their files may have
-- changed since, unseen; the first index run after the upgrade checks them.
UPDATE citations SET dirty = 1 WHERE content_hash IS NOT NULL OR symbol IS NOT NULL;
