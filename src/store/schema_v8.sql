-- mnemo store schema, version 8: the agent session an answer was served
-- in, and feedback that names it (docs/internals/retrieval.md, "Feedback").
-- Never edit this file once released: add schema_v9.sql.
--
-- served.session: the agent session that asked (Claude Code's session_id,
-- which the hooks pass to context): the overview is given once per
-- session, and the files the agent reads or edits afterwards mark what was
-- served in it used. served.settled_at: when the session's Stop counted
-- the answer's untouched items as ignored (ms; NULL: not yet).
ALTER TABLE served ADD COLUMN session TEXT;
ALTER TABLE served ADD COLUMN settled_at INTEGER;
CREATE INDEX served_session ON served(project_id, session) WHERE session IS NOT NULL;

-- feedback.session: the session of implicit feedback (hooks); NULL for a
-- person's or an agent's explicit feedback. feedback.query: for refined,
-- the query that replaced the served answer's.
ALTER TABLE feedback ADD COLUMN session TEXT;
ALTER TABLE feedback ADD COLUMN query TEXT;
