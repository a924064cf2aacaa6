-- mnemo store schema, version 9: what the save pipeline learns of a memory
-- (docs/internals/memory.md, "The save pipeline"). Never edit this file once
-- released: add the next version.
--
-- memories.extraction_method: how its text came to be: manual (a person
-- wrote it), agent (an agent wrote it), auto (extracted from git, documents,
-- issues or conversations without a model), hybrid (extracted, then edited
-- or completed). NULL in memories saved before this version.
-- memories.judgement: the judge's score and reasons (JSON object:
-- {"score", "novelty", "specificity", "evidence", "length", "reasons"}).
ALTER TABLE memories ADD COLUMN extraction_method TEXT
  CHECK (extraction_method IN ('manual','agent','auto','hybrid'));
ALTER TABLE memories ADD COLUMN judgement TEXT;

-- Near-duplicates (text/neardup.h): each memory's fingerprint (the
-- mn_fingerprint struct, byte for byte, of its title, body, situation,
-- solution and what failed), and its LSH keys: a save looks up the memories
-- sharing a key with it. The store fills both on every insert and update;
-- meta 'fingerprint_version' says which MN_FINGERPRINT_VERSION made them, and
-- an older one is recomputed when the store is opened (migrate.c).
CREATE TABLE memory_fingerprints (
  memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
  fp        BLOB NOT NULL
) STRICT;

CREATE TABLE memory_keys (
  key       INTEGER NOT NULL,
  memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  PRIMARY KEY (key, memory_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX memory_keys_memory ON memory_keys(memory_id);
