/*
 * decl_only.c - files that only declare error and annotation types (decl_only.h).
 */
#include "common.h"

#include "index/decl_only.h"

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool mn_error_type_name(const char *name)
{
    if (!name)
        return false;
    /* the last part of a qualified name: a.b.C, std::runtime_error, pkg/x.Err */
    const char *last = name;
    for (const char *p = name; *p; p++)
        if (*p == '.' || *p == ':' || *p == '/' || *p == '\\')
            last = p + 1;
    size_t n = strlen(last);
    static const char *const camel[] = {"Error",   "Errors",     "Exception",
                                        "Warning", "Exceptions", "Throwable"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(camel); i++)
        if (ends_with(last, n, camel[i]))
            return true;
    return ends_with(last, n, "_error") || ends_with(last, n, "_exception") ||
           !strcasecmp(last, "error") || !strcasecmp(last, "exception");
}

static bool is_type(const char *kind)
{
    static const char *const kinds[] = {"class", "interface", "struct", "enum", "type", "trait"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(kinds); i++)
        if (!strcmp(kind, kinds[i]))
            return true;
    return false;
}

/* A Java annotation type: `public @interface Spy {` (parse.h: kind interface). */
static bool annotation_type(const mn_symbol_rec *y)
{
    return !strcmp(y->kind, "interface") && y->signature && strstr(y->signature, "@interface");
}

/* Whether qn names a member of the type whose qualified name is type ("Err.__init__"). */
static bool member_of(const char *qn, const char *type)
{
    size_t n = strlen(type);
    return !strncmp(qn, type, n) && qn[n] == '.';
}

/* The name a base is written with matches a type of the file already found to be an error. */
static bool base_is_error(const char *target, const mn_symbol_rec *symbols, size_t nsymbols,
                          const bool *err)
{
    if (mn_error_type_name(target))
        return true;
    for (size_t j = 0; j < nsymbols; j++)
        if (err[j] &&
            (!strcmp(target, symbols[j].name) || !strcmp(target, symbols[j].qualified_name)))
            return true;
    return false;
}

bool mn_decl_only(const mn_symbol_rec *symbols, size_t nsymbols, const mn_ref_rec *refs,
                  size_t nrefs)
{
    bool *err = mn_calloc(nsymbols ? nsymbols : 1, sizeof(bool));
    size_t ntypes = 0;
    for (size_t i = 0; i < nsymbols; i++) {
        if (!is_type(symbols[i].kind))
            continue;
        ntypes++;
        err[i] = annotation_type(&symbols[i]) || mn_error_type_name(symbols[i].name);
    }
    /* a type whose base is an error type of the file: as many rounds as it takes */
    for (bool moved = true; moved;) {
        moved = false;
        for (size_t r = 0; r < nrefs; r++) {
            int i = refs[r].src_symbol;
            if (i < 0 || (size_t)i >= nsymbols || err[i] || !is_type(symbols[i].kind) ||
                strcmp(refs[r].kind, "inherit") != 0 || !refs[r].target)
                continue;
            if (base_is_error(refs[r].target, symbols, nsymbols, err))
                err[i] = moved = true;
        }
    }
    bool only = ntypes > 0;
    for (size_t i = 0; i < nsymbols && only; i++) {
        const mn_symbol_rec *y = &symbols[i];
        if (is_type(y->kind))
            only = err[i];
        else if (!strcmp(y->kind, "function") || !strcmp(y->kind, "method")) {
            bool member = false;
            for (size_t j = 0; j < nsymbols && !member; j++)
                member = err[j] && member_of(y->qualified_name, symbols[j].qualified_name);
            only = member;
        } else /* constants, variables and namespaces hold no behaviour; macros may */
            only = !strcmp(y->kind, "constant") || !strcmp(y->kind, "variable") ||
                   !strcmp(y->kind, "module");
    }
    free(err);
    return only;
}
