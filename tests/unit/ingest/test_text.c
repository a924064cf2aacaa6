/*
 * test_text.c - the small readers of src/ingest/: the issues a text refers
 * to (refs.c), definitions on one line of code in each language
 * (cand_util.c: mn_def_line), version majors, decision titles cut at their
 * reason, and Markdown/reST documents cut by headings (markdown.c).
 */
#include "common.h"

#include "ingest/ingest_internal.h"
#include "ingest/markdown.h"
#include "test.h"

static const char *ref_kind(const json_t *refs, const char *id)
{
    size_t i;
    json_t *r;
    json_array_foreach(refs, i, r)
    {
        if (!strcmp(json_string_value(json_object_get(r, "task")), id))
            return json_string_value(json_object_get(r, "kind"));
    }
    return NULL;
}

static void test_issue_refs(void)
{
    json_t *r = NULL;
    const char *t = "Fix the timeout. Fixes #12, closes: #13; see #14 and CS-214.\n"
                    "Resolves PROJ_X-7. GH-99 too. Not &#160; nor acme/shop#5 nor #12abc.\n"
                    "UTF-8, SHA-256, ISO-8859 and CVE-2021-1234 are no issues.";
    mn_issue_refs(&r, t, strlen(t));
    CHECK_STR(ref_kind(r, "#12"), "fixes");
    CHECK_STR(ref_kind(r, "#13"), "fixes");
    CHECK_STR(ref_kind(r, "#14"), "mentions");
    CHECK_STR(ref_kind(r, "CS-214"), "mentions");
    CHECK_STR(ref_kind(r, "PROJ_X-7"), "fixes");
    CHECK_STR(ref_kind(r, "#99"), "mentions");
    CHECK(ref_kind(r, "#160") == NULL);
    CHECK(ref_kind(r, "#5") == NULL);
    CHECK(ref_kind(r, "UTF-8") == NULL);
    CHECK(ref_kind(r, "SHA-256") == NULL);
    CHECK(ref_kind(r, "ISO-8859") == NULL);
    CHECK(ref_kind(r, "CVE-2021") == NULL);
    CHECK(json_array_size(r) == 6);
    json_decref(r);
    /* a mention then a fix of the same: fixes */
    mn_issue_refs(&r, "see #7 ... fixes #7", 19);
    CHECK(json_array_size(r) == 1);
    CHECK_STR(ref_kind(r, "#7"), "fixes");
    json_decref(r);
    mn_issue_refs(&r, "", 0);
    CHECK(json_array_size(r) == 0);
    json_decref(r);
}

typedef struct {
    const char *lang, *line, *name, *kind;
    bool is_public;
} def_case;

