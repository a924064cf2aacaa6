/*
 * print.c - operation results printed for people (--json prints them as
 * JSON instead). One line for a change, YAML for a memory, a table for a
 * list. All of it goes through out.c, which escapes what a terminal could
 * act on in every value printed.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

void cli_print_saved(const json_t *r)
{
    const char *action = str(r, "action");
    cli_printf("%s %s", action, str(r, "id"));
    if (*str(r, "kind"))
        cli_printf(" (%s, %s, %s): %s", str(r, "kind"), str(r, "level"), str(r, "status"),
                   str(r, "title"));
    json_t *changed = json_object_get(r, "changed");
    if (json_array_size(changed)) {
        size_t i;
        json_t *c;
        cli_printf("; changed");
        json_array_foreach(changed, i, c) cli_printf("%s %s", i ? "," : "", json_string_value(c));
    }
    cli_printf("\n");
    if (!strcmp(action, "forgotten"))
        cli_printf("(bring it back with: mnemo forget --undo %s)\n", str(r, "id"));
    if (!strcmp(str(r, "status"), "pending") && !strcmp(action, "created"))
        cli_printf("(low confidence: it waits in the review queue; approve with: mnemo review "
                   "approve %s)\n",
                   str(r, "id"));
    if (!strcmp(action, "skipped"))
        cli_printf("(%s)\n", str(r, "note"));
}

void cli_print_memory(const json_t *r)
{
    char *yaml = NULL;
    json_t *doc = json_deep_copy(json_object_get(r, "memory"));
    json_t *back = json_object_get(r, "linked_from");
    if (json_array_size(back))
        json_object_set(doc, "linked_from", back);
    if (mn_format_yaml(&yaml, doc) == 0)
        cli_put_text(stdout, yaml);
    else
        cli_print_json(doc);
    free(yaml);
    json_decref(doc);
}

void cli_print_list(const json_t *r)
{
    json_t *mems = json_object_get(r, "memories");
    size_t i;
    json_t *m;
    json_array_foreach(mems, i, m)
    {
        cli_printf("%s  %-8s %s  %-8s %s", str(m, "id"), str(m, "kind"), str(m, "level"),
                   str(m, "status"), str(m, "title"));
        json_t *tags = json_object_get(m, "tags");
        if (json_array_size(tags)) {
            size_t j;
            json_t *t;
            cli_printf("  [");
            json_array_foreach(tags, j, t) cli_printf("%s%s", j ? ", " : "", json_string_value(t));
            cli_printf("]");
        }
        if (json_object_get(m, "deleted_at"))
            cli_printf("  (forgotten)");
        cli_printf("\n");
    }
    json_int_t total = json_integer_value(json_object_get(r, "total"));
    json_int_t offset = json_integer_value(json_object_get(r, "offset"));
    json_int_t shown = (json_int_t)json_array_size(mems);
    if (total == 0)
        cli_printf("no memories\n");
    else if (offset + shown < total)
        cli_printf("-- %lld of %lld (more with --offset %lld)\n", (long long)shown,
                   (long long)total, (long long)(offset + shown));
    else if (offset > 0)
        cli_printf("-- %lld of %lld (the last page)\n", (long long)shown, (long long)total);
}

void cli_print_link(const json_t *r)
{
    cli_printf("%s %s -[%s]-> %s\n", str(r, "action"), str(r, "from"), str(r, "kind"),
               str(r, "to"));
}

void cli_print_config(const json_t *r)
{
    json_t *settings = json_object_get(r, "settings");
    if (settings) {
        size_t i;
        json_t *s;
        json_array_foreach(settings, i, s)
        {
            cli_printf("%s = %s", str(s, "key"), str(s, "value"));
            if (!json_is_true(json_object_get(s, "set")))
                cli_printf("  (default)");
            cli_printf("\n    %s\n", str(s, "description"));
            if (json_object_get(s, "note"))
                cli_printf("    note: %s\n", str(s, "note"));
        }
        return;
    }
    if (json_is_null(json_object_get(r, "value")) || !json_object_get(r, "value"))
        cli_printf("%s unset\n", str(r, "key"));
    else
        cli_printf("%s\n", str(r, "value"));
    if (json_object_get(r, "note")) /* on stderr: stdout is the value alone, for scripts */
        cli_eprintf("mnemo: note: %s\n", str(r, "note"));
}

