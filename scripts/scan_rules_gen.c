/*
 * scan_rules_gen.c - build-time generator of the built-in secret scanner
 * (src/text/scan_internal.h, mn_scan__builtin_data): the rules file in, C
 * data out, so that a process starts the scanner without parsing YAML,
 * compiling a hundred patterns or building the prefilter's automaton.
 *
 *   scan_rules_gen RULES.yaml OUT.c
 *
 * The file is read by the scanner's own code (mn_scan__load, the parser a
 * project's .mnemo-scan.yaml goes through at run time, and mn_scan__finish,
 * which builds the automaton), so the generated data is what reading the
 * file at run time would give, and every check of the file (unknown keys,
 * a pattern that does not compile, a bad group, an unknown check) fails
 * the build with the same one-line message. Then every field of the
 * scanner is written out as C initializers: the rules (strings, lists,
 * numbers; the pattern as written, compiled on the rule's first use), the
 * ids, and the automaton's tables. Compiled PCRE2 code is not written: its
 * serialized form is tied to the PCRE2 library the build used, and mnemo
 * links the system's, which may be updated under it.
 *
 * unit/text/scan checks that the data equals what the file gives at run
 * time, field by field, and that both find the same hits in the corpus.
 * Exit 0, or 1 with a message.
 */
#include "common.h"

#include "text/scan_internal.h"

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "scan_rules_gen: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    size_t cap = 1 << 16, n = 0;
    char *buf = mn_malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = mn_realloc(buf, cap *= 2);
    }
    if (ferror(f))
        die("cannot read", path);
    fclose(f);
    *len = n;
    return buf;
}

/* A C string literal of s[0, n): printable ASCII as is, the rest as
 * three-digit octal escapes (which never run into a following digit, as a
 * hex escape would); '?' escaped against trigraphs. */
static void put_str(FILE *o, const char *s, size_t n)
{
    fputc('"', o);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\' || c == '?')
            fprintf(o, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            fputc(c, o);
        else
            fprintf(o, "\\%03o", c);
    }
    fputc('"', o);
}

/* `static const char *const NAME_i[] = {...};` for a non-empty list. */
static void put_list(FILE *o, const char *name, size_t i, const char *const *v, size_t n)
{
    if (!n)
        return;
    fprintf(o, "static const char *const %s_%zu[] = {", name, i);
    for (size_t k = 0; k < n; k++) {
        fputs(k ? ", " : "", o);
        put_str(o, v[k], strlen(v[k]));
    }
    fputs("};\n", o);
}

static void put_list_ref(FILE *o, const char *field, const char *name, size_t i, size_t n)
{
    if (n)
        fprintf(o, "     .%s = %s_%zu,\n     .n%s = %zu,\n", field, name, i, field, n);
}

static void put_u32s(FILE *o, const char *name, const uint32_t *v, size_t n)
{
    fprintf(o, "static const uint32_t %s[%zu] = {", name, n ? n : 1);
    for (size_t i = 0; i < n; i++)
        fprintf(o, "%s%s%u", i ? "," : "", i % 16 ? "" : "\n    ", v[i]);
    fputs(n ? "};\n" : "0};\n", o);
}

static void put_rule(FILE *o, const mn_scan__rule *r, size_t i)
{
    fprintf(o, "    {.id = ");
    put_str(o, r->id, strlen(r->id));
    fprintf(o, ",\n     .cls = %d,\n     .pattern = ", (int)r->cls);
    put_str(o, r->pattern, r->pattern_len);
    fprintf(o, ",\n     .pattern_len = %zu,\n     .ncap = %u,\n     .lazy = &lazy[%zu],\n",
            r->pattern_len, r->ncap, i);
    fprintf(o, "     .group = %u,\n     .before = %zu,\n     .after = %zu,\n", r->group, r->before,
            r->after);
    fprintf(o, "     .multiline = %d,\n     .has_keywords = %d,\n     .digits = %u,\n",
            r->multiline, r->has_keywords, r->digits);
    fprintf(o,
            "     .digit_shape = {.upper_before = %u, .upper_after = %d, .plus_before = %d, "
            ".dots = %d},\n",
            r->digit_shape.upper_before, r->digit_shape.upper_after, r->digit_shape.plus_before,
            r->digit_shape.dots);
    /* %a: the exact double */
    fprintf(o, "     .always = %d,\n     .placeholders = %d,\n     .min_entropy = %a,\n", r->always,
            r->placeholders, r->min_entropy);
    fprintf(o, "     .min_len = %zu,\n     .checks = {", r->min_len);
    for (size_t k = 0; k < r->nchecks; k++)
        fprintf(o, "%s%d /* %s */", k ? ", " : "", (int)r->checks[k],
                mn_scan__check_name(r->checks[k]));
    fprintf(o, "},\n     .nchecks = %zu,\n", r->nchecks);
    put_list_ref(o, "context", "context", i, r->ncontext);
    fprintf(o, "     .context_window = %zu,\n     .context_if_bare = %d,\n", r->context_window,
            r->context_if_bare);
    put_list_ref(o, "allow", "allow", i, r->nallow);
    put_list_ref(o, "keywords", "keywords", i, r->nkeywords);
    put_list_ref(o, "prefixes", "prefixes", i, r->nprefixes);
    fputs("    },\n", o);
}

