/*
 * shared.c - what every store back end computes the same way, with no
 * store: the exact-duplicate key of a memory, which audit actions are
 * reads, the key a reference is looked up by (store.h, store_index.h).
 *
 * They decide what is stored (a content hash, a ref key column) or how
 * rows are pruned, so the SQLite and PostgreSQL back ends must agree on
 * them byte for byte: one copy here.
 */
#include "common.h"
#include <xxhash.h>

#include "store/store.h"
#include "store/store_index.h"

/* ---- memories ---- */

static void content_hash(char out[17], const char *kind, const char *title, const char *body)
{
    /* Exact-duplicate key: kind + title + body, lower-cased (ASCII) with
     * runs of white space folded to one space and leading and trailing
     * white space dropped, so trivial re-wordings of spacing or case (or a
     * body read from a file with its final newline) hit the same memory.
     * The normalized bytes go through a small buffer
     * so xxh3 is fed in blocks, not one call per byte (the digest of a
     * stream does not depend on how it is cut). */
    XXH3_state_t *h = XXH3_createState();
    char chunk[512];
    size_t n = 0;
    XXH3_64bits_reset(h);
    const char *parts[] = {kind, title, body};
    for (size_t p = 0; p < 3; p++) {
        bool start = true, space = false;
        for (const char *c = parts[p] ? parts[p] : ""; *c; c++) {
            char ch = *c;
            if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
                space = !start; /* written before the next word, so never at the end */
                continue;
            }
            start = false;
            if (ch >= 'A' && ch <= 'Z')
                ch = (char)(ch - 'A' + 'a');
            if (n + 2 > sizeof(chunk)) {
                XXH3_64bits_update(h, chunk, n);
                n = 0;
            }
            if (space)
                chunk[n++] = ' ';
            space = false;
            chunk[n++] = ch;
        }
        if (n == sizeof(chunk)) {
            XXH3_64bits_update(h, chunk, n);
            n = 0;
        }
        chunk[n++] = '\x1f';
    }
    XXH3_64bits_update(h, chunk, n);
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits_digest(h));
    XXH3_freeState(h);
}

void mn_store_content_hash(char out[17], const json_t *mem)
{
    content_hash(out, json_string_value(json_object_get(mem, "kind")),
                 json_string_value(json_object_get(mem, "title")),
                 json_string_value(json_object_get(mem, "body")));
}

/* ---- audit ---- */

bool mn_store_audit_is_read(const char *action)
{
    /* MN_STORE_READ_ACTIONS, as C strings */
    static const char *const reads[] = {"context",  "recall",  "search", "search_code",
                                        "resource", "get",     "list",   "plan_files",
                                        "chain",    "open_doc"};
    for (size_t i = 0; action && i < MN_ARRAY_SIZE(reads); i++)
        if (strcmp(action, reads[i]) == 0)
            return true;
    return false;
}

/* ---- code index ---- */

const char *mn_store_ref_key(const char *name)
{
    const char *k = strrchr(name, '.');
    k = k ? k + 1 : name;
    for (const char *c = strstr(k, "::"); c; c = strstr(k, "::"))
        k = c + 2;
    return k;
}
