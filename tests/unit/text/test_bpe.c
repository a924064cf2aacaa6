/*
 * test_bpe.c - the exact token counter (src/text/bpe.h) on the tables the
 * build installs: the two merges give the same tokens, the ASCII matcher
 * the same pieces as PCRE2, bytes that are not UTF-8 and very long pieces
 * are counted, and a damaged table file is refused (or, damaged inside,
 * never read outside). The counts themselves are compared with js-tiktoken
 * by tests/integration/token_bound.sh.
 */
#include "common.h"
#include <unistd.h>

#include "test.h"
#include "text/bpe.h"
#include "util/buf.h"
#include "util/util.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const mn_bpe *enc(const char *name)
{
    const mn_bpe *e = NULL;
    if (mn_bpe_get(&e, name) != 0)
        fprintf(stderr, "%s\n", mn_error_last());
    return e;
}

/* A random text made of pieces that exercise each alternative of the patterns. */
static void random_text(mn_buf *b, size_t pieces, bool ascii_only)
{
    static const char *const parts[] = {
        "the",  " The",     "HTTPServer",   "don't", "'s",      "'LL",  " 're", "12345",
        "7",    " ",        "  ",           "   ",   "\n",      "\r\n", "\n\n", "\t",
        ".",    "...",      "//",           "/",     "->",      "==",   " (",   ")\n",
        "x_y",  "a1b2",     "\x01",         "\x7f",  "\v",      "\f",   "é",    "ДЖ",
        "中文", "\xc2\xa0", "\xef\xbb\xbf", "😀",     "\xcc\x81"};
    size_t n = ascii_only ? 29 : MN_ARRAY_SIZE(parts);
    for (size_t i = 0; i < pieces; i++) {
        if (next_rand() % 7 == 0) {
            mn_buf_putc(b, (char)(0x20 + next_rand() % 95)); /* any printable ASCII */
            continue;
        }
        mn_buf_puts(b, parts[next_rand() % n]);
    }
}

static void test_merges_agree(void)
{
    const char *names[] = {"cl100k_base", "o200k_base"};
    for (size_t k = 0; k < 2; k++) {
        const mn_bpe *e = enc(names[k]);
        REQUIRE(e);
        for (int i = 0; i < 3000; i++) {
            unsigned char piece[200];
            size_t len = 1 + next_rand() % sizeof(piece);
            /* letters mostly (long words merge a lot), some spaces and random bytes */
            for (size_t j = 0; j < len; j++) {
                uint64_t r = next_rand() % 10;
                piece[j] = r < 7   ? (unsigned char)('a' + next_rand() % 26)
                           : r < 8 ? ' '
                                   : (unsigned char)(next_rand() % 256);
            }
            size_t a = mn_bpe__merge_count(e, piece, len, 0);
            size_t b = mn_bpe__merge_count(e, piece, len, 1);
            CHECK(a == b);
            CHECK(a >= 1 && a <= len);
        }
    }
}

typedef struct {
    uint32_t ranks[4096];
    size_t offsets[4096];
    size_t n;
} tokens;

static int collect(void *payload, uint32_t rank, size_t offset)
{
    tokens *t = payload;
    if (t->n < MN_ARRAY_SIZE(t->ranks)) {
        t->ranks[t->n] = rank;
        t->offsets[t->n] = offset;
    }
    t->n++;
    return 0;
}

static void test_ascii_matcher_is_the_pattern(void)
{
    const char *names[] = {"cl100k_base", "o200k_base"};
    for (size_t k = 0; k < 2; k++) {
        const mn_bpe *e = enc(names[k]);
        REQUIRE(e);
        for (int i = 0; i < 600; i++) {
            mn_buf b = MN_BUF_INIT;
            random_text(&b, 1 + next_rand() % 60, i % 2 == 0);
            static tokens fast, slow;
            fast.n = slow.n = 0;
            size_t nf = mn_bpe__encode_with(e, b.ptr, b.len, 0, collect, &fast);
            size_t ns = mn_bpe__encode_with(e, b.ptr, b.len, 1, collect, &slow);
            CHECK(nf == ns && fast.n == nf && slow.n == ns);
            CHECK(mn_bpe_count(e, b.ptr, b.len) == nf);
            bool same = nf == ns;
            for (size_t j = 0; same && j < nf && j < MN_ARRAY_SIZE(fast.ranks); j++)
                same = fast.ranks[j] == slow.ranks[j] && fast.offsets[j] == slow.offsets[j];
            if (!same)
                fprintf(stderr, "%s differs on: %s\n", names[k], b.ptr);
            CHECK(same);
            mn_buf_release(&b);
        }
    }
}

/* Tokens decode to the text they came from: offsets rise and cover it. */
static void test_tokens_cover_the_text(void)
{
    const mn_bpe *e = enc("o200k_base");
    REQUIRE(e);
    const char *text = "def refresh_session(session, delay=None):\n    return session  # 30 s\n";
    static tokens t;
    t.n = 0;
    size_t n = mn_bpe_encode(e, text, strlen(text), collect, &t);
    REQUIRE(n == t.n && n > 5 && n < strlen(text));
    CHECK(t.offsets[0] == 0);
    for (size_t i = 1; i < n; i++)
        CHECK(t.offsets[i] > t.offsets[i - 1]);
    /* the sum of the parts: a text cut after a newline counts as its two halves (the
       packer's entries rely on it) */
    const char *a = "- **gotcha** Session refresh drops the delay.\n";
    const char *b = "- `shop/cart/session.py:8`\n";
    mn_buf ab = MN_BUF_INIT;
    mn_buf_printf(&ab, "%s%s", a, b);
    CHECK(mn_bpe_count(e, ab.ptr, ab.len) ==
          mn_bpe_count(e, a, strlen(a)) + mn_bpe_count(e, b, strlen(b)));
    mn_buf_release(&ab);
}

