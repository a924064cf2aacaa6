/*
 * tls.c - the certificate and private key of `mnemo serve --tls-cert
 * --tls-key`, read for libmicrohttpd (MHD_OPTION_HTTPS_MEM_CERT/KEY).
 *
 * Both files are PEM and read here, inside the process (a symbolic link is
 * followed: certificate managers keep "live" links to the current files).
 * The key file must give no permission to its group or to others (mode
 * 0600 or 0400), as ssh demands of its keys: a key others can read is no
 * longer secret, and serving with it would hide that. Its bytes live in one
 * buffer of the exact size (no growth that would leave copies in freed
 * memory), which mn_http__tls_free zeroes before freeing; libmicrohttpd
 * copies the key into its GnuTLS credentials when the daemon starts, so the
 * server zeroes ours right after. Whether the key matches the certificate
 * is GnuTLS's check at that start (the start fails when it does not).
 */
#include "common.h"
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http/http_internal.h"
#include "util/util.h"

/* A certificate chain or key in PEM is a few KB; this bounds what a wrong path makes us read. */
#define TLS_FILE_MAX (1u << 20)

/* Read the whole of path into a NUL-terminated buffer of its exact size; for the key, refuse
 * group/other permissions. */
static int read_pem(char **out, const char *path, const char *flag, bool secret)
{
    struct stat st;
    char *buf = NULL;
    size_t got = 0;
    int rc = 0, fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    *out = NULL;
    if (fd < 0)
        return mn_error_set(errno == ENOENT ? MN_ENOTFOUND : MN_EIO,
                            "cannot open the %s file '%s': %s", flag, path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        rc = mn_error_set(MN_EIO, "cannot read the %s file '%s': %s", flag, path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = mn_error_set(MN_EINVAL, "the %s file '%s' is not a regular file", flag, path);
        goto out;
    }
    if (secret && (st.st_mode & 077)) {
        rc = mn_error_set(MN_EINVAL,
                          "the %s file '%s' is open to other users (mode %04o): make it private "
                          "(chmod 600 '%s')",
                          flag, path, (unsigned)(st.st_mode & 07777), path);
        goto out;
    }
    if ((uint64_t)st.st_size > TLS_FILE_MAX || st.st_size == 0) {
        rc = mn_error_set(MN_EINVAL, "the %s file '%s' is %s: give a PEM file", flag, path,
                          st.st_size ? "larger than 1 MB" : "empty");
        goto out;
    }
    if (!(buf = malloc((size_t)st.st_size + 1))) {
        rc = mn_error_set(MN_ENOMEM, "out of memory for the %s file '%s'", flag, path);
        goto out;
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = mn_error_set(MN_EIO, "cannot read the %s file '%s': %s", flag, path,
                              n < 0 ? strerror(errno) : "it shrank while read");
            goto out;
        }
        got += (size_t)n;
    }
    buf[got] = '\0';
    if (strlen(buf) != got || !strstr(buf, "-----BEGIN ") ||
        (secret ? !strstr(buf, "PRIVATE KEY-----") : !strstr(buf, "CERTIFICATE-----"))) {
        rc = mn_error_set(MN_EINVAL, "the %s file '%s' holds no PEM %s", flag, path,
                          secret ? "private key" : "certificate");
        goto out;
    }
    if (secret && (strstr(buf, "ENCRYPTED") || strstr(buf, "Proc-Type: 4,ENCRYPTED"))) {
        rc = mn_error_set(MN_EINVAL,
                          "the %s file '%s' is encrypted with a passphrase: give the key without "
                          "one (kept private by its mode 600)",
                          flag, path);
        goto out;
    }
    *out = buf;
    buf = NULL;
out:
    if (buf) {
        explicit_bzero(buf, (size_t)st.st_size + 1);
        free(buf);
    }
    close(fd);
    return rc;
}

int mn_http__tls_load(mn_http_tls *tls, const char *cert_path, const char *key_path)
{
    int rc;
    memset(tls, 0, sizeof(*tls));
    if ((rc = read_pem(&tls->cert, cert_path, "--tls-cert", false)) != 0 ||
        (rc = read_pem(&tls->key, key_path, "--tls-key", true)) != 0)
        mn_http__tls_free(tls);
    return rc;
}

void mn_http__tls_free(mn_http_tls *tls)
{
    if (tls->key) {
        explicit_bzero(tls->key, strlen(tls->key));
        free(tls->key);
    }
    free(tls->cert);
    tls->key = tls->cert = NULL;
}
