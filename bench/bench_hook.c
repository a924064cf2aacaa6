/*
 * bench_hook.c - end-to-end latency of `mnemo hook claude-code`, the process
 * Claude Code starts before every prompt, on a real indexed repository.
 *
 * What is measured, on REPO (a checkout with a mnemo store: `mnemo init &&
 * mnemo index` in it first):
 *  - hook: the real mnemo binary run as Claude Code runs it, UserPromptSubmit
 *    JSON with a realistic prompt on stdin, stdout read to the end, waited
 *    for; fork to exit, per run. Prompts cycle through a fixed list of
 *    questions a developer of a Python library asks (sympy's terms; on
 *    another repository they are just questions that match less).
 *  - baseline 1, start: `mnemo --version`, the same fork/exec/wait of the
 *    same binary doing nothing: what any hook process costs.
 *  - baseline 2, context: mn_api_call("context") with the same prompts and
 *    budget in this process, the store opened once: the answer without
 *    the process.
 * Runs alternate hook, start, context prompt by prompt, so the machine's
 * load touches all three alike. First, untimed: `mnemo index` in REPO, so
 * that the index is fresh and no hook starts a background re-index while
 * others are timed (a stale index is answered as it is and re-indexed
 * behind the hook, see docs/clients/claude-code.md: that run is not the
 * hook's cost but would share the two cores with it); then three hook runs
 * (the OS's caches, the server's).
 * Reported: p50/p95 of each, and the ratios hook/start and hook/context.
 * Target of issue 5: hook p95 <= 50 ms on a warm sympy/sympy index,
 * printed as PASS/FAIL.
 *
 * With --warm, a `mnemo mcp` runs on the store meanwhile, as Claude Code
 * runs one beside its hooks, and the hook is answered by it (warm.c).
 * --db PATH names the store (MNEMO_DB for every process), e.g. the one
 * bench_retrieve --store made with 100,000 memories and REPO's index.
 * --save: before each prompt, untimed, `mnemo save` writes a memory, as an
 * agent that records as it works (a decision, a capture): the hook then
 * embeds it and ranks with the vectors kept beside the store (schema v19:
 * a memory's vector leaves the chunks' set and file valid).
 *
 * With --prompts FILE (bench/prompts/hook_prompts.txt) it measures what
 * the hook says instead of how fast: each "chat" line is a conversational
 * turn, sent with cwd the checkout of the first task (the hook must add
 * nothing); each "task" line names a SWE-bench instance of --swebench
 * (default $MNEMO_BENCH_SWEBENCH), whose problem statement is sent with
 * cwd --stores DIR/<instance_id> (the checkouts and stores bench_swebench
 * --stores DIR made), and whose answer must name a file of the gold patch.
 * Printed: the share of chat turns answered with nothing (target >= 0.90)
 * and of tasks whose answer names a gold file (target >= 0.80), and the
 * misses. Each prompt is its own agent session (the overview comes with
 * it, as with a first prompt). index.refresh_age is set to 0 in each
 * store first, so that no answer waits for or starts a re-index.
 *
 * Usage: bench_hook REPO [--runs N] [--mnemo PATH] [--max-tokens N] [--warm] [--db PATH]
 *                   [--save] [--strict]
 *        bench_hook --prompts FILE --stores DIR [--swebench FILE] [--mnemo PATH] [--strict]
 * REPO defaults to $MNEMO_BENCH_REPO; without either it says it skipped and
 * exits 0. --mnemo defaults to the mnemo beside this build's bench/.
 * Exit status: 0, or 1 with --strict when the target fails, 2 on usage or
 * setup errors.
 */
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mnemo/api.h"
#include "util/buf.h"
#include "util/util.h"

#define TARGET_P95_MS 50.0
#define TARGET_CHAT   0.90 /* conversational turns answered with nothing */
#define TARGET_TASK   0.80 /* tasks whose answer names a gold file */

