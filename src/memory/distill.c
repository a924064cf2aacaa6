/*
 * distill.c - white space and the body's size; see distill.h.
 *
 * Two wordings of one fact should not differ by their spacing (the exact
 * hash folds case and spaces, the near-duplicate fingerprint works on
 * terms, but what is stored and served is the text itself), and a memory is
 * a few sentences an agent can act on: a body of pages is a document, and a
 * context budget pays for every line of it.
 */
#include "common.h"

#include "memory/distill.h"
#include "util/util.h"

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static json_t *one_line(const char *s, size_t len)
{
    mn_buf b = MN_BUF_INIT;
    bool space = false;
    for (size_t i = 0; i < len; i++) {
        if (blank(s[i]) || s[i] == '\n') {
            space = b.len > 0;
            continue;
        }
        if (space)
            mn_buf_putc(&b, ' ');
        space = false;
        mn_buf_putc(&b, s[i]);
    }
    json_t *v = json_stringn(b.ptr, b.len);
    mn_buf_release(&b);
    return v;
}

/* Lines: LF ends, no trailing blanks, one empty line at most outside code, trimmed. */
static json_t *lines(const char *s, size_t len)
{
    mn_buf b = MN_BUF_INIT;
    size_t empty = 0;
    bool fence = false;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && s[j] != '\n' && s[j] != '\r')
            j++;
        size_t end = j;
        while (end > i && blank(s[end - 1]))
            end--;
        bool is_fence = end - i >= 3 && strncmp(s + i + (s[i] == ' ' ? 1 : 0), "```", 3) == 0;
        bool code = fence || is_fence || (end > i && (s[i] == '\t' || !strncmp(s + i, "    ", 4)));
        if (end == i && !code) {
            empty++;
        } else {
            /* inside a fence every line, empty ones too, comes here: kept as it is */
            if (b.len)
                mn_buf_puts(&b, empty ? "\n\n" : "\n");
            empty = 0;
            mn_buf_put(&b, s + i, end - i);
        }
        if (is_fence)
            fence = !fence;
        /* "\r\n" and a lone "\r" both end a line */
        i = j < len && s[j] == '\r' && j + 1 < len && s[j + 1] == '\n' ? j + 2 : j + 1;
    }
    json_t *v = json_stringn(b.ptr, b.len);
    mn_buf_release(&b);
    return v;
}

static void redo(json_t *group, const char *key, bool single)
{
    const json_t *v = json_object_get(group, key);
    if (!json_is_string(v))
        return;
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    /* leading blanks go, unless the text opens with indented code */
    while (len && (s[0] == '\n' || s[0] == '\r' ||
                   (blank(s[0]) && strncmp(s, "    ", 4) != 0 && s[0] != '\t')))
        s++, len--;
    json_t *n = single ? one_line(s, len) : lines(s, len);
    if (json_string_length(n))
        json_object_set_new(group, key, n);
    else {
        json_decref(n);
        json_object_del(group, key);
    }
}

void mn_memory_normalise(json_t *mem)
{
    redo(mem, "title", true);
    if (json_is_string(json_object_get(mem, "body"))) {
        redo(mem, "body", false);
        if (!json_object_get(mem, "body")) /* the body is a column that is never NULL */
            json_object_set_new(mem, "body", json_string(""));
    }
    json_t *ctx = json_object_get(mem, "context");
    for (const char *const *f = (const char *const[]){"situation", "solution", "what_failed", NULL};
         *f; f++)
        redo(ctx, *f, false);
}

int mn_memory_cap_body(json_t *mem, size_t cap, bool truncate)
{
    const json_t *b = json_object_get(mem, "body");
    const char *body = json_string_value(b);
    size_t len = json_string_length(b), chars = body ? mn_utf8_len(body, len) : 0;
    if (!cap || chars <= cap)
        return 0;
    if (!truncate)
        return mn_error_set(MN_EINVAL,
                            "the body is %zu characters, over memory.body_cap (%zu): a memory is "
                            "what to know and do in a few sentences; put the story in "
                            "context.conversation_excerpt, the steps in context.solution, or "
                            "split it (mnemo config set memory.body_cap N raises the cap)",
                            chars, cap);
    char note[64];
    snprintf(note, sizeof(note), " [truncated: the text had %zu characters]", chars);
    size_t keep = mn_utf8_floor(body, len, cap > strlen(note) ? cap - strlen(note) : cap);
    /* back to the end of the last sentence or line that fits, when one ends past half of it */
    size_t cut = keep;
    for (size_t i = keep; i > keep / 2; i--)
        if (body[i - 1] == '\n' || (i < len && strchr(".!?", body[i - 1]) && body[i] == ' ')) {
            cut = i;
            break;
        }
    while (cut && (body[cut - 1] == ' ' || body[cut - 1] == '\n'))
        cut--;
    mn_buf out = MN_BUF_INIT;
    mn_buf_put(&out, body, cut);
    mn_buf_puts(&out, note);
    json_object_set_new(mem, "body", json_stringn(out.ptr, out.len));
    mn_buf_release(&out);
    return 0;
}
