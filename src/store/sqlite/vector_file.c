/*
 * vector_file.c - a model's vectors of one kind, kept in a file beside the
 * store ("<store>-vectors-<project>-<kind>"), so that a process that has
 * not loaded them maps them instead of reading every row.
 *
 * Why: `mnemo hook`, when no `mnemo mcp` answers it, is a new process per
 * prompt; reading sympy's 45,000 chunk vectors row by row was 20 ms of its
 * 70. The file holds exactly what vector_store.c would load: ids, scales
 * and the int8 rows at the set's stride, after a header naming what they
 * are (project, kind, model, the model row's nonce and epoch, dimension).
 * vector_store.c reads the model's epoch and nonce from the store first,
 * as for its in-process cache, and maps the file only when its header
 * names the same; a vector written or removed since moves the epoch, so a
 * file never serves older vectors than the store holds. The payload's
 * xxh3 is checked when it is mapped (~1 ms for 11 MB): a file torn by a
 * power loss is not used. Written by whichever process loaded the rows, to
 * a temporary name then renamed (readers see the old file or the new one;
 * a mapped file stays valid after its replacement). A failure to write
 * costs nothing but the next read. Side files are 0600, like the store
 * (one written by an older mnemo is made so when read), and a link in
 * their place, or at the temporary name, is not followed.
 */
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "store/sqlite/vector_file.h"
#include "util/buf.h"
#include "util/util.h"

#define VFILE_MAGIC    "MNVECS01"
#define VFILE_ALIGN    64
#define VFILE_MODEL    160
#define VFILE_NONCE    64
#define VFILE_MIN_ROWS 1024 /* fewer rows load faster than a file is checked */

typedef struct {
    char magic[8];
    uint32_t dim, stride;
    int64_t project, epoch;
    uint64_t n, payload_hash;
    char kind[8];
    char model[VFILE_MODEL];
    char nonce[VFILE_NONCE];
} header;

static size_t align_up(size_t v)
{
    return (v + VFILE_ALIGN - 1) / VFILE_ALIGN * VFILE_ALIGN;
}

/* Where each array starts, and the file's size, for n rows. */
static size_t layout(const mn_vfile_key *k, size_t n, size_t *ids, size_t *scales, size_t *data)
{
    *ids = align_up(sizeof(header));
    *scales = align_up(*ids + n * sizeof(int64_t));
    *data = align_up(*scales + n * sizeof(float));
    return *data + n * k->stride;
}

static bool key_fits(const mn_vfile_key *k)
{
    return k->db_path && strlen(k->model) < VFILE_MODEL && strlen(k->nonce) < VFILE_NONCE &&
           strlen(k->kind) < sizeof(((header *)0)->kind);
}

static void path_of(mn_buf *b, const mn_vfile_key *k)
{
    mn_buf_printf(b, "%s-vectors-%lld-%s", k->db_path, (long long)k->project, k->kind);
}

static void fill_header(header *h, const mn_vfile_key *k, size_t n)
{
    memset(h, 0, sizeof(*h));
    memcpy(h->magic, VFILE_MAGIC, sizeof(h->magic));
    h->dim = (uint32_t)k->dim;
    h->stride = (uint32_t)k->stride;
    h->project = k->project;
    h->epoch = k->epoch;
    h->n = n;
    snprintf(h->kind, sizeof(h->kind), "%s", k->kind);
    snprintf(h->model, sizeof(h->model), "%s", k->model);
    snprintf(h->nonce, sizeof(h->nonce), "%s", k->nonce);
}

int mn_vfile_open(mn_vfile *out, const mn_vfile_key *k)
{
    memset(out, 0, sizeof(*out));
    if (!key_fits(k))
        return -1;
    mn_buf path = MN_BUF_INIT;
    path_of(&path, k);
    int fd = open(path.ptr, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    mn_buf_release(&path);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(header)) {
        close(fd);
        return -1;
    }
    mn_sidecar_make_private(fd, &st);
    size_t len = (size_t)st.st_size;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return -1;
    const header *h = map;
    header want;
    fill_header(&want, k, (size_t)h->n);
    size_t ids, scales, data;
    /* the header names this set, the size is its layout's, the payload is what was written */
    if (memcmp(h->magic, want.magic, sizeof(want.magic)) != 0 || h->dim != want.dim ||
        h->stride != want.stride || h->project != want.project || h->epoch != want.epoch ||
        strncmp(h->kind, want.kind, sizeof(want.kind)) != 0 ||
        strncmp(h->model, want.model, sizeof(want.model)) != 0 ||
        strncmp(h->nonce, want.nonce, sizeof(want.nonce)) != 0 || h->n > len ||
        layout(k, (size_t)h->n, &ids, &scales, &data) != len ||
        XXH3_64bits((const char *)map + ids, len - ids) != h->payload_hash) {
        munmap(map, len);
        return -1;
    }
    out->map = map;
    out->len = len;
    out->n = (size_t)h->n;
    out->ids = (const int64_t *)(const void *)((const char *)map + ids);
    out->scales = (const float *)(const void *)((const char *)map + scales);
    out->data = (const int8_t *)map + data;
    return 0;
}

void mn_vfile_close(mn_vfile *f)
{
    if (f->map)
        munmap(f->map, f->len);
    memset(f, 0, sizeof(*f));
}

static bool write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

void mn_sidecar_make_private(int fd, const struct stat *st)
{
    if (st->st_uid == geteuid() && (st->st_mode & 077))
        (void)fchmod(fd, st->st_mode & 0600);
}

bool mn_sidecar_write(const char *path, const void *data, size_t len)
{
    static unsigned seq; /* two threads of a process may write the same file at once */
    mn_buf tmp = MN_BUF_INIT;
    mn_buf_printf(&tmp, "%s.%ld.%u.tmp", path, (long)getpid(),
                  __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
    /* O_EXCL|O_NOFOLLOW: the name can be guessed, and a store may lie in a shared directory
     * (--db /tmp/x.db), so a link planted there must not make us write through it; a file
     * left there by a crash costs this one write */
    int fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write_all(fd, data, len);
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (ok && rename(tmp.ptr, path) != 0)
        ok = false;
    if (!ok && fd >= 0) { /* only the file made here */
        int e = errno;
        unlink(tmp.ptr);
        errno = e;
    }
    mn_buf_release(&tmp);
    return ok;
}

void mn_vfile_write(const mn_vfile_key *k, size_t n, const int64_t *ids, const float *scales,
                    const int8_t *data)
{
    if (!key_fits(k) || n < VFILE_MIN_ROWS)
        return;
    size_t at_ids, at_scales, at_data, len = layout(k, n, &at_ids, &at_scales, &at_data);
    char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return;
    header h;
    fill_header(&h, k, n);
    memcpy(buf + at_ids, ids, n * sizeof(*ids));
    memcpy(buf + at_scales, scales, n * sizeof(*scales));
    memcpy(buf + at_data, data, n * k->stride);
    h.payload_hash = XXH3_64bits(buf + at_ids, len - at_ids);
    memcpy(buf, &h, sizeof(h));
    mn_buf path = MN_BUF_INIT;
    path_of(&path, k);
    if (!mn_sidecar_write(path.ptr, buf, len))
        mn_log(MN_LOG_DEBUG, "cannot keep the vectors in '%s': %s", path.ptr, strerror(errno));
    munmap(buf, len);
    mn_buf_release(&path);
}
