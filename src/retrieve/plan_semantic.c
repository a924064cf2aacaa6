/*
 * plan_semantic.c - the semantic stage of a plan: a score in [0, 1] for
 * each of the best semantic_cap graph candidates, and for nothing else
 * (docs/internals/plan.md, "Semantic stage").
 *
 * A ladder of backends; the first that answers scores every candidate:
 *  1. the configured embedder (req->embedder, an embed.provider http
 *     server): the task and the head of each file (HEAD_BYTES) embedded,
 *     semantic = max(0, cosine);
 *  2. ripgrep, when an `rg` executable is on PATH: one run over the
 *     candidate files only, started with execve and an argument vector
 *     (no shell), in the project's root, with the task's words as fixed
 *     whole-word patterns (-F -w -i), JSON output read from a pipe (at
 *     most RG_OUTPUT bytes, RG_TIMEOUT_MS), nothing outside the root:
 *     every path given is a repository path of the index, relative, with
 *     no "..";
 *  3. the built-in scorer: each file read (below the root, no symbolic
 *     link followed out of it, at most FILE_BYTES) and tokenized with the
 *     index's tokenizer, the task's terms looked up.
 * The scan (scan_text) looks at the lines the prefilter passes; an ASCII
 * line's terms come from its words, each distinct word tokenized once per
 * plan (the word memo) and its terms kept for later plans (the shared word
 * table): the same terms as tokenizing the line, at a fraction of the cost.
 * The built-in scorer goes further: what it read of a file (its lines, its
 * words as ids of a process-wide table) is kept for later plans, found by
 * the bytes' hash (plan_scan.c), and a line's terms are an OR over ids
 * (scan_view: the same lines looked at, the same answer).
 * Rungs 2 and 3 score coverage: semantic = sum over the task's terms the
 * file holds of weight x idf / the same sum over the terms any candidate
 * holds, idf = ln(1 + n / df) over the n candidates scored, so a word
 * every candidate has counts little and a word none has is left out.
 * The embedder rung keeps the term scan for matched_terms and the
 * evidence line. Evidence: the line holding the most distinct terms (the
 * first such), cut to EVIDENCE_TOKENS tokens. A file without any term (or
 * a backend that fails for it) has no semantic evidence: fusion uses its
 * graph score alone (fail open).
 */
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "retrieve/embed.h"
#include "retrieve/plan_internal.h"
#include "text/tokenize.h"
#include "util/util.h"

#define FILE_BYTES      (64 * 1024) /* read of one file by the built-in scorer */
#define HEAD_BYTES      4096        /* of each file sent to the embedder */
#define EVIDENCE_BYTES  240         /* of the evidence line before the token cut */
#define EVIDENCE_TOKENS 40
#define RG_OUTPUT       (4 * 1024 * 1024)
#define RG_TIMEOUT_MS   3000
#define RG_MAX_COUNT    "200" /* matching lines per file */

extern char **environ;

typedef struct {
    uint64_t terms;       /* the task's terms found */
    int best_count;       /* distinct terms on the evidence line */
    const char *evidence; /* arena */
} scan;

/* ---- the built-in scorer: a file's text tokenized, the task's terms looked up ---- */

typedef struct {
    plan_run *p;
    const char *text;
    size_t len;
    scan *out;
    size_t line_start, line_end; /* the line being counted */
    uint64_t line_terms;
} scan_run;

static void keep_line(scan_run *r)
{
    int n = __builtin_popcountll(r->line_terms);
    if (n > r->out->best_count) {
        size_t s = r->line_start, e = r->line_end;
        while (s < e && (r->text[s] == ' ' || r->text[s] == '\t'))
            s++;
        if (e - s > EVIDENCE_BYTES) {
            e = s + EVIDENCE_BYTES;
            while (e > s && ((unsigned char)r->text[e] & 0xC0) == 0x80)
                e--; /* on a character boundary */
        }
        size_t fit = mn_tokens_fit(r->text + s, e - s, EVIDENCE_TOKENS);
        /* a line that is not UTF-8 (a binary file, Latin-1) is no evidence: JSON cannot hold it */
        r->out->evidence = mn_utf8_valid(r->text + s, fit)
                               ? mn_arena_strndup(r->p->arena, r->text + s, fit)
                               : NULL;
        r->out->best_count = n;
    }
}

