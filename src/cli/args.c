/*
 * args.c - command-line flags generated from an operation's input schema.
 *
 * Every property of the schema is a flag: --title TEXT. The keys of object
 * properties (context, scope, provenance) are flags of their own
 * (--situation, --tag) and the whole object can be given as JSON
 * (--context-json '{...}'). Schema annotations steer the mapping:
 * x-cli-name gives a shorter flag (trigger_keywords -> --keyword; the
 * property's own name works too), x-cli-split lets a list flag take
 * comma-separated values, x-cli-json makes a flag take JSON. A list flag can
 * be repeated. --no-FLAG sets a boolean to false or a nullable key to null.
 * The schema still validates the result, in mn_api_call().
 *
 * Nothing given is dropped. The keys of a --<group>-json are merged with
 * the group's own flags after all words are read (so their order does not
 * matter): the JSON fills the keys the flags leave out, and a key given
 * both ways with different values is refused, as is a single-valued flag
 * given twice with different values, or a property given both as a flag
 * and as positional words. Numbers must be finite.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/util.h"

typedef struct {
    char name[80];     /* flag without dashes */
    const char *group; /* object property it sits in, or NULL */
    const char *prop;  /* property name */
    const json_t *schema;
    bool whole_group; /* --<group>-json */
} flagdef;

static void dashed(char *out, size_t n, const char *name, const char *suffix)
{
    snprintf(out, n, "%s%s", name, suffix);
    for (char *p = out; *p; p++)
        if (*p == '_')
            *p = '-';
}

static bool has_type(const json_t *schema, const char *type)
{
    const json_t *t = json_object_get(schema, "type");
    if (json_is_string(t))
        return strcmp(json_string_value(t), type) == 0;
    size_t i;
    json_t *v;
    json_array_foreach(t, i, v) if (strcmp(json_string_value(v), type) == 0) return true;
    return false;
}

static bool is_cli_object(const json_t *schema)
{
    return has_type(schema, "object") && !json_is_true(json_object_get(schema, "x-cli-json"));
}

/* All flags of an op, in schema order; returns the count (at most max). */
static size_t flag_table(flagdef *out, size_t max, const mn_op *op)
{
    const json_t *props = json_object_get(mn_api_input_schema(op), "properties");
    const char *key;
    json_t *sch;
    size_t n = 0;
    json_object_foreach((json_t *)props, key, sch)
    {
        if (is_cli_object(sch)) {
            const char *ck;
            json_t *cs;
            json_object_foreach(json_object_get(sch, "properties"), ck, cs)
            {
                const char *alias = json_string_value(json_object_get(cs, "x-cli-name"));
                for (int k = 0; k < (alias ? 2 : 1) && n < max; k++, n++) {
                    dashed(out[n].name, sizeof(out[n].name), k ? alias : ck, "");
                    out[n].group = key;
                    out[n].prop = ck;
                    out[n].schema = cs;
                    out[n].whole_group = false;
                }
            }
            if (n < max) {
                dashed(out[n].name, sizeof(out[n].name), key, "-json");
                out[n].group = NULL;
                out[n].prop = key;
                out[n].schema = sch;
                out[n].whole_group = true;
                n++;
            }
            continue;
        }
        const char *alias = json_string_value(json_object_get(sch, "x-cli-name"));
        for (int k = 0; k < (alias ? 2 : 1) && n < max; k++, n++) {
            dashed(out[n].name, sizeof(out[n].name), k ? alias : key, "");
            out[n].group = NULL;
            out[n].prop = key;
            out[n].schema = sch;
            out[n].whole_group = false;
        }
    }
    return n;
}

static const flagdef *find_flag(const flagdef *t, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(t[i].name) == len && memcmp(t[i].name, name, len) == 0)
            return &t[i];
    return NULL;
}

