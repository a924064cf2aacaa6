/*
 * memory_fp.c - the text a memory's near-duplicate fingerprint is made of
 * (store.h), the same for every back end.
 *
 * Title, body, situation, solution and what failed: what a memory says.
 * Keywords, tags, paths and provenance are left out: two wordings of one
 * fact differ there most, and a shared tag says nothing of sameness.
 */
#include "common.h"

#include "store/store.h"

void mn_memory_fingerprint_text(mn_buf *out, const json_t *mem)
{
    static const char *const top[] = {"title", "body"};
    static const char *const ctx[] = {"situation", "solution", "what_failed"};
    const json_t *c = json_object_get(mem, "context");
    for (size_t i = 0; i < MN_ARRAY_SIZE(top); i++) {
        const json_t *v = json_object_get(mem, top[i]);
        if (json_string_length(v))
            mn_buf_printf(out, "%s%s", out->len ? "\n" : "", json_string_value(v));
    }
    for (size_t i = 0; i < MN_ARRAY_SIZE(ctx); i++) {
        const json_t *v = json_object_get(c, ctx[i]);
        if (json_string_length(v))
            mn_buf_printf(out, "%s%s", out->len ? "\n" : "", json_string_value(v));
    }
}