static int on_file_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                         int colocated)
{
    scan_run *r = payload;
    (void)end;
    if (colocated == MN_TOK_COLOC_WHOLE)
        return 0;
    if (start >= r->line_end) {
        keep_line(r);
        const char *nl = memchr(r->text + start, '\n', r->len - start);
        const char *prev = start ? memrchr(r->text, '\n', start) : NULL;
        r->line_start = prev ? (size_t)(prev - r->text) + 1 : 0;
        r->line_end = nl ? (size_t)(nl - r->text) : r->len;
        r->line_terms = 0;
    }
    int i = plan_term_of(r->p, tok, len);
    if (i >= 0) {
        r->out->terms |= 1ull << i;
        r->line_terms |= 1ull << i;
    }
    return 0;
}

/*
 * The task's terms in each distinct word of the files scanned, for one plan.
 * The tokenizer splits text into words (runs of letters, digits, marks and
 * '_'; text/tokenize.h) and tokenizes each word on its own (the language is
 * fixed: English), so the terms of a line are the union of its words'
 * terms, and a word seen before need not be tokenized again: code repeats
 * its identifiers and keywords (on the sympy candidates ~1 word in 8 is
 * new). Open addressing, FNV-1a, the table at most half full.
 */
typedef struct {
    const char *w; /* arena; NULL: empty slot */
    size_t len;
    uint64_t bits;
} word_slot;

struct plan_word_memo {
    word_slot *slots;
    size_t cap, n; /* cap a power of two */
};

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static void memo_grow(struct plan_word_memo *m)
{
    size_t cap = m->cap ? m->cap * 2 : 4096;
    word_slot *slots = mn_calloc(cap, sizeof(*slots));
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].w)
            continue;
        size_t k = fnv1a(m->slots[i].w, m->slots[i].len) & (cap - 1);
        while (slots[k].w)
            k = (k + 1) & (cap - 1);
        slots[k] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
}

/*
 * The terms of each word any plan of the process met (a word's terms depend
 * on the word alone): a word new to this plan's memo is looked up here
 * before it is tokenized; stemming was half the semantic stage. Words up to
 * SHARED_WORD bytes; at SHARED_MAX words the table is emptied and fills
 * again (~10 MB at most). Values: the terms, each NUL-terminated, then an
 * empty one.
 */
#define SHARED_WORD 48
#define SHARED_MAX  200000

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static mn_map shared_words = MN_MAP_INIT;

static void shared_clear(void)
{
    size_t pos = 0;
    const char *key;
    void *value;
    while (mn_map_next(&shared_words, &pos, &key, &value))
        free(value);
    mn_map_release(&shared_words);
    memset(&shared_words, 0, sizeof(shared_words));
}

uint64_t plan_terms_bits(plan_run *p, const char *terms)
{
    uint64_t bits = 0;
    for (const char *t = terms; *t; t += strlen(t) + 1) {
        int i = plan_term_of(p, t, strlen(t));
        if (i >= 0)
            bits |= 1ull << i;
    }
    return bits;
}

/* The task's terms in a word this plan has not met: from the shared table, or tokenized. */
static uint64_t word_terms_new(plan_run *p, const char *w, size_t len)
{
    uint64_t bits = 0;
    if (len > SHARED_WORD) {
        void *a[2] = {p, &bits};
        mn_tokenize(w, len, MN_LANG_EN, 0, plan_term_bits_token, a);
        return bits;
    }
    char key[SHARED_WORD + 1];
    memcpy(key, w, len);
    key[len] = '\0';
    pthread_mutex_lock(&shared_lock);
    const char *terms = mn_map_get(&shared_words, key);
    if (terms)
        bits = plan_terms_bits(p, terms);
    pthread_mutex_unlock(&shared_lock);
    if (terms)
        return bits;
    mn_buf b = MN_BUF_INIT;
    mn_tokenize(w, len, MN_LANG_EN, 0, plan_term_token, &b);
    mn_buf_putc(&b, '\0');
    bits = plan_terms_bits(p, b.ptr);
    pthread_mutex_lock(&shared_lock);
    if (shared_words.len >= SHARED_MAX)
        shared_clear();
    char *keep = mn_buf_detach(&b);
    free(mn_map_set(&shared_words, key, keep)); /* another thread's copy: the same terms */
    pthread_mutex_unlock(&shared_lock);
    return bits;
}

