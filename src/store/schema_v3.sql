-- mnemo store schema, version 3: full-text search over memories and code
-- chunks (retrieval, issue 4). Never edit this file once released: add
-- schema_v4.sql.
--
-- Three FTS5 tables, all tokenized by "mnemo" (src/store/sqlite/fts_tokenizer.c:
-- Unicode folding, code-aware splitting that keeps whole identifiers as
-- colocated tokens, stemming, stop words), which every connection registers
-- before the migrations run:
--
--   memories_fts(title, keywords, body, context)
--     keywords = trigger_keywords + tags; context = situation, solution,
--     what_failed, error_messages, files_modified, scope paths and symbols.
--   chunks_fts(path, names, signature, doc, body)
--     path of the chunk's file; names = symbol name + qualified name;
--     signature and docstring of the symbol; body = the chunk's text.
--   files_fts(path): the paths of the indexed files.
--
-- Why external content (content=<view>) and not a regular FTS5 table: a
-- regular table keeps its own copy of every indexed text, and chunk text is
-- already most of a store (60% of sympy's 68 MB); with external content the
-- index is the only extra. Why not contentless: snippets need the text.
-- The content is a view because the indexed columns are assembled from
-- several tables (files, symbols) and JSON lists; each view is the one
-- definition of what is indexed, used by the triggers, by 'rebuild' and by
-- snippet().
--
-- The price of external content: removing a row from the index needs the
-- values it was indexed with. So every removal reads the view BEFORE the
-- row changes (BEFORE UPDATE / BEFORE DELETE triggers), and nothing a chunk's
-- indexed values depend on may vanish first: deleting a file or a symbol
-- deletes its chunks first (BEFORE DELETE triggers below), so the foreign
-- key cascades find nothing left, and renaming a file or changing a symbol
-- re-indexes its chunks. Inserts read the view AFTER the row is written.
-- Nothing in C keeps these tables in sync; the triggers do.
--
-- Forgotten memories (deleted_at set) leave the index (the view leaves them
-- out): nothing may serve them. Every other status stays indexed and
-- search filters on status, so a search for archived or superseded
-- memories still works and a status change costs no re-indexing.
--
-- JSON lists are flattened element by element with json_extract over a
-- recursive counter, not json_each: FTS5 reads its content with
-- SQLITE_PREPARE_NO_VTAB, and json_each is a virtual table ('rebuild' fails
-- with "SQL logic error"). A column that is not valid JSON is indexed as
-- its raw text instead of failing the write.

CREATE VIEW memories_fts_src AS
SELECT m.id AS id,
       m.title AS title,
       trim(coalesce(CASE WHEN json_valid(m.trigger_keywords) THEN (SELECT group_concat(json_extract(m.trigger_keywords, '$[' || n || ']'), ' ')
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.trigger_keywords)) SELECT n FROM i))
               ELSE m.trigger_keywords END, '') || ' ' ||
            coalesce(CASE WHEN json_valid(m.tags) THEN (SELECT group_concat(json_extract(m.tags, '$[' || n || ']'), ' ')
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.tags)) SELECT n FROM i))
               ELSE m.tags END, '')) AS keywords,
       m.body AS body,
       trim(coalesce(m.situation || char(10), '') ||
            coalesce(m.solution || char(10), '') ||
            coalesce(m.what_failed || char(10), '') ||
            coalesce(CASE WHEN json_valid(m.error_messages) THEN (SELECT group_concat(json_extract(m.error_messages, '$[' || n || ']'), char(10))
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.error_messages)) SELECT n FROM i))
               ELSE m.error_messages END, '') || char(10) ||
            coalesce(CASE WHEN json_valid(m.files_modified) THEN (SELECT group_concat(json_extract(m.files_modified, '$[' || n || ']'), ' ')
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.files_modified)) SELECT n FROM i))
               ELSE m.files_modified END, '') || char(10) ||
            coalesce(CASE WHEN json_valid(m.scope_paths) THEN (SELECT group_concat(json_extract(m.scope_paths, '$[' || n || ']'), ' ')
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.scope_paths)) SELECT n FROM i))
               ELSE m.scope_paths END, '') || char(10) ||
            coalesce(CASE WHEN json_valid(m.scope_symbols) THEN (SELECT group_concat(json_extract(m.scope_symbols, '$[' || n || ']'), ' ')
                 FROM (WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i
                       WHERE n + 1 < json_array_length(m.scope_symbols)) SELECT n FROM i))
               ELSE m.scope_symbols END, ''), char(32, 10)) AS context
