/*
 * conventions.c - conventions of any project: pre-commit
 * (.pre-commit-config.yaml: its hooks, as the style tools they run, and
 * `pre-commit run --all-files` as a lint command at 65), EditorConfig (the
 * indentation of [*]), husky, commitlint, markdownlint and ShellCheck
 * configuration.
 *
 * Style tools are recorded by the name people know them by (`hooks` maps a
 * hook id to it); a tool an ecosystem already recorded keeps that evidence.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static void scan_conventions(dx_ctx *d)
{
    static const char *const hooks[][2] = {
        {"ruff", "Ruff (linter)"},
        {"ruff-check", "Ruff (linter)"},
        {"ruff-format", "Ruff (formatter)"},
        {"black", "Black"},
        {"isort", "isort"},
        {"flake8", "Flake8"},
        {"mypy", "mypy (type checker)"},
        {"pyupgrade", "pyupgrade"},
        {"codespell", "codespell"},
        {"prettier", "Prettier"},
        {"eslint", "ESLint"},
        {"clang-format", "clang-format"},
        {"rustfmt", "rustfmt"},
        {"fmt", "rustfmt"},
        {"golangci-lint", "golangci-lint"},
        {"shellcheck", "ShellCheck"},
        {"hadolint", "hadolint"},
        {"markdownlint", "markdownlint"},
        {"yamllint", "yamllint"},
        {"typos", "typos"},
        {"pylint", "Pylint"},
        {"rubocop", "RuboCop"},
        {"gofmt", "gofmt"},
    };
    if (dx_have(d, ".pre-commit-config.yaml") || dx_have(d, ".pre-commit-config.yml")) {
        const char *f = dx_have(d, ".pre-commit-config.yaml") ? ".pre-commit-config.yaml"
                                                              : ".pre-commit-config.yml";
        json_t *y = dx_load(d, f, FMT_YAML, false);
        size_t i, j;
        json_t *repo, *hook;
        dx_add_kv(d->style, "pre-commit", f);
        json_array_foreach(dx_jget(y, "repos", NULL), i, repo)
        {
            json_array_foreach(dx_jget(repo, "hooks", NULL), j, hook)
            {
                const char *id = dx_jstr(hook, "id");
                for (size_t k = 0; id && k < MN_ARRAY_SIZE(hooks); k++)
                    if (!strcmp(id, hooks[k][0])) {
                        mn_buf w = MN_BUF_INIT;
                        mn_buf_printf(&w, "%s hook %s", f, id);
                        dx_add_kv(d->style, hooks[k][1], w.ptr);
                        mn_buf_release(&w);
                        break;
                    }
            }
        }
        json_decref(y);
        dx_add_cmd(d, CMD_LINT, 65, "pre-commit run --all-files", f, NULL);
    }
    if (dx_have(d, ".editorconfig")) {
        json_t *ec = dx_load(d, ".editorconfig", FMT_INI, false);
        json_t *all = dx_jget(ec, "*", NULL);
        mn_buf w = MN_BUF_INIT;
        mn_buf_puts(&w, ".editorconfig");
        if (dx_jstr(all, "indent_style")) {
            mn_buf_printf(&w, " [*]: indent %s", dx_jstr(all, "indent_style"));
            if (dx_jstr(all, "indent_size"))
                mn_buf_printf(&w, " %s", dx_jstr(all, "indent_size"));
        }
        dx_add_kv(d->style, "EditorConfig", w.ptr);
        mn_buf_release(&w);
        json_decref(ec);
    }
    if (dx_have_under(d, ".husky"))
        dx_add_kv(d->style, "husky (git hooks)", ".husky/");
    if (dx_have(d, "commitlint.config.js") || dx_have(d, ".commitlintrc.json") ||
        dx_have(d, ".commitlintrc.yml"))
        dx_add_kv(d->style, "commitlint", "commitlint config");
    if (dx_have(d, ".markdownlint.json") || dx_have(d, ".markdownlint.yaml") ||
        dx_have(d, ".markdownlint.yml"))
        dx_add_kv(d->style, "markdownlint", ".markdownlint config");
    if (dx_have(d, ".shellcheckrc"))
        dx_add_kv(d->style, "ShellCheck", ".shellcheckrc");
}

const dx_ecosystem dx_conventions = {
    .name = "conventions",
    .scan = scan_conventions,
};
