/*
 * print.c - operation results printed for people (--json prints them as
 * JSON instead). One line for a change, YAML for a memory, a table for a
 * list.
 */
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
    printf("%s %s", action, str(r, "id"));
    if (*str(r, "kind"))
        printf(" (%s, %s, %s): %s", str(r, "kind"), str(r, "level"), str(r, "status"),
               str(r, "title"));
    json_t *changed = json_object_get(r, "changed");
    if (json_array_size(changed)) {
        size_t i;
        json_t *c;
        printf("; changed");
        json_array_foreach(changed, i, c) printf("%s %s", i ? "," : "", json_string_value(c));
    }
    putchar('\n');
    if (!strcmp(action, "forgotten"))
        printf("(bring it back with: mnemo forget --undo %s)\n", str(r, "id"));
    if (!strcmp(str(r, "status"), "pending") && !strcmp(action, "created"))
        printf("(low confidence: it waits in the review queue; approve with: mnemo edit %s "
               "--status active)\n",
               str(r, "id"));
}

void cli_print_memory(const json_t *r)
{
    char *yaml = NULL;
    json_t *doc = json_deep_copy(json_object_get(r, "memory"));
    json_t *back = json_object_get(r, "linked_from");
    if (json_array_size(back))
        json_object_set(doc, "linked_from", back);
    if (mn_format_yaml(&yaml, doc) == 0)
        fputs(yaml, stdout);
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
        printf("%.12s  %-8s %s  %-8s %s", str(m, "id"), str(m, "kind"), str(m, "level"),
               str(m, "status"), str(m, "title"));
        json_t *tags = json_object_get(m, "tags");
        if (json_array_size(tags)) {
            size_t j;
            json_t *t;
            printf("  [");
            json_array_foreach(tags, j, t) printf("%s%s", j ? ", " : "", json_string_value(t));
            printf("]");
        }
        if (json_object_get(m, "deleted_at"))
            printf("  (forgotten)");
        putchar('\n');
    }
    json_int_t total = json_integer_value(json_object_get(r, "total"));
    json_int_t offset = json_integer_value(json_object_get(r, "offset"));
    if (total == 0)
        printf("no memories\n");
    else if ((json_int_t)json_array_size(mems) < total)
        printf("-- %zu of %lld (more with --offset %lld)\n", json_array_size(mems),
               (long long)total, (long long)(offset + (json_int_t)json_array_size(mems)));
}

void cli_print_link(const json_t *r)
{
    printf("%s %s -[%s]-> %s\n", str(r, "action"), str(r, "from"), str(r, "kind"), str(r, "to"));
}

void cli_print_config(const json_t *r)
{
    json_t *settings = json_object_get(r, "settings");
    if (settings) {
        size_t i;
        json_t *s;
        json_array_foreach(settings, i, s)
        {
            printf("%s = %s", str(s, "key"), str(s, "value"));
            if (!json_is_true(json_object_get(s, "set")))
                printf("  (default)");
            printf("\n    %s\n", str(s, "description"));
        }
        return;
    }
    if (json_is_null(json_object_get(r, "value")) || !json_object_get(r, "value"))
        printf("%s unset\n", str(r, "key"));
    else
        printf("%s\n", str(r, "value"));
}
