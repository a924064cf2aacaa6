-- mnemo PostgreSQL store schema, version 3, in two parts: (1) a memory id
-- is unique per project, not per store; (2) the full-text postings' positions
-- read from an index, and the postings table vacuumed as it grows.
--
-- Never edit a released version: add schema_v4.sql.
--
-- (1) A memory id is unique per project, not per store (issue 24,
-- "Access": a token of project A learns nothing of project B; SQLite
-- schema v16).
--
-- memories.uid was UNIQUE over the whole database, so an import into
-- project A of project B's export skipped every memory (its ids were
-- taken), and a save, import or link naming an id of B answered otherwise
-- than for an id that exists nowhere: an existence oracle across projects.
-- The key is now (project_id, uid); every lookup by uid in src/store/
-- names the project. No row changes: a constraint swaps for a wider one
-- (every pair is unique already, as every uid was), in the one transaction
-- the migrations run in. memories_uid_prefix (project_id, uid COLLATE "C")
-- stays for the prefix lookups, which need byte order; this key's index,
-- in the default collation, serves the lookups by whole id.

ALTER TABLE memories DROP CONSTRAINT memories_uid_key;
ALTER TABLE memories ADD CONSTRAINT memories_project_uid_key UNIQUE (project_id, uid);

-- (2) The positions of the
-- full-text postings read from an index, not from the table's pages.
--
-- A phrase of several terms (an identifier's parts, "retry backoff") is
-- matched on its terms' positions. fts_postings' primary key holds
-- everything else of a posting, so terms without a phrase are read by an
-- index-only scan; a term's positions were read from the heap, where the
-- postings lie in the order they were written (a row's together), so every
-- posting of the term was a page of its own: 13,385 postings of two terms
-- were 10,213 pages read and 65 ms at 10,000 memories. Here the positions
-- ride in an index in (term, rowid) order: the same postings are a few
-- hundred consecutive leaf pages.
--
-- A b-tree entry must stay under a third of a page (2,704 bytes): the index
-- holds the postings of at most 256 positions (1 KB of them), which is all
-- but a few; the longer ones have an index of their own without the
-- positions (their pages are read, as before). pg_fts.c's fetch names the
-- same predicates, so the planner uses these indexes.

CREATE INDEX fts_postings_pos ON fts_postings (project_id, tbl, term, rowid, field)
  INCLUDE (tf, ntok, flags, pos) WHERE cardinality(pos) <= 256;
CREATE INDEX fts_postings_longpos ON fts_postings (project_id, tbl, term, rowid, field)
  WHERE cardinality(pos) > 256;

-- Index-only scans read a posting from the index alone only where the
-- visibility map marks its table page all-visible, which VACUUM does. The
-- default vacuums an insert-only table after 20% more rows: 10M postings
-- (100k memories) left their newest 2M on unmarked pages, and the newest
-- rows are the ones a search reads first (retrieve/lexical.c's newest
-- share): every posting a heap page again, 36,909 of them 25,000 pages and
-- 300 ms. Vacuumed after each 50,000 new postings (about 500 memories)
-- instead: a vacuum of an insert-only table reads only the unmarked pages.
ALTER TABLE fts_postings SET (autovacuum_vacuum_insert_scale_factor = 0,
                              autovacuum_vacuum_insert_threshold = 50000);