/* The task's terms in one ASCII word (tokenized on first sight). */
static uint64_t word_terms(plan_run *p, const char *w, size_t len)
{
    struct plan_word_memo *m = p->words;
    if (2 * (m->n + 1) > m->cap)
        memo_grow(m);
    size_t k = fnv1a(w, len) & (m->cap - 1);
    for (; m->slots[k].w; k = (k + 1) & (m->cap - 1))
        if (m->slots[k].len == len && !memcmp(m->slots[k].w, w, len))
            return m->slots[k].bits;
    uint64_t bits = word_terms_new(p, w, len);
    m->slots[k].w = mn_arena_strndup(p->arena, w, len);
    m->slots[k].len = len;
    m->slots[k].bits = bits;
    m->n++;
    return bits;
}

static inline bool ascii_word_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/*
 * The task's terms on one ASCII line: its words' terms from the memo. A
 * word of one byte is left out: its one term has one byte, and the task's
 * terms have two or more.
 */
static uint64_t ascii_line_terms(plan_run *p, const char *s, size_t n)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < n;) {
        if (!ascii_word_byte((unsigned char)s[i])) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < n && ascii_word_byte((unsigned char)s[i]))
            i++;
        if (i - start >= 2)
            bits |= word_terms(p, s + start, i - start);
    }
    return bits;
}

static bool is_ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return false;
    return true;
}

/*
 * Only the lines the prefilter passes are looked at (most lines of a file
 * hold no term). An ASCII line's terms come from the word memo; any other
 * line is tokenized whole (a non-ASCII letter may join or split words).
 */
static void scan_text(plan_run *p, const char *text, size_t len, scan *out)
{
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (plan_maybe_terms(p, text + at, end - at)) {
            /* offsets in the callback are relative to the line: the line is the text */
            scan_run lr = {p, text + at, end - at, out, 0, 0, 0};
            if (p->words && is_ascii(text + at, end - at)) {
                lr.line_terms = ascii_line_terms(p, text + at, end - at);
                out->terms |= lr.line_terms;
                lr.line_end = end - at;
            } else {
                mn_tokenize(text + at, end - at, MN_LANG_EN, 0, on_file_token, &lr);
            }
            keep_line(&lr);
        }
        at = end + 1;
    }
}

/* A repository path of the index, safe to open below root: relative, no "..", no empty part. */
static bool safe_rel(const char *path)
{
    if (!*path || path[0] == '/')
        return false;
    for (const char *s = path; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 2 && s[0] == '.' && s[1] == '.') || (n == 1 && s[0] == '.'))
            return false;
        s += n + (e ? 1 : 0);
    }
    return true;
}

/* The file's text, read only when it lies below root (its real path). */
static int read_below(const char *root_real, const char *path, size_t max, mn_buf *out)
{
    if (!safe_rel(path))
        return MN_EINVAL;
    mn_buf full = MN_BUF_INIT;
    mn_buf_printf(&full, "%s/%s", root_real, path);
    char *real = mn_fs_realpath(full.ptr);
    int rc = MN_EINVAL;
    if (real && mn_fs_path_within(root_real, real)) {
        int fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
            size_t want = (size_t)st.st_size < max ? (size_t)st.st_size : max;
            mn_buf_grow(out, want + 1);
            size_t got = 0;
            while (got < want) {
                ssize_t n = read(fd, out->ptr + got, want - got);
                if (n < 0 && errno == EINTR)
                    continue;
                if (n <= 0)
                    break;
                got += (size_t)n;
            }
            out->len = got;
            out->ptr[got] = '\0';
            rc = 0;
        }
        if (fd >= 0)
            close(fd);
    }
    free(real);
    mn_buf_release(&full);
    return rc;
}

