/*
 * query_trace.c - the stack traces and error lines of languages other than
 * Python, read one line at a time for query.c (Python's traceback frames
 * and exception lines are read there).
 *
 * An issue about a crash pastes what the program printed; the frames of
 * its trace name the files and functions the fault runs through, the error
 * line the message the project's code raised. Each runtime prints them in
 * its own form:
 *
 *   Java, Kotlin   at com.x.Y$Z.m(Y.java:12)   (Unknown Source, Native Method:
 *                  no file)  Caused by: x.y.ZException: msg
 *                  Exception in thread "main" x.y.ZException: msg
 *   C#             at NS.C.M(args) in /p/C.cs:line 42
 *   JavaScript     TypeError: msg  /  at fn (file:///p/a.js:1:2)  /  at a.js:1:2
 *                  Uncaught (in promise) TypeError: msg;  node:internal frames
 *                  are the runtime's and skipped
 *   Go             panic: msg  /  goroutine 7 [running]:  then pairs of lines
 *                  pkg/path.(*T).M(args)  and  \t/abs/path/file.go:123 +0x1d
 *   Rust           thread 'main' panicked at 'msg', src/x.rs:10:5  (before 1.73)
 *                  thread 'main' panicked at src/x.rs:10:5:  + msg below
 *                  error[E0308]: msg  /  error: msg  with   --> src/x.rs:3:5
 *                  backtraces:  12: a::b::f  /  at ./src/x.rs:10:5
 *   C, C++         file.cpp:12:5: error: msg  (gcc, clang; warning, note,
 *                  fatal error too)
 *                  #0 0x4f2a in ns::C::f(int) /p/file.cpp:12:5  (sanitizers)
 *                  #0  f (a=1) at file.cpp:12  (gdb)
 *
 * mn_trace_frame reads a frame: the file (its path; for a Java frame the
 * file name and the package of the frame's class, which is the file's
 * directory by the language's convention), the function and the type it
 * belongs to. These runtimes print the innermost frame first (Python
 * prints it last), which the caller turns round (query.c). mn_trace_error
 * finds where an error line's message starts: query.c keeps its longest
 * run of plain words for the phrase search over the code (graph.c).
 *
 * Pure functions of the line's bytes; nothing is allocated, every pointer
 * returned points into the line.
 */
#include "common.h"
#include <ctype.h>

#include "retrieve/retrieve_internal.h"

static bool prefix(const char *s, const char *end, const char *p)
{
    size_t n = strlen(p);
    return (size_t)(end - s) >= n && memcmp(s, p, n) == 0;
}

static const char *skip_spaces(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    return s;
}

static const char *trim_end(const char *s, const char *end)
{
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    return end;
}

/* The extensions of the source files a frame may name (a frame in a .so or a bundle is not code).
 */
static bool frame_ext(const char *path, size_t len)
{
    static const char *const exts[] = {
        "java",  "kt", "kts", "scala", "groovy", "cs",  "fs",     "js",  "jsx", "mjs",
        "cjs",   "ts", "tsx", "mts",   "cts",    "vue", "svelte", "go",  "rs",  "c",
        "h",     "cc", "cpp", "cxx",   "hpp",    "hh",  "hxx",    "inl", "m",   "mm",
        "swift", "rb", "php", "py",    "dart",   "ex",  "exs",    "erl", "lua", "zig",
    };
    const char *dot = NULL;
    for (size_t i = len; i-- > 0;) {
        if (path[i] == '.') {
            dot = path + i;
            break;
        }
        if (path[i] == '/')
            break;
    }
    if (!dot || dot == path)
        return false;
    size_t el = (size_t)(path + len - dot - 1);
    for (size_t i = 0; i < MN_ARRAY_SIZE(exts); i++)
        if (strlen(exts[i]) == el && memcmp(exts[i], dot + 1, el) == 0)
            return true;
    return false;
}

static bool jvm_ext(const char *path, size_t len)
{
    static const char *const exts[] = {".java", ".kt", ".scala", ".groovy"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(exts); i++) {
        size_t n = strlen(exts[i]);
        if (len > n && memcmp(path + len - n, exts[i], n) == 0)
            return true;
    }
    return false;
}

/* Drop a trailing ":12", ":12:5" or ":line 12" (a location's line and column). */
static const char *drop_line(const char *s, const char *end)
{
    for (int i = 0; i < 2; i++) {
        const char *p = end;
        while (p > s && isdigit((unsigned char)p[-1]))
            p--;
        if (p == end || p == s)
            break;
        if (p - s > 5 && memcmp(p - 5, ":line", 5) == 0) /* .NET: ":line 42" */
            return p - 5;
        if (p[-1] == ' ' && p - s > 6 && memcmp(p - 6, ":line ", 6) == 0)
            return p - 6;
        if (p[-1] != ':')
            break;
        end = p - 1;
    }
    return end;
}

