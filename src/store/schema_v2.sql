-- mnemo store schema, version 2: an index on chunks(symbol_id).
-- chunks.symbol_id references symbols(id) ON DELETE CASCADE, so with
-- foreign keys on, deleting a symbol makes SQLite look for its chunks; with
-- no index that is a scan of the whole chunks table per symbol. Replacing
-- one file of sympy/sympy (its ~150 symbols) took 2 s that way, 1 ms with
-- the index (bench/bench_index.c). Never edit this file once released: add
-- schema_v3.sql.

CREATE INDEX chunks_symbol ON chunks(symbol_id);
