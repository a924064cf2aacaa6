/*
 * token_chunks.c - prints each file given as 1,500-byte chunks (cut at
 * UTF-8 character boundaries), one JSON object per line:
 * {"est": <mn_tokens_estimate>, "text": "..."}; with --fit N, the prefix
 * mn_tokens_fit keeps under N tokens instead. For token_bound.sh, which
 * checks the estimates against cl100k_base.
 */
#include "common.h"
#include <jansson.h>

#include "retrieve/tokens.h"
#include "util/buf.h"
#include "util/util.h"

static void emit(const char *text, size_t len)
{
    json_t *o = json_pack("{s:I,s:s%}", "est", (json_int_t)mn_tokens_estimate(text, len), "text",
                          text, len);
    if (!o) /* not valid UTF-8: jansson refuses it, and so would the JSON reader */
        return;
    char *s = json_dumps(o, JSON_COMPACT);
    puts(s);
    free(s);
    json_decref(o);
}

int main(int argc, char **argv)
{
    size_t fit = 0;
    int i = 1;
    if (argc > 2 && strcmp(argv[1], "--fit") == 0) {
        fit = (size_t)strtoul(argv[2], NULL, 10);
        i = 3;
    }
    for (; i < argc; i++) {
        mn_buf b = MN_BUF_INIT;
        if (mn_fs_read(&b, argv[i], 64u << 20) != 0) {
            fprintf(stderr, "token_chunks: cannot read '%s'\n", argv[i]);
            return 2;
        }
        if (fit) {
            emit(b.ptr, mn_tokens_fit(b.ptr, b.len, fit));
        } else {
            for (size_t o = 0; o < b.len;) {
                size_t n = b.len - o < 1500 ? b.len - o : 1500;
                while (o + n < b.len && n > 0 && ((unsigned char)b.ptr[o + n] & 0xc0) == 0x80)
                    n--;
                emit(b.ptr + o, n);
                o += n ? n : 1;
            }
        }
        mn_buf_release(&b);
    }
    return 0;
}