/* True when prop is one of the space-separated words. */
static bool in_words(const char *p, const char *prop)
{
    size_t n = strlen(prop);
    while (p && *p) {
        size_t w = strcspn(p, " ");
        if (w == n && memcmp(p, prop, n) == 0)
            return true;
        p += w;
        while (*p == ' ')
            p++;
    }
    return false;
}

static bool is_positional(const mn_op *op, const char *prop)
{
    return in_words(op->cli_positional, prop);
}

static json_t *target_object(json_t *args, const flagdef *f)
{
    if (!f->group)
        return args;
    json_t *g = json_object_get(args, f->group);
    if (!json_is_object(g)) {
        g = json_object();
        json_object_set_new(args, f->group, g);
    }
    return g;
}

static int utf8_string(json_t **out, const char *flag, const char *value)
{
    *out = json_string(value);
    if (!*out)
        return mn_error_set(MN_EINVAL, "option --%s: the value is not valid UTF-8", flag);
    return 0;
}

/*
 * Set a single-valued property; given before with another value it is
 * refused rather than silently replaced (the first value would be lost).
 */
static int set_once(json_t *obj, const flagdef *f, json_t *v)
{
    const json_t *cur = json_object_get(obj, f->prop);
    if (cur && !json_equal(cur, v)) {
        json_decref(v);
        return mn_error_set(
            MN_EINVAL, "option --%s is given twice with different values; give it once", f->name);
    }
    json_object_set_new(obj, f->prop, v);
    return 0;
}

/*
 * A --<group>-json value, kept aside in groups[group] until every word is
 * read (merge_groups). Two of them merge like a flag and the JSON do.
 */
static int keep_group_json(json_t *groups, const flagdef *f, json_t *v)
{
    json_t *cur = json_object_get(groups, f->prop);
    if (!cur) {
        json_object_set_new(groups, f->prop, v);
        return 0;
    }
    if (!json_is_object(cur) || !json_is_object(v)) {
        bool same = json_equal(cur, v);
        json_decref(v);
        return same ? 0
                    : mn_error_set(MN_EINVAL,
                                   "option --%s is given twice with different values; give it once",
                                   f->name);
    }
    const char *k;
    json_t *x;
    json_object_foreach(v, k, x)
    {
        const json_t *old = json_object_get(cur, k);
        if (old && !json_equal(old, x)) {
            /* k belongs to v: the message first */
            int rc = mn_error_set(
                MN_EINVAL, "'%.60s' is given twice with different values in --%s; give it once", k,
                f->name);
            json_decref(v);
            return rc;
        }
        json_object_set(cur, k, x);
    }
    json_decref(v);
    return 0;
}

