/*
 * bpe.h - exact token counts of OpenAI's byte-pair encodings (cl100k_base,
 * o200k_base), as tiktoken counts them.
 *
 * A text is cut into pieces by the encoding's pre-tokenisation pattern
 * (PCRE2, UTF and Unicode properties), and each piece is encoded by
 * byte-pair merging: start from its bytes, merge the adjacent pair whose
 * joined bytes have the lowest rank in the vocabulary (the leftmost of
 * equal ranks), until no adjacent pair is a token; the count is the number
 * of parts left. Special tokens ("<|endoftext|>") are counted as the
 * ordinary text they are written with.
 *
 * The vocabulary is not compiled in: the build turns the ranks of the npm
 * package js-tiktoken (pinned in deps/npm.lock) into one table file per
 * encoding (scripts/bpe_table.c; layout in bpe_format.h), installed under
 * <prefix>/share/mnemo/tokenizers/. At run time the file is looked for
 * next to the running program: <dir>/share/mnemo/tokenizers (a build
 * tree) and <dir>/../share/mnemo/tokenizers (an installation: bin/ and
 * share/), <dir> being the directory of /proc/self/exe; it is mapped
 * read-only, once per process, and shared by all threads. Nothing is built
 * at load: the table holds its hash index.
 *
 * Invariants: a table that fails its checks is refused as a whole, and
 * counts never read outside the mapped file. Text that is not valid UTF-8
 * is counted too: the bytes the pattern cannot read cost one token each.
 */
#ifndef MN_TEXT_BPE_H
#define MN_TEXT_BPE_H

#include <stddef.h>
#include <stdint.h>

typedef struct mn_bpe mn_bpe;

/**
 * The encoding `name` ("cl100k_base", "o200k_base"), loaded on first use
 * and kept for the life of the process (never freed). MN_EINVAL for a
 * name that is not an encoding, MN_ENOTFOUND when its table is not
 * installed, MN_ECORRUPT when the file is damaged; the message says where
 * it was looked for. A failure is remembered: later calls fail alike
 * without looking again.
 */
int mn_bpe_get(const mn_bpe **out, const char *name);

/** The encoding's name. */
const char *mn_bpe_name(const mn_bpe *e);

/** The number of tokens of text[0..len) in encoding e. */
size_t mn_bpe_count(const mn_bpe *e, const char *text, size_t len);

/**
 * Each token of text[0..len) in order: its rank and its bytes' offset in
 * text (a token of a byte that starts no valid character: rank
 * UINT32_MAX). For tests (compared with js-tiktoken's encode) and tools;
 * returns the count, and stops calling cb when it returns non-zero.
 */
size_t mn_bpe_encode(const mn_bpe *e, const char *text, size_t len,
                     int (*cb)(void *payload, uint32_t rank, size_t offset), void *payload);

/* ---- for tests ---- */

/**
 * The merge of one piece, by the quadratic method (small) or the heap
 * (large), whichever `large` says; returns its token count.
 */
size_t mn_bpe__merge_count(const mn_bpe *e, const unsigned char *piece, size_t len, int large);

/** mn_bpe_encode with PCRE2 finding every piece (pcre_only) or the ASCII matcher where it can. */
size_t mn_bpe__encode_with(const mn_bpe *e, const char *text, size_t len, int pcre_only,
                           int (*cb)(void *payload, uint32_t rank, size_t offset), void *payload);

/** Map the table file at path as encoding name (not shared, not kept): *out for mn_bpe__close. */
int mn_bpe__open_file(mn_bpe **out, const char *path, const char *name);
void mn_bpe__close(mn_bpe *e);

#endif