static const char *const prompts[] = {
    "why is simplify so slow on this big trigonometric expression?",
    "fix the determinant of a symbolic matrix returning a wrong sign",
    "add a new printer option to the LaTeX printer for matrices",
    "solve returns an empty list for this system of polynomial equations",
    "the integral of exp(-x**2) over the real line gives a wrong result",
    "where are Rational and Integer defined and how is caching done?",
    "refactor the ODE solver hints so that dsolve picks the fastest one",
    "series expansion around infinity is wrong for log terms",
    "make lambdify work with numpy for Piecewise expressions",
    "tests for the assumptions system fail when is_positive is None",
    "improve the performance of expand on large polynomials",
    "the factor function hangs on a polynomial with algebraic coefficients",
    "how do I add a new special function with its derivative and evalf",
    "limit of sin(x)/x as x goes to zero returns nan in some cases",
    "the pretty printer breaks unicode fractions in jupyter notebooks",
    "nsimplify should recognise sqrt(2) in floating point results",
    "why does subs not replace a symbol inside a Derivative object",
    "code generation for C with ccode drops the type of integer arrays",
    "the Poly class gives wrong degree for multivariate polynomials with zero coefficients",
    "sets: Union of Intervals is not simplified when they overlap",
    "physics vector module: cross product of ReferenceFrame vectors is wrong",
    "mpmath precision is lost when converting Float to a python float",
    "geometry: intersection of two circles returns points in the wrong order",
    "stats module: the variance of a Normal distribution with symbolic sigma",
    "tensor contraction of indexed objects forgets the dummy index names",
    "matrices: eigenvals of a 4x4 symbolic matrix takes forever",
    "parsing LaTeX input with fractions fails with antlr error",
    "the logic module satisfiable function returns wrong model",
    "combinatorics Permutation cycle notation printing is inconsistent",
    "diophantine equation solver misses solutions for quadratic forms",
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct(uint64_t *ns, size_t n, double p)
{
    qsort(ns, n, sizeof(*ns), cmp_u64);
    return ns[(size_t)(p * (double)(n - 1) + 0.5)] / 1e6;
}

static uint64_t cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Run argv with input on stdin; *out_bytes what it printed, *cpu its user +
 * system time. Returns the wall ns, 0 on failure.
 */
static uint64_t run(char *const argv[], const char *dir, const char *input, size_t *out_bytes,
                    uint64_t *cpu)
{
    int in[2], out[2];
    if (pipe(in) || pipe(out))
        return 0;
    uint64_t t0 = mn_time_mono_ns();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, 2);
        if (dir && chdir(dir) != 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    if (input) { /* a hook input is far below a pipe's buffer */
        ssize_t w = write(in[1], input, strlen(input));
        (void)w;
    }
    close(in[1]);
    char buf[65536];
    ssize_t n;
    *out_bytes = 0;
    while ((n = read(out[0], buf, sizeof(buf))) > 0)
        *out_bytes += (size_t)n;
    close(out[0]);
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    uint64_t t = mn_time_mono_ns() - t0;
    *cpu = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
           ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? t : 0;
}

/* Run argv with input on stdin, in dir; *out what it printed (malloc'd). 0: exit 0. */
static int run_capture(char *const argv[], const char *dir, const char *input, char **out)
{
    int in[2], outp[2];
    *out = NULL;
    if (pipe(in) || pipe(outp))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(outp[1], 1);
        close(in[0]);
        close(in[1]);
        close(outp[0]);
        close(outp[1]);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, 2);
        if (dir && chdir(dir) != 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    close(in[0]);
    close(outp[1]);
    /* a prompt (an issue text) may fill the pipe: write it from a child */
    pid_t writer = fork();
    if (writer == 0) {
        size_t len = input ? strlen(input) : 0, off = 0;
        while (off < len) {
            ssize_t w = write(in[1], input + off, len - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        _exit(0);
    }
    close(in[1]);
    mn_buf b = MN_BUF_INIT;
    char buf[65536];
    ssize_t n;
    while ((n = read(outp[0], buf, sizeof(buf))) > 0)
        mn_buf_put(&b, buf, (size_t)n);
    close(outp[0]);
    int status;
    waitpid(writer, NULL, 0);
    waitpid(pid, &status, 0);
    *out = b.ptr ? mn_buf_detach(&b) : mn_strdup("");
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The dataset's instance: its problem statement and gold files (new references), by id. */
static int load_instances(const char *path, json_t **out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    *out = json_object();
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        json_t *x = json_loadb(line, (size_t)n, 0, NULL);
        const char *iid = json_string_value(json_object_get(x, "instance_id"));
        const char *patch = json_string_value(json_object_get(x, "patch"));
        if (iid && patch) {
            json_t *gold = json_array();
            for (const char *p = strstr(patch, "diff --git a/"); p;
                 p = strstr(p + 1, "diff --git a/")) {
                const char *s = p + strlen("diff --git a/"), *e = strchr(s, ' ');
                if (e)
                    json_array_append_new(gold, json_stringn(s, (size_t)(e - s)));
            }
            json_object_set_new(*out, iid,
                                json_pack("{s:O,s:o}", "statement",
                                          json_object_get(x, "problem_statement"), "gold", gold));
        }
        json_decref(x);
    }
    free(line);
    fclose(f);
    return 0;
}

/* The additionalContext of a hook's answer ("" when it said nothing). */
static const char *added(const char *answer, json_t **holder)
{
    *holder = *answer ? json_loads(answer, 0, NULL) : NULL;
    const char *s = json_string_value(
        json_object_get(json_object_get(*holder, "hookSpecificOutput"), "additionalContext"));
    return s ? s : "";
}

static int prompt_set(const char *file, const char *stores, const char *swebench, const char *bin,
                      bool strict)
{
    json_t *inst = NULL;
    if (!swebench || load_instances(swebench, &inst) != 0) {
        fprintf(stderr, "bench_hook: no SWE-bench file (--swebench or MNEMO_BENCH_SWEBENCH)\n");
        return 2;
    }
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "bench_hook: cannot read '%s'\n", file);
        json_decref(inst);
        return 2;
    }
    char *line = NULL, *hook_argv[] = {(char *)bin, "hook", "claude-code", NULL};
    size_t cap = 0, chats = 0, quiet = 0, tasks = 0, named = 0, bytes = 0, answered = 0;
    ssize_t n;
    mn_buf chat_dir = MN_BUF_INIT, misses = MN_BUF_INIT;
    json_t *lines = json_array();
    while ((n = getline(&line, &cap, f)) > 0) {
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        char *tab = strchr(line, '\t');
        if (line[0] == '#' || !tab)
            continue;
        *tab = '\0';
        json_array_append_new(lines, json_pack("[s,s]", line, tab + 1));
        if (!strcmp(line, "task") && !chat_dir.len)
            mn_buf_printf(&chat_dir, "%s/%s", stores, tab + 1);
    }
    free(line);
    fclose(f);
    /* no re-index while the bench runs: the answers are of the stores as they are */
    size_t i;
    const json_t *l;
    json_array_foreach(lines, i, l)
    {
        if (strcmp(json_string_value(json_array_get(l, 0)), "task") != 0)
            continue;
        mn_buf dir = MN_BUF_INIT;
        mn_buf_printf(&dir, "%s/%s", stores, json_string_value(json_array_get(l, 1)));
        char *argv[] = {(char *)bin, "config", "set", "index.refresh_age", "0", NULL}, *o = NULL;
        run_capture(argv, dir.ptr, NULL, &o);
        free(o);
        mn_buf_release(&dir);
    }
    json_array_foreach(lines, i, l)
    {
        const char *kind = json_string_value(json_array_get(l, 0));
        const char *text = json_string_value(json_array_get(l, 1));
        const json_t *x = !strcmp(kind, "task") ? json_object_get(inst, text) : NULL;
        if (!strcmp(kind, "task") && !x) {
            fprintf(stderr, "bench_hook: instance '%s' is not in the dataset\n", text);
            continue;
        }
        mn_buf dir = MN_BUF_INIT;
        if (x)
            mn_buf_printf(&dir, "%s/%s", stores, text);
        else
            mn_buf_puts(&dir, chat_dir.ptr ? chat_dir.ptr : stores);
        char session[32];
        snprintf(session, sizeof(session), "prompt-set-%zu", i);
        json_t *hin =
            json_pack("{s:s,s:s,s:s,s:s,s:s}", "session_id", session, "transcript_path",
                      "/dev/null", "cwd", dir.ptr, "hook_event_name", "UserPromptSubmit", "prompt",
                      x ? json_string_value(json_object_get(x, "statement")) : text);
        char *in = json_dumps(hin, JSON_COMPACT), *answer = NULL;
        json_decref(hin);
        if (run_capture(hook_argv, dir.ptr, in, &answer) != 0)
            fprintf(stderr, "bench_hook: the hook failed for '%s'\n", text);
        json_t *holder = NULL;
        const char *md = added(answer ? answer : "", &holder);
        if (*md) {
            answered++;
            bytes += strlen(md);
        }
        if (!x) {
            chats++;
            if (!*md)
                quiet++;
            else
                mn_buf_printf(&misses, "  chat answered (%zu bytes): %s\n", strlen(md), text);
        } else {
            tasks++;
            bool hit = false;
            size_t g;
            const json_t *gold;
            json_array_foreach(json_object_get(x, "gold"), g, gold) hit =
                hit || strstr(md, json_string_value(gold)) != NULL;
            named += hit;
            if (!hit)
                mn_buf_printf(&misses, "  task without a gold file (%s): %s\n",
                              *md ? "answered" : "nothing said", text);
        }
        json_decref(holder);
        free(answer);
        free(in);
        mn_buf_release(&dir);
    }
    double c = chats ? (double)quiet / chats : 0, t = tasks ? (double)named / tasks : 0;
    printf("bench_hook --prompts: %zu conversational turns, %zu tasks (%s)\n", chats, tasks, file);
    printf("  conversational turns answered with nothing: %zu/%zu = %.2f  target >= %.2f %s\n",
           quiet, chats, c, TARGET_CHAT, c >= TARGET_CHAT ? "PASS" : "FAIL");
    printf("  tasks whose answer names a gold file:      %zu/%zu = %.2f  target >= %.2f %s\n",
           named, tasks, t, TARGET_TASK, t >= TARGET_TASK ? "PASS" : "FAIL");
    printf("  answers given: %zu, mean %.0f bytes\n", answered,
           answered ? (double)bytes / answered : 0.0);
    if (misses.len)
        printf("misses:\n%s", misses.ptr);
    mn_buf_release(&misses);
    mn_buf_release(&chat_dir);
    json_decref(lines);
    json_decref(inst);
    return strict && (c < TARGET_CHAT || t < TARGET_TASK) ? 1 : 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_hook REPO [--runs N] [--mnemo PATH] [--max-tokens N] [--warm] "
                    "[--db PATH] [--save] [--strict]\n"
                    "       bench_hook --prompts FILE --stores DIR [--swebench FILE] [--mnemo "
                    "PATH] [--strict]\n");
}

