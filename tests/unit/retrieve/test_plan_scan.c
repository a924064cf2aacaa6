/*
 * test_plan_scan.c - the built-in scorer of plan's semantic stage
 * (plan_semantic.c) reads a file's lines as the index's tokenizer does: an
 * ASCII line through its words (each distinct word tokenized once per plan,
 * its terms kept for later plans), any other line tokenized whole, so that
 * a Latin word with a diacritic (café) meets the task's "cafe" on the line
 * that holds it, and identifiers split (parseHTTPHeader_v2: parse, http,
 * header). The evidence is the first line with the most distinct terms of
 * the task; the answer is the same on a second plan (the words then come
 * from the shared table) and on a task in other case, and a file rewritten
 * in place (same length and time) is read anew. Through mn_plan_run
 * with the repository as the root, on a real index written by the test.
 */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>

#include "api/api_internal.h"
#include "mnemo/api.h"
#include "retrieve/plan.h"
#include "util/util.h"
#include "test.h"
#include "test_fs.h"
#include "test_json.h"
#include "test_ctx.h"

static void write_file(const char *rel, const char *text)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/repo/%s", test_tmp, rel);
    char *slash = strrchr(p.ptr, '/');
    *slash = '\0';
    mn_fs_mkdir_p(p.ptr);
    *slash = '/';
    if (mn_fs_write_atomic(p.ptr, text, strlen(text)) != 0)
        abort();
    mn_buf_release(&p);
}

/*
 * The ASCII comment holds four of the task's terms (parse, http, header,
 * order); the docstring after it five, one of them only through "café";
 * the def line three (v and 2 are one byte each).
 */
static const char orders[] = "\"\"\"Orders of the kitchen.\"\"\"\n"
                             "\n"
                             "# parse the HTTP header of an order\n"
                             "def parseHTTPHeader_v2(raw):\n"
                             "    \"\"\"Parse an HTTP header of a café order.\"\"\"\n"
                             "    return raw.split(\":\")\n";

static const mn_plan_file *file_of(const mn_plan_result *r, const char *path)
{
    for (size_t i = 0; i < r->nfiles; i++)
        if (!strcmp(r->files[i].path, path))
            return &r->files[i];
    return NULL;
}

static bool matched(const mn_plan_file *f, const char *surface)
{
    for (size_t i = 0; i < f->nmatched; i++)
        if (!strcasecmp(f->matched[i], surface))
            return true;
    return false;
}

static void check_plan_evidence(const char *task, const char *evidence)
{
    mn_buf root = MN_BUF_INIT;
    mn_buf_printf(&root, "%s/repo", test_tmp);
    mn_plan_request req = {0};
    req.task = task;
    req.root = root.ptr;
    req.min_final_score = -1;
    req.semantic_weight = -1;
    req.no_ripgrep = true; /* the built-in scorer, whatever this machine has on PATH */
    mn_plan_result res;
    int rc = mn_plan_run(test_ctx->store, &req, &res);
    CHECK_OK(rc);
    const mn_plan_file *f = rc ? NULL : file_of(&res, "kitchen/orders.py");
    CHECK(f != NULL);
    if (f) {
        CHECK(f->semantic_evidence);
        CHECK_STR(f->backend, "builtin");
        CHECK(f->evidence && strstr(f->evidence, evidence) != NULL);
        if (f->evidence && !strstr(f->evidence, evidence))
            fprintf(stderr, "evidence: %s\n", f->evidence);
        CHECK(matched(f, "cafe") || matched(f, "café"));
        /* the identifier's pieces are its terms: the surface is the identifier */
        CHECK(matched(f, "parseHTTPHeader_v2") || matched(f, "header"));
    }
    mn_plan_result_release(&res);
    mn_buf_release(&root);
}

static void check_plan(const char *task)
{
    check_plan_evidence(task, "of a café order");
}

static void test_scan_lines(void)
{
    check_plan("parseHTTPHeader_v2 breaks on a cafe order header");
    /* again: the words now come from the shared table */
    check_plan("parseHTTPHeader_v2 breaks on a cafe order header");
    check_plan("PARSEHTTPHEADER_V2 BREAKS ON A CAFE ORDER HEADER");
}

/*
 * The scorer keeps what it learnt of a file between plans (plan_scan.c),
 * keyed by the bytes read: a file rewritten in place, same length, same
 * modification time, is read anew, not served from what the last plan saw.
 */
static void test_scan_changed_file(void)
{
    check_plan("parseHTTPHeader_v2 breaks on a cafe order header");
    mn_buf p = MN_BUF_INIT, text = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/repo/kitchen/orders.py", test_tmp);
    struct stat before;
    CHECK(stat(p.ptr, &before) == 0);
    mn_buf_puts(&text, orders);
    /* the comment, same length, now with six of the task's terms: the evidence */
    char *at = strstr(text.ptr, "# parse the HTTP header of an order");
    CHECK(at != NULL);
    if (at)
        memcpy(at, "#parse http header break cafe order", 35);
    FILE *f = fopen(p.ptr, "r+");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(text.ptr, 1, text.len, f) == text.len);
        fclose(f);
    }
    struct timespec times[2] = {before.st_atim, before.st_mtim};
    CHECK(utimensat(AT_FDCWD, p.ptr, times, 0) == 0);
    struct stat after;
    CHECK(stat(p.ptr, &after) == 0);
    CHECK(after.st_size == before.st_size);
    check_plan_evidence("parseHTTPHeader_v2 breaks on a cafe order header",
                        "parse http header break cafe order");
    mn_buf_release(&text);
    mn_buf_release(&p);
}

static void run_all(void)
{
    test_ctx_open("planscan");
    write_file("kitchen/orders.py", orders);
    write_file("kitchen/menu.py", "def menu():\n    return ['tea', 'cake']\n");
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "{'path':'%s/repo'}", test_tmp);
    json_decref(test_call("index", J(p.ptr)));
    mn_buf_release(&p);
    test_scan_lines();
    test_scan_changed_file();
    test_ctx_close();
}

MN_TEST_MAIN(MN_TEST(run_all))
