/*
 * node.c - the JavaScript and TypeScript ecosystem: package.json, the lock
 * files that name the package manager (pnpm, Yarn, Bun, npm), Deno's
 * deno.json, .nvmrc / .node-version, pnpm-workspace.yaml, lerna.json, and
 * the config files of ESLint, Prettier, Biome, Stylelint and TypeScript.
 *
 * The package manager is the one package.json's packageManager declares,
 * else the one whose lock file is present, else npm. Its scripts are the
 * best command candidates (90 for "test", "build", "start", "lint", a little
 * less for their variants; dx_node_scripts, which PHP's composer scripts use
 * too); the test and build tools found among the dependencies (Jest,
 * Vitest, Mocha, tsc) are defaults below them. The project type comes from
 * the dependencies and flags: a private package with a frontend framework
 * is a web frontend, one with Express, Koa, Fastify... a web service, a
 * public one without bin a library. Workspaces (package.json, pnpm, Lerna)
 * feed the monorepo fact. Style tools are looked for even without a root
 * package.json (Deno, monorepos).
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static const dx_framework frameworks[] = {
    {"react", "React", "frontend"},
    {"next", "Next.js", "frontend"},
    {"vue", "Vue", "frontend"},
    {"nuxt", "Nuxt", "frontend"},
    {"svelte", "Svelte", "frontend"},
    {"@sveltejs/kit", "SvelteKit", "frontend"},
    {"@angular/core", "Angular", "frontend"},
    {"solid-js", "SolidJS", "frontend"},
    {"preact", "Preact", "frontend"},
    {"lit", "Lit", "frontend"},
    {"@remix-run/react", "Remix", "frontend"},
    {"gatsby", "Gatsby", "frontend"},
    {"astro", "Astro", "frontend"},
    {"express", "Express", "web"},
    {"koa", "Koa", "web"},
    {"fastify", "Fastify", "web"},
    {"@nestjs/core", "NestJS", "web"},
    {"@hapi/hapi", "hapi", "web"},
    {"hono", "Hono", "web"},
    {"electron", "Electron", "desktop"},
    {"react-native", "React Native", "mobile"},
    {"jest", "Jest", "test"},
    {"vitest", "Vitest", "test"},
    {"mocha", "Mocha", "test"},
    {"@playwright/test", "Playwright", "test"},
    {"cypress", "Cypress", "test"},
    {"webpack", "webpack", "build"},
    {"vite", "Vite", "build"},
    {"rollup", "Rollup", "build"},
    {"esbuild", "esbuild", "build"},
    {"tailwindcss", "Tailwind CSS", "frontend"},
    {"prisma", "Prisma", "orm"},
    {"@prisma/client", "Prisma", "orm"},
    {"typeorm", "TypeORM", "orm"},
    {"mongoose", "Mongoose", "orm"},
    {"graphql", "GraphQL", "web"},
};

/* How the package manager runs a script: "npm test", "pnpm build", "yarn lint". */
static void js_script_cmd(mn_buf *out, const char *pm, const char *script)
{
    if (!strcmp(pm, "npm"))
        mn_buf_printf(out,
                      !strcmp(script, "test") || !strcmp(script, "start") ? "npm %s" : "npm run %s",
                      script);
    else if (!strcmp(pm, "bun"))
        mn_buf_printf(out, "bun run %s", script);
    else if (!strcmp(pm, "deno"))
        mn_buf_printf(out, "deno task %s", script);
    else
        mn_buf_printf(out, "%s %s", pm, script);
}

void dx_node_scripts(dx_ctx *d, const json_t *scripts, const char *pm, const char *why_file)
{
    static const char *const names[CMD_N][6] = {
        {"build", "compile", "dist", NULL},
        {"test", "test:unit", "tests", "check", NULL},
        {"start", "dev", "serve", "develop", NULL},
        {"lint", "lint:all", "check:lint", "eslint", NULL},
    };
    for (int k = 0; k < CMD_N; k++)
        for (int i = 0; names[k][i]; i++) {
            const char *body = dx_jstr(scripts, names[k][i]);
            if (!body || strstr(body, "no test specified"))
                continue;
            mn_buf cmd = MN_BUF_INIT, why = MN_BUF_INIT, det = MN_BUF_INIT;
            js_script_cmd(&cmd, pm, names[k][i]);
            mn_buf_printf(&why, "%s scripts.%s", why_file, names[k][i]);
            dx_put_oneline(&det, body, 160);
            dx_add_cmd(d, k, 90 - i * 2, cmd.ptr, why.ptr, det.ptr);
            mn_buf_release(&cmd);
            mn_buf_release(&why);
            mn_buf_release(&det);
        }
}