static int set_flag(json_t *args, json_t *groups, const flagdef *f, const char *value, bool negated)
{
    json_t *obj = f->whole_group ? NULL : target_object(args, f);
    json_t *v = NULL;
    int rc = 0;

    if (negated) {
        if (has_type(f->schema, "boolean"))
            v = json_false();
        else if (has_type(f->schema, "null"))
            v = json_null();
        else
            return mn_error_set(MN_EINVAL, "option --no-%s is not allowed", f->name);
        if (f->whole_group)
            return keep_group_json(groups, f, v);
        return set_once(obj, f, v);
    }
    if (f->whole_group || json_is_true(json_object_get(f->schema, "x-cli-json"))) {
        json_error_t err;
        v = json_loads(value, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
        if (!v)
            return mn_error_set(MN_EINVAL, "option --%s: invalid JSON at column %d: %s", f->name,
                                err.column, err.text);
        if (f->whole_group)
            return keep_group_json(groups, f, v);
        json_t *cur = json_object_get(obj, f->prop);
        if (json_is_array(cur) && json_is_array(v)) {
            json_array_extend(cur, v);
            json_decref(v);
        } else if (json_is_array(cur) && json_is_object(v)) {
            json_array_append_new(cur, v);
        } else if (has_type(f->schema, "array") && json_is_object(v)) {
            json_t *arr = json_array();
            json_array_append_new(arr, v);
            json_object_set_new(obj, f->prop, arr);
        } else {
            json_object_set_new(obj, f->prop, v);
        }
        return 0;
    }
    if (has_type(f->schema, "array")) {
        json_t *arr = json_object_get(obj, f->prop);
        if (!json_is_array(arr)) {
            arr = json_array();
            json_object_set_new(obj, f->prop, arr);
        }
        bool split = json_is_true(json_object_get(f->schema, "x-cli-split"));
        const char *p = value;
        do {
            size_t n = split ? strcspn(p, ",") : strlen(p);
            size_t a = 0, z = n;
            while (a < z && isspace((unsigned char)p[a]))
                a++;
            while (z > a && isspace((unsigned char)p[z - 1]))
                z--;
            if (z > a || !split) {
                json_t *s = json_stringn(p + a, z - a);
                if (!s)
                    return mn_error_set(MN_EINVAL, "option --%s: the value is not valid UTF-8",
                                        f->name);
                json_array_append_new(arr, s);
            }
            p += n;
        } while (*p++ == ',' && split);
        return 0;
    }
    if (has_type(f->schema, "null") && strcmp(value, "null") == 0)
        /* a property that takes null ("null removes the expiry"): the word says so */
        return set_once(obj, f, json_null());
    if (has_type(f->schema, "integer")) {
        char *end;
        errno = 0;
        long long i = strtoll(value, &end, 10);
        if (!*value || isspace((unsigned char)*value) || *end || errno)
            return mn_error_set(MN_EINVAL, "option --%s: '%.40s' is not a whole number", f->name,
                                value);
        v = json_integer(i);
    } else if (has_type(f->schema, "number")) {
        /* never NaN or an infinity: json_real() refuses them, and the flag would vanish */
        double d;
        char what[96];
        snprintf(what, sizeof(what), "option --%s", f->name);
        if ((rc = mn_parse_finite(&d, value, what)) != 0)
            return rc;
        v = json_real(d);
    } else if (has_type(f->schema, "boolean")) {
        if (!strcmp(value, "true"))
            v = json_true();
        else if (!strcmp(value, "false"))
            v = json_false();
        else
            return mn_error_set(MN_EINVAL, "option --%s takes true or false", f->name);
    } else if ((rc = utf8_string(&v, f->name, value)) != 0) {
        return rc;
    }
    if (!v)
        return mn_error_set(MN_EINVAL, "option --%s: '%.40s' cannot be represented", f->name,
                            value);
    return set_once(obj, f, v);
}

/* The flag that sets prop of group (its short name when it has one), for messages. */
static const char *flag_of(const flagdef *t, size_t n, const char *group, const char *prop)
{
    const char *name = NULL;
    for (size_t i = 0; i < n; i++)
        if (t[i].group && !strcmp(t[i].group, group) && !strcmp(t[i].prop, prop))
            name = t[i].name; /* the alias follows the property's own name */
    return name;
}

/* Merge each --<group>-json kept aside into what the group's flags set. */
static int merge_groups(json_t *args, json_t *groups, const flagdef *t, size_t n)
{
    const char *group;
    json_t *v;
    json_object_foreach(groups, group, v)
    {
        json_t *have = json_object_get(args, group);
        if (!have) {
            json_object_set(args, group, v);
            continue;
        }
        if (!json_is_object(v))
            return mn_error_set(MN_EINVAL,
                                "option --%s-json must be a JSON object when flags fill '%s' too",
                                group, group);
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x)
        {
            const json_t *old = json_object_get(have, k);
            if (old && !json_equal(old, x)) {
                const char *flag = flag_of(t, n, group, k);
                return mn_error_set(MN_EINVAL,
                                    "%s.%.60s is given twice with different values, by --%s and "
                                    "in --%s-json; give it one way",
                                    group, k, flag ? flag : k, group);
            }
            json_object_set(have, k, x);
        }
    }
    return 0;
}

