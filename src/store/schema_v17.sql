-- mnemo store schema, version 17: writing vectors moves their model's epoch
-- once per transaction, not once per row.
--
-- The epoch (schema v5) names a model's vector set for the caches that hold
-- it (vector_cache.c in memory, vector_file.c on disk): a set is reused while
-- its epoch has not moved, so every committed change of a model's vectors
-- must move it. The trigger vectors_epoch_insert moved it once per inserted
-- row: an UPDATE of embed_models for each vector, 45,000 of them when the
-- built-in model embeds sympy's chunks after training, ~0.13 s of the
-- training's serial time. vector_put (src/store/sqlite/vector_store.c) now
-- moves it itself, at the first vector of a model in each transaction; no
-- other statement inserts into vectors. Updates and deletes keep their
-- triggers (a delete of vectors comes from a row's own delete trigger).
--
-- Never edit this file once released: add schema_v18.sql.

DROP TRIGGER vectors_epoch_insert;
