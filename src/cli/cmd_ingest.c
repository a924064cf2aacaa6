/*
 * cmd_ingest.c - `mnemo ingest git|docs|issues`: one command, three
 * operations (ingest_git, ingest_docs, ingest_issues), and their printers,
 * with those of capture, issue (link_issue) and doc (open_doc).
 */
#include <stdlib.h>
#include <string.h>

#include "cli_ingest.h"

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static long long num(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static void print_items(const json_t *items, size_t max)
{
    size_t i;
    const json_t *it;
    json_array_foreach(items, i, it)
    {
        if (i >= max) {
            cli_printf("  ... and %zu more (--json lists them all)\n",
                       json_array_size(items) - max);
            break;
        }
        const char *status = str(it, "status");
        cli_printf("  %-8s %-10s %s", *status ? status : str(it, "action"), str(it, "kind"),
                   str(it, "title"));
        const char *sha = str(json_object_get(it, "evidence"), "sha");
        if (*sha)
            cli_printf("  (%.12s)", sha);
        if (*str(it, "id"))
            cli_printf("  %s", str(it, "id"));
        cli_printf("\n");
    }
}

static void print_git(const json_t *r)
{
    const json_t *c = json_object_get(r, "commits");
    cli_printf("commits: %lld read, %lld read before, %lld merges (message only), %lld waiting",
               num(c, "ingested"), num(c, "skipped"), num(c, "merges"), num(c, "waiting"));
    if (num(c, "unreadable"))
        cli_printf(", %lld unreadable (message only)", num(c, "unreadable"));
    if (num(c, "shallow_boundary"))
        cli_printf(", %lld at the shallow clone's boundary (message only)",
                   num(c, "shallow_boundary"));
    cli_printf("\n");
    const char *k;
    json_t *v;
    cli_printf("candidates:");
    if (!json_object_size(json_object_get(r, "candidates")))
        cli_printf(" none");
    json_object_foreach((json_t *)json_object_get(r, "candidates"), k, v)
        cli_printf(" %s %lld", k, (long long)json_integer_value(v));
    cli_printf("\n");
    if (json_is_true(json_object_get(r, "dry_run")))
        cli_printf("dry run: nothing saved\n");
    else
        cli_printf("saved %lld active, %lld queued for review (mnemo review), %lld "
                   "merged, %lld refused, in %.1f s\n",
                   num(r, "saved"), num(r, "queued"), num(r, "merged"), num(r, "refused"),
                   json_number_value(json_object_get(r, "seconds")));
    print_items(json_object_get(r, "items"), 20);
    size_t i;
    const json_t *n;
    json_array_foreach(json_object_get(r, "notes"), i, n)
        cli_eprintf("mnemo: %s\n", json_string_value(n));
}

static void print_docs(const json_t *r)
{
    cli_printf("%lld document(s), %lld section(s): %lld created, %lld updated, %lld unchanged, "
               "%lld archived; %lld decision(s) from ADRs\n",
               num(r, "files"), num(r, "sections"), num(r, "created"), num(r, "updated"),
               num(r, "unchanged"), num(r, "archived"), num(r, "decisions"));
    size_t i;
    const json_t *it;
    json_array_foreach(json_object_get(r, "items"), i, it)
    {
        if (i >= 20)
            break;
        cli_printf("  %-9s %-9s %s  %s\n", str(it, "action"), str(it, "kind"), str(it, "title"),
                   str(it, "id"));
    }
}

static void print_issues(const json_t *r)
{
    cli_printf("%s export: %lld issue(s), %lld comment(s): %lld created, %lld updated, %lld "
               "unchanged; %lld decision(s) found (%lld queued for review); %lld commit(s) "
               "linked\n",
               str(r, "format"), num(r, "issues"), num(r, "comments"), num(r, "created"),
               num(r, "updated"), num(r, "unchanged"), num(r, "decisions"), num(r, "queued"),
               num(r, "linked_commits"));
}

int cli_cmd_ingest(const cli_command *cmd, cli_global *g, int argc, char **argv)
{
    if (argc < 1)
        return cli_usage_error(cmd, "say what to ingest: git, docs or issues");
    const char *what = argv[0];
    json_t *args = NULL;
    const char *op;
    void (*print)(const json_t *);
    int rc;
    if (!strcmp(what, "git")) {
        op = "ingest_git";
        print = print_git;
        rc = cli_parse_op_args(&args, mn_api_find(op), argc - 1, argv + 1);
    } else if (!strcmp(what, "docs")) {
        op = "ingest_docs";
        print = print_docs;
        /* every word is a path (the operation takes a list) */
        args = json_pack("{s:[]}", "paths");
        rc = 0;
        for (int i = 1; i < argc && rc == 0; i++) {
            json_t *s = json_string(argv[i]);
            if (!s || argv[i][0] == '-')
                rc = mn_error_set(MN_EINVAL, "'%.60s' is not a path", argv[i]);
            else
                json_array_append_new(json_object_get(args, "paths"), s);
        }
        if (rc == 0 && argc < 2)
            rc = mn_error_set(MN_EINVAL, "give the files or folders to ingest");
    } else if (!strcmp(what, "issues")) {
        op = "ingest_issues";
        print = print_issues;
        rc = cli_parse_op_args(&args, mn_api_find(op), argc - 1, argv + 1);
    } else {
        return cli_usage_error(cmd, "no ingest '%.40s': use git, docs or issues", what);
    }
    if (rc) {
        json_decref(args);
        return cli_usage_error(cmd, "%s", mn_error_last());
    }
    cli_command sub = *cmd;
    sub.op = op;
    sub.print = print;
    rc = cli_call_and_print(&sub, g, args);
    json_decref(args);
    return rc;
}

void cli_print_capture(const json_t *r)
{
    cli_printf("%lld turn(s)%s%s: ", num(r, "turns"), *str(r, "session_id") ? " of session " : "",
               str(r, "session_id"));
    const char *k;
    json_t *v;
    if (!json_object_size(json_object_get(r, "candidates")))
        cli_printf("nothing to keep");
    json_object_foreach((json_t *)json_object_get(r, "candidates"), k, v)
        cli_printf("%s %lld ", k, (long long)json_integer_value(v));
    cli_printf("\nsaved %lld active, %lld queued for review, %lld already known\n", num(r, "saved"),
               num(r, "queued"), num(r, "unchanged") + num(r, "merged"));
    print_items(json_object_get(r, "items"), 20);
}

void cli_print_link_issue(const json_t *r)
{
    cli_printf("%s%s%s%s: %lld link(s) added\n", str(r, "issue"), *str(r, "title") ? " (" : "",
               str(r, "title"), *str(r, "title") ? ")" : "", num(r, "added"));
    if (!json_is_true(json_object_get(r, "known")))
        cli_printf("(the issue itself is not ingested: mnemo ingest issues FILE)\n");
    size_t i;
    const json_t *l;
    json_array_foreach(json_object_get(r, "links"), i, l)
        cli_printf("  %-10s %s\n", str(l, "kind"), str(l, "ref"));
}

void cli_print_open_doc(const json_t *r)
{
    cli_printf("# %s\n", str(r, "title"));
    if (*str(r, "path"))
        cli_printf("(%s%s)\n", str(r, "path"),
                   json_is_false(json_object_get(r, "ingested")) ? ", not ingested" : "");
    cli_printf("\n");
    cli_put_text(stdout, str(r, "body"));
    if (*str(r, "body") && str(r, "body")[strlen(str(r, "body")) - 1] != '\n')
        cli_printf("\n");
    size_t i;
    const json_t *m;
    json_array_foreach(json_object_get(r, "memories"), i, m)
    {
        if (i == 0)
            cli_printf("\nmemories:\n");
        cli_printf("  %s  %-9s %-10s %s\n", str(m, "id"), str(m, "kind"), str(m, "status"),
                   str(m, "title"));
    }
}
