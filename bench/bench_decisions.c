/*
 * bench_decisions.c - the decision detector (src/text/decision.h) on the
 * labelled set of tests/data/decisions/ (real commit messages, issue and
 * PR text in English, Russian and French; README there for provenance and
 * labelling rules), next to a naive keyword baseline run in the same pass.
 *
 *   bench_decisions [FILE] [--split all|dev|holdout] [--min-confidence X]
 *                   [--errors] [--json] [--strict]
 *
 * A passage counts as detected when the detector returns at least one
 * decision at or above the threshold (0.5, the detector's default). Per
 * language and overall, for the whole set and for its development and
 * held-out parts (the held-out third was not looked at while the cues
 * were written):
 *
 *   capture   = detected decisions / labelled decisions        (recall)
 *   precision = detected decisions / passages detected
 *   statement, reasons, alternatives, supersedes: on the detected
 *   decisions whose label has that span, the share where one extracted
 *   span matches one labelled span (word-set F1 >= 0.5: the same words,
 *   give or take a marker or an article); "extra reasons" counts detected
 *   decisions with a reason the label does not have.
 *
 * The keyword baseline says "decision" for a passage containing any cue
 * word of the list (decided, instead of, вместо, отказ, plutôt
 * que, au lieu de, ...; lower-cased, diacritics dropped).
 *
 * Targets (issue 21): capture >= 0.70 and precision >= 0.80 in each
 * language, on the whole set. --strict exits 1 when one is missed (the
 * ctest integration/decisions_bench runs it so). Exit 2 on usage or data
 * errors.
 */
#include <jansson.h>

#include "common.h"
#include "text/cues.h"
#include "text/decision.h"

#ifndef MN_SOURCE_DIR
#define MN_SOURCE_DIR "."
#endif

enum { L_EN, L_RU, L_FR, L_ALL, L_N };
static const char *const lang_names[L_N] = {"en", "ru", "fr", "all"};
enum { S_ALL, S_DEV, S_HOLD, S_N };
static const char *const split_names[S_N] = {"all", "dev", "holdout"};
enum { X_STATEMENT, X_REASONS, X_ALTS, X_SUPS, X_N };
static const char *const span_names[X_N] = {"decision", "reasons", "alternatives", "supersedes"};

typedef struct {
    int n, pos;
    int tp, fp, fn;    /* detector */
    int btp, bfp, bfn; /* keyword baseline */
    int x_have[X_N], x_hit[X_N];
    int extra_reasons;
} cell_t;

static cell_t cells[S_N][L_N];

/* The baseline's cue words, matched at a word start of the normalised text. */
static const char *const base_en[] = {
    "decid",       "decision",     "chose",         "choos",         "instead of",
    "rather than", "switch",       "going forward", "let s go with", "we ll use",
    "in favor of", "in favour of", "dropped"};
static const char *const base_ru[] = {"решил",   "решен",      "выбрал",     "выбор",  "перешл",
                                      "перешел", "переход на", "перейти на", "вместо", "отказ"};
static const char *const base_fr[] = {"decid",      "decision",  "choisi",    "choix",
                                      "plutot que", "plutot qu", "au lieu d", "on passe a",
                                      "passage a",  "remplac"};

static void normalise(mn_buf *out, mn_cue_words *w, const char *text, size_t len)
{
    mn_buf_clear(out);
    mn_cue_words_scan(w, text, 0, len);
    mn_buf_putc(out, ' ');
    for (size_t i = 0; i < w->n; i++) {
        if (w->toks[i].kind != MN_TOK_WORD)
            continue;
        size_t n;
        const char *s = mn_cue_norm(w, i, &n);
        mn_buf_put(out, s, n);
        mn_buf_putc(out, ' ');
    }
}

