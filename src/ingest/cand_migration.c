/*
 * cand_migration.c - schema migrations: a migration file added, and what
 * it does to the schema.
 *
 * A migration is a file added under migrations/, migrate/, db/migrate/,
 * alembic/versions/, prisma/migrations/, a Flyway V<n>__name.sql, or a .sql
 * file under schema/ or db/. What it does is read from its text, in the
 * forms of SQL (CREATE/ALTER/DROP TABLE, ADD/DROP/RENAME COLUMN, CREATE
 * INDEX), Django (CreateModel, AddField, RemoveField, RenameField,
 * AlterField, DeleteModel, AddIndex), Rails (create_table, add_column,
 * remove_column, rename_column, drop_table, add_index) and Alembic
 * (op.create_table, op.add_column, op.drop_column, op.drop_table,
 * op.alter_column, op.create_index). Confidence 0.88 when statements were
 * found, 0.60 when none (the review queue: a data migration, or a form not
 * known).
 */
#include "common.h"
#include <ctype.h>

#include "ingest/ingest_internal.h"

#define MAX_STATEMENTS 12

static bool is_migration(const char *path)
{
    static const char *const dirs[] = {"migrations/", "migrate/", "alembic/versions/",
                                       "prisma/migrations/", "db/migrate/"};
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bn = strlen(base);
    if (!strcmp(base, "__init__.py"))
        return false;
    for (size_t i = 0; i < MN_ARRAY_SIZE(dirs); i++) {
        const char *p = strstr(path, dirs[i]);
        if (p && (p == path || p[-1] == '/'))
            return true;
    }
    if (base[0] == 'V' && isdigit((unsigned char)base[1]) && strstr(base, "__") && bn > 4 &&
        !strcmp(base + bn - 4, ".sql"))
        return true;
    if (bn > 4 && !strcmp(base + bn - 4, ".sql") &&
        (strstr(path, "schema/") || strstr(path, "db/")))
        return true;
    return false;
}

/* The identifier-ish word at p (quotes and backticks skipped); into out. */
static const char *word(const char *p, const char *end, char *out, size_t cap)
{
    while (p < end && (isspace((unsigned char)*p) || strchr("\"'`[(:", *p)))
        p++;
    size_t n = 0;
    while (p < end && (isalnum((unsigned char)*p) || strchr("_.$", *p)) && n + 1 < cap)
        out[n++] = *p++;
    out[n] = '\0';
    return p;
}

static const char *skip_words_ci(const char *p, const char *end, const char *words)
{
    /* e.g. "IF NOT EXISTS" */
    const char *q = p;
    while (q < end && isspace((unsigned char)*q))
        q++;
    size_t n = strlen(words);
    if ((size_t)(end - q) >= n && !strncasecmp(q, words, n))
        return q + n;
    return p;
}

typedef struct {
    mn_buf *out;
    size_t n;
} stmts;

/* "verb a", or "verb a<joiner>b" when b is given. */
static void add(stmts *s, const char *verb, const char *a, const char *joiner, const char *b)
{
    if (s->n >= MAX_STATEMENTS || !*a)
        return;
    mn_buf_printf(s->out, "%s%s %s", s->n ? "; " : "", verb, a);
    if (joiner && b && *b)
        mn_buf_printf(s->out, "%s%s", joiner, b);
    s->n++;
}

/* A keyword argument of a call: name='value' -> value. */
static void kwarg(const char *p, const char *end, const char *key, char *out, size_t cap)
{
    out[0] = '\0';
    char pat[40];
    snprintf(pat, sizeof(pat), "%s=", key);
    const char *k = memmem(p, (size_t)(end - p), pat, strlen(pat));
    if (!k || k > p + 400)
        return;
    word(k + strlen(pat), end, out, cap);
}

