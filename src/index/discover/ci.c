/*
 * ci.c - continuous integration: GitHub Actions workflows
 * (.github/workflows/<name>.yml: each one's name and the first six commands its
 * steps run, at most MAX_WORKFLOWS workflows read), and the files that mark
 * GitLab CI, CircleCI, Jenkins, Travis CI, Azure Pipelines, Bitbucket
 * Pipelines, AppVeyor, Drone, Woodpecker, Cloud Build, Cirrus CI, Buildkite
 * and CI scripts in .ci/.
 *
 * Each system is one entry of d->ci ({system, details}); the ci fact lists
 * them in this order, GitHub Actions first.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

#define MAX_WORKFLOWS 30

static void scan_ci(dx_ctx *d)
{
    json_t *gha = json_array();
    size_t workflows = 0;
    for (size_t i = 0; i < d->files.len; i++) {
        const char *p = d->files.items[i].path;
        if (!dx_starts(p, ".github/workflows/") || dx_depth_of(p) != 2 ||
            !(dx_ends(p, ".yml") || dx_ends(p, ".yaml")))
            continue;
        workflows++;
        mn_buf t = MN_BUF_INIT, stem = MN_BUF_INIT;
        const char *b = dx_base_name(p);
        mn_buf_put(&stem, b, (size_t)(strrchr(b, '.') - b));
        json_t *y = workflows <= MAX_WORKFLOWS ? dx_load(d, p, FMT_YAML, false) : NULL;
        mn_buf_printf(&t, "%s", p);
        if (dx_jstr(y, "name"))
            mn_buf_printf(&t, " \"%s\"", dx_jstr(y, "name"));
        /* the commands its steps run (the first few) */
        const char *jk;
        json_t *job;
        int runs = 0;
        json_object_foreach(dx_jget(y, "jobs", NULL), jk, job)
        {
            size_t s;
            json_t *step;
            json_array_foreach(dx_jget(job, "steps", NULL), s, step)
            {
                const char *run = dx_jstr(step, "run");
                if (!run || runs >= 6)
                    continue;
                mn_buf_puts(&t, runs ? "; " : ": runs ");
                dx_put_oneline(&t, run, 100);
                runs++;
            }
        }
        json_array_append_new(gha, json_pack("{s:s,s:s}", "name", stem.ptr, "text", t.ptr));
        json_decref(y);
        mn_buf_release(&t);
        mn_buf_release(&stem);
    }
    if (workflows) {
        mn_buf t = MN_BUF_INIT;
        size_t i;
        json_t *w;
        mn_buf_printf(&t, "GitHub Actions (%zu workflow%s: ", workflows, workflows == 1 ? "" : "s");
        json_array_foreach(gha, i, w)
        {
            if (i == 8) {
                mn_buf_puts(&t, ", ...");
                break;
            }
            mn_buf_printf(&t, "%s%s", i ? ", " : "", dx_jstr(w, "name"));
        }
        mn_buf_puts(&t, ")");
        json_t *detail = json_array();
        json_array_foreach(gha, i, w) json_array_append(detail, json_object_get(w, "text"));
        json_array_append_new(d->ci, json_pack("{s:s,s:o}", "system", t.ptr, "details", detail));
        mn_buf_release(&t);
    }
    json_decref(gha);
    static const char *const others[][2] = {
        {".gitlab-ci.yml", "GitLab CI"},
        {".circleci/config.yml", "CircleCI"},
        {"Jenkinsfile", "Jenkins"},
        {".travis.yml", "Travis CI"},
        {"azure-pipelines.yml", "Azure Pipelines"},
        {"bitbucket-pipelines.yml", "Bitbucket Pipelines"},
        {"appveyor.yml", "AppVeyor"},
        {".appveyor.yml", "AppVeyor"},
        {".drone.yml", "Drone"},
        {".woodpecker.yml", "Woodpecker"},
        {"cloudbuild.yaml", "Google Cloud Build"},
        {".cirrus.yml", "Cirrus CI"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(others); i++)
        if (dx_have(d, others[i][0])) {
            mn_buf t = MN_BUF_INIT;
            mn_buf_printf(&t, "%s (%s)", others[i][1], others[i][0]);
            json_array_append_new(d->ci, json_pack("{s:s,s:[]}", "system", t.ptr, "details"));
            mn_buf_release(&t);
        }
    if (dx_have_under(d, ".buildkite"))
        json_array_append_new(
            d->ci, json_pack("{s:s,s:[]}", "system", "Buildkite (.buildkite/)", "details"));
    if (dx_have_under(d, ".ci")) {
        json_t *files = json_array();
        for (size_t i = 0; i < d->files.len; i++)
            if (dx_starts(d->files.items[i].path, ".ci/") && json_array_size(files) < 10)
                json_array_append_new(files, json_string(d->files.items[i].path));
        json_array_append_new(
            d->ci, json_pack("{s:s,s:o}", "system", "CI scripts in .ci/", "details", files));
    }
}

const dx_ecosystem dx_ci = {
    .name = "CI",
    .scan = scan_ci,
};
