/*
 * time.c - wall-clock and monotonic time, RFC 3339 formatting and parsing.
 *
 * Stored timestamps are integer milliseconds since the epoch (UTC), so a
 * round trip through text is exact as long as the text keeps milliseconds;
 * mn_time_format always writes them.
 */
#include "common.h"
#include <time.h>
#include <ctype.h>

#include "util/util.h"

int64_t mn_time_now_ms(void)
{
    const char *fake = getenv("MNEMO_NOW_MS");
    if (fake && *fake) {
        int64_t v;
        if (mn_parse_int64(&v, fake, 0, INT64_MAX, "MNEMO_NOW_MS") == 0)
            return v;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t mn_time_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mn_time_format(char out[32], int64_t ms)
{
    int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
    int msec = (int)(ms - secs * 1000);
    time_t t = (time_t)secs;
    struct tm tm;
    gmtime_r(&t, &tm);
    char tmp[96]; /* wide enough for any int, so the compiler can prove no truncation */
    snprintf(tmp, sizeof(tmp), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, msec);
    size_t n = strlen(tmp);
    if (n > 31)
        n = 31;
    memcpy(out, tmp, n);
    out[n] = '\0';
}

static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)**p))
            return -1;
        v = v * 10 + (**p - '0');
        (*p)++;
    }
    *out = v;
    return 0;
}

static int parse_relative(int64_t *out, const char *s)
{
    char *end;
    if (!isdigit((unsigned char)s[0])) /* strtoll would take " 7d" and "+7d" */
        return -1;
    errno = 0;
    long long n = strtoll(s, &end, 10);
    if (end == s || errno || n < 0 || n > 100000 || end[0] == '\0' || end[1] != '\0')
        return -1;
    int64_t unit;
    switch (*end) {
    case 's':
        unit = 1000;
        break;
    case 'm':
        unit = 60 * 1000;
        break;
    case 'h':
        unit = 3600 * 1000;
        break;
    case 'd':
        unit = 86400 * 1000;
        break;
    case 'w':
        unit = 7 * 86400 * 1000LL;
        break;
    default:
        return -1;
    }
    *out = mn_time_now_ms() - (int64_t)n * unit;
    return 0;
}

int mn_time_parse(int64_t *out, const char *s)
{
    const char *p = s;
    int y, mo, d, h = 0, mi = 0, sec = 0, ms = 0;
    int64_t offset_min = 0;

    if (parse_relative(out, s) == 0)
        return 0;
    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' || digits(&p, 2, &d))
        goto bad;
    if (*p == 'T' || *p == 't' || *p == ' ') {
        p++;
        if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi) || *p++ != ':' ||
            digits(&p, 2, &sec))
            goto bad;
        if (*p == '.') {
            p++;
            int n = 0, frac = 0;
            while (isdigit((unsigned char)*p)) {
                if (n < 3)
                    frac = frac * 10 + (*p - '0');
                n++;
                p++;
            }
            if (n == 0)
                goto bad;
            for (; n < 3; n++)
                frac *= 10;
            ms = frac;
        }
        if (*p == 'Z' || *p == 'z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int sign = *p == '-' ? -1 : 1, oh, om;
            p++;
            if (digits(&p, 2, &oh) || *p++ != ':' || digits(&p, 2, &om) || oh > 23 || om > 59)
                goto bad;
            offset_min = sign * (oh * 60 + om);
        } else {
            goto bad;
        }
    }
    /* check the day against its month: timegm would silently turn Feb 30 into Mar 2 */
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 ||
        sec > 60)
        goto bad;
    /* and Feb 29 of a common year into Mar 1 */
    if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        goto bad;

    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    time_t t = timegm(&tm);
    *out = (int64_t)t * 1000 + ms - offset_min * 60000;
    return 0;
bad:
    return mn_error_set(MN_EINVAL,
                        "invalid time '%.40s': use RFC 3339 (2026-11-21T05:37:25Z) or an age "
                        "like 7d, 12h, 30m",
                        s);
}
