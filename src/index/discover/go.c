/*
 * go.c - the Go ecosystem: go.mod (module path, go directive, direct
 * requirements; indirect ones are left out), go.work (its use directives
 * are workspaces), .golangci.* and the main packages.
 *
 * Go's tools are conventions, so most commands are the toolchain's
 * defaults (go build ./..., go test ./..., score 50; go vet 40 unless
 * golangci-lint is configured, 65). Entry points are main.go at the root
 * (go run .) and cmd/<name>/main.go (go run ./cmd/<name>); a module with a
 * main package is an application, or a command-line tool when it uses
 * Cobra or urfave/cli, and a library otherwise.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static const dx_framework frameworks[] = {
    {"github-com/gin-gonic/gin", "Gin", "web"},
    {"github-com/labstack/echo*", "Echo", "web"},
    {"github-com/gofiber/fiber*", "Fiber", "web"},
    {"github-com/go-chi/chi*", "chi", "web"},
    {"github-com/gorilla/mux", "gorilla/mux", "web"},
    {"github-com/spf13/cobra", "Cobra", "cli"},
    {"github-com/urfave/cli*", "urfave/cli", "cli"},
    {"github-com/stretchr/testify", "testify", "test"},
    {"google-golang-org/grpc", "gRPC", "web"},
    {"gorm-io/gorm", "GORM", "orm"},
};

static void scan_go(dx_ctx *d)
{
    mn_buf b = MN_BUF_INIT;
    if (!dx_load_text(d, "go.mod", &b))
        goto work;
    {
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        bool in_require = false;
        json_t *deps = json_array();
        while (dx_next_line(&p, end, &line, &n)) {
            while (n && (*line == ' ' || *line == '\t'))
                line++, n--;
            char *l = mn_strndup(line, n);
            if (dx_starts(l, "module ")) {
                char *m = l + 7;
                m[strcspn(m, " \t")] = '\0';
                dx_set_name(d, m, NULL, "go.mod module");
            } else if (dx_starts(l, "go ")) {
                mn_buf r = MN_BUF_INIT;
                mn_buf_printf(&r, "Go %s (go.mod)", l + 3);
                dx_add_unique(d->runtime, r.ptr);
                mn_buf_release(&r);
            } else if (dx_starts(l, "require (")) {
                in_require = true;
            } else if (in_require && l[0] == ')') {
                in_require = false;
            } else if ((in_require || dx_starts(l, "require ")) && !strstr(l, "// indirect")) {
                const char *s = in_require ? l : l + 8;
                size_t k = strcspn(s, " \t");
                if (k && s[0] != '/') {
                    char *nm = mn_strndup(s, k);
                    dx_add_unique(deps, nm);
                    dx_see_dep(d, "go", nm, k, "go.mod");
                    free(nm);
                }
            }
            free(l);
        }
        dx_add_deps(d, "go.mod", "runtime", deps);
    }
    dx_add_manager(d, "go", "Go modules", "go.mod", "go mod download");
    dx_add_cmd(d, CMD_BUILD, 50, "go build ./...", "go.mod", NULL);
    dx_add_cmd(d, CMD_TEST, 50, "go test ./...", "go.mod", NULL);
    {
        static const char *const gl[] = {".golangci.yml", ".golangci.yaml", ".golangci.toml",
                                         ".golangci.json"};
        const char *linter = dx_have_first(d, gl, MN_ARRAY_SIZE(gl));
        if (linter) {
            dx_add_kv(d->style, "golangci-lint", linter);
            dx_add_cmd(d, CMD_LINT, 65, "golangci-lint run", linter, NULL);
        } else {
            dx_add_cmd(d, CMD_LINT, 40, "go vet ./...", "go.mod", "the standard checks");
        }
        dx_add_kv(d->style, "gofmt", "go.mod (Go code is gofmt-formatted by convention)");
    }
    bool app = false;
    if (dx_have(d, "main.go")) {
        dx_add_entry(d, "main.go (package main at the root)", "main.go");
        dx_add_cmd(d, CMD_RUN, 50, "go run .", "main.go", NULL);
        app = true;
    }
    for (size_t i = 0; i < d->files.len; i++) {
        const char *p = d->files.items[i].path;
        if (!dx_starts(p, "cmd/") || dx_depth_of(p) != 2 || strcmp(dx_base_name(p), "main.go"))
            continue;
        mn_buf w = MN_BUF_INIT, cmd = MN_BUF_INIT;
        size_t dl = strlen(p) - strlen("/main.go");
        mn_buf_printf(&w, "%s", p);
        mn_buf_printf(&cmd, "go run ./%.*s", (int)dl, p);
        dx_add_entry(d, w.ptr, "cmd/<name>/main.go");
        dx_add_cmd(d, CMD_RUN, 50, cmd.ptr, p, NULL);
        mn_buf_release(&w);
        mn_buf_release(&cmd);
        app = true;
    }
    if (app &&
        (json_object_get(d->frameworks, "Cobra") || json_object_get(d->frameworks, "urfave/cli")))
        dx_add_kv(d->types, "command-line tool", "main packages using a CLI framework");
    else if (app)
        dx_add_kv(d->types, "application", "main packages (main.go, cmd/)");
    else
        dx_add_kv(d->types, "library", "go.mod without a main package");
work:
    if (dx_load_text(d, "go.work", &b)) {
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        bool in_use = false;
        while (dx_next_line(&p, end, &line, &n)) {
            while (n && (*line == ' ' || *line == '\t'))
                line++, n--;
            if (n >= 5 && !memcmp(line, "use (", 5)) {
                in_use = true;
                continue;
            }
            if (in_use && n && *line == ')') {
                in_use = false;
                continue;
            }
            if (in_use || (n > 4 && !memcmp(line, "use ", 4))) {
                const char *s = in_use ? line : line + 4;
                size_t k = (size_t)(line + n - s);
                while (k && (s[k - 1] == ' ' || s[k - 1] == '\t'))
                    k--;
                if (k >= 2 && s[0] == '.' && s[1] == '/')
                    s += 2, k -= 2;
                if (k && !(k == 1 && s[0] == '.')) {
                    char *g = mn_strndup(s, k);
                    dx_add_workspace(d, g, "go.work use");
                    free(g);
                }
            }
        }
    }
    mn_buf_release(&b);
}

/* A package of a monorepo: its module path, the name go.mod declares first. */
static void go_package(dx_ctx *d, json_t *pkg, const char *m)
{
    mn_buf t = MN_BUF_INIT;
    if (dx_load_text(d, m, &t) && dx_starts(t.ptr, "module ")) {
        char *mod = mn_strndup(t.ptr + 7, strcspn(t.ptr + 7, " \t\r\n"));
        json_object_set_new(pkg, "name", json_string(mod));
        free(mod);
    }
    mn_buf_release(&t);
}

const dx_ecosystem dx_go = {
    .name = "Go",
    .lang = "go",
    .deps = "go",
    .frameworks = frameworks,
    .nframeworks = MN_ARRAY_SIZE(frameworks),
    .manifests = "go.mod",
    .entry_files = "main.go",
    .scan = scan_go,
    .package = go_package,
};