/* The task's terms in each word id of the scan cache (plan_scan.c), for one plan. */
typedef struct {
    uint64_t *bits;
    uint8_t *known;
    size_t cap;
} id_memo;

static uint64_t id_terms(plan_run *p, id_memo *m, uint32_t id)
{
    if (id >= m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16384;
        while (cap <= id)
            cap *= 2;
        m->bits = mn_realloc(m->bits, cap * sizeof(*m->bits));
        m->known = mn_realloc(m->known, cap);
        memset(m->known + m->cap, 0, cap - m->cap);
        m->cap = cap;
    }
    if (!m->known[id]) {
        m->bits[id] = plan_terms_bits(p, plan_scan_word_terms(id));
        m->known[id] = 1;
    }
    return m->bits[id];
}

/*
 * scan_text over a cached view of the same bytes: an ASCII line's terms
 * are its words' (the OR over its ids); a line without any is skipped (it
 * can neither add a term nor be the evidence), one with some is looked at
 * only when the prefilter passes it, as scan_text does; a non-ASCII line
 * as scan_text does.
 */
static void scan_view(plan_run *p, id_memo *m, const plan_scan_view *v, const char *text,
                      size_t len, scan *out)
{
    for (size_t k = 0; k < v->nlines; k++) {
        const plan_scan_line *l = &v->lines[k];
        const char *s = text + l->start;
        size_t n = l->end - l->start;
        uint64_t bits = 0;
        if (l->ascii) {
            for (uint32_t j = 0; j < l->nwords; j++)
                bits |= id_terms(p, m, v->ids[l->word0 + j]);
            if (!bits)
                continue;
        }
        if (!plan_maybe_terms(p, s, n))
            continue;
        scan_run lr = {p, s, n, out, 0, 0, 0};
        if (l->ascii) {
            lr.line_terms = bits;
            out->terms |= bits;
            lr.line_end = n;
        } else {
            mn_tokenize(s, n, MN_LANG_EN, 0, on_file_token, &lr);
        }
        keep_line(&lr);
    }
    (void)len;
}

static int builtin_rung(plan_run *p, size_t n, scan *scans, const char *root_real)
{
    mn_buf text = MN_BUF_INIT;
    id_memo m = {NULL, NULL, 0};
    for (size_t i = 0; i < n; i++) {
        mn_buf_clear(&text);
        const char *path = p->files.items[i].path;
        if (read_below(root_real, path, FILE_BYTES, &text) != 0 || !text.len)
            continue;
        plan_scan_entry *pin = NULL;
        const plan_scan_view *v = plan_scan_get(root_real, path, text.ptr, text.len, &pin);
        if (v)
            scan_view(p, &m, v, text.ptr, text.len, &scans[i]);
        else
            scan_text(p, text.ptr, text.len, &scans[i]);
        plan_scan_release(pin);
    }
    free(m.bits);
    free(m.known);
    mn_buf_release(&text);
    return 0;
}

/* ---- ripgrep ---- */

/* The absolute path of an executable `rg` on PATH, or NULL (malloc'd). */
static char *find_rg(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    for (const char *s = path; *s;) {
        const char *e = strchr(s, ':');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n && s[0] == '/') {
            mn_buf b = MN_BUF_INIT;
            mn_buf_printf(&b, "%.*s/rg", (int)n, s);
            struct stat st;
            if (stat(b.ptr, &st) == 0 && S_ISREG(st.st_mode) && access(b.ptr, X_OK) == 0)
                return mn_buf_detach(&b);
            mn_buf_release(&b);
        }
        s += n + (e ? 1 : 0);
    }
    return NULL;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run argv (argv[0] an absolute path) in dir; its stdout into out. 0 when it exited 0 or 1. */
