-- mnemo PostgreSQL store schema, version 3: a memory id is unique per
-- project, not per store (issue 24, "Access": a token of project A learns
-- nothing of project B; SQLite schema v16). Never edit a released version:
-- add schema_v4.sql.
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