/*
 * A location: a path with a line (and column), as a frame prints it. The
 * scheme of a URL goes (file:///p/a.js, webpack:///./src/a.ts: the path is
 * what follows); the runtime's own (node:internal/..., <anonymous>) and a
 * file without a source extension are not code of any project.
 */
static bool location(const char *s, const char *end, mn_trace_frame_info *out)
{
    s = skip_spaces(s, end);
    end = trim_end(s, end);
    end = drop_line(s, end);
    const char *scheme = NULL;
    for (const char *p = s; p + 3 <= end; p++) {
        if (memcmp(p, "://", 3) == 0) {
            scheme = p + 3;
            break;
        }
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '+')
            break;
    }
    if (scheme)
        s = scheme;
    if (s == end || prefix(s, end, "node:") || prefix(s, end, "internal/") || *s == '<')
        return false;
    for (const char *p = s; p < end; p++)
        if (*p == ' ' || *p == '(' || *p == ')' || *p == '<' || *p == '>')
            return false;
    if (!frame_ext(s, (size_t)(end - s)))
        return false;
    out->path = s;
    out->path_len = (size_t)(end - s);
    return true;
}

static bool ident_char(unsigned char ch)
{
    return isalnum(ch) || ch == '_' || ch == '$' || ch >= 0x80;
}

/*
 * A function as frames write it: the last name is the function, the one
 * before it its type (a::b::C::f, pkg.C.f, pkg.(*T).M, Object.<anonymous>).
 * Parameters, template arguments and closures' suffixes go.
 */