/* A property from positional words; also given as a flag, with another value, it is refused. */
static int set_positional(json_t *args, const char *prop, json_t *v)
{
    const json_t *cur = json_object_get(args, prop);
    if (cur && !json_equal(cur, v)) {
        json_decref(v);
        char name[64];
        dashed(name, sizeof(name), prop, "");
        return mn_error_set(MN_EINVAL, "%s is given twice, as --%s and as words; give it one way",
                            prop, name);
    }
    json_object_set_new(args, prop, v);
    return 0;
}

bool cli_has_flags(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return false;
        if (argv[i][0] == '-' && argv[i][1])
            return true;
    }
    return false;
}

int cli_parse_op_args(json_t **out, const mn_op *op, int argc, char **argv)
{
    flagdef table[160];
    size_t n = flag_table(table, sizeof(table) / sizeof(table[0]), op);
    json_t *args = json_object(), *groups = json_object();
    char **pos = calloc((size_t)argc + 1, sizeof(char *));
    int npos = 0, rc = 0;
    bool only_positional = false;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        /* "-" is stdin and "-1" a negative number: both are words, not options */
        if (only_positional || a[0] != '-' || !a[1] || isdigit((unsigned char)a[1])) {
            pos[npos++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--")) {
            only_positional = true;
            continue;
        }
        if (a[1] != '-') {
            rc = mn_error_set(MN_EINVAL, "unknown option '%.40s'", a);
            goto out;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        bool negated = false;
        const flagdef *f = find_flag(table, n, name, len);
        if (!f && len > 3 && !strncmp(name, "no-", 3)) {
            f = find_flag(table, n, name + 3, len - 3);
            negated = f != NULL;
        }
        if (!f || (f->group == NULL && !f->whole_group && is_positional(op, f->prop) &&
                   !has_type(f->schema, "string"))) {
            rc = mn_error_set(MN_EINVAL, "unknown option '--%.*s'", (int)(len > 60 ? 60 : len),
                              name);
            goto out;
        }
        const char *value = NULL;
        bool takes_value = !negated && !has_type(f->schema, "boolean");
        if (eq) {
            if (!takes_value && negated) {
                rc = mn_error_set(MN_EINVAL, "option --%s takes no value", f->name);
                goto out;
            }
            value = eq + 1;
        } else if (takes_value) {
            if (i + 1 >= argc) {
                rc = mn_error_set(MN_EINVAL, "option --%s needs a value", f->name);
                goto out;
            }
            value = argv[++i];
        } else if (!negated) {
            value = "true";
        }
        if ((rc = set_flag(args, groups, f, value, negated)) != 0)
            goto out;
    }

    /* positional words, bound in order to op->cli_positional */
    if (npos) {
        const char *p = op->cli_positional;
        int words = 0;
        for (const char *q = p; q && *q;) {
            words++;
            q += strcspn(q, " ");
            while (*q == ' ')
                q++;
        }
        if (!p) {
            rc = mn_error_set(MN_EINVAL, "unexpected argument '%.60s'", pos[0]);
            goto out;
        }
        if (words == 1) {
            /* one positional property: the words are joined (mnemo save some text) */
            size_t total = 0;
            for (int i = 0; i < npos; i++)
                total += strlen(pos[i]) + 1;
            char *joined = malloc(total + 1);
            joined[0] = '\0';
            size_t at = 0;
            for (int i = 0; i < npos; i++) {
                size_t l = strlen(pos[i]);
                if (i)
                    joined[at++] = ' ';
                memcpy(joined + at, pos[i], l);
                at += l;
            }
            joined[at] = '\0';
            json_t *s = json_string(joined);
            free(joined);
            if (!s) {
                rc = mn_error_set(MN_EINVAL, "argument is not valid UTF-8");
                goto out;
            }
            if ((rc = set_positional(args, p, s)) != 0)
                goto out;
        } else {
            if (npos > words) {
                rc = mn_error_set(MN_EINVAL, "unexpected argument '%.60s'", pos[words]);
                goto out;
            }
            for (int i = 0; i < npos; i++) {
                char prop[64];
                size_t w = strcspn(p, " ");
                snprintf(prop, sizeof(prop), "%.*s", (int)w, p);
                json_t *s = json_string(pos[i]);
                if (!s) {
                    rc = mn_error_set(MN_EINVAL, "argument '%s' is not valid UTF-8", prop);
                    goto out;
                }
                if ((rc = set_positional(args, prop, s)) != 0)
                    goto out;
                p += w;
                while (*p == ' ')
                    p++;
            }
        }
    }
    rc = merge_groups(args, groups, table, n);
out:
    free(pos);
    json_decref(groups);
    if (rc) {
        json_decref(args);
        return rc;
    }
    *out = args;
    return 0;
}

/* ---- help, generated from the op ---- */

/*
 * Help text is wrapped at whole words. A word longer than a whole line (a
 * JSON example, an enum list, a long path) is broken only after a ',', '|'
 * or '/', at the last such place that fits, and its pieces follow each
 * other with no space between; a word with no such place stands whole on a
 * line of its own. Columns are counted in code points.
 */
#define HELP_WIDTH 78

/* The longest prefix of w[0..len) that ends after a break character and is at most room long;
 * when none fits, the shortest one; len when w has no break character. */
static size_t piece_of(const char *w, size_t len, size_t room)
{
    size_t best = 0, first = 0;
    for (size_t i = 0; i + 1 < len; i++)
        if (w[i] == ',' || w[i] == '|' || w[i] == '/') {
            if (!first)
                first = i + 1;
            if (i + 1 <= room)
                best = i + 1;
        }
    return best ? best : first ? first : len;
}

static size_t cols(const char *s, size_t n)
{
    return mn_utf8_len(s, n);
}

/* Print text wrapped at width, continuation lines indented; the first line
 * starts at column indent, padded when pad_first (else the caller did). */
static void wrap(FILE *f, const char *text, int indent, int width, bool pad_first)
{
    size_t col = (size_t)indent, room = (size_t)(width - indent);
    bool line_empty = true;
    if (pad_first)
        cli_fprintf(f, "%*s", indent, "");
    while (*text) {
        while (*text == ' ')
            text++;
        size_t w = strcspn(text, " ");
        if (!w)
            break;
        bool glued = false; /* a later piece of a broken word: no space before it */
        while (w) {
            size_t n = cols(text, w) > room ? piece_of(text, w, room) : w;
            size_t need = cols(text, n) + (line_empty || glued ? 0 : 1);
            if (!line_empty && col + need > (size_t)width) {
                cli_fprintf(f, "\n%*s", indent, "");
                col = (size_t)indent;
                line_empty = true;
                /* on a fresh line the whole rest may fit, or break elsewhere */
                n = cols(text, w) > room ? piece_of(text, w, room) : w;
            }
            if (!line_empty && !glued) {
                cli_fprintf(f, " ");
                col++;
            }
            cli_fprintf(f, "%.*s", (int)n, text);
            col += cols(text, n);
            line_empty = false;
            text += n;
            w -= n;
            glued = true;
        }
    }
    cli_fprintf(f, "\n");
}

static const char *metavar(const flagdef *f)
{
    if (f->whole_group || json_is_true(json_object_get(f->schema, "x-cli-json")))
        return " JSON";
    if (has_type(f->schema, "boolean"))
        return "";
    if (has_type(f->schema, "integer") || has_type(f->schema, "number"))
        return " N";
    if (json_object_get(f->schema, "enum"))
        return " WORD";
    return " TEXT";
}

/* "  --flag TEXT   description [one of: ...] (repeatable)", wrapped at 78 columns */
static void help_line(FILE *f, const char *left, const char *desc, const flagdef *fd)
{
    char text[2048];
    size_t at = (size_t)snprintf(text, sizeof(text), "%s", desc);
    const json_t *en = json_object_get(fd->schema, "enum");
    if (json_is_array(en) && at < sizeof(text)) {
        at += (size_t)snprintf(text + at, sizeof(text) - at, " [");
        size_t i;
        json_t *v;
        json_array_foreach(en, i, v) if (at < sizeof(text)) at += (size_t)snprintf(
            text + at, sizeof(text) - at, "%s%s", i ? "|" : "", json_string_value(v));
        if (at < sizeof(text))
            at += (size_t)snprintf(text + at, sizeof(text) - at, "]");
    }
    if (has_type(fd->schema, "array") && !fd->whole_group && at < sizeof(text))
        snprintf(text + at, sizeof(text) - at, "%s",
                 json_is_true(json_object_get(fd->schema, "x-cli-split"))
                     ? " (repeatable; commas separate values)"
                     : " (repeatable)");
    if (strlen(left) >= 23)
        cli_fprintf(f, "%s\n%23s", left, "");
    else
        cli_fprintf(f, "%-23s", left);
    wrap(f, text, 23, HELP_WIDTH, false);
}

size_t cli_first_sentence(const char *s)
{
    /* up to the first ". " (a dot inside "serve.host" or "127.0.0.1" ends nothing) */
    const char *stop = strstr(s, ". ");
    size_t n = stop ? (size_t)(stop - s) : strlen(s);
    while (n && s[n - 1] == '.')
        n--;
    return n;
}

void cli_help_summary(FILE *f, const char *name, const char *summary)
{
    char text[1024];
    snprintf(text, sizeof(text), "%.*s", (int)cli_first_sentence(summary), summary);
    cli_fprintf(f, "  %-8s ", name);
    wrap(f, text, 11, HELP_WIDTH, false);
}

void cli_help(const cli_command *cmd, FILE *f)
{
    const mn_op *op = cmd->op ? mn_api_find(cmd->op) : NULL;
    char prefix[64];
    int plen = snprintf(prefix, sizeof(prefix), "usage: mnemo %s ", cmd->name);
    cli_fprintf(f, "%s", prefix);
    wrap(f, cmd->usage, plen, HELP_WIDTH, false);
    cli_fprintf(f, "\n");
    wrap(f, cmd->summary ? cmd->summary : op ? op->summary : "", 0, HELP_WIDTH, true);
    if (op && op->description) {
        cli_fprintf(f, "\n");
        wrap(f, op->description, 0, HELP_WIDTH, true);
    }
    cli_fprintf(f, "\noptions:\n");
    if (op) {
        flagdef table[160];
        size_t n = flag_table(table, sizeof(table) / sizeof(table[0]), op);
        for (size_t i = 0; i < n; i++) {
            const flagdef *fd = &table[i];
            /* an alias follows its property: show the property once, under the alias */
            if (i + 1 < n && table[i + 1].prop == fd->prop && table[i + 1].group == fd->group &&
                !table[i + 1].whole_group)
                continue;
            if (!fd->group && !fd->whole_group &&
                (is_positional(op, fd->prop) || in_words(cmd->not_flags, fd->prop)))
                continue;
            char left[120];
            snprintf(left, sizeof(left), "  --%.80s%.8s", fd->name, metavar(fd));
            const char *desc = json_string_value(json_object_get(fd->schema, "description"));
            help_line(f, left, desc ? desc : "", fd);
        }
    }
    if (cmd->options)
        cli_put_text(f, cmd->options);
    cli_fprintf(f, "  --json               print the result as JSON\n"
                   "  --db PATH            use the store at PATH (also: MNEMO_DB)\n"
                   "  -h, --help           show this help\n");
}
