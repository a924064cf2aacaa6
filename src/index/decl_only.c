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

/*
 * An exception module declares tens of types; a file of more is no such module, and the cap
 * bounds the rounds below (one per type at most) on any input.
 */
#define MAX_TYPES 128

/* Whether target, a base as written, is an error type: by its name, or a type of the file
 * already found to be one. */
static bool base_is_error(const char *target, const mn_symbol_rec *symbols, const size_t *types,
                          size_t ntypes, const bool *err)
{
    if (mn_error_type_name(target))
        return true;
    for (size_t t = 0; t < ntypes; t++)
        if (err[t] && (!strcmp(target, symbols[types[t]].name) ||
                       !strcmp(target, symbols[types[t]].qualified_name)))
            return true;
    return false;
}

bool mn_decl_only(const mn_symbol_rec *symbols, size_t nsymbols, const mn_ref_rec *refs,
                  size_t nrefs)
{
    size_t types[MAX_TYPES], ntypes = 0;
    bool err[MAX_TYPES] = {false};
    /* the types; any kind that may hold behaviour of its own (a macro, a section) ends it */
    for (size_t i = 0; i < nsymbols; i++) {
        const char *k = symbols[i].kind;
        if (is_type(k)) {
            if (ntypes == MAX_TYPES)
                return false;
            err[ntypes] = annotation_type(&symbols[i]) || mn_error_type_name(symbols[i].name);
            types[ntypes++] = i;
        } else if (strcmp(k, "function") && strcmp(k, "method") && strcmp(k, "constant") &&
                   strcmp(k, "variable") && strcmp(k, "module"))
            return false;
    }
    if (ntypes == 0)
        return false;
    /* every function a member of a type (constructors, __str__, Go's Error()): a free
     * function is behaviour, and most files end here */
    for (size_t i = 0; i < nsymbols; i++) {
        if (strcmp(symbols[i].kind, "function") && strcmp(symbols[i].kind, "method"))
            continue;
        bool member = false;
        for (size_t t = 0; t < ntypes && !member; t++)
            member = member_of(symbols[i].qualified_name, symbols[types[t]].qualified_name);
        if (!member)
            return false;
    }
    /* then every type an error type: a type whose base is one of the file's error types
     * becomes one, as many rounds as it takes */
    for (bool moved = true; moved;) {
        moved = false;
        for (size_t r = 0; r < nrefs; r++) {
            if (refs[r].src_symbol < 0 || !refs[r].target || strcmp(refs[r].kind, "inherit"))
                continue;
            for (size_t t = 0; t < ntypes; t++)
                if (types[t] == (size_t)refs[r].src_symbol && !err[t] &&
                    base_is_error(refs[r].target, symbols, types, ntypes, err))
                    err[t] = moved = true;
        }
    }
    for (size_t t = 0; t < ntypes; t++)
        if (!err[t])
            return false;
    return true;
}
