/*
 * test_vector_file.c - the vectors file beside the store (vector_file.c):
 * what is written maps back byte for byte; a file that names another
 * project, kind, model, nonce, epoch or dimension is not used, nor one
 * whose payload was damaged or cut short; a small set is not written.
 */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/sqlite/vector_file.h"
#include "util/util.h"
#include "test.h"

#define ROWS   1500
#define DIM    40
#define STRIDE 48

static char dir[64];
static char db[96];
static int64_t ids[ROWS];
static float scales[ROWS];
static int8_t data[ROWS * STRIDE];

static mn_vfile_key key(void)
{
    mn_vfile_key k = {db, 7, "chunk", "builtin:lsa48@0123456789abcdef", "n0nce", 42, DIM, STRIDE};
    return k;
}

static void file_path(char *out, size_t len)
{
    snprintf(out, len, "%s-vectors-7-chunk", db);
}

static bool opens(const mn_vfile_key *k)
{
    mn_vfile f;
    int rc = mn_vfile_open(&f, k);
    mn_vfile_close(&f);
    return rc == 0;
}

static void test_round_trip(void)
{
    snprintf(dir, sizeof(dir), "/tmp/mnemo-vfile-XXXXXX");
    REQUIRE(mkdtemp(dir));
    snprintf(db, sizeof(db), "%s/m.db", dir);
    for (int i = 0; i < ROWS; i++) {
        ids[i] = 1000 + 3 * i;
        scales[i] = 0.001f * (float)(i % 97);
        for (int j = 0; j < STRIDE; j++)
            data[i * STRIDE + j] = (int8_t)(j < DIM ? (i * 31 + j * 7) % 255 - 127 : 0);
    }
    mn_vfile_key k = key();
    mn_vfile f;
    CHECK(mn_vfile_open(&f, &k) != 0); /* nothing written yet */
    mn_vfile_write(&k, ROWS, ids, scales, data);
    REQUIRE(mn_vfile_open(&f, &k) == 0);
    CHECK(f.n == ROWS);
    CHECK(memcmp(f.ids, ids, sizeof(ids)) == 0);
    CHECK(memcmp(f.scales, scales, sizeof(scales)) == 0);
    CHECK(memcmp(f.data, data, sizeof(data)) == 0);
    mn_vfile_close(&f);

    /* every part of the key must match */
    mn_vfile_key o = key();
    o.project = 8;
    CHECK(!opens(&o)); /* another project's file name: not there */
    o = key();
    o.epoch = 43;
    CHECK(!opens(&o));
    o = key();
    o.nonce = "other";
    CHECK(!opens(&o));
    o = key();
    o.model = "builtin:lsa48@fedcba9876543210";
    CHECK(!opens(&o));
    o = key();
    o.dim = DIM + 1;
    CHECK(!opens(&o));
    o = key();
    o.kind = "memory";
    CHECK(!opens(&o));
    CHECK(opens(&k));
}

static void test_damaged(void)
{
    mn_vfile_key k = key();
    char path[160];
    file_path(path, sizeof(path));
    /* one byte of the payload flipped */
    int fd = open(path, O_RDWR);
    REQUIRE(fd >= 0);
    struct stat st;
    REQUIRE(fstat(fd, &st) == 0);
    off_t at = st.st_size - 5;
    int8_t b;
    REQUIRE(pread(fd, &b, 1, at) == 1);
    b = (int8_t)(b ^ 0x40);
    REQUIRE(pwrite(fd, &b, 1, at) == 1);
    CHECK(!opens(&k));
    b = (int8_t)(b ^ 0x40);
    REQUIRE(pwrite(fd, &b, 1, at) == 1);
    CHECK(opens(&k));
    /* cut short */
    REQUIRE(ftruncate(fd, st.st_size - STRIDE) == 0);
    CHECK(!opens(&k));
    close(fd);
    /* written again: replaced whole */
    mn_vfile_write(&k, ROWS, ids, scales, data);
    CHECK(opens(&k));
}

static void test_small_sets_not_written(void)
{
    mn_vfile_key k = key();
    k.kind = "memory";
    mn_vfile_write(&k, 10, ids, scales, data);
    CHECK(!opens(&k));
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

MN_TEST_MAIN(MN_TEST(test_round_trip), MN_TEST(test_damaged), MN_TEST(test_small_sets_not_written))
