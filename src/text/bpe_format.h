/*
 * bpe_format.h - the layout of a token table file (bpe.h), shared by the
 * build-time generator (scripts/bpe_table.c) and the reader (bpe.c).
 *
 * One file per encoding, <name>.bpe, all integers in the byte order of the
 * machine that built it (endian says which; a table from another order is
 * refused, not misread):
 *
 *   mn_bpe_header
 *   pattern        pattern_len bytes, then NUL, padded with NULs to a
 *                  multiple of 8 (MN_BPE_PATTERN_SPACE): the
 *                  pre-tokenisation regex, for PCRE2 (UTF, UCP)
 *   byte_rank      uint32[256]: the rank of each single byte
 *   pair_rank      uint32[65536]: the rank of each two bytes (a << 8 | b),
 *                  UINT32_MAX when they are no token: most lookups of a
 *                  merge are of two bytes, and this is one read
 *   offsets        uint32[nranks + 1]: token r is blob[offsets[r] ..
 *                  offsets[r + 1]) (empty for a rank the encoding skips)
 *   slots          uint32[nslots], nslots a power of two: 0 empty, else
 *                  (rank + 1) | tag << rank_bits, where rank_bits holds
 *                  nranks and the tag is the next 32 - rank_bits bits of
 *                  the hash above bit 32 (a probe of another token is
 *                  mostly told apart without reading its bytes); with
 *                  hash = XXH3_64bits_withSeed(bytes, len, MN_BPE_SEED),
 *                  a token's home slot is hash & (nslots - 1), then
 *                  linear probing
 *   blob           blob_size bytes: the tokens' bytes in rank order
 *
 * The reader checks that the sizes add up to the file's before using it,
 * and every offset and rank it reads against these bounds.
 */
#ifndef MN_TEXT_BPE_FORMAT_H
#define MN_TEXT_BPE_FORMAT_H

#include <stdint.h>

#define MN_BPE_MAGIC    "MNBPE03\n"
#define MN_BPE_ENDIAN   0x01020304u
#define MN_BPE_SEED     0x6d6e656d6fULL /* "mnemo" */
#define MN_BPE_NAME_MAX 32

/* the tag of a hash, for rank_bits */
#define MN_BPE_TAG(hash, rank_bits) \
    ((uint32_t)((hash) >> 32) & (uint32_t)((1ULL << (32 - (rank_bits))) - 1))

#define MN_BPE_PATTERN_SPACE(len) ((((uint64_t)(len) + 1) + 7) & ~(uint64_t)7)

typedef struct {
    char magic[8];
    uint32_t endian;
    uint32_t nranks;
    uint32_t nslots;
    uint32_t blob_size;
    uint32_t pattern_len;
    uint32_t max_token_len;
    uint32_t rank_bits;
    uint32_t reserved;
    char name[MN_BPE_NAME_MAX];
} mn_bpe_header;

#endif
