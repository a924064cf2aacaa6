/*
 * docs.c - documentation tooling: Sphinx (a conf.py in the usual docs
 * directories), MkDocs, Docusaurus, mdBook, Doxygen, TypeDoc, Antora,
 * Read the Docs, VitePress and VuePress sites, and the number of
 * documentation files in docs/, doc/ or documentation/.
 *
 * Each finding is one line of d->docs, in this order; the docs fact lists
 * them.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static void scan_docs(dx_ctx *d)
{
    static const char *const confs[] = {"docs/conf.py",        "doc/conf.py",
                                        "docs/source/conf.py", "doc/source/conf.py",
                                        "doc/en/conf.py",      "documentation/conf.py"};
    const char *sphinx = dx_have_first(d, confs, MN_ARRAY_SIZE(confs));
    if (sphinx) {
        mn_buf t = MN_BUF_INIT;
        mn_buf_printf(&t, "Sphinx (%s)", sphinx);
        dx_add_unique(d->docs, t.ptr);
        mn_buf_release(&t);
    }
    static const char *const tools[][2] = {
        {"mkdocs.yml", "MkDocs (mkdocs.yml)"},
        {"mkdocs.yaml", "MkDocs (mkdocs.yaml)"},
        {"docusaurus.config.js", "Docusaurus (docusaurus.config.js)"},
        {"docusaurus.config.ts", "Docusaurus (docusaurus.config.ts)"},
        {"book.toml", "mdBook (book.toml)"},
        {"Doxyfile", "Doxygen (Doxyfile)"},
        {"docs/Doxyfile", "Doxygen (docs/Doxyfile)"},
        {"typedoc.json", "TypeDoc (typedoc.json)"},
        {"antora.yml", "Antora (antora.yml)"},
        {".readthedocs.yaml", "published on Read the Docs (.readthedocs.yaml)"},
        {".readthedocs.yml", "published on Read the Docs (.readthedocs.yml)"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(tools); i++)
        if (dx_have(d, tools[i][0]))
            dx_add_unique(d->docs, tools[i][1]);
    static const char *const site_dirs[][2] = {{"docs/.vitepress", "VitePress (docs/.vitepress/)"},
                                               {"docs/.vuepress", "VuePress (docs/.vuepress/)"},
                                               {"website/docs", "a website in website/"}};
    for (size_t i = 0; i < MN_ARRAY_SIZE(site_dirs); i++)
        if (dx_have_under(d, site_dirs[i][0]))
            dx_add_unique(d->docs, site_dirs[i][1]);
    static const char *const dirs[] = {"docs", "doc", "documentation"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(dirs); i++) {
        size_t n = 0, len = strlen(dirs[i]);
        for (size_t k = 0; k < d->files.len; k++)
            if (!strncmp(d->files.items[k].path, dirs[i], len) &&
                d->files.items[k].path[len] == '/' && d->files.items[k].role == MN_ROLE_DOC)
                n++;
        if (n) {
            mn_buf t = MN_BUF_INIT;
            mn_buf_printf(&t, "%zu documentation file%s in %s/", n, n == 1 ? "" : "s", dirs[i]);
            dx_add_unique(d->docs, t.ptr);
            mn_buf_release(&t);
            break;
        }
    }
}

const dx_ecosystem dx_docs = {
    .name = "documentation",
    .scan = scan_docs,
};
