/*
 * containers.c - how a project is packaged and run as processes:
 * Dockerfile, Compose files and Procfile.
 *
 * These are low-score command candidates (docker build . 20, docker
 * compose up 30), kept for projects that have nothing better, and the
 * Dockerfile an entry point; a Procfile's web process is a strong run
 * command (60) and makes the project a web service.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static void scan_containers(dx_ctx *d)
{
    static const char *const compose[] = {"compose.yaml", "compose.yml", "docker-compose.yml",
                                          "docker-compose.yaml"};
    if (dx_have(d, "Dockerfile")) {
        dx_add_cmd(d, CMD_BUILD, 20, "docker build .", "Dockerfile", NULL);
        dx_add_entry(d, "Dockerfile (container image)", "Dockerfile");
    }
    const char *up = dx_have_first(d, compose, MN_ARRAY_SIZE(compose));
    if (up)
        dx_add_cmd(d, CMD_RUN, 30, "docker compose up", up, NULL);
    mn_buf b = MN_BUF_INIT;
    if (dx_load_text(d, "Procfile", &b)) {
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        while (dx_next_line(&p, end, &line, &n))
            if (n > 5 && !memcmp(line, "web:", 4)) {
                mn_buf c = MN_BUF_INIT;
                const char *s = line + 4;
                while (*s == ' ')
                    s++;
                mn_buf_put(&c, s, (size_t)(line + n - s));
                dx_add_cmd(d, CMD_RUN, 60, c.ptr, "Procfile web", NULL);
                dx_add_kv(d->types, "web service", "Procfile web process");
                mn_buf_release(&c);
            }
    }
    mn_buf_release(&b);
}

const dx_ecosystem dx_containers = {
    .name = "containers and processes",
    .scan = scan_containers,
};