FROM memories m
WHERE m.deleted_at IS NULL;

CREATE VIRTUAL TABLE memories_fts USING fts5(
  title, keywords, body, context,
  content = 'memories_fts_src', content_rowid = 'id',
  tokenize = 'mnemo'
);

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts(rowid, title, keywords, body, context)
    SELECT id, title, keywords, body, context FROM memories_fts_src WHERE id = new.id;
END;

CREATE TRIGGER memories_fts_delete BEFORE DELETE ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, title, keywords, body, context)
    SELECT 'delete', id, title, keywords, body, context FROM memories_fts_src WHERE id = old.id;
END;

-- Only a change of what is indexed re-indexes: counters, access times and
-- status changes (feedback, every search) leave the index alone.
CREATE TRIGGER memories_fts_update_old BEFORE UPDATE ON memories
WHEN old.title IS NOT new.title OR old.body IS NOT new.body
  OR old.situation IS NOT new.situation OR old.solution IS NOT new.solution
  OR old.trigger_keywords IS NOT new.trigger_keywords OR old.what_failed IS NOT new.what_failed
  OR old.error_messages IS NOT new.error_messages OR old.files_modified IS NOT new.files_modified
  OR old.scope_paths IS NOT new.scope_paths OR old.scope_symbols IS NOT new.scope_symbols
  OR old.tags IS NOT new.tags OR old.deleted_at IS NOT new.deleted_at OR old.id IS NOT new.id
BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, title, keywords, body, context)
    SELECT 'delete', id, title, keywords, body, context FROM memories_fts_src WHERE id = old.id;
END;

CREATE TRIGGER memories_fts_update_new AFTER UPDATE ON memories
WHEN old.title IS NOT new.title OR old.body IS NOT new.body
  OR old.situation IS NOT new.situation OR old.solution IS NOT new.solution
  OR old.trigger_keywords IS NOT new.trigger_keywords OR old.what_failed IS NOT new.what_failed
  OR old.error_messages IS NOT new.error_messages OR old.files_modified IS NOT new.files_modified
  OR old.scope_paths IS NOT new.scope_paths OR old.scope_symbols IS NOT new.scope_symbols
  OR old.tags IS NOT new.tags OR old.deleted_at IS NOT new.deleted_at OR old.id IS NOT new.id
BEGIN
  INSERT INTO memories_fts(rowid, title, keywords, body, context)
    SELECT id, title, keywords, body, context FROM memories_fts_src WHERE id = new.id;
END;

CREATE VIEW chunks_fts_src AS
SELECT c.id AS id,
       f.path AS path,
       CASE WHEN y.id IS NULL THEN NULL
            WHEN y.qualified_name = y.name THEN y.name
            ELSE y.name || ' ' || y.qualified_name END AS names,
       y.signature AS signature,
       y.docstring AS doc,
       c.text AS body
FROM chunks c
LEFT JOIN files f ON f.id = c.file_id
LEFT JOIN symbols y ON y.id = c.symbol_id;

CREATE VIRTUAL TABLE chunks_fts USING fts5(
  path, names, signature, doc, body,
  content = 'chunks_fts_src', content_rowid = 'id',
  tokenize = 'mnemo'
);

CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, path, names, signature, doc, body)
    SELECT id, path, names, signature, doc, body FROM chunks_fts_src WHERE id = new.id;
END;

CREATE TRIGGER chunks_fts_delete BEFORE DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, path, names, signature, doc, body)
    SELECT 'delete', id, path, names, signature, doc, body FROM chunks_fts_src WHERE id = old.id;
END;

CREATE TRIGGER chunks_fts_update_old BEFORE UPDATE ON chunks
WHEN old.text IS NOT new.text OR old.file_id IS NOT new.file_id
  OR old.symbol_id IS NOT new.symbol_id OR old.id IS NOT new.id
BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, path, names, signature, doc, body)
    SELECT 'delete', id, path, names, signature, doc, body FROM chunks_fts_src WHERE id = old.id;
END;

CREATE TRIGGER chunks_fts_update_new AFTER UPDATE ON chunks
WHEN old.text IS NOT new.text OR old.file_id IS NOT new.file_id
  OR old.symbol_id IS NOT new.symbol_id OR old.id IS NOT new.id