/* The package globs a workspace file lists under "packages" (pnpm-workspace.yaml, lerna.json). */
static void workspace_file(dx_ctx *d, const char *file, dx_fmt f)
{
    if (!dx_have(d, file))
        return;
    json_t *v = dx_load(d, file, f, false);
    size_t k;
    json_t *g;
    json_array_foreach(dx_jget(v, "packages", NULL), k, g) if (json_is_string(g))
        dx_add_workspace(d, json_string_value(g), file);
    json_decref(v);
}

static void scan_node(dx_ctx *d)
{
    json_t *pkg = dx_load(d, "package.json", FMT_JSON, true);
    json_t *deno = dx_have(d, "deno.json")    ? dx_load(d, "deno.json", FMT_JSON, false)
                   : dx_have(d, "deno.jsonc") ? dx_load(d, "deno.jsonc", FMT_JSON, false)
                                              : NULL;
    const char *pm = NULL, *pm_why = NULL;
    if (deno) {
        dx_add_manager(d, "typescript", "Deno",
                       dx_have(d, "deno.json") ? "deno.json" : "deno.jsonc", "deno install");
        dx_node_scripts(d, dx_jget(deno, "tasks", NULL), "deno", "deno.json");
        dx_add_cmd(d, CMD_TEST, 50, "deno test", "deno.json", NULL);
        dx_add_cmd(d, CMD_LINT, 45, "deno lint", "deno.json", NULL);
    }
    if (!pkg)
        goto out;
    dx_set_name(d, dx_jstr(pkg, "name"), dx_jstr(pkg, "description"), "package.json");
    const char *decl = dx_jstr(pkg, "packageManager");
    if (decl && (dx_starts(decl, "pnpm") || dx_starts(decl, "yarn") || dx_starts(decl, "npm") ||
                 dx_starts(decl, "bun")))
        pm = dx_starts(decl, "pnpm")   ? "pnpm"
             : dx_starts(decl, "yarn") ? "yarn"
             : dx_starts(decl, "bun")  ? "bun"
                                       : "npm",
        pm_why = "package.json packageManager";
    else if (dx_have(d, "pnpm-lock.yaml"))
        pm = "pnpm", pm_why = "pnpm-lock.yaml";
    else if (dx_have(d, "yarn.lock"))
        pm = "yarn", pm_why = "yarn.lock";
    else if (dx_have(d, "bun.lockb") || dx_have(d, "bun.lock"))
        pm = "bun", pm_why = dx_have(d, "bun.lockb") ? "bun.lockb" : "bun.lock";
    else if (dx_have(d, "package-lock.json") || dx_have(d, "npm-shrinkwrap.json"))
        pm = "npm",
        pm_why = dx_have(d, "package-lock.json") ? "package-lock.json" : "npm-shrinkwrap.json";
    else
        pm = "npm", pm_why = "package.json";
    {
        static const char *const disp[][3] = {{"npm", "npm", "npm install"},
                                              {"pnpm", "pnpm", "pnpm install"},
                                              {"yarn", "Yarn", "yarn install"},
                                              {"bun", "Bun", "bun install"}};
        for (size_t i = 0; i < MN_ARRAY_SIZE(disp); i++)
            if (!strcmp(pm, disp[i][0]))
                dx_add_manager(d, "javascript", disp[i][1], pm_why,
                               !strcmp(pm, "npm") && strcmp(pm_why, "package.json") ? "npm ci"
                                                                                    : disp[i][2]);
    }
    dx_node_scripts(d, dx_jget(pkg, "scripts", NULL), pm, "package.json");

    json_t *rt = dx_jget(pkg, "dependencies", NULL), *dev = dx_jget(pkg, "devDependencies", NULL);
    json_t *peer = dx_jget(pkg, "peerDependencies", NULL);
    if (json_is_object(rt))
        dx_add_deps(d, "package.json", "runtime",
                    dx_keys_as_deps(d, "js", rt, "package.json dependencies", NULL));
    if (json_is_object(peer))
        dx_add_deps(d, "package.json", "peer",
                    dx_keys_as_deps(d, "js", peer, "package.json peerDependencies", NULL));
    d->dev = true;
    if (json_is_object(dev))
        dx_add_deps(d, "package.json", "development",
                    dx_keys_as_deps(d, "js", dev, "package.json devDependencies", NULL));
    d->dev = false;

    if (dx_jstr(dx_jget(pkg, "engines", NULL), "node")) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "Node.js %s (package.json engines.node)",
                      dx_jstr(dx_jget(pkg, "engines", NULL), "node"));
        dx_add_unique(d->runtime, b.ptr);
        mn_buf_release(&b);
    }
    static const char *const nv[] = {".nvmrc", ".node-version"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(nv); i++) {
        mn_buf v = MN_BUF_INIT, b = MN_BUF_INIT;
        if (dx_load_text(d, nv[i], &v) && v.len) {
            mn_buf_puts(&b, "Node.js ");
            dx_put_oneline(&b, v.ptr, 40);
            mn_buf_printf(&b, " (%s)", nv[i]);
            dx_add_unique(d->runtime, b.ptr);
        }
        mn_buf_release(&v);
        mn_buf_release(&b);
    }

    /* entry points */
    json_t *bin = dx_jget(pkg, "bin", NULL);
    if (json_is_string(bin) && dx_jstr(pkg, "name")) {
        mn_buf w = MN_BUF_INIT;
        mn_buf_printf(&w, "command %s -> %s", dx_base_name(dx_jstr(pkg, "name")),
                      json_string_value(bin));
        dx_add_entry(d, w.ptr, "package.json bin");
        mn_buf_release(&w);
    } else if (json_is_object(bin)) {
        const char *k;
        json_t *v;
        json_object_foreach(bin, k, v) if (json_is_string(v))
        {
            mn_buf w = MN_BUF_INIT;
            mn_buf_printf(&w, "command %s -> %s", k, json_string_value(v));
            dx_add_entry(d, w.ptr, "package.json bin");
            mn_buf_release(&w);
        }
    }
    static const char *const mains[] = {"main", "module", "browser", "types"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(mains); i++)
        if (dx_jstr(pkg, mains[i])) {
            mn_buf w = MN_BUF_INIT, why = MN_BUF_INIT;
            mn_buf_printf(&w, "%s: %s", mains[i], dx_jstr(pkg, mains[i]));
            mn_buf_printf(&why, "package.json %s", mains[i]);
            dx_add_entry(d, w.ptr, why.ptr);
            mn_buf_release(&w);
            mn_buf_release(&why);
        }
    if (dx_jget(pkg, "exports", NULL) && !dx_jstr(pkg, "main"))
        dx_add_entry(d, "exports (package.json)", "package.json exports");

    /* workspaces */
    json_t *ws = dx_jget(pkg, "workspaces", NULL);
    if (json_is_object(ws))
        ws = json_object_get(ws, "packages");
    size_t i;
    json_t *g;
    json_array_foreach(ws, i, g) if (json_is_string(g))
        dx_add_workspace(d, json_string_value(g), "package.json workspaces");

    /* what it is */
    bool is_private = json_is_true(dx_jget(pkg, "private", NULL));
    if (bin)
        dx_add_kv(d->types, "command-line tool", "package.json bin");
    static const char *const fe[] = {"React",   "Vue",   "Svelte",    "Angular",
                                     "Next.js", "Nuxt",  "SvelteKit", "SolidJS",
                                     "Preact",  "Remix", "Gatsby",    "Astro"};
    for (size_t k = 0; k < MN_ARRAY_SIZE(fe); k++) {
        json_t *f = json_object_get(d->frameworks, fe[k]);
        if (f && strstr(dx_jstr(f, "why"), "package.json dependencies") && is_private) {
            mn_buf w = MN_BUF_INIT;
            mn_buf_printf(&w, "%s (%s)", fe[k], dx_jstr(f, "why"));
            dx_add_kv(d->types, "web frontend", w.ptr);
            mn_buf_release(&w);
            break;
        }
    }
    static const char *const be[] = {"Express", "Koa", "Fastify", "NestJS", "hapi", "Hono"};
    for (size_t k = 0; k < MN_ARRAY_SIZE(be); k++) {
        json_t *f = json_object_get(d->frameworks, be[k]);
        if (f && strstr(dx_jstr(f, "why"), "package.json dependencies")) {
            mn_buf w = MN_BUF_INIT;
            mn_buf_printf(&w, "%s (%s)", be[k], dx_jstr(f, "why"));
            dx_add_kv(d->types, "web service", w.ptr);
            mn_buf_release(&w);
            break;
        }
    }
    if (json_object_get(d->frameworks, "Electron"))
        dx_add_kv(d->types, "desktop application", "Electron");
    if (json_object_get(d->frameworks, "React Native"))
        dx_add_kv(d->types, "mobile application", "React Native");
    if (!is_private && !bin)
        dx_add_kv(d->types, "library",
                  dx_jstr(pkg, "main") || dx_jget(pkg, "exports", NULL) || dx_jstr(pkg, "module")
                      ? "package.json main/exports (a published package)"
                      : "package.json, not private (a published package)");
    if (!json_object_size(d->types) && !json_array_size(d->workspaces) &&
        !dx_have(d, "pnpm-workspace.yaml") && !dx_have(d, "lerna.json"))
        dx_add_kv(d->types, "application", "package.json private");

    /* default commands from the tools present */
    static const char *const testers[][2] = {
        {"Jest", "npx jest"}, {"Vitest", "npx vitest run"}, {"Mocha", "npx mocha"}};
    for (size_t k = 0; k < MN_ARRAY_SIZE(testers); k++)
        if (json_object_get(d->frameworks, testers[k][0]))
            dx_add_cmd(d, CMD_TEST, 45, testers[k][1],
                       dx_jstr(json_object_get(d->frameworks, testers[k][0]), "why"), NULL);
    if (dx_jget(dev, "typescript", NULL) || dx_have(d, "tsconfig.json"))
        dx_add_cmd(d, CMD_BUILD, 40, "npx tsc",
                   dx_have(d, "tsconfig.json") ? "tsconfig.json" : "typescript dependency", NULL);
