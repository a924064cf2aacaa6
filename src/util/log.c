/*
 * log.c - diagnostics on stderr. stdout belongs to the front end (the CLI's
 * output, the MCP protocol on stdio), so nothing here ever writes there.
 */
#include "common.h"
#include <time.h>

#include "util/util.h"

static mn_log_level current = MN_LOG_WARN;

void mn_log_set_level(mn_log_level level)
{
    current = level;
}

void mn_log_init_from_env(void)
{
    const char *v = getenv("MNEMO_LOG");
    static const char *names[] = {"error", "warn", "info", "debug"};
    if (!v)
        return;
    for (size_t i = 0; i < MN_ARRAY_SIZE(names); i++)
        if (strcmp(v, names[i]) == 0)
            current = (mn_log_level)i;
}

void mn_log(mn_log_level level, const char *fmt, ...)
{
    static const char *names[] = {"error", "warn", "info", "debug"};
    if (level > current)
        return;
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "mnemo: %s: %s\n", names[level], line);
}
