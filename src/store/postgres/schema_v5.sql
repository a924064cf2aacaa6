-- mnemo PostgreSQL store schema, version 5: a file that only declares error
-- and annotation types (src/index/decl_only.h; the SQLite schema's v18).
--
-- Never edit a released version: add schema_v6.sql.
ALTER TABLE files ADD COLUMN decl_only BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX files_decl_only ON files(project_id) WHERE decl_only;
