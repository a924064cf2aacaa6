-- mnemo store schema, version 7: the repository's history, a signal for
-- ranking files (docs/internals/index.md "History", retrieval.md). Never
-- edit this file once released: add schema_v8.sql.
--
-- index/history.c reads the commits reachable from HEAD, newest first,
-- merges and commits of more than 50 files left out, at most 5,000 of them
-- kept per project: each commit's subject line and the paths it changed
-- (against its first parent). history_state remembers the head the last
-- read stopped at, so the next index reads only the commits after it.
CREATE TABLE history_commits (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  hash       TEXT NOT NULL,
  time       INTEGER NOT NULL,
  subject    TEXT NOT NULL,
  UNIQUE (project_id, hash)
) STRICT;

CREATE TABLE history_files (
  commit_id INTEGER NOT NULL REFERENCES history_commits(id) ON DELETE CASCADE,
  path      TEXT NOT NULL,
  PRIMARY KEY (commit_id, path)
) STRICT, WITHOUT ROWID;

CREATE TABLE history_state (
  project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  head       TEXT NOT NULL
) STRICT;

-- One document per path: the subjects of the commits that changed it, one
-- a line. Rebuilt from the two tables above after each read (a few
-- thousand rows); search ranks them with bm25() (retrieve/history_signal.c).
CREATE TABLE history_docs (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  path       TEXT NOT NULL,
  subjects   TEXT NOT NULL,
  UNIQUE (project_id, path)
) STRICT;

CREATE VIRTUAL TABLE history_fts USING fts5(
  subjects,
  content = 'history_docs', content_rowid = 'id',
  tokenize = 'mnemo'
);

CREATE TRIGGER history_fts_insert AFTER INSERT ON history_docs BEGIN
  INSERT INTO history_fts(rowid, subjects) VALUES (new.id, new.subjects);
END;

CREATE TRIGGER history_fts_delete AFTER DELETE ON history_docs BEGIN
  INSERT INTO history_fts(history_fts, rowid, subjects) VALUES ('delete', old.id, old.subjects);
END;