static bool baseline(mn_buf *norm, mn_cue_words *w, const char *text, size_t len)
{
    normalise(norm, w, text, len);
    const char *const *lists[] = {base_en, base_ru, base_fr};
    size_t sizes[] = {MN_ARRAY_SIZE(base_en), MN_ARRAY_SIZE(base_ru), MN_ARRAY_SIZE(base_fr)};
    char pat[64];
    for (size_t l = 0; l < 3; l++)
        for (size_t i = 0; i < sizes[l]; i++) {
            snprintf(pat, sizeof(pat), " %s", lists[l][i]);
            if (strstr(norm->ptr, pat))
                return true;
        }
    return false;
}

/* The normalised words of text[a, b) as a set (a sorted, deduplicated list in one buffer). */
typedef struct {
    char **w;
    size_t n;
} wset;

static int cmpstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void wset_of(wset *s, mn_cue_words *w, const char *text, size_t a, size_t b)
{
    s->w = NULL;
    s->n = 0;
    mn_cue_words_scan(w, text, a, b);
    if (w->n == 0)
        return;
    s->w = mn_calloc(w->n, sizeof(char *));
    bool words = false;
    for (size_t i = 0; i < w->n; i++)
        words = words || w->toks[i].kind != MN_TOK_PUNCT;
    for (size_t i = 0; i < w->n; i++) {
        if (w->toks[i].kind == MN_TOK_PUNCT && words)
            continue; /* marks count only in a span of marks alone ("/") */
        size_t n;
        const char *x = mn_cue_norm(w, i, &n);
        if (w->toks[i].kind != MN_TOK_WORD) {
            x = text + w->toks[i].start;
            n = w->toks[i].end - w->toks[i].start;
        }
        s->w[s->n++] = mn_strndup(x, n);
    }
    qsort(s->w, s->n, sizeof(char *), cmpstr);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (k > 0 && strcmp(s->w[k - 1], s->w[i]) == 0) {
            free(s->w[i]);
            continue;
        }
        s->w[k++] = s->w[i];
    }
    s->n = k;
}

static void wset_free(wset *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->w[i]);
    free(s->w);
}

static double wset_f1(const wset *a, const wset *b)
{
    if (a->n == 0 || b->n == 0)
        return 0;
    size_t i = 0, j = 0, common = 0;
    while (i < a->n && j < b->n) {
        int c = strcmp(a->w[i], b->w[j]);
        if (c == 0) {
            common++;
            i++;
            j++;
        } else if (c < 0) {
            i++;
        } else {
            j++;
        }
    }
    if (common == 0)
        return 0;
    double p = (double)common / (double)a->n, r = (double)common / (double)b->n;
    return 2 * p * r / (p + r);
}

/* Does one labelled span (strings in arr, found in text) match one predicted span? */
static bool spans_match(const json_t *gold, const char *text, const mn_text_span *pred, size_t np,
                        mn_cue_words *w)
{
    size_t gi;
    const json_t *g;
    json_array_foreach(gold, gi, g)
    {
        const char *gs = json_string_value(g);
        if (!gs)
            continue;
        const char *at = strstr(text, gs);
        if (!at)
            continue;
        wset G;
        wset_of(&G, w, text, (size_t)(at - text), (size_t)(at - text) + strlen(gs));
        for (size_t k = 0; k < np; k++) {
            wset P;
            wset_of(&P, w, text, pred[k].start, pred[k].end);
            double f = wset_f1(&P, &G);
            wset_free(&P);
            if (f >= 0.5) {
                wset_free(&G);
                return true;
            }
        }
        wset_free(&G);
    }
    return false;
}