static long long num(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

void cli_print_index(const json_t *r)
{
    cli_printf("indexed %s: %lld files (%lld parsed, %lld unchanged, %lld removed, %lld binary, "
               "%lld skipped, %lld unreadable) in %.2f s\n",
               str(r, "root"), num(r, "files"), num(r, "parsed"), num(r, "unchanged"),
               num(r, "removed"), num(r, "binary"), num(r, "skipped"), num(r, "failed"),
               json_number_value(json_object_get(r, "seconds")));
    cli_printf("resolved %lld of %lld imports and %lld of %lld calls looked at\n",
               num(r, "imports_resolved"), num(r, "imports"), num(r, "calls_resolved"),
               num(r, "calls"));
    if (num(r, "history_commits") > 0)
        cli_printf("history: %lld new commit%s read\n", num(r, "history_commits"),
                   num(r, "history_commits") == 1 ? "" : "s");
    const json_t *d = json_object_get(r, "discovery");
    if (d)
        cli_printf("discovery (%s): %lld created, %lld updated, %lld archived, %lld unchanged\n",
                   str(d, "reason"), num(d, "created"), num(d, "updated"), num(d, "archived"),
                   num(d, "unchanged"));
}

void cli_print_discover(const json_t *r)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(r, "facts"), i, f)
    {
        const char *action = str(f, "action");
        if (strcmp(action, "archived") == 0)
            cli_printf("(archived) %s\n", str(f, "title"));
        else if (strcmp(action, "kept") == 0)
            cli_printf("(kept as edited) %s\n", str(f, "title"));
        else
            cli_printf("%s\n", str(f, "title"));
    }
    cli_printf("discovery of %s: %lld created, %lld updated, %lld archived, %lld unchanged\n",
               str(r, "root"), num(r, "created"), num(r, "updated"), num(r, "archived"),
               num(r, "unchanged"));
}

void cli_print_status(const json_t *r)
{
    cli_printf("index of %s: %lld fresh, %lld stale, %lld new, %lld removed\n", str(r, "root"),
               num(r, "fresh"), num(r, "stale"), num(r, "new"), num(r, "removed"));
    cli_printf("%lld files, %lld symbols, %lld edges (%lld resolved), %lld chunks\n",
               num(r, "files"), num(r, "symbols"), num(r, "edges"), num(r, "resolved"),
               num(r, "chunks"));
    if (*str(r, "vectors"))
        cli_printf("vectors: %s\n", str(r, "vectors"));
    static const struct {
        const char *key, *count, *title;
    } lists[] = {{"stale_files", "stale", "stale (changed since indexed)"},
                 {"new_files", "new", "new (not indexed yet)"},
                 {"removed_files", "removed", "removed (gone from the tree)"}};
    for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
        const json_t *a = json_object_get(r, lists[k].key);
        size_t i;
        const json_t *p;
        if (!json_array_size(a))
            continue;
        cli_printf("%s:\n", lists[k].title);
        json_array_foreach(a, i, p) cli_printf("  %s\n", json_string_value(p));
        if ((long long)json_array_size(a) < num(r, lists[k].count))
            cli_printf("  ... and %lld more\n",
                       num(r, lists[k].count) - (long long)json_array_size(a));
    }
    if (num(r, "stale") || num(r, "new") || num(r, "removed"))
        cli_printf("(run 'mnemo index' to bring it up to date%s)\n",
                   json_object_get(r, "stale_files") ? "" : "; --files names the files");
}

void cli_print_files(const json_t *r)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(r, "files"), i, f)
    {
        const char *lang = json_string_value(json_object_get(f, "language"));
        cli_printf("%-60s %-10s %-9s %6lld lines  rank %.2f\n", str(f, "path"), lang ? lang : "-",
                   str(f, "role"), num(f, "lines"), json_number_value(json_object_get(f, "rank")));
    }
    if ((long long)json_array_size(json_object_get(r, "files")) < num(r, "total"))
        cli_printf("-- %zu of %lld files\n", json_array_size(json_object_get(r, "files")),
                   num(r, "total"));
}