static void test_def_lines(void)
{
    static const def_case yes[] = {
        {"python", "def get(url, params=None):", "get", "function", true},
        {"python", "    def _send(self):", "_send", "method", false},
        {"python", "async def fetch(url):", "fetch", "function", true},
        {"python", "class Session(Base):", "Session", "class", true},
        {"javascript", "export function render(el) {", "render", "function", true},
        {"javascript", "function helper() {", "helper", "function", false},
        {"typescript", "export default class Store {", "Store", "class", true},
        {"typescript", "export interface Options {", "Options", "type", true},
        {"typescript", "export const build = () => {", "build", "function", true},
        {"go", "func (s *Server) Serve(l net.Listener) error {", "Serve", "method", true},
        {"go", "func parse(b []byte) error {", "parse", "function", false},
        {"go", "type Config struct {", "Config", "type", true},
        {"rust", "pub fn new() -> Self {", "new", "function", true},
        {"rust", "    fn helper(&self) {", "helper", "method", false},
        {"rust", "pub(crate) struct Inner {", "Inner", "type", false},
        {"java", "    public void close() {", "close", "method", true},
        {"java", "    private int count(List<String> xs) {", "count", "method", false},
        {"java", "public class Cart {", "Cart", "class", true},
        {"kotlin", "fun main(args: Array<String>) {", "main", "function", true},
        {"kotlin", "private fun hidden() {", "hidden", "function", false},
        {"ruby", "  def self.build(x)", "build", "method", true},
        {"php", "    public function handle($request)", "handle", "method", true},
        {"php", "    private function secret()", "secret", "method", false},
        {"c", "int mn_store_open(mn_store **out, const char *path)", "mn_store_open", "function",
         true},
        {"c", "static void helper(void)", "helper", "function", false},
        {"cpp", "void Widget::draw(Canvas &c) const", "draw", "function", true},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(yes); i++) {
        char name[64] = "";
        bool pub = !yes[i].is_public;
        const char *kind = NULL, *tail = NULL;
        bool ok = mn_def_line(yes[i].lang, yes[i].line, strlen(yes[i].line), name, sizeof(name),
                              &pub, &kind, &tail);
        if (!ok || strcmp(name, yes[i].name) || strcmp(kind, yes[i].kind) ||
            pub != yes[i].is_public)
            fprintf(stderr, "case %zu (%s) '%s': ok %d name '%s' kind '%s' public %d\n", i,
                    yes[i].lang, yes[i].line, ok, name, kind ? kind : "", pub);
        CHECK(ok && !strcmp(name, yes[i].name) && !strcmp(kind, yes[i].kind) &&
              pub == yes[i].is_public);
    }
    static const char *const no[][2] = {
        {"python", "    return get(url)"},
        {"python", "# def commented(out):"},
        {"javascript", "const x = render(el);"},
        {"go", "    s.Serve(l)"},
        {"c", "int mn_store_open(mn_store **out, const char *path);"},
        {"c", "    helper();"},
        {"c", "if (x)"},
        {"java", "    return new Cart();"},
        {"ruby", "  build(x)"},
        {NULL, "def get():"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(no); i++) {
        char name[64];
        bool pub;
        const char *kind;
        bool ok = mn_def_line(no[i][0], no[i][1], strlen(no[i][1]), name, sizeof(name), &pub, &kind,
                              NULL);
        if (ok)
            fprintf(stderr, "not a definition, read as one: '%s' (%s)\n", no[i][1], name);
        CHECK(!ok);
    }
    /* the tail tells a rename: the parameters */
    char name[64];
    bool pub;
    const char *kind, *tail;
    const char *l = "def fetch(url, params=None, **kwargs):";
    CHECK(mn_def_line("python", l, strlen(l), name, sizeof(name), &pub, &kind, &tail));
    CHECK(!strcmp(tail, "(url, params=None, **kwargs):"));
}

static void test_versions(void)
{
    CHECK(mn_version_major(">=1.21.1,<1.27") == 1);
    CHECK(mn_version_major(">=1.21.1,<3") == 3);
    CHECK(mn_version_major("^18.2.0") == 18);
    CHECK(mn_version_major("v1.9.0") == 1);
    CHECK(mn_version_major("") == -1);
    CHECK(mn_version_major("*") == -1);
    CHECK(mn_looks_like_version("3.10"));
    CHECK(mn_looks_like_version("pypy3.9"));
    CHECK(mn_looks_like_version("3.12-dev"));
    CHECK(!mn_looks_like_version("3"));
    CHECK(!mn_looks_like_version("ubuntu-latest"));
    CHECK(!mn_looks_like_version("1.2.3.4"));
}

static void test_decision_title(void)
{
    mn_decision_opts o = MN_DECISION_OPTS_INIT;
    o.flags = MN_DECISION_MARKDOWN;
    const char *t = "All tests pass.\n\nWe decided to keep money as Decimal everywhere instead of "
                    "floats because float rounding broke the totals.";
    mn_decision *d = NULL;
    size_t n = 0;
    REQUIRE_OK(mn_decisions_find(&d, &n, t, strlen(t), &o));
    REQUIRE(n == 1);
    char *title = mn_ingest_decision_title(t, &d[0]);
    CHECK_STR(title, "We decided to keep money as Decimal everywhere instead of floats");
    free(title);
    mn_decisions_free(d);
    o.flags = MN_DECISION_COMMIT;
    t = "Use charset_normalizer instead of chardet because chardet is LGPL licensed";
    REQUIRE_OK(mn_decisions_find(&d, &n, t, strlen(t), &o));
    REQUIRE(n == 1);
    title = mn_ingest_decision_title(t, &d[0]);
    CHECK_STR(title, "Use charset_normalizer instead of chardet");
    free(title);
    mn_decisions_free(d);
}

static void test_markdown(void)
{
    const char *t = "---\ntitle: Deploying\ntags: [ops]\n---\n"
                    "# Deploy\n\nIntro text that says how deploys go, long enough.\n\n"
                    "## Staging\n\nStaging text [runbook](../ops/runbook.md#top) and "
                    "[[Rollback|how to roll back]].\n\n### Detail\n\nStill staging.\n\n"
                    "```sh\n# not a heading\n```\n\n"
                    "## Production\n\nProduction text [site](https://example.com).\n\n"
                    "## Staging\n\nA second section of the same name.\n";
    mn_md_doc d;
    REQUIRE_OK(mn_md_parse(&d, "wiki/Deploy.md", t, strlen(t)));
    CHECK_STR(d.title, "Deploying");
    CHECK(json_is_object(d.front));
    REQUIRE(d.nsections == 4);
    CHECK(d.sections[0].level == 0);
    CHECK(strstr(d.sections[0].text, "Intro text") != NULL);
    CHECK_STR(d.sections[1].heading, "Staging");
    CHECK_STR(d.sections[1].anchor, "staging");
    CHECK(strstr(d.sections[1].text, "### Detail") &&
          strstr(d.sections[1].text, "# not a heading"));
    CHECK_STR(d.sections[2].heading, "Production");
    CHECK_STR(d.sections[3].anchor, "staging-2");
    const mn_md_section *p = mn_md_find(&d, "Nope|production");
    CHECK(p && !strcmp(p->heading, "Production"));
    /* links: relative ones resolved, the wikilink by name, no URL */
    CHECK(json_array_size(d.links) == 2);
    CHECK_STR(json_string_value(json_array_get(d.links, 0)), "ops/runbook.md");
    CHECK_STR(json_string_value(json_array_get(d.links, 1)), "wiki:Rollback");
    mn_md_doc_release(&d);

    /* reST: underlines (and overlines), levels by first appearance */
    const char *r = "=====\nGuide\n=====\n\nIntro of the guide, some words.\n\n"
                    "Install\n-------\n\nRun pip install.\n\nUsage\n-----\n\nCall it.\n";
    REQUIRE_OK(mn_md_parse(&d, "docs/guide.rst", r, strlen(r)));
    CHECK_STR(d.title, "Guide");
    REQUIRE(d.nsections == 3);
    CHECK_STR(d.sections[1].heading, "Install");
    CHECK_STR(d.sections[2].heading, "Usage");
    mn_md_doc_release(&d);

    /* no headings: one preamble titled by the file's name; a link out of the tree dropped */
    const char *plain = "Just a note, see [x](../../../etc/passwd).";
    REQUIRE_OK(mn_md_parse(&d, "notes/idea.md", plain, strlen(plain)));
    CHECK_STR(d.title, "idea");
    CHECK(d.nsections == 1 && d.sections[0].level == 0);
    CHECK(json_array_size(d.links) == 0);
    mn_md_doc_release(&d);
}

/* The detector's scale onto the memory's: 0.7 must reach auto_approve's 0.85, exactly. */
static void test_detector_scale(void)
{
    CHECK(mn_ingest_detector_confidence(0.7) >= 0.85);
    CHECK(mn_ingest_detector_confidence(0.7) == 0.85);
    CHECK(mn_ingest_detector_confidence(0.5) == 0.5);
    CHECK(mn_ingest_detector_confidence(0.6) == 0.68); /* 0.675 in hundredths */
    CHECK(mn_ingest_detector_confidence(0.69) < 0.85);
    CHECK(mn_ingest_detector_confidence(1.0) == 0.97);
    CHECK(mn_ingest_detector_confidence(0.0) == 0.05);
}

static void test_utf8_and_clip(void)
{
    char bad[] = "ok \xff\xfe caf\xc3\xa9 \xe2\x82";
    mn_ingest_utf8_fix(bad, strlen(bad));
    CHECK_STR(bad, "ok ?? café ??");
    char *c = mn_ingest_clip("one two three four five", 10);
    CHECK_STR(c, "one two…");
    free(c);
    c = mn_ingest_clip("short", 10);
    CHECK_STR(c, "short");
    free(c);
    c = mn_ingest_norm(" `Charset_Normalizer`. ", 23);
    CHECK_STR(c, "charset_normalizer");
    free(c);
}

MN_TEST_MAIN({"issue_refs", test_issue_refs}, {"def_lines", test_def_lines},
             {"versions", test_versions}, {"decision_title", test_decision_title},
             {"markdown", test_markdown}, {"detector_scale", test_detector_scale},
             {"utf8_and_clip", test_utf8_and_clip})