static void print_table(FILE *f, int split)
{
    fprintf(f, "\nsplit: %s\n", split_names[split]);
    fprintf(f, "| lang | passages | decisions | mnemo capture | mnemo precision | mnemo F1 | "
               "keyword capture | keyword precision | keyword F1 |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|\n");
    for (int l = 0; l < L_N; l++) {
        cell_t *c = &cells[split][l];
        double cap = c->pos ? (double)c->tp / c->pos : 0;
        double prec = c->tp + c->fp ? (double)c->tp / (c->tp + c->fp) : 0;
        double f1 = cap + prec > 0 ? 2 * cap * prec / (cap + prec) : 0;
        double bcap = c->pos ? (double)c->btp / c->pos : 0;
        double bprec = c->btp + c->bfp ? (double)c->btp / (c->btp + c->bfp) : 0;
        double bf1 = bcap + bprec > 0 ? 2 * bcap * bprec / (bcap + bprec) : 0;
        fprintf(f, "| %s | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", lang_names[l],
                c->n, c->pos, cap, prec, f1, bcap, bprec, bf1);
    }
    fprintf(f, "\nextraction on detected decisions (%s): matched / labelled\n", split_names[split]);
    fprintf(f, "| lang | decision | reasons | alternatives | supersedes | extra reasons |\n");
    fprintf(f, "|---|---|---|---|---|---|\n");
    for (int l = 0; l < L_N; l++) {
        cell_t *c = &cells[split][l];
        fprintf(f, "| %s |", lang_names[l]);
        for (int x = 0; x < X_N; x++)
            fprintf(f, " %d/%d (%.2f) |", c->x_hit[x], c->x_have[x],
                    c->x_have[x] ? (double)c->x_hit[x] / c->x_have[x] : 0);
        fprintf(f, " %d/%d |\n", c->extra_reasons, c->tp);
    }
}