int main(int argc, char **argv)
{
    const char *repo = getenv("MNEMO_BENCH_REPO"), *mnemo = NULL, *db = NULL, *prompt_file = NULL,
               *stores = NULL, *swebench = getenv("MNEMO_BENCH_SWEBENCH");
    int64_t runs = 60, budget = 1800;
    bool strict = false, warm = false, save = false;
    pid_t server = -1;
    int server_in = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--runs") && i + 1 < argc) {
            if (mn_parse_int64(&runs, argv[++i], 5, 100000, "--runs")) {
                usage();
                return 2;
            }
        } else if (!strcmp(a, "--max-tokens") && i + 1 < argc) {
            if (mn_parse_int64(&budget, argv[++i], 64, 200000, "--max-tokens")) {
                usage();
                return 2;
            }
        } else if (!strcmp(a, "--mnemo") && i + 1 < argc) {
            mnemo = argv[++i];
        } else if (!strcmp(a, "--db") && i + 1 < argc) {
            db = argv[++i];
        } else if (!strcmp(a, "--prompts") && i + 1 < argc) {
            prompt_file = argv[++i];
        } else if (!strcmp(a, "--stores") && i + 1 < argc) {
            stores = argv[++i];
        } else if (!strcmp(a, "--swebench") && i + 1 < argc) {
            swebench = argv[++i];
        } else if (!strcmp(a, "--strict")) {
            strict = true;
        } else if (!strcmp(a, "--warm")) {
            warm = true;
        } else if (!strcmp(a, "--save")) {
            save = true;
        } else if (a[0] != '-') {
            repo = a;
        } else {
            usage();
            return 2;
        }
    }
    char *self = realpath("/proc/self/exe", NULL);
    mn_buf bin = MN_BUF_INIT;
    if (mnemo) {
        mn_buf_puts(&bin, mnemo);
    } else if (self) {
        char *slash = strrchr(self, '/');
        mn_buf_printf(&bin, "%.*s/../mnemo", (int)(slash - self), self);
    }
    if (prompt_file) {
        if (!stores || access(bin.ptr, X_OK) != 0) {
            usage();
            return 2;
        }
        int prc = prompt_set(prompt_file, stores, swebench, bin.ptr, strict);
        mn_buf_release(&bin);
        free(self);
        return prc;
    }
    if (!repo || !*repo) {
        printf("bench_hook: skipped (give REPO or set MNEMO_BENCH_REPO)\n");
        mn_buf_release(&bin);
        free(self);
        return 0;
    }
    if (db) /* every process of the bench, and this one, on the store named */
        setenv("MNEMO_DB", db, 1);
    char *root = realpath(repo, NULL);
    if (!root || access(bin.ptr, X_OK) != 0) {
        fprintf(stderr, "bench_hook: %s\n", !root ? "no such REPO" : "no mnemo binary: --mnemo");
        return 2;
    }

    /* baseline 2: the context op in this process, the store opened once */
    mn_ctx *ctx = NULL;
    mn_ctx_options o = MN_CTX_OPTIONS_INIT;
    o.start_dir = root;
    o.create = false;
    o.actor = "bench";
    if (mn_ctx_open(&ctx, &o) != 0) {
        fprintf(stderr, "bench_hook: %s (run 'mnemo init && mnemo index' in %s)\n", mn_error_last(),
                root);
        return 2;
    }

    uint64_t cpu = 0;
    size_t index_out = 0;
    char *index_argv[] = {bin.ptr, "index", NULL};
    run(index_argv, root, "", &index_out, &cpu); /* fresh: no background re-index while timing */

    /* --warm: a `mnemo mcp` on the store, as Claude Code runs one beside its
       hooks; the hook asks it first (src/agent/warm.c). Its stdin is our
       pipe: closing it ends the server. */
    if (warm) {
        int fds[2];
        if (pipe(fds) != 0) {
            fprintf(stderr, "bench_hook: pipe: %s\n", strerror(errno));
            return 2;
        }
        server = fork();
        if (server == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(fds[0], 0);
            dup2(null, 1);
            dup2(null, 2);
            close(fds[1]);
            if (chdir(root) != 0)
                _exit(127);
            char *margv[] = {bin.ptr, "mcp", NULL};
            execv(margv[0], margv);
            _exit(127);
        }
        close(fds[0]);
        server_in = fds[1];
        usleep(300000); /* let it open the store and listen; the warm-up runs do the rest */
    }

    size_t np = MN_ARRAY_SIZE(prompts), n = (size_t)runs, answered = 0, out_bytes = 0;
    uint64_t *hook = mn_calloc(n, sizeof(*hook)), *start = mn_calloc(n, sizeof(*start)),
             *op = mn_calloc(n, sizeof(*op)), *hook_cpu = mn_calloc(n, sizeof(*hook_cpu)),
             *start_cpu = mn_calloc(n, sizeof(*start_cpu)), *op_cpu = mn_calloc(n, sizeof(*op_cpu));
    char *hook_argv[] = {bin.ptr, "hook", "claude-code", NULL};
    char *start_argv[] = {bin.ptr, "--version", NULL};
    mn_buf in = MN_BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < n + 3; i++) {
        const char *p = prompts[i % np];
        if (save) { /* untimed: what the hook pays for it is */
            char title[64];
            snprintf(title, sizeof(title), "bench note %zu", i);
            char *save_argv[] = {bin.ptr,   "save", "--kind",  "fact",
                                 "--title", title,  (char *)p, NULL};
            size_t ignored = 0;
            uint64_t save_cpu = 0;
            if (!run(save_argv, root, NULL, &ignored, &save_cpu)) {
                fprintf(stderr, "bench_hook: '%s save' failed\n", bin.ptr);
                rc = 2;
                goto out;
            }
        }
        json_t *hin = json_pack("{s:s,s:s,s:s,s:s}", "session_id", "bench", "cwd", root,
                                "hook_event_name", "UserPromptSubmit", "prompt", p);
        char *s = json_dumps(hin, JSON_COMPACT);
        json_decref(hin);
        size_t bytes = 0;
        uint64_t t = run(hook_argv, root, s, &bytes, &cpu);
        free(s);
        if (!t) {
            fprintf(stderr, "bench_hook: '%s hook claude-code' failed\n", bin.ptr);
            rc = 2;
            goto out;
        }
        if (i < 3)
            continue; /* warm-up */
        hook[i - 3] = t;
        hook_cpu[i - 3] = cpu;
        answered += bytes > 0;
        out_bytes += bytes;
        start[i - 3] = run(start_argv, root, NULL, &bytes, &start_cpu[i - 3]);

        /* refresh false, as the hook asks: the index's age is not what is timed */
        json_t *args = json_pack("{s:s,s:I,s:b}", "query", p, "max_tokens", (json_int_t)budget,
                                 "refresh", 0),
               *r;
        uint64_t t0 = mn_time_mono_ns(), c0 = cpu_now_ns();
        if (mn_api_call(ctx, "context", args, &r) != 0) {
            fprintf(stderr, "bench_hook: context: %s\n", mn_error_last());
            json_decref(args);
            rc = 2;
            goto out;
        }
        op[i - 3] = mn_time_mono_ns() - t0;
        op_cpu[i - 3] = cpu_now_ns() - c0;
        json_decref(r);
        json_decref(args);
    }
    double h50 = pct(hook, n, 0.5), h95 = pct(hook, n, 0.95);
    double s50 = pct(start, n, 0.5), s95 = pct(start, n, 0.95);
    double c50 = pct(op, n, 0.5), c95 = pct(op, n, 0.95);
    printf("bench_hook: %s, %zu runs, budget %lld tokens, %s%s, %zu/%zu prompts answered "
           "(mean %.0f bytes)\n",
           root, n, (long long)budget, warm ? "warm (mnemo mcp running)" : "cold (no server)",
           save ? ", a memory saved before each prompt" : "", answered, n,
           answered ? (double)out_bytes / answered : 0.0);
    printf("  %-36s wall p50 %7.2f  p95 %7.2f   cpu p50 %7.2f  p95 %7.2f ms\n",
           "hook (mnemo hook claude-code)", h50, h95, pct(hook_cpu, n, 0.5),
           pct(hook_cpu, n, 0.95));
    printf("  %-36s wall p50 %7.2f  p95 %7.2f   cpu p50 %7.2f  p95 %7.2f ms\n",
           "baseline: process (mnemo --version)", s50, s95, pct(start_cpu, n, 0.5),
           pct(start_cpu, n, 0.95));
    printf("  %-36s wall p50 %7.2f  p95 %7.2f   cpu p50 %7.2f  p95 %7.2f ms\n",
           "baseline: context op in-process", c50, c95, pct(op_cpu, n, 0.5), pct(op_cpu, n, 0.95));
    printf("  ratios of wall p50: hook/process %.1f, hook/context %.2f\n", h50 / s50, h50 / c50);
    printf("  target hook wall p95 <= %.0f ms: %s\n", TARGET_P95_MS,
           h95 <= TARGET_P95_MS ? "PASS" : "FAIL");
    if (strict && h95 > TARGET_P95_MS)
        rc = 1;
out:
    if (server > 0) {
        close(server_in);
        waitpid(server, NULL, 0);
    }
    mn_ctx_free(ctx);
    mn_buf_release(&in);
    mn_buf_release(&bin);
    free(hook);
    free(start);
    free(op);
    free(hook_cpu);
    free(start_cpu);
    free(op_cpu);
    free(root);
    free(self);
    return rc;
}
