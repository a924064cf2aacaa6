-- mnemo store schema, version 18: a file that only declares error and
-- annotation types (src/index/decl_only.h), for file ranking.
--
-- An exception module or an annotation holds the words issues use and no
-- behaviour of the project: retrieve/fusion.c weighs such a file as
-- documentation (docs/internals/retrieval.md). The indexer sets the flag
-- with the file's other rows (index rules 9 re-index every file once).
--
-- Never edit this file once released: add schema_v19.sql.
ALTER TABLE files ADD COLUMN decl_only INTEGER NOT NULL DEFAULT 0;
-- a search reads the few flagged files of its project, not the whole table
CREATE INDEX files_decl_only ON files(project_id) WHERE decl_only = 1;
