/*
 * print_life.c - the life cycle's results printed for people (stale,
 * revalidate, gc, the audit log); --json prints them as they are. Through out.c like
 * every printer: each value is escaped for the terminal, and a diff is
 * printed as text whose newlines stay.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static long long num(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

/* "path", "path:12-30" or "path:12-30 Symbol" */
static void print_where(const json_t *w)
{
    cli_printf("%s", str(w, "path"));
    if (json_object_get(w, "start_line"))
        cli_printf(":%lld-%lld", num(w, "start_line"), num(w, "end_line"));
    if (*str(w, "symbol"))
        cli_printf(" %s", str(w, "symbol"));
}

void cli_print_stale(const json_t *r)
{
    size_t i, j;
    const json_t *m, *c;
    json_array_foreach(json_object_get(r, "memories"), i, m)
    {
        cli_printf("%s  %-8s %s\n", str(m, "id"), str(m, "kind"), str(m, "title"));
        json_array_foreach(json_object_get(m, "citations"), j, c)
        {
            cli_printf("  %s: ", str(c, "stale"));
            print_where(c);
            const json_t *now = json_object_get(c, "now");
            if (now) {
                cli_printf(" -> now ");
                print_where(now);
            }
            cli_printf("\n");
            const char *diff = str(c, "diff");
            if (*diff)
                cli_put_text(stdout, diff);
        }
        cli_printf("  (still true? mnemo revalidate %s; else mnemo edit or forget it)\n",
                   str(m, "id"));
    }
    long long total = num(r, "total");
    size_t shown = json_array_size(json_object_get(r, "memories"));
    if (total == 0)
        cli_printf("no stale memory: every citation matches the code as indexed\n");
    else if ((long long)shown < total)
        cli_printf("%zu of %lld stale memories (--offset for more)\n", shown, total);
}

void cli_print_revalidate(const json_t *r)
{
    cli_printf("%s %s: %s", str(r, "action"), str(r, "id"), str(r, "title"));
    if (!strcmp(str(r, "action"), "revalidated"))
        cli_printf(" (%lld citations now cite today's code, %lld of code that is gone removed)",
                   num(r, "citations"), num(r, "dropped"));
    cli_printf("\n");
}

void cli_print_gc(const json_t *r)
{
    static const struct {
        const char *key, *what, *done;
    } sets[] = {
        {"expired", "expired (past their ttl)", "archived"},
        {"superseded", "superseded long ago (memory.gc.superseded_after)", "archived"},
        {"purged_archived", "archived and older than asked", "purged"},
        {"purged_forgotten", "forgotten and older than asked", "purged"},
    };
    bool dry = json_is_true(json_object_get(r, "dry_run"));
    for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
        const json_t *set = json_object_get(r, sets[i].key);
        cli_printf("%-8s %4lld  %s\n", dry ? "would be" : sets[i].done, num(set, "count"),
                   sets[i].what);
        if (dry && num(set, "count") && !strcmp(sets[i].done, "purged"))
            cli_printf("         (%s for good)\n", sets[i].done);
    }
    if (dry)
        cli_printf("dry run: nothing changed (mnemo gc --apply to do it)\n");
}

/* One line a row: time, actor, op, target, then the detail as compact JSON (ids, counts). */
void cli_print_audit(const json_t *r)
{
    size_t i;
    const json_t *e;
    const json_t *entries = json_object_get(r, "entries");
    json_array_foreach(entries, i, e)
    {
        const json_t *d = json_object_get(e, "detail");
        char *text = d ? json_dumps(d, JSON_COMPACT) : NULL;
        cli_printf("%s  %-10s %s", str(e, "time"), str(e, "actor"), str(e, "op"));
        if (*str(e, "target") || text) /* the columns line up; no space ends a line */
            cli_printf("%*s", (int)(strlen(str(e, "op")) < 12 ? 12 - strlen(str(e, "op")) : 0), "");
        if (*str(e, "target"))
            cli_printf(" %s", str(e, "target"));
        if (text)
            cli_printf(" %s", text);
        free(text);
        cli_printf("\n");
    }
    long long total = num(r, "total"), shown = (long long)json_array_size(entries);
    if (total == 0)
        cli_printf("no audit rows\n");
    else if (shown == 0) /* a page past the end says so, rather than nothing */
        cli_printf("no audit rows at --offset %lld (%lld in all)\n", num(r, "offset"), total);
    else if (num(r, "offset") + shown < total)
        cli_printf("%lld of %lld rows (--offset %lld for the next page)\n", shown, total,
                   num(r, "offset") + shown);
}