static void test_not_utf8_and_long_pieces(void)
{
    const mn_bpe *e = enc("cl100k_base");
    REQUIRE(e);
    /* bytes that start no character: one token each, the rest as usual */
    const char bad[] = "abc \xff\xfe def \xc3";
    size_t n = mn_bpe_count(e, bad, sizeof(bad) - 1);
    CHECK(n == mn_bpe_count(e, "abc ", 4) + 2 + mn_bpe_count(e, " def ", 5) + 1);
    CHECK(mn_bpe_count(e, "", 0) == 0);
    /* a NUL is a byte like another */
    CHECK(mn_bpe_count(e, "a\0b", 3) >= 2);
    /* 200,000 spaces, and a 100,000-letter word: the heap merge, in bounded time */
    size_t big = 200000;
    char *s = mn_malloc(big);
    memset(s, ' ', big);
    uint64_t t0 = mn_time_mono_ns();
    size_t spaces = mn_bpe_count(e, s, big);
    for (size_t i = 0; i < big / 2; i++)
        s[i] = (char)('a' + next_rand() % 26);
    size_t word = mn_bpe_count(e, s, big / 2);
    uint64_t ms = (mn_time_mono_ns() - t0) / 1000000;
    CHECK(spaces >= 1 && spaces <= big);
    CHECK(word > 1000 && word < big / 2);
    CHECK(ms < 5000);
    free(s);
}

static char *table_path(const char *name)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s/../share/mnemo/tokenizers/%s.bpe", exe, name);
    return mn_buf_detach(&b);
}

static void test_damaged_tables(void)
{
    char *path = table_path("cl100k_base");
    REQUIRE(path);
    mn_buf orig = MN_BUF_INIT;
    REQUIRE_OK(mn_fs_read(&orig, path, 64u << 20));
    char tmp[] = "/tmp/mnemo-bpe-XXXXXX";
    int fd = mkstemp(tmp);
    REQUIRE(fd >= 0);
    close(fd);
    mn_bpe *e = NULL;

    /* the real file opens and counts */
    REQUIRE_OK(mn_fs_write_atomic(tmp, orig.ptr, orig.len));
    REQUIRE_OK(mn_bpe__open_file(&e, tmp, "cl100k_base"));
    CHECK(mn_bpe_count(e, "hello world", 11) == 2);
    mn_bpe__close(e);
    e = NULL;
    /* another encoding's name, a truncated file, a wrong magic: refused */
    CHECK(mn_bpe__open_file(&e, tmp, "o200k_base") == MN_ECORRUPT && !e);
    REQUIRE_OK(mn_fs_write_atomic(tmp, orig.ptr, orig.len - 1));
    CHECK(mn_bpe__open_file(&e, tmp, "cl100k_base") == MN_ECORRUPT && !e);
    mn_buf bad = MN_BUF_INIT;
    mn_buf_put(&bad, orig.ptr, orig.len);
    bad.ptr[0] = 'X';
    REQUIRE_OK(mn_fs_write_atomic(tmp, bad.ptr, bad.len));
    CHECK(mn_bpe__open_file(&e, tmp, "cl100k_base") == MN_ECORRUPT && !e);
    CHECK(mn_bpe__open_file(&e, "/nonexistent/x.bpe", "cl100k_base") == MN_ENOTFOUND);
    /* damaged inside (everything after the byte ranks overwritten with noise): it opens,
       and counting reads nothing outside the file (ASan would say) */
    memcpy(bad.ptr, orig.ptr, orig.len);
    for (size_t i = orig.len / 4; i < orig.len; i++)
        bad.ptr[i] = (char)next_rand();
    REQUIRE_OK(mn_fs_write_atomic(tmp, bad.ptr, bad.len));
    if (mn_bpe__open_file(&e, tmp, "cl100k_base") == 0) {
        mn_buf text = MN_BUF_INIT;
        random_text(&text, 400, false);
        size_t n = mn_bpe_count(e, text.ptr, text.len);
        CHECK(n >= 1 && n <= text.len);
        mn_buf_release(&text);
        mn_bpe__close(e);
    }
    mn_error_clear();
    unlink(tmp);
    mn_buf_release(&bad);
    mn_buf_release(&orig);
    free(path);
}

static void test_unknown_name(void)
{
    const mn_bpe *e = NULL;
    CHECK(mn_bpe_get(&e, "p50k_base") == MN_EINVAL && !e);
    CHECK(mn_bpe_get(&e, NULL) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "cl100k_base") != NULL);
    mn_error_clear();
}

MN_TEST_MAIN(MN_TEST(test_merges_agree), MN_TEST(test_ascii_matcher_is_the_pattern),
             MN_TEST(test_tokens_cover_the_text), MN_TEST(test_not_utf8_and_long_pieces),
             MN_TEST(test_damaged_tables), MN_TEST(test_unknown_name))