static void scan(stmts *s, const char *t, size_t len)
{
    const char *end = t + len;
    char a[96], b[96];
    for (const char *p = t; p < end; p++) {
        if (p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        size_t rest = (size_t)(end - p);
#define AT(w) (rest >= sizeof(w) - 1 && !strncasecmp(p, w, sizeof(w) - 1))
        if (AT("CREATE TABLE")) {
            const char *q = skip_words_ci(p + 12, end, "IF NOT EXISTS");
            word(q, end, a, sizeof(a));
            add(s, "CREATE TABLE", a, NULL, NULL);
        } else if (AT("DROP TABLE")) {
            const char *q = skip_words_ci(p + 10, end, "IF EXISTS");
            word(q, end, a, sizeof(a));
            add(s, "DROP TABLE", a, NULL, NULL);
        } else if (AT("ALTER TABLE")) {
            const char *q = word(p + 11, end, a, sizeof(a));
            while (q < end && isspace((unsigned char)*q))
                q++;
            size_t vn = strcspn(q, ";\n");
            char *action = mn_ingest_one_line(q, vn > 80 ? 80 : vn);
            add(s, "ALTER TABLE", a, " ", action);
            free(action);
        } else if (AT("CREATE INDEX") || AT("CREATE UNIQUE INDEX")) {
            const char *q = p + (AT("CREATE INDEX") ? 12 : 19);
            q = skip_words_ci(q, end, "IF NOT EXISTS");
            const char *on = q;
            word(q, end, a, sizeof(a));
            const char *o =
                memmem(on, (size_t)(end - on) < 300 ? (size_t)(end - on) : 300, " ON ", 4);
            if (!o)
                o = memmem(on, (size_t)(end - on) < 300 ? (size_t)(end - on) : 300, " on ", 4);
            b[0] = '\0';
            if (o)
                word(o + 4, end, b, sizeof(b));
            add(s, "CREATE INDEX", a, " ON ", b);
        } else if (AT("migrations.CreateModel(") || AT("migrations.DeleteModel(")) {
            bool create = AT("migrations.CreateModel(");
            kwarg(p, end, "name", a, sizeof(a));
            if (!*a)
                word(p + 23, end, a, sizeof(a));
            add(s, create ? "create model" : "delete model", a, NULL, NULL);
        } else if (AT("migrations.AddField(") || AT("migrations.RemoveField(") ||
                   AT("migrations.AlterField(") || AT("migrations.RenameField(")) {
            const char *verb = AT("migrations.AddField(")      ? "add field"
                               : AT("migrations.RemoveField(") ? "remove field"
                               : AT("migrations.AlterField(")  ? "alter field"
                                                               : "rename field";
            kwarg(p, end, "model_name", a, sizeof(a));
            kwarg(p, end, AT("migrations.RenameField(") ? "old_name" : "name", b, sizeof(b));
            add(s, verb, a, ".", b);
        } else if (AT("migrations.AddIndex(")) {
            kwarg(p, end, "model_name", a, sizeof(a));
            add(s, "add index on", a, NULL, NULL);
        } else if (AT("create_table ") || AT("create_table(") || AT("op.create_table(")) {
            const char *q = p + (AT("op.create_table(") ? 16 : 13);
            word(q, end, a, sizeof(a));
            add(s, "create table", a, NULL, NULL);
        } else if (AT("drop_table ") || AT("op.drop_table(")) {
            word(p + (AT("op.drop_table(") ? 14 : 11), end, a, sizeof(a));
            add(s, "drop table", a, NULL, NULL);
        } else if (AT("add_column ") || AT("remove_column ") || AT("rename_column ") ||
                   AT("op.add_column(") || AT("op.drop_column(") || AT("op.alter_column(")) {
            const char *verb = AT("add_column ") || AT("op.add_column(")       ? "add column"
                               : AT("remove_column ") || AT("op.drop_column(") ? "drop column"
                               : AT("rename_column ")                          ? "rename column"
                                                                               : "alter column";
            const char *q = memchr(p, AT("op.") ? '(' : ' ', rest);
            q = q ? word(q + 1, end, a, sizeof(a)) : end;
            while (q < end && (isspace((unsigned char)*q) || *q == ','))
                q++;
            if (q + 10 < end && !strncmp(q, "sa.Column(", 10))
                q += 10;
            word(q, end, b, sizeof(b));
            add(s, verb, a, ".", b);
        } else if (AT("add_index ") || AT("op.create_index(")) {
            const char *q = memchr(p, AT("op.") ? '(' : ' ', rest);
            if (q)
                word(q + 1, end, a, sizeof(a));
            add(s, "add index", q ? a : "", NULL, NULL);
        }
#undef AT
    }
}

int mn_cand_migrations(mn_commit_view *c, mn_candidate_vec *out)
{
    for (size_t i = 0; i < c->ndeltas; i++) {
        mn_delta *d = &c->deltas[i];
        if (d->status != MN_DELTA_ADDED || d->binary || !is_migration(d->path) ||
            mn_cand_noise_path(d))
            continue;
        size_t len;
        const char *t = mn_delta_text(c, d, 1, &len);
        if (!t)
            continue;
        mn_buf what = MN_BUF_INIT;
        stmts s = {&what, 0};
        scan(&s, t, len);
        mn_candidate *k = mn_candidate_add(out, "migration", "fact", s.n ? 0.88 : 0.60);
        mn_candidate_key(k, "migration:%s", d->path);
        const char *base = strrchr(d->path, '/');
        base = base ? base + 1 : d->path;
        if (s.n)
            mn_candidate_title(k, "Schema migration %s: %s", base, what.ptr);
        else
            mn_candidate_title(k, "Schema migration %s added", base);
        mn_candidate_intro(k, c);
        mn_buf_printf(&k->body, "\nMigration %s", d->path);
        if (s.n)
            mn_buf_printf(&k->body, ": %s.", what.ptr);
        else
            mn_buf_puts(&k->body, " (no schema statement recognised).");
        mn_strv_add(k->paths, d->path);
        mn_strv_add(k->tags, "migration");
        mn_candidate_evidence_text(k, d->path, t, len);
        mn_buf_release(&what);
    }
    return 0;
}
