/*
 * options.c - the options, environment variables and config keys a file
 * declares (options.h), read from its source text.
 *
 * How. One pass over the text skips comments and tracks the brackets: each
 * open '(' '[' '{' remembers the name written right before it (the call:
 * "add_argument", "StringVarP", "getenv"; a Rust "env!" as "env"), the
 * text before that name (its receiver: "os.environ", "cmd.Flags()") and
 * how many commas it has seen (the argument's position). Each string (and
 * character) literal is then judged by the call it is an argument of:
 *
 *   option  a literal spelled as options ("--tb", "-l, --showlocals",
 *           "--shout/--no-shout", "--[no-]verbose") in a call of a
 *           declaring function: argparse/optparse add_argument,
 *           add_option, pytest addoption/_addoption, click/typer
 *           option/Option, commander option/requiredOption/Option, Ruby
 *           OptionParser on, picocli/JCommander/args4j @Option/@Parameter,
 *           System.CommandLine Option. Bare names where the API takes them:
 *           Go flag/pflag/cobra String/StringP/StringVar/StringVarP...
 *           (the name, then the shorthand in a P form), urfave/cli
 *           Name: "x" in a ...Flag{}, clap long("x") / short('x'),
 *           commons-cli longOpt("x") / addOption("v", "verbose"),
 *           getopt_long's {"name", required_argument, ...} rows and
 *           getopt's "ab:c" letters. A bare name x is stored as users type
 *           it: "--x", a single letter "-x".
 *           Rust clap derive: #[arg(long, short)] on a field gives
 *           "--field-name" and "-f"; long = "x", short = 'x' as written.
 *           A pylint-style option table: ("name", { ... "help" ... }).
 *   env     an UPPER_CASE literal read through the environment: os.getenv,
 *           os.environ[...] / .get, process.env.X / ["X"], std::env::var,
 *           env!, os.Getenv / LookupEnv, System.getenv, getenv (C, C++,
 *           PHP), ENV["X"] / ENV.fetch (Ruby),
 *           Environment.GetEnvironmentVariable, clap's env = "X".
 *   config  pytest parser.addini("name"), Sphinx add_config_value("name"),
 *           Go viper.GetString("key") / SetDefault("key"), Java
 *           System.getProperty("key").
 *
 * Invariants: a name is stored once per file (its first line); at most
 * MN_OPTIONS_MAX_PER_FILE per file; names are ASCII of at most 64 bytes
 * (anything else is no option a person types).
 */
#include "common.h"
#include <ctype.h>

#include "index/options.h"

#define DEPTH     64 /* brackets tracked; deeper ones are ignored */
#define CALL_MAX  48 /* bytes of a call's name kept */
#define RECV_MAX  40 /* bytes of receiver text kept before the name */
#define DECL_MAX  64 /* bytes of a declared name */
#define LOOKAHEAD 800

typedef struct {
    char open;
    char name[CALL_MAX];
    char recv[RECV_MAX];
    int arg; /* commas seen at this depth */
} frame;

typedef struct {
    const char *lang, *src;
    size_t len;
    mn_arena *arena;
    mn_decl_vec *out;
    size_t first; /* out's length before this file */
    frame st[DEPTH];
    int depth;
    int64_t line;
} ex;

static bool is_ident(unsigned char c)
{
    return isalnum(c) || c == '_';
}

static bool lang_is(const ex *x, const char *a)
{
    return x->lang && strcmp(x->lang, a) == 0;
}

static bool c_like(const ex *x)
{
    static const char *const l[] = {"javascript", "typescript", "tsx",  "go",     "rust",
                                    "java",       "c",          "cpp",  "csharp", "php",
                                    "kotlin",     "scala",      "swift"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(l); i++)
        if (lang_is(x, l[i]))
            return true;
    return false;
}

static bool hash_comments(const ex *x)
{
    return lang_is(x, "python") || lang_is(x, "ruby") || lang_is(x, "bash") || lang_is(x, "php");
}

