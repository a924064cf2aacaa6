/*
 * token_chunks.c - prints each file given as 1,500-byte chunks (cut at
 * UTF-8 character boundaries), one JSON object per line:
 * {"est": <mn_tokens_estimate>, "cl100k": <n>, "o200k": <n>, "text": "..."},
 * the two exact counts of src/text/bpe.h; with --fit N, the prefix
 * mn_tokens_fit keeps under N tokens instead; with --texts FILE, each line
 * of FILE (a JSON string) as one text. For token_bound.sh, which checks
 * them against js-tiktoken.
 */
#include "common.h"
#include <jansson.h>

#include "retrieve/tokens.h"
#include "text/bpe.h"
#include "util/buf.h"
#include "util/util.h"

static const mn_bpe *cl100k, *o200k;

static void emit(const char *text, size_t len)
{
    json_t *o = json_pack("{s:I,s:I,s:I,s:s%}", "est", (json_int_t)mn_tokens_estimate(text, len),
                          "cl100k", (json_int_t)mn_bpe_count(cl100k, text, len), "o200k",
                          (json_int_t)mn_bpe_count(o200k, text, len), "text", text, len);
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
    if (mn_bpe_get(&cl100k, "cl100k_base") != 0 || mn_bpe_get(&o200k, "o200k_base") != 0) {
        fprintf(stderr, "token_chunks: %s\n", mn_error_last());
        return 2;
    }
    if (argc == 3 && strcmp(argv[1], "--texts") == 0) {
        FILE *f = fopen(argv[2], "r");
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        if (!f) {
            fprintf(stderr, "token_chunks: cannot read '%s'\n", argv[2]);
            return 2;
        }
        while ((n = getline(&line, &cap, f)) > 0) {
            json_t *t = json_loadb(line, (size_t)n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
            if (json_is_string(t))
                emit(json_string_value(t), json_string_length(t));
            json_decref(t);
        }
        free(line);
        fclose(f);
        return 0;
    }
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
