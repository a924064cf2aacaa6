/*
 * cmd_scan.c - the printer of `mnemo scan`: hits by rule and by table, and
 * what --fix did. The operation is api/op_scan.c.
 */
#include <stdio.h>

#include "cli.h"

void cli_print_scan(const json_t *r)
{
    const json_t *m = json_object_get(r, "memories"), *rules = json_object_get(r, "rules");
    const char *key;
    json_t *v;
    cli_printf("memories: %lld scanned, %lld with secrets or personal data\n",
               (long long)json_integer_value(json_object_get(m, "scanned")),
               (long long)json_integer_value(json_object_get(m, "with_hits")));
    json_object_foreach((json_t *)json_object_get(r, "texts"), key, v)
    {
        json_int_t hits = json_integer_value(json_object_get(v, "with_hits"));
        if (hits)
            cli_printf("%s: %lld of %lld hold secrets or personal data\n", key, (long long)hits,
                       (long long)json_integer_value(json_object_get(v, "scanned")));
    }
    if (json_object_size(rules)) {
        cli_printf("by rule:");
        json_object_foreach((json_t *)rules, key, v)
            cli_printf(" %s %lld", key, (long long)json_integer_value(v));
        cli_printf("\n");
    }
    if (json_is_true(json_object_get(r, "fixed")))
        cli_printf("redacted in place; full-text indexes rebuilt, store vacuumed, WAL truncated\n");
    else if (json_object_size(rules))
        cli_printf("run 'mnemo scan --fix' to redact them in place\n");
    else
        cli_printf("nothing found\n");
}