void cli_print_symbols(const json_t *r)
{
    size_t i;
    json_t *y;
    json_array_foreach(json_object_get(r, "symbols"), i, y)
    {
        const char *sig = json_string_value(json_object_get(y, "signature"));
        cli_printf("%s:%lld  %-8s %s%s%s\n", str(y, "path"), num(y, "start_line"), str(y, "kind"),
                   str(y, "qualified_name"), sig ? "  " : "", sig ? sig : "");
    }
    if ((long long)json_array_size(json_object_get(r, "symbols")) < num(r, "total"))
        cli_printf("-- %zu of %lld symbols\n", json_array_size(json_object_get(r, "symbols")),
                   num(r, "total"));
}

static void print_neighbours(const char *title, const json_t *list)
{
    size_t i;
    json_t *n;
    cli_printf("%s (%zu):\n", title, json_array_size(list));
    json_array_foreach(list, i, n)
    {
        const char *path = json_string_value(json_object_get(n, "path"));
        const char *sym = json_string_value(json_object_get(n, "symbol"));
        if (!path)
            cli_printf("  %s  (%s, not in this repository)\n", str(n, "name"), str(n, "edge"));
        else if (sym)
            cli_printf("  %s:%lld %s  (%s)\n", path, num(n, "line"), sym, str(n, "edge"));
        else
            cli_printf("  %s  (%s)\n", path, str(n, "edge"));
    }
}

void cli_print_graph(const json_t *r)
{
    if (!strcmp(str(r, "kind"), "file")) {
        print_neighbours("imports", json_object_get(r, "imports"));
        print_neighbours("imported by", json_object_get(r, "importers"));
        return;
    }
    json_t *m = json_object_get(r, "matches");
    if (json_array_size(m) > 1)
        cli_printf("%zu symbols are called '%s'; showing the most central one (--json lists all)\n",
                   json_array_size(m), str(r, "target"));
    print_neighbours("calls", json_object_get(r, "callees"));
    print_neighbours("called by", json_object_get(r, "callers"));
}

void cli_print_context(const json_t *r)
{
    const char *md = str(r, "markdown");
    cli_put_text(stdout, md);
    size_t i;
    const json_t *n;
    json_array_foreach(json_object_get(r, "notes"), i, n)
        cli_eprintf("mnemo: %s\n", json_string_value(n));
    /* the answer's id, for feedback, when the Markdown had no room to name it */
    long long served = num(r, "served");
    char named[48];
    snprintf(named, sizeof(named), "Answer %lld:", served);
    if (served > 0 && !strstr(md, named))
        cli_eprintf("mnemo: answer %lld: rate items with 'mnemo feedback used --served %lld "
                    "--item ID,...'\n",
                    served, served);
}

void cli_print_plan(const json_t *r)
{
    const char *reason = str(r, "fallback_reason");
    size_t i;
    const json_t *n;
    cli_put_text(stdout, str(r, "text"));
    if (json_object_get(r, "trace")) {
        cli_printf("\n## Trace (%s, semantic backend %s)\n", str(r, "pipeline_version"),
                   str(r, "semantic_backend_used"));
        json_array_foreach(json_object_get(r, "trace"), i, n)
            cli_printf("- %s\n", json_string_value(n));
    }
    if (reason && *reason)
        cli_eprintf("mnemo: the graph-first plan failed (%s); this is the legacy plan\n", reason);
    json_array_foreach(json_object_get(r, "notes"), i, n)
        cli_eprintf("mnemo: %s\n", json_string_value(n));
}

static void print_recall_part(const json_t *r, const char *key, const char *title,
                              const char *text_key)
{
    const json_t *a = json_object_get(r, key);
    if (!json_array_size(a))
        return;
    cli_printf("%s:\n", title);
    size_t i;
    const json_t *x;
    json_array_foreach(a, i, x)
    {
        if (json_object_get(x, "path"))
            cli_printf("  %s:%lld-%lld %s  (%s)\n", str(x, "path"), num(x, "start_line"),
                       num(x, "end_line"), str(x, "symbol"), str(x, "why"));
        else
            cli_printf("  %.12s  %s  (%s)\n", str(x, "id"), str(x, text_key), str(x, "why"));
    }
}

