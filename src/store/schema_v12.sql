-- mnemo store schema, version 12: what the ingests read and what they
-- remember of it (issue 21; docs/internals/ingest.md). Never edit this file
-- once released: add schema_v13.sql.
--
-- git_commits: every commit `mnemo ingest git` (or the post-commit hook)
-- has read, one row per commit, claimed before its candidates are saved
-- and marked done after, so a second run or a concurrent hook never
-- extracts a commit twice. The message is stored scrubbed of secrets.
CREATE TABLE git_commits (
  id          INTEGER PRIMARY KEY,
  project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  sha         TEXT NOT NULL,
  parents     TEXT NOT NULL DEFAULT '',   -- full shas, space separated
  author      TEXT,
  time        INTEGER NOT NULL,           -- commit time, ms
  subject     TEXT NOT NULL DEFAULT '',
  body        TEXT,                       -- the rest of the message
  symbols     TEXT,                       -- JSON array of touched symbols (through the index)
  candidates  INTEGER NOT NULL DEFAULT 0,
  saved       INTEGER NOT NULL DEFAULT 0, -- saved active
  queued      INTEGER NOT NULL DEFAULT 0, -- saved pending (the review queue)
  state       TEXT NOT NULL CHECK (state IN ('claimed', 'done')),
  ingested_at INTEGER NOT NULL,
  UNIQUE (project_id, sha)
) STRICT;
CREATE INDEX git_commits_time ON git_commits(project_id, time);

-- The paths a commit touched (against its first parent), for "which commits
-- touched this file" without a walk of the history.
CREATE TABLE git_commit_files (
  commit_id INTEGER NOT NULL REFERENCES git_commits(id) ON DELETE CASCADE,
  path      TEXT NOT NULL,
  status    TEXT NOT NULL,                -- added modified deleted renamed
  PRIMARY KEY (commit_id, path)
) STRICT, WITHOUT ROWID;
CREATE INDEX git_commit_files_path ON git_commit_files(path);

-- What an ingest saved under a stable key ("git:<sha>:<kind>:<what>",
-- "doc:<path>#<section>", "capture:<session>:<hash>", "issue:<tracker>:<id>"),
-- so a re-run updates the memory in place or skips it instead of saving it
-- again under other words. source_hash: the hash of what the memory was made
-- from, to tell an unchanged source from a changed one.
CREATE TABLE ingest_keys (
  project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key         TEXT NOT NULL,
  memory_uid  TEXT NOT NULL,
  source_hash TEXT,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (project_id, key)
) STRICT;
CREATE INDEX ingest_keys_memory ON ingest_keys(memory_uid);

-- Tasks (schema v1) gain what issue exports carry.
ALTER TABLE tasks ADD COLUMN author TEXT;
ALTER TABLE tasks ADD COLUMN labels TEXT; -- JSON array
ALTER TABLE tasks ADD COLUMN closed_at INTEGER;

-- What a task is tied to, by the task's id as people write it ("#123",
-- "CS-214"), so a commit saying "Fixes #123" can be linked before the issue
-- itself is ingested. ref: a memory id, "commit:<sha>", "dialog:<id>".
CREATE TABLE task_links (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  task_key   TEXT NOT NULL,
  ref        TEXT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('fixes', 'mentions', 'relates_to')),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, task_key, ref)
) STRICT, WITHOUT ROWID;
CREATE INDEX task_links_ref ON task_links(ref);

-- Memories linked to a commit, an issue or a document, found from that end
-- (the memories a revert undid, the decisions behind a commit).
CREATE INDEX links_dst_ref ON links(dst_ref) WHERE dst_ref IS NOT NULL;

-- Documents (schema v1) gain the URL they were published at.
ALTER TABLE docs ADD COLUMN url TEXT;

-- Whether a memory's commit is an ancestor of a HEAD (branch filter,
-- retrieve/branch.c): computed once per (HEAD, commit), kept for the few
-- newest HEADs.
CREATE TABLE branch_ancestry (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  head       TEXT NOT NULL,
  sha        TEXT NOT NULL,
  merged     INTEGER NOT NULL,
  checked_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, head, sha)
) STRICT, WITHOUT ROWID;

-- Blame of a file's line range (retrieve/why.c), keyed by the blob the
-- file has at HEAD: valid as long as the file is unchanged.
CREATE TABLE blame_cache (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  path       TEXT NOT NULL,
  blob       TEXT NOT NULL,
  first_line INTEGER NOT NULL,
  last_line  INTEGER NOT NULL,
  hunks      TEXT NOT NULL,               -- JSON [{sha, start, lines}]
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, path, blob, first_line, last_line)
) STRICT, WITHOUT ROWID;
