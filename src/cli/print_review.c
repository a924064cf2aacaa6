/*
 * print_review.c - the review queue printed for people: each waiting
 * memory with the judge's score and reasons, how it came, its
 * supersedes/contradicts links and its near neighbours, then the commands
 * that decide on it; and what a decision did. --json prints the result as
 * it is. Through out.c like every printer: each value is escaped for the
 * terminal.
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

static void print_item(const json_t *m)
{
    const json_t *j = json_object_get(m, "judgement"), *how = json_object_get(m, "how"), *v;
    size_t i;
    cli_printf("%s  %-8s %-11s %s\n", str(m, "id"), str(m, "kind"), str(m, "status"),
               str(m, "title"));
    cli_printf("  from %s", *str(how, "source") ? str(how, "source") : "?");
    if (*str(how, "author"))
        cli_printf(" by %s", str(how, "author"));
    if (*str(how, "extraction_method"))
        cli_printf(" (%s)", str(how, "extraction_method"));
    cli_printf(", confidence %.2f", json_number_value(json_object_get(m, "confidence")));
    if (json_object_get(j, "score"))
        cli_printf(", judged %.2f", json_number_value(json_object_get(j, "score")));
    cli_printf("\n");
    json_array_foreach(json_object_get(j, "reasons"), i, v)
        cli_printf("  - %s\n", json_string_value(v));
    json_array_foreach(json_object_get(m, "links"), i, v)
    {
        if (*str(v, "to"))
            cli_printf("  %s %s", str(v, "kind"), str(v, "to"));
        else
            cli_printf("  %s by %s", str(v, "kind"), str(v, "from"));
        if (*str(v, "title"))
            cli_printf(" (%s, %s)", str(v, "status"), str(v, "title"));
        cli_printf("\n");
    }
    json_array_foreach(json_object_get(m, "neighbours"), i, v)
        cli_printf("  near %s %.2f %s: %s (%s)\n", str(v, "id"),
                   json_number_value(json_object_get(v, "similarity")), str(v, "verdict"),
                   str(v, "title"), str(v, "status"));
}

static void print_list(const json_t *r)
{
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(r, "memories"), i, m)
    {
        print_item(m);
        cli_printf("\n");
    }
    long long total = num(r, "total");
    size_t shown = json_array_size(json_object_get(r, "memories"));
    if (total == 0) {
        cli_printf("nothing waits for review\n");
        return;
    }
    cli_printf("%zu of %lld waiting", shown, total);
    if ((long long)(num(r, "offset") + (long long)shown) < total)
        cli_printf(" (--offset %lld for more)", num(r, "offset") + (long long)shown);
    cli_printf("\ndecide: mnemo review approve|reject ID [--note WHY], mnemo review edit ID "
               "--title ..., mnemo review merge ID INTO\n");
}

static void print_ids(const json_t *d, const char *key, const char *what)
{
    const json_t *ids = json_object_get(d, key), *v;
    size_t i;
    if (!json_array_size(ids))
        return;
    cli_printf("  %s:", what);
    json_array_foreach(ids, i, v) cli_printf(" %s", json_string_value(v));
    cli_printf("\n");
}

void cli_print_review(const json_t *r)
{
    const char *action = str(r, "action");
    size_t i;
    const json_t *d;
    if (!strcmp(action, "list")) {
        print_list(r);
        return;
    }
    json_array_foreach(json_object_get(r, "decided"), i, d)
    {
        cli_printf("%s %s: %s -> %s",
                   json_is_true(json_object_get(d, "unchanged")) ? "already"
                   : !strcmp(action, "edit")                     ? "edited"
                                                                 : action,
                   str(d, "id"), str(d, "was"), str(d, "status"));
        if (*str(d, "into"))
            cli_printf(" (into %s)", str(d, "into"));
        cli_printf("  %s\n", str(d, "title"));
        print_ids(d, "changed", "changed");
        print_ids(d, "superseded", "now superseded");
        print_ids(d, "released", "active again");
        print_ids(d, "still_pending", "still waiting (contradicts it)");
    }
    print_ids(r, "skipped", "passed over (left the queue meanwhile)");
    cli_printf("%lld decided\n", num(r, "count"));
}

void cli_print_consolidate(const json_t *r)
{
    bool dry = json_is_true(json_object_get(r, "dry_run"));
    size_t i, j;
    const json_t *c, *m;
    json_array_foreach(json_object_get(r, "clusters"), i, c)
    {
        const json_t *g = json_object_get(c, "generalize"), *res = json_object_get(c, "result");
        const char *action = str(c, "action");
        cli_printf("%s: %s\n",
                   !strcmp(action, "create")   ? (dry ? "would create" : "created")
                   : !strcmp(action, "extend") ? (dry ? "would extend" : "extended")
                                               : "already consolidated",
                   str(g, "title"));
        if (*str(c, "pattern"))
            cli_printf("  pattern %s", str(c, "pattern"));
        if (res)
            cli_printf("%s(%s, %s)", *str(c, "pattern") ? " " : "  ", str(res, "action"),
                       *str(res, "status") ? str(res, "status") : "linked");
        if (*str(c, "pattern") || res)
            cli_printf("\n");
        cli_printf("  when: %s\n  do:   %s\n", str(g, "situation"), str(g, "solution"));
        json_array_foreach(json_object_get(c, "members"), j, m)
            cli_printf("  from %s  %-8s %s\n", str(m, "id"), str(m, "kind"), str(m, "title"));
    }
    cli_printf("%lld examined, %zu cluster(s)", num(r, "examined"),
               json_array_size(json_object_get(r, "clusters")));
    if (dry)
        cli_printf("; dry run: nothing saved (mnemo consolidate --apply to save them)\n");
    else
        cli_printf("; %lld pattern(s) created, %lld extended\n", num(r, "created"),
                   num(r, "extended"));
}
