/*
 * util.h - small libc-level helpers: time, ids, numbers, UTF-8, files, log.
 *
 * Nothing here knows about memories or projects. Each helper that can fail
 * follows the error model of mnemo/errors.h.
 */
#ifndef MN_UTIL_H
#define MN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* ---- time ---- */
/** Milliseconds since the Unix epoch (UTC wall clock). MNEMO_NOW_MS overrides it for tests. */
int64_t mn_time_now_ms(void);
/** Monotonic nanoseconds, for measuring. */
uint64_t mn_time_mono_ns(void);
/** Format ms as RFC 3339 UTC with milliseconds: "2026-11-21T05:37:25.123Z" (24 chars + NUL). */
void mn_time_format(char out[32], int64_t ms);
/**
 * Parse RFC 3339 ("2026-11-21", "2026-11-21T05:37:25Z", with .fff and +hh:mm
 * offsets) or a relative age ("90s", "15m", "12h", "7d", "2w": that long
 * before now) into ms. Returns 0 or MN_EINVAL.
 */
int mn_time_parse(int64_t *out, const char *s);

/* ---- ids ---- */
#define MN_ID_LEN 26
/** A new ULID (Crockford base32, 26 chars, time-ordered) in out (27 bytes). */
void mn_id_new(char out[MN_ID_LEN + 1]);
/** True when s is 1..26 Crockford base32 characters, either case (an id or an id prefix). */
bool mn_id_is_prefix(const char *s);

/* ---- numbers and text ---- */
/** Parse a whole decimal number with bounds; 0 or MN_EINVAL naming `what`. */
int mn_parse_int64(int64_t *out, const char *s, int64_t min, int64_t max, const char *what);
/** Parse a finite decimal number with bounds; 0 or MN_EINVAL naming `what`. */
int mn_parse_double(double *out, const char *s, double min, double max, const char *what);
/** Parse a finite decimal number (never NaN or an infinity); 0 or MN_EINVAL naming `what`. */
int mn_parse_finite(double *out, const char *s, const char *what);
/** True when [s, s+len) is well-formed UTF-8 without NUL bytes. */
bool mn_utf8_valid(const char *s, size_t len);
/** Number of code points in valid UTF-8. */
size_t mn_utf8_len(const char *s, size_t len);
/** Largest n <= max such that s[0..n) ends on a code point boundary. */
size_t mn_utf8_floor(const char *s, size_t len, size_t max);
/**
 * Append [s, s+len) to out with everything a terminal could act on written
 * visibly: C0 controls and DEL as \xHH (\n, \t, \r as such), C1 controls
 * as \u00HH, bytes outside well-formed UTF-8 as \xHH. With multiline, \n
 * and \t are kept as they are. See text.c.
 */
void mn_text_escape(mn_buf *out, const char *s, size_t len, bool multiline);
/** True when mn_text_escape would change [s, s+len). */
bool mn_text_needs_escape(const char *s, size_t len, bool multiline);

/* ---- files ---- */
/** Read a whole file, refusing files over max_size (MN_ETOOBIG). "-" reads stdin. */
int mn_fs_read(mn_buf *out, const char *path, size_t max_size);
/**
 * Read a whole regular file without following a symbolic link at its last
 * component (O_NOFOLLOW) or waiting on a FIFO: MN_EINVAL for a link or
 * anything but a regular file, MN_ENOTFOUND, MN_ETOOBIG as mn_fs_read.
 */
int mn_fs_read_regular(mn_buf *out, const char *path, size_t max_size);
/**
 * mn_fs_read_regular of a file that grows at its end (a transcript): one
 * larger than max_size is read from the first line that starts in its last
 * max_size bytes, and *skipped says how many bytes were left before them
 * (0 when the whole file was read).
 */
int mn_fs_read_tail(mn_buf *out, const char *path, size_t max_size, uint64_t *skipped);
/**
 * Write a file atomically (temp file in the same directory, fsync, rename),
 * mode 0600. The temporary file's name is random and it is created
 * O_EXCL|O_NOFOLLOW: a link planted beside path is not written through.
 */
int mn_fs_write_atomic(const char *path, const void *data, size_t len);
/** mn_fs_write_atomic with the file made `mode` (exactly: the umask does not apply). */
int mn_fs_write_atomic_mode(const char *path, const void *data, size_t len, unsigned mode);
/** mkdir -p with mode 0755 for created directories. */
int mn_fs_mkdir_p(const char *path);
/** mkdir -p with mode 0700 for created directories (existing ones are left as they are). */
int mn_fs_mkdir_private(const char *path);
/**
 * Take group and other permissions off a regular file or directory the
 * current user owns (chmod to mode & 0700). Best effort: true when it
 * changed the mode; a link, another user's file or a failure is left as is.
 */
bool mn_fs_make_private(const char *path);
bool mn_fs_is_dir(const char *path);
bool mn_fs_exists(const char *path);
/** Absolute, normalized form of path (need not exist); caller frees. */
char *mn_fs_abspath(const char *path);
/** The canonical path (symbolic links, "." and ".." resolved; it must exist), or NULL (errno). */
char *mn_fs_realpath(const char *path);
/** Whether path is dir or lies below it; both canonical (mn_fs_realpath). */
bool mn_fs_path_within(const char *dir, const char *path);
/**
 * Append `line` to the file if no line equals it already (e.g. .git/info/exclude);
 * an existing file keeps its mode, a new one is 0600.
 */
int mn_fs_append_line_once(const char *path, const char *line);

/* ---- log (stderr only: stdout belongs to the front end's protocol) ---- */
typedef enum { MN_LOG_ERROR = 0, MN_LOG_WARN, MN_LOG_INFO, MN_LOG_DEBUG } mn_log_level;
void mn_log_set_level(mn_log_level level);
/** Level from MNEMO_LOG (error|warn|info|debug), default warn. */
void mn_log_init_from_env(void);
void mn_log(mn_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