void cli_print_recall(const json_t *r)
{
    print_recall_part(r, "facts", "facts", "text");
    print_recall_part(r, "decisions", "decisions", "title");
    print_recall_part(r, "few_shots", "examples", "text");
    print_recall_part(r, "links", "code", "path");
    print_recall_part(r, "stale", "may be out of date (mnemo stale)", "title");
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(r, "team"), i, x)
    {
        if (!i)
            cli_printf("from the team:\n");
        cli_printf("  %s:%s  %s\n", str(x, "remote"), str(x, "id"), str(x, "text"));
    }
    cli_printf("confidence %.2f\n", json_number_value(json_object_get(r, "confidence")));
}

/* A search item's signals, one line: "lexical 0.82  semantic 0.41 ...". */
static void print_signals(const json_t *it)
{
    const char *k;
    const json_t *v;
    int n = 0;
    json_object_foreach((json_t *)json_object_get(it, "signals"), k, v)
    {
        cli_printf("%s%s %.2f", n++ ? "  " : "        ", k, json_number_value(v));
    }
    if (n)
        cli_printf("\n");
}

/* The snippet under an item: code with its line breaks (4 lines at most), prose on one line. */
static void print_snippet(const char *snippet, bool code)
{
    if (!*snippet)
        return;
    int lines = 0;
    for (const char *p = snippet; *p && lines < 4; lines++) {
        const char *nl = code ? strchr(p, '\n') : NULL;
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        cli_printf("        %s%.*s\n", code ? "| " : "", len, p);
        p = nl ? nl + 1 : p + len;
    }
}

/*
 * How much of a memory's id to show: 12 characters, more when another
 * memory of the answer starts alike (ids made in one millisecond share
 * more), so that feedback can tell them apart.
 */
static int id_shown(const json_t *items, const char *id)
{
    int len = 12;
    size_t i;
    const json_t *o;
    json_array_foreach(items, i, o)
    {
        const char *x = str(o, "id");
        if (strcmp(str(o, "type"), "memory") != 0 || !strcmp(x, id) || json_object_get(o, "remote"))
            continue;
        int same = 0;
        while (id[same] && id[same] == x[same])
            same++;
        if (same + 1 > len)
            len = same + 1;
    }
    return len;
}

void cli_print_search(const json_t *r)
{
    size_t i;
    const json_t *it, *items = json_object_get(r, "items");
    json_array_foreach(items, i, it)
    {
        const char *type = str(it, "type");
        cli_printf("%6.3f  %-6s  ", json_number_value(json_object_get(it, "score")), type);
        /* the id feedback takes: a memory's first characters, code as path:lines; a
         * remote's memory as NAME:ID (its feedback belongs to that server) */
        if (json_object_get(it, "remote"))
            cli_printf("%s:%s  %s", str(it, "remote"), str(it, "id"), str(it, "title"));
        else if (!strcmp(type, "memory"))
            cli_printf("%.*s  %s", id_shown(items, str(it, "id")), str(it, "id"), str(it, "title"));
        else if (json_object_get(it, "start_line"))
            cli_printf("%s:%lld-%lld  %s", str(it, "path"), num(it, "start_line"),
                       num(it, "end_line"), str(it, "title"));
        else
            cli_printf("%s", str(it, "id"));
        if (json_object_get(it, "status") && strcmp(str(it, "status"), "active") != 0)
            cli_printf("  [%s]", str(it, "status"));
        cli_printf("\n");
        print_signals(it);
        print_snippet(str(it, "snippet"), strcmp(type, "memory") != 0);
    }
    if (!json_array_size(json_object_get(r, "items")))
        cli_printf("nothing found\n");
    else if (num(r, "served") > 0)
        cli_printf("answer %lld: rate items with 'mnemo feedback used --served %lld --item ID,...' "
                   "(the ids above)\n",
                   num(r, "served"), num(r, "served"));
    json_array_foreach(json_object_get(r, "notes"), i, it)
        cli_eprintf("mnemo: %s\n", json_string_value(it));
}

void cli_print_saved_feedback(const json_t *r)
{
    cli_printf("recorded %lld\n", num(r, "recorded"));
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(r, "memories"), i, m) cli_printf(
        "  %s  used %lld, ignored %lld\n", str(m, "id"), num(m, "used"), num(m, "ignored"));
}
