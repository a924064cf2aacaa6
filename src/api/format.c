/*
 * format.c - JSON Lines and YAML files of memories (mnemo/format.h).
 *
 * JSON Lines: one compact object per line, keys in the order they were
 * built (jansson keeps insertion order), non-ASCII kept as UTF-8, so the
 * same values always give the same bytes. Reading accepts blank lines and
 * names the line of any error.
 */
#include "common.h"

#include "mnemo/format.h"
#include "util/util.h"
#include "util/yaml.h"

int mn_format_parse(const char *s)
{
    const char *dot = strrchr(s, '.');
    const char *ext = dot && !strchr(dot, '/') ? dot + 1 : s;
    if (!strcmp(ext, "jsonl") || !strcmp(ext, "ndjson"))
        return MN_FORMAT_JSONL;
    if (!strcmp(ext, "yaml") || !strcmp(ext, "yml"))
        return MN_FORMAT_YAML;
    if (!strcmp(ext, "json"))
        return MN_FORMAT_JSON;
    return -1;
}

int mn_format_write(char **out, size_t *out_len, mn_format fmt, const json_t *items)
{
    mn_buf b = MN_BUF_INIT;
    size_t i;
    json_t *v;
    int rc = 0;
    if (!json_is_array(items))
        return mn_error_set(MN_EINVAL, "expected an array of values to write");
    switch (fmt) {
    case MN_FORMAT_JSONL:
        json_array_foreach(items, i, v)
        {
            char *line = json_dumps(v, MN_JSON_DUMP_FLAGS | JSON_ENCODE_ANY);
            if (!line) {
                rc = mn_error_set(MN_EINVAL, "value %zu cannot be written as JSON", i);
                break;
            }
            mn_buf_puts(&b, line);
            mn_buf_putc(&b, '\n');
            free(line);
        }
        break;
    case MN_FORMAT_JSON: {
        char *all = json_dumps(items, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
        if (!all) {
            rc = mn_error_set(MN_EINVAL, "values cannot be written as JSON");
            break;
        }
        mn_buf_puts(&b, all);
        mn_buf_putc(&b, '\n');
        free(all);
        break;
    }
    case MN_FORMAT_YAML:
        rc = mn_yaml_emit_docs(&b, items);
        break;
    default:
        rc = mn_error_set(MN_EINVAL, "unknown format %d", (int)fmt);
    }
    if (rc) {
        mn_buf_release(&b);
        return rc;
    }
    *out_len = b.len;
    *out = mn_buf_detach(&b);
    return 0;
}

static int read_jsonl(json_t **out, const char *data, size_t len)
{
    json_t *arr = json_array();
    size_t line = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - data) : len;
        line++;
        size_t a = pos, z = end;
        while (a < z && (data[a] == ' ' || data[a] == '\t' || data[a] == '\r'))
            a++;
        while (z > a && (data[z - 1] == ' ' || data[z - 1] == '\t' || data[z - 1] == '\r'))
            z--;
        if (z > a) {
            json_error_t err;
            json_t *v = json_loadb(data + a, z - a, JSON_REJECT_DUPLICATES, &err);
            if (!v) {
                json_decref(arr);
                return mn_error_set(MN_EINVAL, "line %zu, column %d: %s", line, err.column,
                                    err.text);
            }
            json_array_append_new(arr, v);
        }
        pos = end + 1;
    }
    *out = arr;
    return 0;
}

int mn_format_read(json_t **out, mn_format fmt, const char *data, size_t len)
{
    json_error_t err;
    json_t *v;
    *out = NULL;
    /* a byte order mark, which some editors write first, is no part of the text */
    if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
        data += 3, len -= 3;
    if (!mn_utf8_valid(data, len)) {
        /* name the line, so a person can find the bad byte */
        size_t line = 1, start = 0;
        for (size_t i = 0; i <= len; i++) {
            if (i == len || data[i] == '\n') {
                if (!mn_utf8_valid(data + start, i - start))
                    break;
                line++;
                start = i + 1;
            }
        }
        return mn_error_set(MN_EINVAL, "line %zu: invalid UTF-8 (or a NUL byte)", line);
    }
    switch (fmt) {
    case MN_FORMAT_JSONL:
        return read_jsonl(out, data, len);
    case MN_FORMAT_YAML: {
        int rc = mn_yaml_parse_docs(out, data, len);
        /* one document that is a list of memories, as people write YAML, is those memories
         * (an export writes one document per memory) */
        json_t *one = json_array_size(*out) == 1 ? json_array_get(*out, 0) : NULL;
        if (rc == 0 && json_is_array(one)) {
            json_t *list = json_incref(one);
            json_decref(*out);
            *out = list;
        }
        return rc;
    }
    case MN_FORMAT_JSON:
        v = json_loadb(data, len, JSON_REJECT_DUPLICATES, &err);
        if (!v)
            return mn_error_set(MN_EINVAL, "line %d, column %d: %s", err.line, err.column,
                                err.text);
        if (json_is_object(v) && json_is_array(json_object_get(v, "memories"))) {
            json_t *m = json_incref(json_object_get(v, "memories"));
            json_decref(v);
            v = m;
        }
        if (!json_is_array(v)) {
            json_decref(v);
            return mn_error_set(MN_EINVAL, "expected a JSON array of memories");
        }
        *out = v;
        return 0;
    }
    return mn_error_set(MN_EINVAL, "unknown format %d", (int)fmt);
}

int mn_format_yaml(char **out, const json_t *value)
{
    mn_buf b = MN_BUF_INIT;
    int rc = mn_yaml_emit(&b, value);
    if (rc) {
        mn_buf_release(&b);
        return rc;
    }
    *out = mn_buf_detach(&b);
    return 0;
}

int mn_file_read(char **out, size_t *out_len, const char *path, size_t max)
{
    mn_buf b = MN_BUF_INIT;
    int rc = mn_fs_read(&b, path, max);
    if (rc) {
        mn_buf_release(&b);
        return rc;
    }
    *out_len = b.len;
    *out = mn_buf_detach(&b);
    return 0;
}

int mn_file_write(const char *path, const char *data, size_t len)
{
    return mn_fs_write_atomic(path, data, len);
}
