/*
 * fields.c - the memory field table; see fields.h.
 */
#include "common.h"
#include "store/fields.h"
#include "store/store.h"

const mn_field mn_memory_fields[] = {
    {NULL, "kind", "kind", MN_F_TEXT},
    {NULL, "level", "level", MN_F_LEVEL},
    {NULL, "title", "title", MN_F_TEXT},
    {NULL, "body", "body", MN_F_TEXT},
    {"context", "situation", "situation", MN_F_TEXT},
    {"context", "solution", "solution", MN_F_TEXT},
    {"context", "trigger_keywords", "trigger_keywords", MN_F_STRV},
    {"context", "what_failed", "what_failed", MN_F_TEXT},
    {"context", "error_messages", "error_messages", MN_F_STRV},
    {"context", "files_modified", "files_modified", MN_F_STRV},
    {"context", "conversation_excerpt", "excerpt", MN_F_EXCERPT},
    {"scope", "paths", "scope_paths", MN_F_STRV},
    {"scope", "symbols", "scope_symbols", MN_F_STRV},
    {"scope", "tags", "tags", MN_F_STRV},
    {"scope", "branch", "branch", MN_F_TEXT},
    {"provenance", "source", "source", MN_F_TEXT},
    {"provenance", "author", "author", MN_F_TEXT},
    {"provenance", "commit", "commit_sha", MN_F_TEXT},
    {"provenance", "task", "task_ref", MN_F_TEXT},
    {"provenance", "dialog", "dialog_ref", MN_F_TEXT},
    {"provenance", "session", "session_ref", MN_F_TEXT},
    {"provenance", "extraction_method", "extraction_method", MN_F_TEXT},
    {NULL, "status", "status", MN_F_TEXT},
    {NULL, "confidence", "confidence", MN_F_REAL},
    {NULL, "quality", "quality", MN_F_REAL},
    {NULL, "judgement", "judgement", MN_F_OBJECT},
    {NULL, "expires_at", "expires_at", MN_F_TIME},
    {NULL, "created_at", "created_at", MN_F_TIME},
    {NULL, "updated_at", "updated_at", MN_F_TIME},
    {NULL, "accessed_at", "accessed_at", MN_F_TIME},
    {NULL, "deleted_at", "deleted_at", MN_F_TIME},
    {"counters", "hits", "hit_count", MN_F_COUNT},
    {"counters", "used", "used_count", MN_F_COUNT},
    {"counters", "ignored", "ignored_count", MN_F_COUNT},
};

const size_t mn_memory_field_count = MN_ARRAY_SIZE(mn_memory_fields);

/* the order of the kind enum of the schemas, and of mn_expiry.kind_ttl_ms */
const char *const mn_memory_kinds[MN_MEMORY_KINDS] = {"fact", "decision", "gotcha",  "pattern",
                                                      "rule", "fewshot",  "episode", "doc_link"};

json_t *mn_field_get(const json_t *mem, const mn_field *f)
{
    const json_t *parent = f->group ? json_object_get(mem, f->group) : mem;
    return json_is_object(parent) ? json_object_get(parent, f->key) : NULL;
}

void mn_field_set(json_t *mem, const mn_field *f, json_t *value)
{
    json_t *parent = mem;
    if (f->group) {
        parent = json_object_get(mem, f->group);
        if (!parent) {
            parent = json_object();
            json_object_set_new(mem, f->group, parent);
        }
    }
    json_object_set_new(parent, f->key, value);
}

void mn_field_sql_build(mn_field_sql *out, char mark)
{
    int n = 1;
    mn_buf_init(&out->cols);
    mn_buf_init(&out->vals);
    mn_buf_init(&out->sets);
    for (size_t i = 0; i < mn_memory_field_count; i++) {
        const mn_field *f = &mn_memory_fields[i];
        mn_buf_printf(&out->cols, "%s, ", f->column);
        mn_buf_printf(&out->vals, "%c%d, ", mark, n);
        mn_buf_printf(&out->sets, "%s = %c%d, ", f->column, mark, n);
        n++;
        if (f->type == MN_F_EXCERPT) { /* its length beside it: the inflated size */
            mn_buf_puts(&out->cols, "excerpt_len, ");
            mn_buf_printf(&out->vals, "%c%d, ", mark, n);
            mn_buf_printf(&out->sets, "excerpt_len = %c%d, ", mark, n);
            n++;
        }
    }
    out->params = n - 1;
}

void mn_field_sql_release(mn_field_sql *sql)
{
    mn_buf_release(&sql->cols);
    mn_buf_release(&sql->vals);
    mn_buf_release(&sql->sets);
}