out:
    /* code style (also for Deno and packages without a root package.json) */
    {
        static const char *const eslint[] = {
            "eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts",
            ".eslintrc",        ".eslintrc.js",      ".eslintrc.cjs",     ".eslintrc.json",
            ".eslintrc.yml",    ".eslintrc.yaml"};
        const char *why = dx_have_first(d, eslint, MN_ARRAY_SIZE(eslint));
        if (!why && dx_jget(pkg, "eslintConfig", NULL))
            why = "package.json eslintConfig";
        if (!why && dx_jget(pkg, "devDependencies", "eslint", NULL))
            why = "package.json devDependencies eslint";
        if (why) {
            dx_add_kv(d->style, "ESLint", why);
            dx_add_cmd(d, CMD_LINT, 55, "npx eslint .", why, NULL);
        }
        static const char *const prettier[] = {
            ".prettierrc",        ".prettierrc.json",    ".prettierrc.yml",    ".prettierrc.yaml",
            ".prettierrc.js",     ".prettierrc.cjs",     ".prettierrc.mjs",    ".prettierrc.toml",
            "prettier.config.js", "prettier.config.cjs", "prettier.config.mjs"};
        why = dx_have_first(d, prettier, MN_ARRAY_SIZE(prettier));
        if (!why && dx_jget(pkg, "prettier", NULL))
            why = "package.json prettier";
        if (!why && dx_jget(pkg, "devDependencies", "prettier", NULL))
            why = "package.json devDependencies prettier";
        if (why)
            dx_add_kv(d->style, "Prettier", why);
        if (dx_have(d, "biome.json") || dx_have(d, "biome.jsonc")) {
            dx_add_kv(d->style, "Biome", dx_have(d, "biome.json") ? "biome.json" : "biome.jsonc");
            dx_add_cmd(d, CMD_LINT, 55, "npx @biomejs/biome check .", "biome.json", NULL);
        }
        if (dx_have(d, "tsconfig.json")) {
            json_t *ts = dx_load(d, "tsconfig.json", FMT_JSON, false);
            dx_add_kv(d->style,
                      json_is_true(dx_jget(ts, "compilerOptions", "strict", NULL))
                          ? "TypeScript (strict)"
                          : "TypeScript",
                      "tsconfig.json");
            json_decref(ts);
        }
        static const char *const stylelint[] = {".stylelintrc", ".stylelintrc.json",
                                                "stylelint.config.js", ".stylelintrc.js"};
        why = dx_have_first(d, stylelint, MN_ARRAY_SIZE(stylelint));
        if (why)
            dx_add_kv(d->style, "Stylelint", why);
    }
    workspace_file(d, "pnpm-workspace.yaml", FMT_YAML);
    workspace_file(d, "lerna.json", FMT_JSON);
    json_decref(pkg);
    json_decref(deno);
}

/* A package of a monorepo: its package.json (name, scripts, dependencies). */
static void node_package(dx_ctx *d, json_t *pkg, const char *manifest)
{
    dx_package_json(d, pkg, manifest, "dependencies", "js");
}

const dx_ecosystem dx_node = {
    .name = "Node.js",
    .lang = "javascript",
    .deps = "js",
    .frameworks = frameworks,
    .nframeworks = MN_ARRAY_SIZE(frameworks),
    .manifests = "package.json",
    .scan = scan_node,
    .package = node_package,
};