static void function_name(const char *s, const char *end, mn_trace_frame_info *out)
{
    s = skip_spaces(s, end);
    for (const char *const *w = (const char *const[]){"async ", "new ", NULL}; *w; w++)
        if (prefix(s, end, *w))
            s += strlen(*w);
    /* parameters and template arguments: cut at the first '(' or '<' not
     * part of Go's (*T) */
    const char *e = s;
    while (e < end) {
        if (*e == '(' && !(e + 1 < end && e[1] == '*') && !(e > s && e[-1] == '.'))
            break;
        if (*e == '<' || *e == ' ')
            break;
        e++;
    }
    /* the names, separated by '.', "::", '/' or Go's receiver parentheses */
    const char *names[2] = {NULL, NULL};
    size_t lens[2] = {0, 0};
    for (const char *p = s; p < e;) {
        if (!ident_char((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *n = p;
        while (p < e && ident_char((unsigned char)*p))
            p++;
        if (p - n > 7 && memcmp(n, "lambda$", 7) == 0)
            n += 7; /* Java's lambda$run$0: a lambda in run */
        const char *ne = n;
        while (ne < p && *ne != '$')
            ne++; /* Java's Outer$Inner: the part before '$' */
        if (ne == n)
            continue;
        /* a closure: Go's func1: its function is the one before */
        size_t nl = (size_t)(ne - n);
        if (nl > 4 && memcmp(n, "func", 4) == 0 && isdigit((unsigned char)n[4]))
            continue;
        names[0] = names[1];
        lens[0] = lens[1];
        names[1] = n;
        lens[1] = nl;
    }
    if (!names[1])
        return;
    out->func = names[1];
    out->func_len = lens[1];
    if (names[0] && !(lens[0] == 6 && memcmp(names[0], "Object", 6) == 0)) {
        out->owner = names[0];
        out->owner_len = lens[0];
    }
}

/* "at ..." (Java, JavaScript, C#, Rust backtraces' locations). */
static bool at_frame(const char *l, const char *end, mn_trace_frame_info *out)
{
    const char *s = l + 3;
    end = trim_end(s, end);
    if (end > s && end[-1] == '{')
        end = trim_end(s, end - 1); /* node prints an error's fields after it */
    const char *in = NULL;
    for (const char *p = end; p - s >= 4; p--)
        if (memcmp(p - 4, " in ", 4) == 0 && memchr(s, ')', (size_t)(p - 4 - s))) {
            in = p; /* C#: "at N.C.M(args) in /p/C.cs:line 42" */
            break;
        }
    const char *fn = s, *fn_end, *loc, *loc_end;
    if (in) {
        fn_end = in - 4;
        loc = in;
        loc_end = end;
    } else if (end > s && end[-1] == ')') {
        const char *open = NULL;
        int depth = 0;
        for (const char *p = end; p > s; p--) {
            if (p[-1] == ')')
                depth++;
            else if (p[-1] == '(' && --depth == 0) {
                open = p - 1;
                break;
            }
        }
        if (!open)
            return false;
        fn_end = open;
        loc = open + 1;
        loc_end = end - 1;
    } else {
        fn_end = s; /* "at a.js:1:2": a location alone */
        loc = s;
        loc_end = end;
    }
    if (!location(loc, loc_end, out))
        return false;
    function_name(fn, fn_end, out);
    /* Java: the file is named alone; its directory is the class's package */
    if (!memchr(out->path, '/', out->path_len) && jvm_ext(out->path, out->path_len)) {
        const char *f = skip_spaces(fn, fn_end);
        const char *slash = NULL; /* java.base/java.lang.Class: a module first */
        for (const char *p = f; p < fn_end; p++)
            if (*p == '/')
                slash = p;
        if (slash)
            f = slash + 1;
        const char *dots[2] = {NULL, NULL}; /* the last two dots: .Class.method */
        for (const char *p = f; p < fn_end && *p != '(' && *p != ' '; p++)
            if (*p == '.') {
                dots[0] = dots[1];
                dots[1] = p;
            }
        if (dots[0] && dots[0] > f) {
            out->package = f;
            out->package_len = (size_t)(dots[0] - f);
        }
    }
    return true;
}

/* Go: "\t/abs/path/file.go:123 +0x1d", its function on the line before. */
static bool go_frame(const char *l, const char *end, const char *prev, const char *prev_end,
                     mn_trace_frame_info *out)
{
    end = trim_end(l, end);
    const char *plus = NULL;
    for (const char *p = l; p + 3 < end; p++)
        if (memcmp(p, " +0x", 4) == 0) {
            plus = p;
            break;
        }
    const char *loc_end = plus ? plus : end;
    if (loc_end - l < 6 || !memmem(l, (size_t)(loc_end - l), ".go:", 4))
        return false;
    if (!location(l, loc_end, out))
        return false;
    /* the module cache (pkg/mod/<module>@<version>/) and vendor/ trees:
     * the path inside the module is what follows */
    for (const char *p = out->path; p < out->path + out->path_len; p++) {
        const char *rest = out->path + out->path_len;
        if (*p == '@' && memchr(p, '/', (size_t)(rest - p))) {
            const char *s = memchr(p, '/', (size_t)(rest - p)) + 1;
            out->path_len = (size_t)(rest - s);
            out->path = s;
            break;
        }
    }
    const char *v = NULL;
    for (const char *p = out->path; p + 8 <= out->path + out->path_len; p++)
        if (memcmp(p, "/vendor/", 8) == 0)
            v = p + 8;
    if (v) {
        out->path_len -= (size_t)(v - out->path);
        out->path = v;
    }
    if (prev) {
        prev = skip_spaces(prev, prev_end);
        prev_end = trim_end(prev, prev_end);
        if (prefix(prev, prev_end, "created by "))
            prev += 11;
        const char *g = memmem(prev, (size_t)(prev_end - prev), " in goroutine", 13);
        if (g)
            prev_end = g;
        /* the arguments: the last '(' */
        const char *open = NULL;
        for (const char *p = prev; p < prev_end; p++)
            if (*p == '(' && !(p + 1 < prev_end && p[1] == '*') && !(p > prev && p[-1] == '.'))
                open = p;
        const char *fe = open ? open : prev_end;
        const char *slash = NULL;
        for (const char *p = prev; p < fe; p++)
            if (*p == '/')
                slash = p;
        function_name(slash ? slash + 1 : prev, fe, out);
        /* pkg.F: the package is no type */
        if (out->owner && !memchr(prev, '(', (size_t)(fe - prev)) &&
            (size_t)(fe - (slash ? slash + 1 : prev)) == out->owner_len + 1 + out->func_len) {
            out->owner = NULL;
            out->owner_len = 0;
        }
    }
    return true;
}

/* "#3 0x4f2a in ns::C::f(int) /p/a.cpp:12:5" (sanitizers), "#0  f (a=1) at a.cpp:12" (gdb). */
static bool native_frame(const char *l, const char *end, mn_trace_frame_info *out)
{
    const char *p = l + 1;
    if (p >= end || !isdigit((unsigned char)*p))
        return false;
    while (p < end && isdigit((unsigned char)*p))
        p++;
    p = skip_spaces(p, end);
    if (prefix(p, end, "0x")) {
        while (p < end && *p != ' ')
            p++;
        p = skip_spaces(p, end);
        if (prefix(p, end, "in "))
            p += 3;
    }
    end = trim_end(p, end);
    const char *at = NULL;
    for (const char *q = end; q - p >= 4; q--)
        if (memcmp(q - 4, " at ", 4) == 0) {
            at = q;
            break;
        }
    const char *loc = at;
    if (!loc) {
        loc = end; /* the last word */
        while (loc > p && loc[-1] != ' ')
            loc--;
    }
    if (loc <= p || !location(loc, end, out))
        return false;
    function_name(p, at ? at - 4 : loc, out);
    return true;
}

int mn_trace_frame(const char *l, const char *end, const char *prev, const char *prev_end,
                   mn_trace_frame_info *out)
{
    memset(out, 0, sizeof(*out));
    l = skip_spaces(l, end);
    if (l == end)
        return 0;
    if (prefix(l, end, "at ") && at_frame(l, end, out))
        return 1;
    if (*l == '#' && native_frame(l, end, out))
        return 1;
    if (prefix(l, end, "--> ")) /* rustc: the place of the error above */
        return location(l + 4, end, out) ? 2 : 0;
    const char *pk = memmem(l, (size_t)(end - l), "' panicked at ", 14);
    if (pk && prefix(l, end, "thread '")) {
        /* Rust before 1.73: panicked at 'msg', src/x.rs:10:5; since: at src/x.rs:10:5: */
        const char *s = pk + 14, *e = trim_end(s, end);
        if (e > s && e[-1] == ':')
            e--;
        if (s < e && *s == '\'') {
            const char *c = NULL;
            for (const char *p = e; p > s + 1; p--)
                if (p[-1] == ',' && p < e && *p == ' ') {
                    c = p;
                    break;
                }
            if (!c)
                return 0;
            s = c;
        }
        return location(s, e, out) ? 2 : 0;
    }
    if (go_frame(l, end, prev, prev_end, out))
        return 1;
    /* gcc, clang: "a.cpp:12:5: error: msg" */
    const char *colon = NULL;
    for (const char *p = l; p < end && *p != ' '; p++)
        if (*p == ':' && p + 1 < end && isdigit((unsigned char)p[1])) {
            colon = p;
            break;
        }
    if (colon) {
        const char *p = colon + 1;
        while (p < end && (isdigit((unsigned char)*p) || *p == ':'))
            p++;
        p = skip_spaces(p, end);
        if ((prefix(p, end, "error:") || prefix(p, end, "fatal error:") ||
             prefix(p, end, "warning:")) &&
            location(l, colon, out))
            return 1;
    }
    return 0;
}

const char *mn_trace_error(const char *l, const char *end, bool *message, const char **msg_end)
{
    *message = false;
    *msg_end = end;
    l = skip_spaces(l, end);
    static const char *const before[] = {"Caused by: ", "Uncaught (in promise) ", "Uncaught ",
                                         "Underlying exception : "};
    for (size_t i = 0; i < MN_ARRAY_SIZE(before); i++)
        if (prefix(l, end, before[i]))
            return l + strlen(before[i]); /* an exception line follows */
    if (prefix(l, end, "Exception in thread \"")) {
        const char *q = memchr(l + 21, '"', (size_t)(end - l - 21));
        return q && q + 2 <= end ? q + 2 : l;
    }
    /* a message of its own: Go's panic, rustc's and cargo's error lines
     * (error[E0308]: msg), JavaScript's bare Error: msg, a compiler's
     * a.cpp:1:2: error: msg, and Rust's old panic with the message quoted */
    static const char *const heads[] = {"panic: ", "error: ", "Error: ", "fatal error: "};
    for (size_t i = 0; i < MN_ARRAY_SIZE(heads); i++)
        if (prefix(l, end, heads[i])) {
            *message = true;
            return l + strlen(heads[i]);
        }
    if (prefix(l, end, "error[E")) {
        const char *p = memchr(l, ']', (size_t)(end - l));
        if (p && p + 2 < end && p[1] == ':') {
            *message = true;
            return p + 2;
        }
    }
    const char *pk = memmem(l, (size_t)(end - l), "' panicked at '", 15);
    if (pk && prefix(l, end, "thread '")) {
        *message = true;
        for (const char *p = end; p - (pk + 15) >= 3; p--)
            if (memcmp(p - 3, "', ", 3) == 0) {
                *msg_end = p - 3; /* 'msg', src/x.rs:1:2 */
                break;
            }
        return pk + 15;
    }
    if (prefix(l, end, "thread '") && memmem(l, (size_t)(end - l), "' panicked at ", 14)) {
        *message = true; /* Rust since 1.73: at src/x.rs:10:5: and the message below */
        return end;
    }
    /* a.cpp:12:5: error: msg */
    for (const char *p = l; p < end && *p != ' '; p++) {
        if (*p != ':' || p + 1 >= end || !isdigit((unsigned char)p[1]))
            continue;
        while (p < end && (isdigit((unsigned char)*p) || *p == ':'))
            p++;
        p = skip_spaces(p, end);
        for (size_t i = 1; i < MN_ARRAY_SIZE(heads); i++)
            if (prefix(p, end, heads[i])) {
                *message = true;
                return p + strlen(heads[i]);
            }
        break;
    }
    return l;
}