BEGIN
  INSERT INTO chunks_fts(rowid, path, names, signature, doc, body)
    SELECT id, path, names, signature, doc, body FROM chunks_fts_src WHERE id = new.id;
END;

-- A chunk's indexed values come from its file and symbol: take the chunks
-- out before either goes (the cascades would run after the parent row is
-- gone, when the view can no longer give the values to remove).
CREATE TRIGGER chunks_fts_file_delete BEFORE DELETE ON files BEGIN
  DELETE FROM chunks WHERE file_id = old.id;
END;

CREATE TRIGGER chunks_fts_symbol_delete BEFORE DELETE ON symbols BEGIN
  DELETE FROM chunks WHERE symbol_id = old.id;
END;

CREATE TRIGGER chunks_fts_file_update_old BEFORE UPDATE OF path ON files
WHEN old.path IS NOT new.path BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, path, names, signature, doc, body)
    SELECT 'delete', s.id, s.path, s.names, s.signature, s.doc, s.body
    FROM chunks c JOIN chunks_fts_src s ON s.id = c.id WHERE c.file_id = old.id;
END;

CREATE TRIGGER chunks_fts_file_update_new AFTER UPDATE OF path ON files
WHEN old.path IS NOT new.path BEGIN
  INSERT INTO chunks_fts(rowid, path, names, signature, doc, body)
    SELECT s.id, s.path, s.names, s.signature, s.doc, s.body
    FROM chunks c JOIN chunks_fts_src s ON s.id = c.id WHERE c.file_id = new.id;
END;

CREATE TRIGGER chunks_fts_symbol_update_old BEFORE UPDATE OF name, qualified_name, signature,
  docstring ON symbols
WHEN old.name IS NOT new.name OR old.qualified_name IS NOT new.qualified_name
  OR old.signature IS NOT new.signature OR old.docstring IS NOT new.docstring BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, path, names, signature, doc, body)
    SELECT 'delete', s.id, s.path, s.names, s.signature, s.doc, s.body
    FROM chunks c JOIN chunks_fts_src s ON s.id = c.id WHERE c.symbol_id = old.id;
END;

CREATE TRIGGER chunks_fts_symbol_update_new AFTER UPDATE OF name, qualified_name, signature,
  docstring ON symbols
WHEN old.name IS NOT new.name OR old.qualified_name IS NOT new.qualified_name
  OR old.signature IS NOT new.signature OR old.docstring IS NOT new.docstring BEGIN
  INSERT INTO chunks_fts(rowid, path, names, signature, doc, body)
    SELECT s.id, s.path, s.names, s.signature, s.doc, s.body
    FROM chunks c JOIN chunks_fts_src s ON s.id = c.id WHERE c.symbol_id = new.id;
END;

-- File paths, for the files a question names by a word of their path
-- (blueprint -> src/flask/blueprints.py). External content on files
-- itself: a path never depends on another table, so the old values the
-- removal needs are the row's own.
CREATE VIRTUAL TABLE files_fts USING fts5(
  path,
  content = 'files', content_rowid = 'id',
  tokenize = 'mnemo'
);

CREATE TRIGGER files_fts_insert AFTER INSERT ON files BEGIN
  INSERT INTO files_fts(rowid, path) VALUES (new.id, new.path);
END;

CREATE TRIGGER files_fts_delete AFTER DELETE ON files BEGIN
  INSERT INTO files_fts(files_fts, rowid, path) VALUES ('delete', old.id, old.path);
END;

CREATE TRIGGER files_fts_update AFTER UPDATE OF path ON files
WHEN old.path IS NOT new.path BEGIN
  INSERT INTO files_fts(files_fts, rowid, path) VALUES ('delete', old.id, old.path);
  INSERT INTO files_fts(rowid, path) VALUES (new.id, new.path);
END;

-- Document frequencies of the chunks' terms (how many chunks hold a
-- term): how specific a name the query mentions is. A view over the FTS5
-- index, nothing stored.
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');

-- What search serves is recorded (served) so feedback can name it; feedback
-- rows are looked up by the answer they rate (deleting a served row sets
-- theirs to NULL, which without an index is a scan of feedback).
CREATE INDEX feedback_served ON feedback(served_id);
-- Memories linked `about` a file or symbol come along with it.
CREATE INDEX links_ref ON links(dst_ref, kind);
CREATE INDEX served_ts ON served(project_id, ts);

-- Existing rows.
INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');
INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');
INSERT INTO files_fts(files_fts) VALUES ('rebuild');