static void generate(FILE *o, const mn_scanner *s, const char *source)
{
    const mn_scan__ac *ac = &s->ac;
    if (!ac->delta16)
        die("the automaton has over 65535 states", "the generator writes 16-bit tables only");
    fprintf(o,
            "/* generated by scripts/scan_rules_gen.c from %s -- do not edit\n"
            " * (%zu rules, %zu keywords, an automaton of %u states x %u classes) */\n"
            "#include \"common.h\"\n\n#include \"text/scan_internal.h\"\n\n",
            source, s->nrules, ac->nkw, ac->nstates, ac->nclasses);

    /* the rules' lists, then the rules */
    for (size_t i = 0; i < s->nrules; i++) {
        const mn_scan__rule *r = &s->rules[i];
        put_list(o, "context", i, r->context, r->ncontext);
        put_list(o, "allow", i, r->allow, r->nallow);
        put_list(o, "keywords", i, r->keywords, r->nkeywords);
        put_list(o, "prefixes", i, r->prefixes, r->nprefixes);
    }
    fprintf(o,
            "\n/* what each rule compiles on its first use (scan_rules.c) */\n"
            "static mn_scan__lazy lazy[%zu];\n\n",
            s->nrules);
    fprintf(o, "static mn_scan__rule rules[%zu] = {\n", s->nrules);
    for (size_t i = 0; i < s->nrules; i++)
        put_rule(o, &s->rules[i], i);
    fputs("};\n\n", o);
    fprintf(o, "static const char *const ids[%zu] = {\n", s->nids);
    for (size_t i = 0; i < s->nids; i++) {
        fputs("    ", o);
        put_str(o, s->ids[i], strlen(s->ids[i]));
        fputs(",\n", o);
    }
    fputs("};\n\n", o);

    /* the automaton */
    for (size_t k = 0; k < ac->nkw; k++) {
        char name[32];
        snprintf(name, sizeof(name), "kw_rules_%zu", k);
        if (ac->kw[k].nrules)
            put_u32s(o, name, ac->kw[k].rules, ac->kw[k].nrules);
    }
    fprintf(o, "static const mn_scan__keyword kw[%zu] = {\n", ac->nkw);
    for (size_t k = 0; k < ac->nkw; k++) {
        const mn_scan__keyword *w = &ac->kw[k];
        fputs("    {.text = ", o);
        put_str(o, w->text, w->len);
        fprintf(o, ", .len = %zu, .exact_case = %d, .marker = %d", w->len, w->exact_case,
                w->marker);
        if (w->nrules)
            fprintf(o, ", .rules = kw_rules_%zu, .nrules = %zu", k, w->nrules);
        fputs("},\n", o);
    }
    fputs("};\n", o);
    size_t stride = (size_t)1 << ac->shift16, cells = (size_t)ac->nstates * stride;
    fprintf(o, "static const uint16_t delta16[%zu] = {", cells);
    for (size_t i = 0; i < cells; i++)
        fprintf(o, "%s%s%u", i ? "," : "", i % 16 ? "" : "\n    ", ac->delta16[i]);
    fputs("};\n", o);
    size_t nout = ac->nstates - ac->first_out, total = 0;
    for (size_t i = 0; i < nout; i++)
        total += ac->out_count[i];
    put_u32s(o, "out_start", ac->out_start, nout);
    put_u32s(o, "out_count", ac->out_count, nout);
    put_u32s(o, "out_kw", ac->out_kw, total);

    fputs("\nmn_scanner mn_scan__builtin_data = {\n", o);
    fprintf(o, "    .rules = rules,\n    .nrules = %zu,\n    .ids = ids,\n    .nids = %zu,\n",
            s->nrules, s->nids);
    fputs("    .ac = {.cls = {", o);
    for (size_t i = 0; i < 256; i++)
        fprintf(o, "%s%s%u", i ? "," : "", i % 32 ? "" : "\n        ", ac->cls[i]);
    fprintf(o,
            "},\n           .nclasses = %u,\n           .nstates = %u,\n"
            "           .first_out = %u,\n           .maxlen = %u,\n"
            "           .delta16 = delta16,\n           .shift16 = %u,\n"
            "           .out_start = out_start,\n           .out_count = out_count,\n"
            "           .out_kw = out_kw,\n           .kw = kw,\n           .nkw = %zu,\n"
            "           .shared = true},\n",
            ac->nclasses, ac->nstates, ac->first_out, ac->maxlen, ac->shift16, ac->nkw);
    fprintf(o, "    .min_digits = %u,\n    .max_groups = %zu,\n    .builtin = true,\n};\n",
            s->min_digits, s->max_groups);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        die("usage", "scan_rules_gen RULES.yaml OUT.c");
    size_t len = 0;
    char *yaml = read_file(argv[1], &len);
    mn_scanner *s = mn_calloc(1, sizeof(*s));
    if (mn_scan__load(s, yaml, len, argv[1], false) != 0 || mn_scan__finish(s, NULL) != 0)
        die(mn_error_last(), NULL);
    for (size_t i = 0; i < s->nrules; i++)
        if (s->rules[i].always)
            die("a built-in rule has no trigger (keywords, prefixes or digits)", s->rules[i].id);
    /* written next to OUT and renamed: an interrupted build leaves no half file */
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
    FILE *o = fopen(tmp, "w");
    if (!o)
        die("cannot write", tmp);
    generate(o, s, "src/text/scan_rules.yaml");
    if (fclose(o) != 0 || rename(tmp, argv[2]) != 0)
        die("cannot write", argv[2]);
    mn_scan__release(s);
    free(s);
    free(yaml);
    return 0;
}