static json_t *json_cells(int split)
{
    json_t *o = json_object();
    for (int l = 0; l < L_N; l++) {
        cell_t *c = &cells[split][l];
        json_t *j = json_object();
        json_object_set_new(j, "passages", json_integer(c->n));
        json_object_set_new(j, "decisions", json_integer(c->pos));
        json_object_set_new(j, "tp", json_integer(c->tp));
        json_object_set_new(j, "fp", json_integer(c->fp));
        json_object_set_new(j, "fn", json_integer(c->fn));
        json_object_set_new(j, "capture", json_real(c->pos ? (double)c->tp / c->pos : 0));
        json_object_set_new(j, "precision",
                            json_real(c->tp + c->fp ? (double)c->tp / (c->tp + c->fp) : 0));
        json_object_set_new(j, "keyword_capture", json_real(c->pos ? (double)c->btp / c->pos : 0));
        json_object_set_new(j, "keyword_precision",
                            json_real(c->btp + c->bfp ? (double)c->btp / (c->btp + c->bfp) : 0));
        for (int x = 0; x < X_N; x++) {
            json_t *xs = json_object();
            json_object_set_new(xs, "matched", json_integer(c->x_hit[x]));
            json_object_set_new(xs, "labelled", json_integer(c->x_have[x]));
            json_object_set_new(j, span_names[x], xs);
        }
        json_object_set_new(o, lang_names[l], j);
    }
    return o;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_decisions [FILE] [--split all|dev|holdout] [--min-confidence X] "
                    "[--errors] [--json] [--strict]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int split_sel = -1; /* print all three */
    double minc = 0.5;
    bool errors = false, as_json = false, strict = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--split") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            split_sel = strcmp(v, "all") == 0       ? S_ALL
                        : strcmp(v, "dev") == 0     ? S_DEV
                        : strcmp(v, "holdout") == 0 ? S_HOLD
                                                    : -2;
            if (split_sel == -2)
                return usage();
        } else if (strcmp(argv[i], "--min-confidence") == 0 && i + 1 < argc) {
            char *end;
            minc = strtod(argv[++i], &end);
            if (*end || minc < 0 || minc > 1)
                return usage();
        } else if (strcmp(argv[i], "--errors") == 0) {
            errors = true;
        } else if (strcmp(argv[i], "--json") == 0) {
            as_json = true;
        } else if (strcmp(argv[i], "--strict") == 0) {
            strict = true;
        } else if (argv[i][0] == '-') {
            return usage();
        } else if (!path) {
            path = argv[i];
        } else {
            return usage();
        }
    }
    char defpath[4096];
    if (!path) {
        const char *env = getenv("MNEMO_BENCH_DECISIONS");
        if (env && *env) {
            path = env;
        } else {
            snprintf(defpath, sizeof(defpath), "%s/tests/data/decisions/decisions.jsonl",
                     MN_SOURCE_DIR);
            path = defpath;
        }
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bench_decisions: cannot open '%s': %s\n", path, strerror(errno));
        return 2;
    }
    json_t *all = json_array();
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (len <= 1)
            continue;
        json_error_t err;
        json_t *v = json_loadb(line, (size_t)len, 0, &err);
        if (!v || !json_is_object(v)) {
            fprintf(stderr, "bench_decisions: %s:%zu: %s\n", path, lineno,
                    v ? "not an object" : err.text);
            json_decref(v);
            free(line);
            fclose(f);
            json_decref(all);
            return 2;
        }
        json_array_append_new(all, v);
    }
    free(line);
    fclose(f);

    FILE *rep = as_json ? stderr : stdout;
    mn_cue_words w = MN_CUE_WORDS_INIT;
    mn_buf norm = MN_BUF_INIT;
    size_t i;
    json_t *it;
    json_array_foreach(all, i, it)
    {
        const char *text = json_string_value(json_object_get(it, "text"));
        const char *lang = json_string_value(json_object_get(it, "lang"));
        const char *split = json_string_value(json_object_get(it, "split"));
        const char *source = json_string_value(json_object_get(it, "source"));
        const char *id = json_string_value(json_object_get(it, "id"));
        json_t *label = json_object_get(it, "label");
        if (!text || !lang || !split || !source || !id || !json_is_integer(label)) {
            fprintf(stderr,
                    "bench_decisions: %s: item %zu lacks id, text, lang, split, source or "
                    "label\n",
                    path, i + 1);
            json_decref(all);
            return 2;
        }
        int l = strcmp(lang, "en") == 0   ? L_EN
                : strcmp(lang, "ru") == 0 ? L_RU
                : strcmp(lang, "fr") == 0 ? L_FR
                                          : -1;
        int sp = strcmp(split, "holdout") == 0 ? S_HOLD : S_DEV;
        if (l < 0) {
            fprintf(stderr, "bench_decisions: %s: item '%s' has language '%s'\n", path, id, lang);
            json_decref(all);
            return 2;
        }
        bool gold = json_integer_value(label) == 1;
        mn_decision_opts o = MN_DECISION_OPTS_INIT;
        o.min_confidence = minc;
        o.flags = strcmp(source, "commit") == 0 ? MN_DECISION_COMMIT : MN_DECISION_MARKDOWN;
        mn_decision *d = NULL;
        size_t nd = 0;
        if (mn_decisions_find(&d, &nd, text, strlen(text), &o) != 0) {
            fprintf(stderr, "bench_decisions: %s: %s\n", id, mn_error_last());
            json_decref(all);
            return 2;
        }
        bool pred = nd > 0;
        bool base = baseline(&norm, &w, text, strlen(text));
        int sps[2] = {S_ALL, sp};
        int ls[2] = {l, L_ALL};
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                cell_t *c = &cells[sps[a]][ls[b]];
                c->n++;
                c->pos += gold;
                c->tp += gold && pred;
                c->fp += !gold && pred;
                c->fn += gold && !pred;
                c->btp += gold && base;
                c->bfp += !gold && base;
                c->bfn += gold && !base;
            }
        if (gold && pred) {
            /* pool the spans of every decision found in the passage */
            mn_text_span st[64], rs[64], al[64], su[64];
            size_t nst = 0, nrs = 0, nal = 0, nsu = 0;
            for (size_t k = 0; k < nd; k++) {
                if (nst < 64)
                    st[nst++] = d[k].statement;
                for (size_t x = 0; x < d[k].n_reasons && nrs < 64; x++)
                    rs[nrs++] = d[k].reasons[x];
                for (size_t x = 0; x < d[k].n_alternatives && nal < 64; x++)
                    al[nal++] = d[k].alternatives[x];
                for (size_t x = 0; x < d[k].n_supersedes && nsu < 64; x++)
                    su[nsu++] = d[k].supersedes[x];
            }
            json_t *dec = json_array();
            json_t *ds = json_object_get(it, "decision");
            if (json_is_string(ds))
                json_array_append(dec, ds);
            json_t *golds[X_N] = {dec, json_object_get(it, "reasons"),
                                  json_object_get(it, "alternatives"),
                                  json_object_get(it, "supersedes")};
            const mn_text_span *preds[X_N] = {st, rs, al, su};
            size_t npreds[X_N] = {nst, nrs, nal, nsu};
            for (int x = 0; x < X_N; x++) {
                if (!json_is_array(golds[x]) || json_array_size(golds[x]) == 0)
                    continue;
                bool hit = spans_match(golds[x], text, preds[x], npreds[x], &w);
                if (errors && !hit) {
                    fprintf(rep, "SPAN %s [%s] %s: labelled", id, split, span_names[x]);
                    size_t gi;
                    json_t *g;
                    json_array_foreach(golds[x], gi, g)
                        fprintf(rep, " \"%s\"", json_string_value(g));
                    fprintf(rep, "; found");
                    for (size_t k = 0; k < npreds[x]; k++)
                        fprintf(rep, " \"%.*s\"", (int)(preds[x][k].end - preds[x][k].start),
                                text + preds[x][k].start);
                    fputc('\n', rep);
                }
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++) {
                        cells[sps[a]][ls[b]].x_have[x]++;
                        cells[sps[a]][ls[b]].x_hit[x] += hit;
                    }
            }
            json_t *gr = json_object_get(it, "reasons");
            if (nrs > 0 && (!json_is_array(gr) || json_array_size(gr) == 0))
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++)
                        cells[sps[a]][ls[b]].extra_reasons++;
            json_decref(dec);
        }
        if (errors && gold != pred) {
            fprintf(rep, "%s %s [%s] ", gold ? "MISS" : "FALSE", id, split);
            if (pred) {
                mn_buf why = MN_BUF_INIT;
                mn_decision_why_format(&why, d[0].why);
                fprintf(rep, "(%.2f %s %s) ", d[0].confidence, mn_decision_kind_name(d[0].kind),
                        why.ptr);
                mn_buf_release(&why);
            }
            for (const char *p = text; *p && p < text + 200; p++)
                fputc(*p == '\n' ? ' ' : *p, rep);
            fputc('\n', rep);
        }
        mn_decisions_free(d);
    }
    mn_cue_words_release(&w);
    mn_buf_release(&norm);

    fprintf(rep, "bench_decisions: %s (%zu passages), threshold %.2f\n", path, json_array_size(all),
            minc);
    for (int s = 0; s < S_N; s++)
        if (split_sel < 0 || split_sel == s)
            print_table(rep, s);
    int check = split_sel < 0 ? S_ALL : split_sel;
    bool ok = true;
    fprintf(rep,
            "\ntargets (issue 21, split %s): capture >= 0.70, precision >= 0.80 per language\n",
            split_names[check]);
    for (int l = 0; l < L_ALL; l++) {
        cell_t *c = &cells[check][l];
        double capv = c->pos ? (double)c->tp / c->pos : 0;
        double prec = c->tp + c->fp ? (double)c->tp / (c->tp + c->fp) : 0;
        bool pass = capv >= 0.70 && prec >= 0.80;
        ok = ok && pass;
        fprintf(rep, "  %s  capture %.3f  precision %.3f  %s\n", lang_names[l], capv, prec,
                pass ? "PASS" : "FAIL");
    }
    if (as_json) {
        json_t *j = json_object();
        json_object_set_new(j, "bench", json_string("decisions"));
        json_object_set_new(j, "dataset", json_string(path));
        json_object_set_new(j, "threshold", json_real(minc));
        for (int s = 0; s < S_N; s++)
            json_object_set_new(j, split_names[s], json_cells(s));
        json_object_set_new(j, "targets_met", json_boolean(ok));
        char *out = json_dumps(j, JSON_INDENT(2));
        printf("%s\n", out);
        free(out);
        json_decref(j);
    }
    json_decref(all);
    return strict && !ok ? 1 : 0;
}
