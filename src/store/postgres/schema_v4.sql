-- mnemo PostgreSQL store schema, version 4: full-text postings kept in
-- compact blocks (issue 24: memory search p95 <= 30 ms at 100k memories).
--
-- Never edit a released version: add schema_v5.sql.
--
-- A posting a row (fts_postings) made a search read every posting of its
-- terms one index tuple at a time: a question of common words over the
-- newest fifth of 100k memories was 101,092 tuples, 60-130 ms of index-only
-- scan before one row reached the client, and 160 ms with the rows sent.
-- Here a term's postings live in blocks of up to 128 rows each (fts_blocks,
-- pg_blocks.c): the rows' ids delta-encoded with, per field, the term
-- frequency and the positions (varints), so those postings are some 800
-- rows of about a kilobyte, decoded in C.
--
-- fts_postings stays, as the blocks' tail (an LSM's first level): a write
-- inserts its postings there, as before, and fts_stats.tail counts them;
-- when the tail of a project's table passes a bound (MN_PG_FOLD_AT, pg_blocks.h)
-- the writer folds it into the blocks in its own transaction, under its
-- project's lock. A search reads the blocks and the tail. Deleting a row
-- rewrites the blocks holding it. A row's postings of one term are in the
-- tail or in one block, never in both.
--
-- A block: its term, the lowest and highest row id it holds (first, last;
-- the blocks of a term never overlap, so the one holding a row id is the
-- first whose last is at least that id), its rows (ndocs), its bytes. A
-- kilobyte stays in the heap page (under TOAST's 2 KB); EXTERNAL keeps a
-- larger one uncompressed (pglz would cost more than it saves on varints).
--
-- The stores of earlier versions keep their postings in the tail; the
-- first writable open folds them (mn_pg__blocks_check), as it reindexes
-- under a new tokenizer.

CREATE TABLE fts_blocks (
  project_id BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  tbl        SMALLINT NOT NULL,
  term       TEXT COLLATE "C" NOT NULL,
  last       BIGINT NOT NULL,
  first      BIGINT NOT NULL,
  ndocs      INTEGER NOT NULL,
  data       BYTEA NOT NULL,
  PRIMARY KEY (project_id, tbl, term, last)
);
ALTER TABLE fts_blocks ALTER COLUMN data SET STORAGE EXTERNAL;

ALTER TABLE fts_stats ADD COLUMN tail BIGINT NOT NULL DEFAULT 0;
-- every write of a table's rows adds one: a search's cached cuts (pg_search.c
-- table_size) are kept while it stays, as the rows' ranks stay then.
ALTER TABLE fts_stats ADD COLUMN gen BIGINT NOT NULL DEFAULT 0;
UPDATE fts_stats s SET tail = (SELECT count(*) FROM fts_postings p
                               WHERE p.project_id = s.project_id AND p.tbl = s.tbl);
