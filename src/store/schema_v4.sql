-- mnemo store schema, version 4: the key a reference is resolved by.
-- A call or base class is resolved by the last part of the name the code
-- wrote ("self.items.save" and "ns::save" -> "save"; index/resolve.c). An
-- incremental index looks again only at the references whose key names a
-- symbol that appeared or disappeared; without the key in a column with an
-- index, finding them was a scan of every unresolved edge (sympy/sympy:
-- 69,000 of them, most of a one-file re-index). Imports have no key: they
-- resolve by path. The backfill computes the key in SQL exactly as
-- mn_store_ref_key does in C: '::' counts as '.', then the text after the
-- last '.' (rtrim with every other character of the name strips what
-- follows that dot). Never edit this file once released: add schema_v5.sql.

ALTER TABLE edges ADD COLUMN dst_key TEXT;
UPDATE edges SET dst_key =
  substr(replace(dst_name, '::', '.'),
         length(rtrim(replace(dst_name, '::', '.'),
                      replace(replace(dst_name, '::', '.'), '.', ''))) + 1)
WHERE kind <> 'import' AND dst_name IS NOT NULL;
CREATE INDEX edges_key ON edges(dst_key) WHERE dst_key IS NOT NULL;
