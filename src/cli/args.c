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
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

static int set_flag(json_t *args, const flagdef *f, const char *value, bool negated)
{
    json_t *obj = target_object(args, f);
    json_t *v = NULL;
    int rc = 0;

    if (negated) {
        if (has_type(f->schema, "boolean"))
            v = json_false();
        else if (has_type(f->schema, "null"))
            v = json_null();
        else
            return mn_error_set(MN_EINVAL, "option --no-%s is not allowed", f->name);
        json_object_set_new(obj, f->prop, v);
        return 0;
    }
    if (f->whole_group || json_is_true(json_object_get(f->schema, "x-cli-json"))) {
        json_error_t err;
        v = json_loads(value, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
        if (!v)
            return mn_error_set(MN_EINVAL, "option --%s: invalid JSON at column %d: %s", f->name,
                                err.column, err.text);
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
    if (has_type(f->schema, "integer")) {
        char *end;
        errno = 0;
        long long i = strtoll(value, &end, 10);
        if (!*value || *end || errno)
            return mn_error_set(MN_EINVAL, "option --%s: '%.40s' is not a whole number", f->name,
                                value);
        v = json_integer(i);
    } else if (has_type(f->schema, "number")) {
        char *end;
        errno = 0;
        double d = strtod(value, &end);
        if (!*value || *end || errno)
            return mn_error_set(MN_EINVAL, "option --%s: '%.40s' is not a number", f->name, value);
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
    json_object_set_new(obj, f->prop, v);
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
    json_t *args = json_object();
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
        if ((rc = set_flag(args, f, value, negated)) != 0)
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
            json_object_set_new(args, p, s);
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
                json_object_set_new(args, prop, s);
                p += w;
                while (*p == ' ')
                    p++;
            }
        }
    }
out:
    free(pos);
    if (rc) {
        json_decref(args);
        return rc;
    }
    *out = args;
    return 0;
}

/* ---- help, generated from the op ---- */

/* Print text wrapped at width, continuation lines indented; the first line
 * starts at column indent, padded when pad_first (else the caller did). */
static void wrap(FILE *f, const char *text, int indent, int width, bool pad_first)
{
    int col = indent;
    bool first = true;
    if (pad_first)
        fprintf(f, "%*s", indent, "");
    while (*text) {
        while (*text == ' ')
            text++;
        size_t w = strcspn(text, " ");
        if (!w)
            break;
        if (!first && col + 1 + (int)w > width) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", (int)w, text);
        col += (int)w;
        text += w;
        first = false;
    }
    fputc('\n', f);
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
        fprintf(f, "%s\n%23s", left, "");
    else
        fprintf(f, "%-23s", left);
    wrap(f, text, 23, 78, false);
}

void cli_help(const cli_command *cmd, FILE *f)
{
    const mn_op *op = cmd->op ? mn_api_find(cmd->op) : NULL;
    fprintf(f, "usage: mnemo %s %s\n\n", cmd->name, cmd->usage);
    wrap(f, cmd->summary ? cmd->summary : op ? op->summary : "", 0, 78, true);
    if (op && op->description) {
        fputc('\n', f);
        wrap(f, op->description, 0, 78, true);
    }
    fputs("\noptions:\n", f);
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
        fputs(cmd->options, f);
    fputs("  --json               print the result as JSON\n"
          "  --db PATH            use the store at PATH (also: MNEMO_DB)\n"
          "  -h, --help           show this help\n",
          f);
}
