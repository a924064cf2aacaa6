-- mnemo store schema, version 14: the names a file declares for its users
-- (issue 22; src/index/options.c): command-line options as typed ("--tb",
-- "-x"), environment variables it reads ("PYTEST_ADDOPTS") and config keys
-- it declares ("testpaths"). Kept apart from symbols: they are no
-- definitions of the code (no span, no chunk, no calls into them, no rank),
-- and every reader of symbols (resolution, PageRank, outlines, `graph`)
-- would have to learn to skip them. Replaced with the file's other rows.
-- Never edit this file once released: add schema_v15.sql.
CREATE TABLE declared_names (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  line    INTEGER NOT NULL,
  kind    TEXT NOT NULL CHECK (kind IN ('option', 'env', 'config')),
  name    TEXT NOT NULL
) STRICT;
CREATE INDEX declared_names_name ON declared_names(name);
CREATE INDEX declared_names_file ON declared_names(file_id);