static int run_capture(const char *dir, char *const argv[], mn_buf *out)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return mn_error_set(MN_EIO, "ripgrep: cannot make a pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return mn_error_set(MN_EIO, "ripgrep: cannot fork: %s", strerror(errno));
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (dup2(fds[1], 1) < 0 || (null >= 0 && (dup2(null, 0) < 0 || dup2(null, 2) < 0)) ||
            chdir(dir) != 0)
            _exit(127);
        /* ripgrep reads no config file unless RIPGREP_CONFIG_PATH says so: none is passed */
        char *env[] = {NULL};
        execve(argv[0], argv, env);
        _exit(127);
    }
    close(fds[1]);
    int rc = 0;
    int64_t deadline = now_ms() + RG_TIMEOUT_MS;
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0) {
            rc = mn_error_set(MN_EIO, "ripgrep took longer than %d ms", RG_TIMEOUT_MS);
            break;
        }
        struct pollfd pf = {fds[0], POLLIN, 0};
        int pr = poll(&pf, 1, (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        mn_buf_grow(out, 65536);
        ssize_t n = read(fds[0], out->ptr + out->len, 65536);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        out->len += (size_t)n;
        out->ptr[out->len] = '\0';
        if (out->len > RG_OUTPUT) {
            rc = mn_error_set(MN_ETOOBIG, "ripgrep wrote more than %d bytes", RG_OUTPUT);
            break;
        }
    }
    close(fds[0]);
    int status = 0;
    if (rc)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (rc == 0 && !(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1)))
        rc = mn_error_set(MN_EIO, "ripgrep failed (status %d)", status);
    return rc;
}

static int ripgrep_rung(plan_run *p, size_t n, scan *scans, const char *root_real, const char *rg)
{
    MN_VEC(char *) argv = MN_VEC_INIT;
    static char *const fixed[] = {"rg", "--json", "--no-config", "-F",           "-w",
                                  "-i", "-m",     RG_MAX_COUNT,  "--no-messages"};
    mn_buf out = MN_BUF_INIT;
    mn_map by_path = MN_MAP_INIT;
    int rc = 0;
    mn_vec_push(&argv, (char *)rg);
    for (size_t i = 1; i < MN_ARRAY_SIZE(fixed); i++)
        mn_vec_push(&argv, fixed[i]);
    for (size_t t = 0; t < p->nterms; t++) {
        mn_vec_push(&argv, "-e");
        mn_vec_push(&argv, (char *)p->terms[t].surface);
    }
    mn_vec_push(&argv, "--");
    for (size_t i = 0; i < n; i++) {
        if (!safe_rel(p->files.items[i].path))
            continue;
        mn_vec_push(&argv, (char *)p->files.items[i].path);
        mn_map_set(&by_path, p->files.items[i].path, (void *)(uintptr_t)(i + 1));
    }
    mn_vec_push(&argv, NULL);
    if ((rc = run_capture(root_real, argv.items, &out)) != 0)
        goto out;
    /* one JSON object per line; "match" events: data.path.text, data.lines.text */
    for (char *line = out.ptr; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        json_t *ev = json_loadb(line, len, 0, NULL);
        line = nl ? nl + 1 : NULL;
        if (!ev)
            continue;
        const char *type = json_string_value(json_object_get(ev, "type"));
        json_t *data = json_object_get(ev, "data");
        const char *path =
            json_string_value(json_object_get(json_object_get(data, "path"), "text"));
        const char *text =
            json_string_value(json_object_get(json_object_get(data, "lines"), "text"));
        uintptr_t i = path ? (uintptr_t)mn_map_get(&by_path, path) : 0;
        if (type && !strcmp(type, "match") && i && text) {
            /* the line's words through the same tokenizer: which of the task's terms it holds */
            scan one = {0, 0, NULL};
            scan_text(p, text, strlen(text), &one);
            scans[i - 1].terms |= one.terms;
            if (one.best_count > scans[i - 1].best_count) {
                scans[i - 1].best_count = one.best_count;
                scans[i - 1].evidence = one.evidence;
            }
        }
        json_decref(ev);
    }
out:
    mn_vec_release(&argv);
    mn_buf_release(&out);
    mn_map_release(&by_path);
    return rc;
}

/* ---- the embedder ---- */

