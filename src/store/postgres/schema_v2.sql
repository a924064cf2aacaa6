-- mnemo PostgreSQL store schema, version 2: full-text search (pg_postings.c,
-- pg_search.c). SQLite's FTS5 tables (memories_fts, chunks_fts, files_fts,
-- history_fts) as postings in tables: the terms are computed in C by the
-- same tokenizer FTS5 runs (text/tokenize.h), never by a PostgreSQL
-- text-search configuration, so that both back ends find and rank alike.
--
-- tbl: 0 memories, 1 chunks, 2 files, 3 history (mn_fts_table, and
-- MN_PG_FTS_HISTORY). rowid: the indexed row's id (memories.id, ...).
-- field: the column of the FTS5 table (memories: title, keywords, body,
-- context). pos: FTS5's token positions in the field (a colocated token
-- shares the position of the one before it), tf their number. ntok: the
-- row's length in tokens over all fields (FTS5's docsize; colocated tokens
-- not counted) and flags (1: a memory whose title is the start of its
-- body) are copied into every posting of the row, so that ranking reads
-- the postings alone.

CREATE TABLE fts_postings (
  project_id BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  tbl        SMALLINT NOT NULL,
  term       TEXT COLLATE "C" NOT NULL,
  rowid      BIGINT NOT NULL,
  field      SMALLINT NOT NULL,
  tf         INTEGER NOT NULL,
  ntok       INTEGER NOT NULL,
  flags      SMALLINT NOT NULL,
  pos        INTEGER[] NOT NULL,
  PRIMARY KEY (project_id, tbl, term, rowid, field) INCLUDE (tf, ntok, flags)
);

-- One row per indexed row: its lengths per field, and its distinct terms
-- (to delete its postings by the primary key, without a second index).
CREATE TABLE fts_docs (
  project_id BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  tbl        SMALLINT NOT NULL,
  rowid      BIGINT NOT NULL,
  ntok       INTEGER NOT NULL,
  lens       INTEGER[] NOT NULL,
  flags      SMALLINT NOT NULL,
  terms      TEXT[] NOT NULL,
  PRIMARY KEY (project_id, tbl, rowid)
);

-- BM25's N and total length per project and table, moved in the same
-- transaction as the postings (UPDATE ... + n: concurrent writers queue on
-- the row, each adding to the value the one before committed): exact.
CREATE TABLE fts_stats (
  project_id BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  tbl        SMALLINT NOT NULL,
  ndocs      BIGINT NOT NULL,
  ntok       BIGINT NOT NULL,
  PRIMARY KEY (project_id, tbl)
);