static void add(ex *x, const char *kind, const char *name, size_t n, int64_t line)
{
    if (n == 0 || n > DECL_MAX || x->out->len - x->first >= MN_OPTIONS_MAX_PER_FILE)
        return;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)name[i] <= ' ' || (unsigned char)name[i] >= 0x7f)
            return;
    for (size_t i = x->first; i < x->out->len; i++) {
        const mn_decl_rec *d = &x->out->items[i];
        if (strlen(d->name) == n && memcmp(d->name, name, n) == 0 && strcmp(d->kind, kind) == 0)
            return;
    }
    mn_decl_rec d = {line, kind, mn_arena_strndup(x->arena, name, n)};
    mn_vec_push(x->out, d);
}

/* A bare option name ("verbose", "v") as users type it: "--verbose", "-v". */
static void add_bare_option(ex *x, const char *s, size_t n, int64_t line)
{
    if (n == 0 || n > DECL_MAX - 2 || !isalnum((unsigned char)s[0]))
        return;
    for (size_t i = 0; i < n; i++)
        if (!is_ident((unsigned char)s[i]) && s[i] != '-' && s[i] != '.')
            return;
    char b[DECL_MAX + 2];
    int k = snprintf(b, sizeof(b), "%s%.*s", n == 1 ? "-" : "--", (int)n, s);
    add(x, "option", b, (size_t)k, line);
}

/*
 * A literal spelled as options: each piece starting with '-' then a letter
 * or digit, pieces split on ' ' ',' '/' '|' '=' '<' '['; "--[no-]x" gives
 * "--x" and "--no-x". Returns whether it was such a literal.
 */
static bool add_spelled(ex *x, const char *s, size_t n, int64_t line)
{
    while (n && *s == ' ')
        s++, n--;
    if (n < 2 || s[0] != '-')
        return false;
    bool any = false;
    for (size_t i = 0; i < n;) {
        if (s[i] != '-' || (i > 0 && !strchr(" ,/|", s[i - 1]))) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && s[j] == '-' && j - i < 2)
            j++;
        size_t dashes = j - i;
        if (j + 5 <= n && memcmp(s + j, "[no-]", 5) == 0) {
            char b[DECL_MAX + 8];
            size_t e = j + 5;
            while (e < n && (is_ident((unsigned char)s[e]) || s[e] == '-'))
                e++;
            int k = snprintf(b, sizeof(b), "--%.*s", (int)(e - j - 5), s + j + 5);
            add(x, "option", b, (size_t)k, line);
            k = snprintf(b, sizeof(b), "--no-%.*s", (int)(e - j - 5), s + j + 5);
            add(x, "option", b, (size_t)k, line);
            any = true;
            i = e;
            continue;
        }
        size_t e = j;
        while (e < n && (is_ident((unsigned char)s[e]) || s[e] == '-' || s[e] == '?'))
            e++;
        if (e > j && isalnum((unsigned char)s[j]) && dashes <= 2) {
            add(x, "option", s + i, e - i, line);
            any = true;
        }
        i = e > i ? e : i + 1;
    }
    return any;
}