static int embedder_rung(plan_run *p, size_t n, scan *scans, const char *root_real, double *cosine)
{
    const char **texts = mn_calloc(n + 1, sizeof(*texts));
    mn_buf *bufs = mn_calloc(n, sizeof(*bufs));
    float *v = NULL;
    texts[0] = p->req->task;
    for (size_t i = 0; i < n; i++) {
        if (read_below(root_real, p->files.items[i].path, HEAD_BYTES, &bufs[i]) != 0 ||
            !bufs[i].len)
            mn_buf_puts(&bufs[i], p->files.items[i].path);
        texts[i + 1] = bufs[i].ptr;
    }
    int rc = mn_embedder_embed(p->req->embedder, &v, texts, n + 1, 0);
    if (rc == 0) {
        size_t dim = p->req->embedder->dim;
        for (size_t i = 0; i < n; i++) {
            double dot = 0;
            for (size_t d = 0; d < dim; d++)
                dot += (double)v[d] * v[(i + 1) * dim + d];
            cosine[i] = dot > 0 ? dot : 0;
            scan_text(p, bufs[i].ptr, bufs[i].len, &scans[i]);
        }
    }
    free(v);
    for (size_t i = 0; i < n; i++)
        mn_buf_release(&bufs[i]);
    free(bufs);
    free(texts);
    return rc;
}

/* ---- the stage ---- */

int plan_semantic(plan_run *p)
{
    size_t n = p->files.len < p->sem_cap ? p->files.len : p->sem_cap;
    scan *scans = mn_calloc(n ? n : 1, sizeof(*scans));
    double *cosine = NULL;
    char *root_real = p->req->root ? mn_fs_realpath(p->req->root) : NULL;
    char *rg = NULL;
    int rc = 0;
    struct plan_word_memo memo = {NULL, 0, 0};
    p->words = &memo;
    p->backend = "none";
    if (!n)
        goto out;
    if (!root_real) {
        plan_trace(p, "semantic: no project root to read files from; graph scores alone");
        goto out;
    }
    if (p->req->embedder) {
        cosine = mn_calloc(n, sizeof(double));
        if (embedder_rung(p, n, scans, root_real, cosine) == 0) {
            p->backend = "embedder";
        } else {
            plan_trace(p, "semantic: the embedder failed (%s); next backend", mn_error_last());
            free(cosine);
            cosine = NULL;
            memset(scans, 0, n * sizeof(*scans));
        }
    }
    if (!strcmp(p->backend, "none") && !p->req->no_ripgrep && (rg = find_rg()) != NULL) {
        if (ripgrep_rung(p, n, scans, root_real, rg) == 0) {
            p->backend = "ripgrep";
        } else {
            plan_trace(p, "semantic: ripgrep failed (%s); next backend", mn_error_last());
            memset(scans, 0, n * sizeof(*scans));
        }
    }
    if (!strcmp(p->backend, "none")) {
        builtin_rung(p, n, scans, root_real);
        p->backend = "builtin";
    }
    /* coverage: sum of weight x idf over the terms held / over the terms any candidate holds */
    double df[PLAN_MAX_TERMS] = {0}, w[PLAN_MAX_TERMS] = {0}, total = 0;
    for (size_t i = 0; i < n; i++)
        for (uint64_t m = scans[i].terms; m; m &= m - 1)
            df[__builtin_ctzll(m)] += 1;
    for (size_t t = 0; t < p->nterms; t++)
        if (df[t] > 0) {
            w[t] = p->terms[t].weight * log(1 + (double)n / df[t]);
            total += w[t];
        }
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        mn_plan_file *c = &p->files.items[i];
        double s = 0;
        for (uint64_t m = scans[i].terms; m; m &= m - 1) {
            int t = __builtin_ctzll(m);
            s += w[t];
            if (c->nmatched < MN_PLAN_MAX_MATCHED)
                c->matched[c->nmatched++] = p->terms[t].surface;
        }
        s = total > 0 ? s / total : 0;
        if (cosine)
            s = cosine[i];
        c->evidence = scans[i].evidence;
        if (s > 0 && (scans[i].terms || cosine)) {
            c->semantic = s > 1 ? 1 : s;
            c->semantic_evidence = true;
            c->backend = p->backend;
            hits++;
        }
    }
    plan_trace(p, "semantic: backend %s over %zu candidates, %zu with evidence", p->backend, n,
               hits);
out:
    p->words = NULL;
    free(memo.slots);
    free(scans);
    free(cosine);
    free(root_real);
    free(rg);
    return rc;
}