static bool upper_name(const char *s, size_t n)
{
    if (n < 2 || !isupper((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isupper((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
            return false;
    return true;
}

static bool config_key(const char *s, size_t n)
{
    if (n < 2 || !isalpha((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_ident((unsigned char)s[i]) && s[i] != '-' && s[i] != '.')
            return false;
    return true;
}

static bool name_in(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return true;
    return false;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Go flag/pflag/cobra: String, StringP, StringVar, StringVarP, BoolVarP... */
static bool go_flag_call(const char *name, bool *var, bool *p)
{
    static const char *const types[] = {
        "String",         "Bool",          "Int",         "Int8",     "Int16",
        "Int32",          "Int64",         "Uint",        "Uint8",    "Uint16",
        "Uint32",         "Uint64",        "Float32",     "Float64",  "Duration",
        "Count",          "StringSlice",   "StringArray", "IntSlice", "BoolSlice",
        "StringToString", "Var",           "Func",        "IP",       "BytesHex",
        "Float64Slice",   "DurationSlice", "TextVar"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(types); i++) {
        size_t tl = strlen(types[i]);
        if (strncmp(name, types[i], tl) != 0)
            continue;
        const char *r = name + tl;
        *var = strncmp(r, "Var", 3) == 0 && strcmp(types[i], "Var") != 0;
        if (*var)
            r += 3;
        *p = *r == 'P';
        if (*p)
            r++;
        if (*r == '\0')
            return true;
    }
    return false;
}

/* The literal s[0..n) (its content), at line, an argument of the frames. */
static void literal(ex *x, const char *s, size_t n, bool chr, int64_t line, const char *after)
{
    if (x->depth <= 0 || x->depth > DEPTH)
        return;
    const frame *f = &x->st[x->depth - 1];
    const char *name = f->name, *recv = f->recv;
    static const char *const spelled_calls[] = {
        "add_argument",   "add_option", "addoption", "_addoption", "option",      "Option",
        "requiredOption", "on",         "Argument",  "Parameter",  "make_option", "addOption",
    };
    /* annotations hold their names in an array: @Option(names = {"-v", "--verbose"}) */
    const frame *g = f->open == '{' && x->depth >= 2 ? &x->st[x->depth - 2] : f;
    if (!chr && (name_in(name, spelled_calls, MN_ARRAY_SIZE(spelled_calls)) ||
                 name_in(g->name, spelled_calls, MN_ARRAY_SIZE(spelled_calls)))) {
        if (add_spelled(x, s, n, line))
            return;
    }
    /* config keys */
    if (!chr && f->arg == 0 && f->open == '(' &&
        (strcmp(name, "addini") == 0 || strcmp(name, "add_config_value") == 0 ||
         (strcmp(name, "getProperty") == 0 && ends_with(recv, "System.")) ||
         (strstr(recv, "viper") &&
          (strncmp(name, "Get", 3) == 0 || strcmp(name, "SetDefault") == 0 ||
           strcmp(name, "BindEnv") == 0))) &&
        config_key(s, n)) {
        add(x, "config", s, n, line);
        return;
    }
    /* environment variables */
    if (!chr && upper_name(s, n) && f->arg == 0) {
        static const char *const env_calls[] = {
            "getenv",  "secure_getenv", "Getenv", "LookupEnv", "GetEnvironmentVariable",
            "qgetenv", "g_getenv",
        };
        bool env = name_in(name, env_calls, MN_ARRAY_SIZE(env_calls));
        env |= f->open == '(' &&
               (strcmp(name, "get") == 0 || strcmp(name, "pop") == 0 ||
                strcmp(name, "setdefault") == 0 || strcmp(name, "fetch") == 0) &&
               (ends_with(recv, "environ.") || ends_with(recv, "ENV.") || ends_with(recv, "env."));
        env |= f->open == '[' && (ends_with(name, "environ") || strcmp(name, "ENV") == 0 ||
                                  strcmp(name, "_ENV") == 0 || ends_with(recv, "process.") ||
                                  strcmp(name, "env") == 0);
        env |= f->open == '(' && (strcmp(name, "var") == 0 || strcmp(name, "var_os") == 0) &&
               ends_with(recv, "env::");
        env |= f->open == '(' && (strcmp(name, "env!") == 0 || strcmp(name, "option_env!") == 0);
        env |=
            f->open == '(' && strcmp(name, "env") == 0 && lang_is(x, "rust"); /* clap .env("X") */
        if (env) {
            add(x, "env", s, n, line);
            return;
        }
    }
    if (lang_is(x, "go") && !chr) {
        bool var = false, p = false;
        if (f->open == '(' && go_flag_call(name, &var, &p) && strstr(recv, "lag")) {
            int at = var ? 1 : 0;
            if (f->arg == at)
                add_bare_option(x, s, n, line);
            else if (p && f->arg == at + 1 && n == 1)
                add_bare_option(x, s, n, line);
            return;
        }
        /* urfave/cli: &cli.StringFlag{Name: "config", Aliases: []string{"c"}} */
        if (f->open == '{' && ends_with(name, "Flag") && strcmp(recv, "Name:") == 0)
            add_bare_option(x, s, n, line);
        return;
    }
    if (lang_is(x, "rust") && f->open == '(' && f->arg == 0) {
        if (strcmp(name, "long") == 0 && !chr)
            add_bare_option(x, s, n, line);
        else if (strcmp(name, "short") == 0 && chr && n == 1)
            add_bare_option(x, s, n, line);
        return;
    }
    if ((lang_is(x, "java") || lang_is(x, "kotlin")) && f->open == '(' && !chr) {
        if (strcmp(name, "longOpt") == 0 ||
            (strcmp(name, "builder") == 0 && ends_with(recv, "Option.")))
            add_bare_option(x, s, n, line);
        else if ((strcmp(name, "addOption") == 0 || strcmp(name, "Option") == 0) && f->arg <= 1 &&
                 s[0] != '-')
            add_bare_option(x, s, n, line);
        return;
    }
    if ((lang_is(x, "c") || lang_is(x, "cpp")) && !chr) {
        /* getopt's letters: getopt(argc, argv, "ab:c") */
        if (f->open == '(' && f->arg == 2 &&
            (strcmp(name, "getopt") == 0 || strcmp(name, "getopt_long") == 0 ||
             strcmp(name, "getopt_long_only") == 0)) {
            for (size_t i = 0; i < n; i++)
                if (isalnum((unsigned char)s[i]))
                    add_bare_option(x, s + i, 1, line);
            return;
        }
        /* getopt_long's table: {"name", required_argument, NULL, 'n'} */
        if (f->open == '{' && f->arg == 0 && after) {
            const char *a = after, *end = x->src + x->len;
            while (a < end && (*a == ' ' || *a == '\t'))
                a++;
            if (a < end && *a == ',') {
                a++;
                while (a < end && (*a == ' ' || *a == '\t'))
                    a++;
                static const char *const kinds[] = {"no_argument", "required_argument",
                                                    "optional_argument"};
                for (size_t k = 0; k < MN_ARRAY_SIZE(kinds); k++)
                    if ((size_t)(end - a) >= strlen(kinds[k]) &&
                        memcmp(a, kinds[k], strlen(kinds[k])) == 0)
                        add_bare_option(x, s, n, line);
            }
        }
        return;
    }
    if (lang_is(x, "python") && !chr && f->open == '(' && f->arg == 0 && name[0] == '\0' && after) {
        /* a pylint-style option table: ("name", {"type": ..., "help": ...}) */
        const char *a = after, *end = x->src + x->len;
        while (a < end && isspace((unsigned char)*a))
            a++;
        if (a < end && *a == ',') {
            a++;
            while (a < end && isspace((unsigned char)*a))
                a++;
            if (a < end && *a == '{') {
                size_t look = (size_t)(end - a) < LOOKAHEAD ? (size_t)(end - a) : LOOKAHEAD;
                if ((memmem(a, look, "\"help\"", 6) || memmem(a, look, "'help'", 6)) &&
                    config_key(s, n))
                    add_bare_option(x, s, n, line);
            }
        }
    }
}

/* Rust clap derive: #[arg(...)] / #[clap(...)] / #[structopt(...)] above a field. */
static void rust_derive(ex *x, const char *p, const char *end, int64_t line)
{
    static const char *const attrs[] = {"#[arg(", "#[clap(", "#[structopt(", "#[argh("};
    size_t al = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(attrs) && !al; i++)
        if ((size_t)(end - p) > strlen(attrs[i]) && memcmp(p, attrs[i], strlen(attrs[i])) == 0)
            al = strlen(attrs[i]);
    if (!al)
        return;
    const char *a = p + al, *close = a;
    int depth = 1;
    while (close < end && depth) {
        if (*close == '(')
            depth++;
        else if (*close == ')')
            depth--;
        close++;
    }
    if (depth)
        return;
    /* the field: past further attributes and `pub`, an identifier then ':' */
    const char *q = close;
    for (;;) {
        while (q < end && (isspace((unsigned char)*q) || *q == ']'))
            q++;
        if (q < end && *q == '#') {
            const char *nl = memchr(q, '\n', (size_t)(end - q));
            q = nl ? nl : end;
            continue;
        }
        if ((size_t)(end - q) > 4 && memcmp(q, "pub", 3) == 0 && !is_ident((unsigned char)q[3])) {
            q += 3;
            if (q < end && *q == '(') {
                const char *r = memchr(q, ')', (size_t)(end - q));
                q = r ? r + 1 : end;
            }
            continue;
        }
        break;
    }
    const char *fe = q;
    while (fe < end && is_ident((unsigned char)*fe))
        fe++;
    const char *colon = fe;
    while (colon < end && *colon == ' ')
        colon++;
    bool field = fe > q && colon < end && *colon == ':' && !(colon + 1 < end && colon[1] == ':');
    char kebab[DECL_MAX];
    size_t kl = 0;
    for (const char *c = q; field && c < fe && kl < sizeof(kebab); c++)
        kebab[kl++] = *c == '_' ? '-' : *c;
    /* each key of the attribute: long, long = "x", short, short = 'x', env = "X" */
    for (const char *k = a; k < close - 1;) {
        while (k < close && (isspace((unsigned char)*k) || *k == ','))
            k++;
        const char *ke = k;
        while (ke < close && is_ident((unsigned char)*ke))
            ke++;
        if (ke == k) {
            k++;
            continue;
        }
        size_t klen = (size_t)(ke - k);
        const char *v = ke;
        while (v < close && *v == ' ')
            v++;
        const char *val = NULL;
        size_t vlen = 0;
        if (v < close && *v == '=') {
            v++;
            while (v < close && *v == ' ')
                v++;
            if (v < close && (*v == '"' || *v == '\'')) {
                char qch = *v;
                const char *ve = memchr(v + 1, qch, (size_t)(close - v - 1));
                if (ve) {
                    val = v + 1;
                    vlen = (size_t)(ve - v - 1);
                }
            }
        }
        if (klen == 4 && memcmp(k, "long", 4) == 0) {
            if (val)
                add_bare_option(x, val, vlen, line);
            else if (field)
                add_bare_option(x, kebab, kl, line);
        } else if (klen == 5 && memcmp(k, "short", 5) == 0) {
            if (val && vlen == 1)
                add_bare_option(x, val, 1, line);
            else if (!val && field)
                add_bare_option(x, kebab, 1, line);
        } else if (klen == 3 && memcmp(k, "env", 3) == 0 && val && upper_name(val, vlen)) {
            add(x, "env", val, vlen, line);
        }
        /* past the value */
        k = v > ke ? v : ke;
        while (k < close && *k != ',')
            k++;
    }
}

/* process.env.NAME (JavaScript, TypeScript) and import.meta.env.NAME */
static void js_env(ex *x, const char *p, const char *end, int64_t line)
{
    if ((size_t)(end - p) < 5 || memcmp(p, "env.", 4) != 0 ||
        (p > x->src && is_ident((unsigned char)p[-1])))
        return;
    if (!(p - x->src >= 8 && memcmp(p - 8, "process.", 8) == 0) &&
        !(p - x->src >= 12 && memcmp(p - 12, "import.meta.", 12) == 0))
        return;
    const char *n = p + 4, *ne = n;
    while (ne < end && is_ident((unsigned char)*ne))
        ne++;
    if (upper_name(n, (size_t)(ne - n)))
        add(x, "env", n, (size_t)(ne - n), line);
}

/* The name written before an opening bracket at p (and its receiver). */
static void frame_name(ex *x, frame *f, const char *p)
{
    const char *e = p;
    while (e > x->src && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    /* Option<bool>(...) (C#), env!(...) (Rust) */
    if (e > x->src && e[-1] == '>') {
        int d = 0;
        const char *b = e;
        while (b > x->src && e - b < 80) {
            b--;
            if (*b == '>')
                d++;
            else if (*b == '<' && --d == 0)
                break;
        }
        if (d == 0)
            e = b;
    }
    bool bang = e > x->src && e[-1] == '!';
    if (bang)
        e--;
    const char *s = e;
    while (s > x->src && is_ident((unsigned char)s[-1]))
        s--;
    size_t n = (size_t)(e - s);
    if (n + 2 > CALL_MAX)
        n = 0;
    memcpy(f->name, s, n);
    if (bang && n)
        f->name[n++] = '!';
    f->name[n] = '\0';
    /* the receiver: back to a separator, over the empty calls of a chain
     * (cmd.PersistentFlags().StringVarP) */
    const char *r = s;
    while (r > x->src && s - r < RECV_MAX - 1 && r[-1] != '\n' && r[-1] != ',' && r[-1] != '{' &&
           r[-1] != ';' && r[-1] != '=' && r[-1] != ' ') {
        if (r[-1] == '(')
            break;
        if (r[-1] == ')' && r - 1 > x->src && r[-2] == '(' && s - (r - 2) < RECV_MAX - 1)
            r--;
        r--;
    }
    size_t rl = (size_t)(s - r);
    memcpy(f->recv, r, rl);
    f->recv[rl] = '\0';
}

void mn_options_extract(const char *language, const char *src, size_t len, mn_arena *arena,
                        mn_decl_vec *out)
{
    ex x = {0};
    x.lang = language;
    x.src = src;
    x.len = len;
    x.arena = arena;
    x.out = out;
    x.first = out->len;
    x.line = 1;
    if (!language || !src)
        return;
    bool cl = c_like(&x), hash = hash_comments(&x), py = lang_is(&x, "python"),
         rust = lang_is(&x, "rust"),
         js = lang_is(&x, "javascript") || lang_is(&x, "typescript") || lang_is(&x, "tsx");
    if (!cl && !py && !lang_is(&x, "ruby"))
        return;
    /* the name right before a '[' for subscripts (os.environ["X"]) is kept as the frame's name */
    const char *end = src + len;
    const char *urfave_key = NULL; /* "Name:" just before a literal */
    for (const char *p = src; p < end;) {
        char ch = *p;
        if (ch == '\n') {
            x.line++;
            p++;
            continue;
        }
        if (hash && ch == '#' && !(rust)) {
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        if (cl && ch == '/' && p + 1 < end && p[1] == '/') {
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        if (cl && ch == '/' && p + 1 < end && p[1] == '*') {
            for (p += 2; p + 1 < end && !(p[0] == '*' && p[1] == '/'); p++)
                if (*p == '\n')
                    x.line++;
            p += 2;
            continue;
        }
        if (rust && ch == '#' && p + 1 < end && p[1] == '[') {
            rust_derive(&x, p, end, x.line);
            p++;
            continue;
        }
        if (js && ch == 'e')
            js_env(&x, p, end, x.line);
        if (ch == '"' || ch == '\'' || ch == '`') {
            /* Python triple quotes: a docstring, skipped whole */
            if (py && p + 2 < end && p[1] == ch && p[2] == ch) {
                const char *q = p + 3;
                while (q + 2 < end && !(q[0] == ch && q[1] == ch && q[2] == ch)) {
                    if (*q == '\n')
                        x.line++;
                    q += *q == '\\' ? 2 : 1;
                }
                p = q + 3 < end ? q + 3 : end;
                continue;
            }
            /* a Rust lifetime ('a) is no literal */
            if (rust && ch == '\'' &&
                !(p + 2 < end && (p[2] == '\'' || (p[1] == '\\' && p + 3 < end && p[3] == '\'')))) {
                p++;
                continue;
            }
            const char *q = p + 1;
            int64_t line = x.line;
            while (q < end && *q != ch && (ch == '`' || *q != '\n')) {
                if (*q == '\n')
                    x.line++;
                q += *q == '\\' && q + 1 < end ? 2 : 1;
            }
            if (q >= end)
                break;
            bool chr = ch == '\'' && (cl && !js && !lang_is(&x, "php"));
            size_t n = (size_t)(q - p - 1);
            if (!(ch == '`' && memchr(p + 1, '$', n))) {
                /* urfave/cli's Name: "x" sits in a {} frame: its name is the field key */
                if (urfave_key && x.depth > 0) {
                    frame *f = &x.st[x.depth - 1];
                    char save[RECV_MAX];
                    memcpy(save, f->recv, RECV_MAX);
                    snprintf(f->recv, RECV_MAX, "Name:");
                    literal(&x, p + 1, n, chr, line, q + 1);
                    memcpy(f->recv, save, RECV_MAX);
                } else {
                    literal(&x, p + 1, n, chr, line, q + 1);
                }
            }
            urfave_key = NULL;
            p = q + 1;
            continue;
        }
        if (ch == 'N' && (size_t)(end - p) > 5 && memcmp(p, "Name:", 5) == 0 &&
            (p == src || !is_ident((unsigned char)p[-1]))) {
            urfave_key = p;
            p += 5;
            continue;
        }
        if (ch == '(' || ch == '[' || ch == '{') {
            if (x.depth < DEPTH) {
                frame *f = &x.st[x.depth];
                f->open = ch;
                f->arg = 0;
                frame_name(&x, f, p);
                /* a composite literal's type: cli.StringFlag{ */
            }
            x.depth++;
        } else if (ch == ')' || ch == ']' || ch == '}') {
            if (x.depth > 0)
                x.depth--;
        } else if (ch == ',' && x.depth > 0 && x.depth <= DEPTH) {
            x.st[x.depth - 1].arg++;
        } else if (!isspace((unsigned char)ch)) {
            urfave_key = ch == ':' ? urfave_key : NULL;
        }
        p++;
    }
}
