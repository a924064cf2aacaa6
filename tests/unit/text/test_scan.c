/*
 * test_scan.c - the secret and personal-data scanner (src/text/scan*.c):
 * every item of the corpus (tests/data/secrets/corpus.jsonl) is found and
 * redacted, with the marker naming the rule; every value of the fixture
 * repository's manifest is gone from its file's redacted text; hits never
 * overlap; redacting twice changes nothing; placeholders and ordinary code
 * are left alone; a project's file adds rules, disables built-in ones and
 * allow-lists values, patterns and paths; a bad file is one clear error;
 * NUL bytes, binary data and very long lines are handled; the scanner is
 * shared by threads.
 */
#include "common.h"
#include <jansson.h>
#include <pthread.h>
#include <unistd.h>
/* valgrind's client-request header, where installed (test_jit_after) */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define MN_HAVE_VALGRIND_H 1
#endif
#endif

#include "test.h"
#include "test_fs.h"
#include "text/scan.h"
#include "text/scan_internal.h"
#include "util/buf.h"
#include "util/util.h"

static const mn_scanner *builtin(void)
{
    const mn_scanner *s = NULL;
    if (mn_scanner_builtin(&s) != 0) {
        fprintf(stderr, "built-in scanner: %s\n", mn_error_last());
        exit(1);
    }
    return s;
}

/* The redaction of text (a C string) by s, as a malloc'd string. */
static char *redact(const mn_scanner *s, const char *text, unsigned classes, mn_scan_summary *sum)
{
    mn_buf out = MN_BUF_INIT;
    if (mn_scan_redact(&out, s, text, strlen(text), classes, sum) != 0) {
        mn_buf_release(&out);
        return NULL;
    }
    return mn_buf_detach(&out);
}

/* The single hit's rule in text, or NULL (and a failure) when not exactly one. */
static void expect_rule(const mn_scanner *s, const char *text, const char *rule, const char *value)
{
    mn_scan_hit *h = NULL;
    size_t n = 0;
    if (mn_scan_find(&h, &n, s, text, strlen(text), MN_SCAN_ALL) != 0 || n != 1 ||
        strcmp(h[0].rule, rule) != 0 || h[0].end - h[0].start != strlen(value) ||
        memcmp(text + h[0].start, value, strlen(value)) != 0) {
        fprintf(stderr, "expected one '%s' hit on '%s' in: %s\n  got %zu:", rule, value, text, n);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %s='%.*s'", h[i].rule, (int)(h[i].end - h[i].start),
                    text + h[i].start);
        fprintf(stderr, "\n");
        mn_test__failed_checks++;
    }
    free(h);
}

static void expect_none(const mn_scanner *s, const char *text)
{
    mn_scan_hit *h = NULL;
    size_t n = 0;
    int rc = mn_scan_find(&h, &n, s, text, strlen(text), MN_SCAN_ALL);
    if (rc != 0 || n != 0) {
        fprintf(stderr, "expected no hit in: %s\n  got:", text);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %s='%.*s'", h[i].rule, (int)(h[i].end - h[i].start),
                    text + h[i].start);
        fprintf(stderr, "\n");
        mn_test__failed_checks++;
    }
    CHECK(!mn_scan_any(s, text, strlen(text), MN_SCAN_ALL));
    free(h);
}

/* The path of a file under tests/data (MNEMO_TEST_DATA), malloc'd. */
static char *data_path(const char *rel)
{
    const char *root = getenv("MNEMO_TEST_DATA");
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", root ? root : "tests/data", rel);
    return mn_buf_detach(&p);
}

/* Every corpus item: the value is gone from the redacted text, a marker
 * names the expected rule, hits do not overlap, a second redaction changes
 * nothing, and mn_scan_any agrees. */
static void test_corpus(void)
{
    const mn_scanner *s = builtin();
    char *path = data_path("secrets/corpus.jsonl");
    mn_buf file = MN_BUF_INIT;
    REQUIRE_OK(mn_fs_read(&file, path, 16 << 20));
    size_t items = 0, missed = 0;
    for (char *line = file.ptr, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        json_error_t jerr;
        json_t *it = json_loads(line, 0, &jerr);
        REQUIRE(it);
        const char *text = json_string_value(json_object_get(it, "text"));
        const char *value = json_string_value(json_object_get(it, "value"));
        const char *rule = json_string_value(json_object_get(it, "rule"));
        const char *id = json_string_value(json_object_get(it, "id"));
        REQUIRE(text && value && rule && id);
        items++;
        mn_scan_summary sum;
        char *red = redact(s, text, MN_SCAN_ALL, &sum);
        char marker[128];
        snprintf(marker, sizeof(marker), "[REDACTED:%s]", rule);
        if (!red || strstr(red, value) || !strstr(red, marker)) {
            fprintf(stderr, "corpus %s: %s\n  redacted: %s\n", id,
                    !red                 ? "error"
                    : strstr(red, value) ? "value survives"
                                         : "no marker for the rule",
                    red ? red : mn_error_last());
            missed++;
        } else {
            char *again = redact(s, red, MN_SCAN_ALL, NULL);
            if (!again || strcmp(again, red) != 0) {
                fprintf(stderr, "corpus %s: not idempotent:\n  %s\n  %s\n", id, red,
                        again ? again : "(error)");
                missed++;
            }
            free(again);
        }
        CHECK(mn_scan_any(s, text, strlen(text), MN_SCAN_ALL));
        const char *cls = json_string_value(json_object_get(it, "class"));
        CHECK(mn_scan_any(s, text, strlen(text),
                          strcmp(cls, "pii") == 0 ? MN_SCAN_PII : MN_SCAN_SECRET));
        mn_scan_hit *h = NULL;
        size_t n = 0;
        CHECK_OK(mn_scan_find(&h, &n, s, text, strlen(text), MN_SCAN_ALL));
        for (size_t i = 1; i < n; i++)
            CHECK(h[i - 1].end <= h[i].start);
        free(h);
        free(red);
        json_decref(it);
    }
    printf("corpus: %zu items, %zu missed\n", items, missed);
    CHECK(items >= 300);
    CHECK(missed == 0);
    mn_buf_release(&file);
    free(path);
}

/* The fixture repository: each file's redaction holds none of its
 * manifest's values (nor their fragments), a marker per expected rule, and
 * the text the manifest says must survive. */
static void test_fixture_repo(void)
{
    const mn_scanner *s = builtin();
    char *mpath = data_path("secrets/repo_manifest.json");
    json_error_t jerr;
    json_t *m = json_load_file(mpath, 0, &jerr);
    REQUIRE(m && json_is_array(m));
    size_t files = 0, secrets = 0;
    for (size_t f = 0; f < json_array_size(m); f++) {
        const json_t *e = json_array_get(m, f);
        const char *rel = json_string_value(json_object_get(e, "file"));
        mn_buf rp = MN_BUF_INIT, text = MN_BUF_INIT, out = MN_BUF_INIT;
        mn_buf_printf(&rp, "secrets/repo/%s", rel);
        char *path = data_path(rp.ptr);
        REQUIRE_OK(mn_fs_read(&text, path, 1 << 20));
        REQUIRE_OK(mn_scan_redact(&out, s, text.ptr, text.len, MN_SCAN_ALL, NULL));
        files++;
        const json_t *sec = json_object_get(e, "secrets");
        for (size_t i = 0; i < json_array_size(sec); i++) {
            const json_t *x = json_array_get(sec, i);
            const char *value = json_string_value(json_object_get(x, "value"));
            const char *rule = json_string_value(json_object_get(x, "rule"));
            char marker[128];
            snprintf(marker, sizeof(marker), "[REDACTED:%s]", rule);
            secrets++;
            if (strstr(out.ptr, value) || !strstr(out.ptr, marker)) {
                fprintf(stderr, "repo %s: %s '%.40s' %s\n", rel, rule, value,
                        strstr(out.ptr, value) ? "survives" : "has no marker");
                mn_test__failed_checks++;
            }
            const json_t *frs = json_object_get(x, "fragments");
            for (size_t k = 0; k < json_array_size(frs); k++)
                if (strstr(out.ptr, json_string_value(json_array_get(frs, k)))) {
                    fprintf(stderr, "repo %s: a fragment of %s survives\n", rel, rule);
                    mn_test__failed_checks++;
                }
        }
        const json_t *keep = json_object_get(e, "keep");
        for (size_t k = 0; k < json_array_size(keep); k++)
            if (!strstr(out.ptr, json_string_value(json_array_get(keep, k)))) {
                fprintf(stderr, "repo %s: '%s' was lost\n", rel,
                        json_string_value(json_array_get(keep, k)));
                mn_test__failed_checks++;
            }
        free(path);
        mn_buf_release(&rp);
        mn_buf_release(&text);
        mn_buf_release(&out);
    }
    CHECK(files >= 9);
    CHECK(secrets >= 30);
    json_decref(m);
    free(mpath);
}

static void test_basics(void)
{
    const mn_scanner *s = builtin();
    const char *text = "deploy with AKIAIOSFODNN7EXAMPLE; the admin password = \"hunter2\"\n"
                       "write to jane.doe@gmail.com\n";
    mn_scan_summary sum;
    char *red = redact(s, text, MN_SCAN_ALL, &sum);
    REQUIRE(red);
    CHECK_STR(red, "deploy with [REDACTED:aws-access-key-id]; the admin password = "
                   "\"[REDACTED:password-assignment]\"\nwrite to [REDACTED:email]\n");
    CHECK(sum.secrets == 2);
    CHECK(sum.pii == 1);
    CHECK(sum.bytes ==
          strlen("AKIAIOSFODNN7EXAMPLE") + strlen("hunter2") + strlen("jane.doe@gmail.com"));
    CHECK_STR(sum.rule, "aws-access-key-id");
    free(red);

    /* classes filter */
    red = redact(s, text, MN_SCAN_PII, &sum);
    REQUIRE(red);
    CHECK(strstr(red, "AKIAIOSFODNN7EXAMPLE") != NULL);
    CHECK(strstr(red, "[REDACTED:email]") != NULL);
    CHECK(sum.secrets == 0 && sum.pii == 1);
    free(red);
    CHECK(mn_scan_any(s, text, strlen(text), MN_SCAN_SECRET));
    CHECK(!mn_scan_any(s, "nothing here", 12, MN_SCAN_ALL));
    CHECK(!mn_scan_any(s, text, strlen(text), 0));

    /* an empty text, and no scanner */
    mn_scan_hit *h = (mn_scan_hit *)1;
    size_t n = 7;
    CHECK_OK(mn_scan_find(&h, &n, s, "", 0, MN_SCAN_ALL));
    CHECK(h == NULL && n == 0);
    red = redact(s, "", MN_SCAN_ALL, &sum);
    CHECK_STR(red, "");
    CHECK(sum.rule == NULL);
    free(red);

    size_t nr = 0;
    const char *const *ids = mn_scanner_rules(s, &nr);
    CHECK(nr >= 45);
    /* every built-in rule has a trigger: none runs over every text */
    for (size_t i = 0; i < s->nrules; i++)
        if (s->rules[i].always) {
            fprintf(stderr, "built-in rule '%s' has no trigger\n", s->rules[i].id);
            mn_test__failed_checks++;
        }
    bool seen = false;
    for (size_t i = 0; i < nr; i++)
        seen |= strcmp(ids[i], "github-pat") == 0;
    CHECK(seen);
    CHECK(!mn_scanner_path_allowed(s, "tests/fixtures/x.env"));
}

static void test_rules_by_example(void)
{
    const mn_scanner *s = builtin();
    expect_rule(s, "GITHUB_TOKEN=ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA", "github-pat",
                "ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA");
    expect_rule(s, "DATABASE_URL=postgres://app:S3cr3t-pw@db.internal:5432/app", "url-password",
                "S3cr3t-pw");
    /* a password holding '@' is taken whole, up to the host (it was cut at its first '@') */
    expect_rule(s, "mongodb+srv://admin:p@ss1mMw0rd@cluster0.ab1cd.mongodb.net/prod?w=1",
                "url-password", "p@ss1mMw0rd");
    expect_rule(s, "card: 4242 4242 4242 4242 exp 12/29", "credit-card", "4242 4242 4242 4242");
    expect_rule(s, "IBAN GB82 WEST 1234 5698 7654 32 (Barclays)", "iban",
                "GB82 WEST 1234 5698 7654 32");
    expect_rule(s, "SSN 078-05-1120", "us-ssn", "078-05-1120");
    expect_rule(s, "call +1 415 555 0132 after 5", "phone-international", "+1 415 555 0132");
    /* a date or a decimal after "+1" is no number to call (slow_roundtrip's generated text) */
    expect_none(s, "x +1 2024-01-02 10:00:00 save");
    expect_none(s, "+1 3.14159 1e3 commit");
}

static void test_no_false_positives(void)
{
    const mn_scanner *s = builtin();
    expect_none(s, "for (int i = 0; i < 4111111111; i++) x += 1234567890123;");
    expect_none(s, "commit 3f786850e387550fdab836ed7e6dc881de23001b");
    expect_none(s, "uuid 123e4567-e89b-12d3-a456-426614174000, version 1.2.3.4");
    expect_none(s, "password = os.environ[\"DB_PASSWORD\"]");
    expect_none(s, "token = get_token()");
    /* a word that only starts like a keyword: tokenize, author (bench/eval/eval_bm25.c) */
    expect_none(s, "mn_buf_puts(&sql, \"tokenize='unicode61')\");");
    expect_none(s, "tokenizer: \"cl100k_base\"");
    expect_none(s, "author = \"jdoe2024x\"");
    expect_rule(s, "authorization_key = \"q8Zr2Lx9Vt4Pn7Wk\"", "generic-secret",
                "q8Zr2Lx9Vt4Pn7Wk");
    expect_none(s, "API_KEY=${API_KEY}");
    expect_none(s, "api_key: <your-api-key>");
    expect_none(s, "password: changeme");
    expect_none(s, "SECRET_KEY = 'xxxxxxxxxxxxxxxxxxxx'");
    expect_none(s, "token: ****************");
    expect_none(s, "const apiKey = process.env.OPENAI_API_KEY;");
    expect_none(s, "if password == \"\": raise ValueError('empty')");
    expect_none(s, "def login(username: str, password: str) -> bool:");
    expect_none(s, "timestamp 1700000000123 and 2024-01-15 12:00:00");
    expect_none(s, "pip install scikit-learn; see sk-learn docs");
}

static void test_idempotent(void)
{
    const mn_scanner *s = builtin();
    const char *text = "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
                       "pg: postgres://u:pa55word@h/db  mail bob@corp.io  +33 6 12 34 56 78\n";
    char *once = redact(s, text, MN_SCAN_ALL, NULL);
    REQUIRE(once);
    CHECK(strstr(once, "wJalrXUtnFEMI") == NULL);
    CHECK(strstr(once, "pa55word") == NULL);
    mn_scan_summary sum;
    char *twice = redact(s, once, MN_SCAN_ALL, &sum);
    REQUIRE(twice);
    CHECK_STR(twice, once);
    CHECK(sum.secrets == 0 && sum.pii == 0);
    CHECK(!mn_scan_any(s, once, strlen(once), MN_SCAN_ALL));
    free(once);
    free(twice);
    /* a marker alone, and a marker where a value goes */
    expect_none(s, "password=[REDACTED:password-assignment]");
    expect_none(s, "postgres://user:[REDACTED:url-password]@host/db");
}

/* Hits are sorted, never overlap; of overlapping matches one span covers both. */
static void test_no_overlap(void)
{
    const mn_scanner *s = builtin();
    const char *text =
        "GITHUB_TOKEN=ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA\n"
        "url https://x-access-token:ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA@github.com/o/r\n"
        "Authorization: Bearer ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA\n";
    mn_scan_hit *h = NULL;
    size_t n = 0;
    REQUIRE_OK(mn_scan_find(&h, &n, s, text, strlen(text), MN_SCAN_ALL));
    CHECK(n == 3);
    for (size_t i = 0; i < n; i++) {
        CHECK(h[i].start < h[i].end);
        if (i)
            CHECK(h[i - 1].end <= h[i].start);
        CHECK_STR(h[i].rule, "github-pat");
    }
    free(h);
}

/* Near misses: the shape without the checksum, the issuer, the date or the
 * context word the rule asks for. Each would be a hit with its checks off. */
static void test_checks_reject(void)
{
    const mn_scanner *s = builtin();
    expect_none(s, "card 4111 1111 1111 1112");         /* Luhn */
    expect_none(s, "card 9111 1111 1111 1110");         /* Luhn-valid, no issuer starts with 9 */
    expect_none(s, "card 4111 11111 111 1111");         /* not a printed grouping */
    expect_none(s, "IBAN GB83 WEST 1234 5698 7654 32"); /* mod 97 */
    expect_none(s, "IBAN DE89 3704 0044 0532 0130");    /* Germany's length is 22 */
    expect_none(s, "SSN 000-12-3456");
    expect_none(s, "SSN 666-12-3456");
    expect_none(s, "ref 123456789 in the log"); /* nine bare digits, no word SSN */
    expect_none(s, "DNI 12345678A");            /* the letter of 12345678 is Z */
    expect_none(s, "codice RSSMRA85T10A562T");  /* check letter */
    expect_none(s, "BSN 111222334");            /* 11-test */
    expect_none(s, "PESEL 44051401358");
    expect_none(s, "personnummer 19121212-1213"); /* Luhn */
    expect_none(s, "HETU 131052-308U");
    expect_none(s, "CPF 111.444.777-36");
    expect_none(s, "CPF 111.111.111-11"); /* all one digit */
    expect_none(s, "id 11010519491231002Y");
    expect_none(s, "id 11010519491331002X"); /* month 13 */
    expect_none(s, "INN 7707083894");
    expect_none(s, "SNILS 112-233-445 96");
    expect_none(s, "NIR 2 55 08 14 168 025 39");
    expect_none(s, "Steuer-ID 86 095 742 718");
    expect_none(s, "Aadhaar 2345 6789 0123"); /* Verhoeff */
    expect_none(s, "SIN 046 454 287");
    expect_none(s, "born in 1545, and died on December 16, 1598");
    expect_none(s, "client ip 10.0.0.12 and 192.168.1.20"); /* private addresses */
    expect_none(s, "the subnet 203.0.113.0/24 of IP addresses");
    expect_none(s, "version 203.0.113.45 of the protocol"); /* no word about an address */
    expect_none(s, "jwt eyJraWQiOiIxIn0.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"); /* no alg nor typ */
    expect_none(s, "Authorization: Basic bm90IGJhc2U2NCBhdCBhbGw=");    /* no ':' inside */
    expect_none(s, "see image@2x.png and user@localhost");
    expect_none(s, "git clone git@github.com:acme/api.git");
    expect_none(s, "x = 0 365 730 1095 1460 1825");
    expect_none(s, "send it to youremail@gmail.com or user@example.com");
    /* a number in parentheses keeps its closing one */
    expect_rule(s, "(Tel: +81-288-53-3161)", "phone-international", "+81-288-53-3161");
    expect_rule(s, "(tel 030 1234 5678)", "phone-context", "030 1234 5678");
    /* and the same shapes that pass, so the list above is not vacuous */
    expect_rule(s, "card 4111 1111 1111 1111", "credit-card", "4111 1111 1111 1111");
    expect_rule(s, "SSN 123456789 on file", "us-ssn", "123456789");
    expect_rule(s, "DNI 12345678Z", "es-dni", "12345678Z");
    expect_rule(s, "client ip 203.0.113.45", "ip-address", "203.0.113.45");
    expect_rule(s, "born on 16 December 1978", "date-of-birth", "16 December 1978");
}

static char *write_file(const char *dir, const char *name, const char *text)
{
    mn_buf p = MN_BUF_INIT;
    mn_buf_printf(&p, "%s/%s", dir, name);
    if (mn_fs_write_atomic(p.ptr, text, strlen(text)) != 0)
        fprintf(stderr, "cannot write %s: %s\n", p.ptr, mn_error_last());
    return mn_buf_detach(&p);
}

static void test_project_file(void)
{
    char dir[] = "/tmp/mnemo-scan-XXXXXX";
    REQUIRE(mkdtemp(dir));
    char *path = write_file(dir, ".mnemo-scan.yaml",
                            "version: 1\n"
                            "rules:\n"
                            "  - id: acme-token\n"
                            "    class: secret\n"
                            "    prefixes: [acme_]\n"
                            "    pattern: '(?<![A-Za-z0-9])acme_[A-Za-z0-9]{24}(?![A-Za-z0-9])'\n"
                            "  - id: employee-id\n"
                            "    class: pii\n"
                            "    keywords: [employee]\n"
                            "    window: [0, 32]\n"
                            "    pattern: 'E-(?<secret>\\d{6})'\n"
                            "disable: [email]\n"
                            "allow:\n"
                            "  values: [AKIAIOSFODNN7EXAMPLE]\n"
                            "  patterns: ['^sk_test_']\n"
                            "  paths: ['tests/fixtures/', '*.pem', 'docs/**/secrets.md']\n");
    mn_scanner *s = NULL;
    REQUIRE_OK(mn_scanner_new(&s, path));
    expect_rule(s, "token acme_Q7fK2pLx9VbN4tRz8WcY1mHd here", "acme-token",
                "acme_Q7fK2pLx9VbN4tRz8WcY1mHd");
    expect_rule(s, "employee E-123456 left", "employee-id", "123456");
    expect_none(s, "write to jane.doe@gmail.com");
    expect_none(s, "aws AKIAIOSFODNN7EXAMPLE");
    expect_rule(s, "aws AKIAI44QH7DHBEXAMPLE", "aws-access-key-id", "AKIAI44QH7DHBEXAMPLE");
    expect_none(s, "STRIPE=sk_test_4eC39HqLyjWDarjtT1zdp7dc");
    expect_rule(s, "STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-secret-key",
                "sk_live_4eC39HqLyjWDarjtT1zdp7dc");
    CHECK(mn_scanner_path_allowed(s, "tests/fixtures/app/.env"));
    CHECK(mn_scanner_path_allowed(s, "./tests/fixtures/x"));
    CHECK(mn_scanner_path_allowed(s, "deploy/keys/server.pem"));
    CHECK(mn_scanner_path_allowed(s, "docs/secrets.md"));
    CHECK(mn_scanner_path_allowed(s, "docs/a/b/secrets.md"));
    CHECK(!mn_scanner_path_allowed(s, "src/fixtures/x"));
    CHECK(!mn_scanner_path_allowed(s, "tests/fixturesx/y"));
    CHECK(!mn_scanner_path_allowed(s, "server.pem.bak"));
    size_t n = 0, nb = 0;
    const char *const *ids = mn_scanner_rules(s, &n);
    mn_scanner_rules(builtin(), &nb);
    CHECK(n == nb + 1); /* two added, one disabled */
    CHECK_STR(ids[n - 1], "employee-id");
    mn_scanner_free(s);
    /* the built-in rules are unchanged */
    expect_rule(builtin(), "write to jane.doe@gmail.com", "email", "jane.doe@gmail.com");

    /* a missing file: the built-in rules */
    mn_buf missing = MN_BUF_INIT;
    mn_buf_printf(&missing, "%s/none.yaml", dir);
    REQUIRE_OK(mn_scanner_new(&s, missing.ptr));
    CHECK(s == (mn_scanner *)builtin());
    mn_scanner_free(s);
    mn_buf_release(&missing);
    free(path);
    rm_rf(dir);
}

/* Each bad file is one error that names the file and, where there is one, the rule. */
static void test_bad_files(void)
{
    static const struct {
        const char *yaml;
        const char *want; /* in the message */
    } cases[] = {
        {"rules:\n  - id: x1\n    class: secret\n    pattern: 'abc('\n",
         "rule 'x1': pattern does not compile at offset 4: missing closing parenthesis"},
        {"rules:\n  - id: x2\n    class: token\n    pattern: 'a'\n",
         "rule 'x2': 'class' must be 'secret' or 'pii'"},
        {"rules:\n  - id: x3\n    class: pii\n    pattern: 'a'\n    pattrn: 'b'\n",
         "rule 'x3': unknown key 'pattrn'"},
        {"rules:\n  - class: pii\n    pattern: 'a'\n", "rule #1: has no 'id'"},
        {"rules:\n  - id: github-pat\n    class: secret\n    pattern: 'a'\n",
         "rule 'github-pat': a rule with this id exists already"},
        {"rules:\n  - id: x4\n    class: pii\n    pattern: 'a'\n    checks: [lunh]\n",
         "rule 'x4': unknown check 'lunh'"},
        {"rules:\n  - id: x5\n    class: pii\n    pattern: '(a)'\n    group: 3\n",
         "rule 'x5': 'group' 3: the pattern has 1 groups"},
        {"rules:\n  - id: x6\n    class: pii\n    pattern: 'a'\n    allow: ['[']\n",
         "rule 'x6': allow pattern '[' does not compile"},
        {"disable: [no-such-rule]\n", "disable: no rule 'no-such-rule'"},
        {"rules: [\n", "yaml: line"},
        {"allow:\n  paths: 7\n", "allow: 'paths' must be a list of strings"},
        {"colour: red\n", "unknown key 'colour'"},
        {"rules:\n  - id: x7\n    class: pii\n    pattern: 'a'\n    window: -1\n",
         "rule 'x7': 'window' must be an integer"},
    };
    char dir[] = "/tmp/mnemo-scan-XXXXXX";
    REQUIRE(mkdtemp(dir));
    for (size_t i = 0; i < MN_ARRAY_SIZE(cases); i++) {
        char *path = write_file(dir, "rules.yaml", cases[i].yaml);
        mn_scanner *s = (mn_scanner *)1;
        int rc = mn_scanner_new(&s, path);
        CHECK(rc == MN_EINVAL);
        CHECK(s == NULL);
        const char *msg = mn_error_last();
        if (!strstr(msg, cases[i].want) || !strstr(msg, path) || strchr(msg, '\n')) {
            fprintf(stderr, "case %zu: message '%s' lacks '%s' or the path\n", i, msg,
                    cases[i].want);
            mn_test__failed_checks++;
        }
        free(path);
    }
    /* a directory where the file should be */
    mn_scanner *s = NULL;
    CHECK(mn_scanner_new(&s, dir) == MN_EINVAL);
    CHECK(strstr(mn_error_last(), "is a directory") != NULL);
    rm_rf(dir);
}

/* NUL bytes and binary data are text like any other; the hit's offsets hold. */
static void test_binary(void)
{
    const mn_scanner *s = builtin();
    char buf[4096];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof(buf); i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (char)(x >> 16);
    }
    const char *key = "ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA";
    memcpy(buf + 1000, "\0 ", 2);
    memcpy(buf + 1002, key, strlen(key));
    buf[1002 + strlen(key)] = '\0';
    mn_scan_hit *h = NULL;
    size_t n = 0;
    REQUIRE_OK(mn_scan_find(&h, &n, s, buf, sizeof(buf), MN_SCAN_SECRET));
    bool found = false;
    for (size_t i = 0; i < n; i++)
        found |= h[i].start == 1002 && h[i].end == 1002 + strlen(key);
    CHECK(found);
    free(h);
    mn_buf out = MN_BUF_INIT;
    REQUIRE_OK(mn_scan_redact(&out, s, buf, sizeof(buf), MN_SCAN_ALL, NULL));
    CHECK(memmem(out.ptr, out.len, key, strlen(key)) == NULL);
    CHECK(memmem(out.ptr, out.len, "[REDACTED:github-pat]", 21) != NULL);
    mn_buf_release(&out);
}

/* Lines of megabytes: no pattern backtracks for long, hits are still found. */
static void test_long_lines(void)
{
    const mn_scanner *s = builtin();
    size_t len = 4u << 20;
    char *t = mn_malloc(len + 1);
    /* a worst case for the assignment rules: names and separators with no value */
    for (size_t i = 0; i < len; i++)
        t[i] = "password=token:secret "[i % 22];
    memcpy(t + len / 2, " AKIAIOSFODNN7EXAMPLE ", 22);
    t[len] = '\0';
    uint64_t t0 = mn_time_mono_ns();
    mn_scan_hit *h = NULL;
    size_t n = 0;
    REQUIRE_OK(mn_scan_find(&h, &n, s, t, len, MN_SCAN_ALL));
    uint64_t ms = (mn_time_mono_ns() - t0) / 1000000;
    bool found = false;
    for (size_t i = 0; i < n; i++)
        found |= strcmp(h[i].rule, "aws-access-key-id") == 0;
    CHECK(found);
    free(h);
    /* one long line of digits and one of base64 */
    for (size_t i = 0; i < len; i++)
        t[i] = (char)('0' + i % 7);
    CHECK_OK(mn_scan_find(&h, &n, s, t, len, MN_SCAN_ALL));
    free(h);
    for (size_t i = 0; i < len; i++)
        t[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[i % 64];
    memcpy(t, "-----BEGIN RSA PRIVATE KEY-----\n", 32);
    CHECK_OK(mn_scan_find(&h, &n, s, t, len, MN_SCAN_ALL));
    CHECK(n >= 1); /* a key block without its end is still a key */
    free(h);
    /* keyword noise everywhere and the secrets at the far end: no window
     * of a rule is given up */
    for (size_t i = 0; i < len; i++)
        t[i] = "token = abc; secret: x, password "[i % 33];
    const char *tail = "\nclient_secret = \"Zq8vK2mW9xLp4RtY7nBc3HdF6gJs1Ae5\"\n"
                       "db_password = \"S7r0ng-Passw0rd\"\n";
    memcpy(t + len - strlen(tail), tail, strlen(tail));
    REQUIRE_OK(mn_scan_find(&h, &n, s, t, len, MN_SCAN_ALL));
    bool secret = false, pw = false;
    for (size_t i = 0; i < n; i++) {
        secret |= strcmp(h[i].rule, "generic-secret") == 0 &&
                  memcmp(t + h[i].start, "Zq8vK2mW9xLp4RtY7nBc3HdF6gJs1Ae5", 32) == 0;
        pw |= strcmp(h[i].rule, "password-assignment") == 0 &&
              memcmp(t + h[i].start, "S7r0ng-Passw0rd", 15) == 0;
    }
    CHECK(secret);
    CHECK(pw);
    free(h);
    free(t);
    /* a long run of digits: the phone rules once split it every way into
     * groups of 1 to 5 digits, hit PCRE2's match limit and gave up the
     * window (a warning on every index of such a file), and the
     * international number after it went unredacted */
    expect_rule(s,
                "phone: 12345678901234567890123456789012345678901234567890123456789012345678x "
                "or tel 030 1234 5678",
                "phone-context", "030 1234 5678");
    expect_rule(s,
                "+1 2345678901234567890123456789012345678901234567890123456789 or +1 415 555 0132",
                "phone-international", "+1 415 555 0132");
    /* not a timed test: this only reports */
    printf("long lines: first 4 MiB scan took %llu ms\n", (unsigned long long)ms);
}

typedef struct {
    const mn_scanner *s;
    int bad;
    bool user; /* also the project's rule */
} thread_arg;

static void *thread_main(void *p)
{
    thread_arg *a = p;
    const char *text = "token ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA mail a.b@c.org"
                       " key zz_Q7fK2pLx9VbN4tRz8WcY1mHd";
    const char *want = a->user ? "token [REDACTED:github-pat] mail [REDACTED:email] key "
                                 "[REDACTED:zz-token]"
                               : "token [REDACTED:github-pat] mail [REDACTED:email] key "
                                 "zz_Q7fK2pLx9VbN4tRz8WcY1mHd";
    for (int i = 0; i < 2000; i++) {
        mn_buf out = MN_BUF_INIT;
        if (mn_scan_redact(&out, a->s, text, strlen(text), MN_SCAN_ALL, NULL) != 0 ||
            strcmp(out.ptr, want) != 0)
            a->bad++;
        mn_buf_release(&out);
    }
    return NULL;
}

/* One built-in and one project scanner shared by 8 threads, which race to
 * the first use (and JIT compilation) of the project's rule. */
static void test_threads(void)
{
    char dir[] = "/tmp/mnemo-scan-XXXXXX";
    REQUIRE(mkdtemp(dir));
    char *path = write_file(dir, "rules.yaml",
                            "rules:\n  - id: zz-token\n    class: secret\n    prefixes: [zz_]\n"
                            "    pattern: 'zz_[A-Za-z0-9]{24}'\n");
    mn_scanner *user = NULL;
    REQUIRE_OK(mn_scanner_new(&user, path));
    pthread_t th[8];
    thread_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i].user = i % 2 == 0;
        args[i].s = args[i].user ? user : builtin();
        args[i].bad = 0;
        REQUIRE(pthread_create(&th[i], NULL, thread_main, &args[i]) == 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        CHECK(args[i].bad == 0);
    }
    mn_scanner_free(user);
    free(path);
    rm_rf(dir);
}

/* Rules without a trigger run over the whole text; context_if_bare. */
static void test_rule_options(void)
{
    char dir[] = "/tmp/mnemo-scan-XXXXXX";
    REQUIRE(mkdtemp(dir));
    char *path = write_file(dir, "rules.yaml",
                            "rules:\n"
                            "  - id: badge\n"
                            "    class: pii\n"
                            "    pattern: '\\bB(?<secret>\\d{4}-\\d{4}|\\d{8})\\b'\n"
                            "    context: [badge]\n"
                            "    context_if_bare: true\n"
                            "  - id: low-entropy\n"
                            "    class: secret\n"
                            "    keywords: [k9]\n"
                            "    pattern: 'k9=(?<secret>\\S{4,40})'\n"
                            "    entropy: 3.5\n"
                            "    placeholders: false\n");
    mn_scanner *s = NULL;
    REQUIRE_OK(mn_scanner_new(&s, path));
    expect_rule(s, "door B1234-5678 opened", "badge", "1234-5678"); /* formatted: no context */
    expect_none(s, "door B12345678 opened");                        /* bare: needs the word */
    expect_rule(s, "badge B12345678 opened", "badge", "12345678");
    expect_none(s, "k9=aaaaaaaabbbbbbbb"); /* 1 bit per character */
    expect_rule(s, "k9=Zq8vK2mW9xLp4RtY", "low-entropy", "Zq8vK2mW9xLp4RtY");
    expect_rule(s, "k9=xxxxQ8vK2mW9xLp4RtY", "low-entropy",
                "xxxxQ8vK2mW9xLp4RtY"); /* no placeholder test */
    mn_scanner_free(s);
    free(path);
    rm_rf(dir);
}

/* ---- the built-in scanner as data (scripts/scan_rules_gen.c) ---- */

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_list(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (!same_str(a[i], b[i]))
            return false;
    return true;
}

/* Every field of rule a equals b's (but for what is made on first use). */
static bool same_rule(const mn_scan__rule *a, const mn_scan__rule *b)
{
    return same_str(a->id, b->id) && a->cls == b->cls && a->pattern_len == b->pattern_len &&
           memcmp(a->pattern, b->pattern, a->pattern_len) == 0 && a->ncap == b->ncap &&
           a->group == b->group && a->before == b->before && a->after == b->after &&
           a->multiline == b->multiline && a->has_keywords == b->has_keywords &&
           a->digits == b->digits && a->digit_shape.upper_before == b->digit_shape.upper_before &&
           a->digit_shape.upper_after == b->digit_shape.upper_after &&
           a->digit_shape.plus_before == b->digit_shape.plus_before &&
           a->digit_shape.dots == b->digit_shape.dots && a->always == b->always &&
           a->placeholders == b->placeholders && a->min_entropy == b->min_entropy &&
           a->min_len == b->min_len && a->nchecks == b->nchecks &&
           memcmp(a->checks, b->checks, a->nchecks * sizeof(a->checks[0])) == 0 &&
           same_list(a->context, a->ncontext, b->context, b->ncontext) &&
           a->context_window == b->context_window && a->context_if_bare == b->context_if_bare &&
           same_list(a->allow, a->nallow, b->allow, b->nallow) &&
           same_list(a->keywords, a->nkeywords, b->keywords, b->nkeywords) &&
           same_list(a->prefixes, a->nprefixes, b->prefixes, b->nprefixes) &&
           a->borrowed == b->borrowed && a->disabled == b->disabled;
}

static bool same_u32(const uint32_t *a, const uint32_t *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof(*a)) == 0;
}

static bool same_ac(const mn_scan__ac *a, const mn_scan__ac *b)
{
    if (memcmp(a->cls, b->cls, sizeof(a->cls)) != 0 || a->nclasses != b->nclasses ||
        a->nstates != b->nstates || a->first_out != b->first_out || a->maxlen != b->maxlen ||
        a->shift16 != b->shift16 || !a->delta16 || !b->delta16 ||
        memcmp(a->delta16, b->delta16, ((size_t)a->nstates << a->shift16) * sizeof(uint16_t)) ||
        a->nkw != b->nkw)
        return false;
    size_t nout = a->nstates - a->first_out, total = 0;
    if (!same_u32(a->out_start, b->out_start, nout) || !same_u32(a->out_count, b->out_count, nout))
        return false;
    for (size_t i = 0; i < nout; i++)
        total += a->out_count[i];
    if (!same_u32(a->out_kw, b->out_kw, total))
        return false;
    for (size_t k = 0; k < a->nkw; k++) {
        const mn_scan__keyword *x = &a->kw[k], *y = &b->kw[k];
        if (x->len != y->len || memcmp(x->text, y->text, x->len) != 0 ||
            x->exact_case != y->exact_case || x->marker != y->marker || x->nrules != y->nrules ||
            !same_u32(x->rules, y->rules, x->nrules))
            return false;
    }
    return true;
}

/* The generated data is what reading src/text/scan_rules.yaml at run time
 * gives: every rule field by field, the ids, the automaton's tables; and
 * both find the same hits in the corpus and the fixture repository. */
static void test_generated_data(void)
{
    const mn_scanner *g = builtin();
    mn_scanner *y = NULL;
    REQUIRE_OK(mn_scan__from_yaml(&y, mn_text_scan_rules, strlen(mn_text_scan_rules), "built-in"));
    CHECK(g->builtin && !y->builtin);
    REQUIRE(g->nrules == y->nrules);
    for (size_t i = 0; i < g->nrules; i++)
        if (!same_rule(&g->rules[i], &y->rules[i])) {
            fprintf(stderr, "generated rule %zu '%s' differs from the file's\n", i, g->rules[i].id);
            mn_test__failed_checks++;
        }
    CHECK(same_list(g->ids, g->nids, y->ids, y->nids));
    CHECK(g->nids == g->nrules);
    CHECK(g->min_digits == y->min_digits);
    CHECK(g->max_groups == y->max_groups);
    CHECK(same_ac(&g->ac, &y->ac));
    CHECK(g->nallow_values == 0 && g->nallow_res == 0 && g->nallow_paths == 0);

    /* the same hits, corpus line by line and the fixture files whole */
    char *path = data_path("secrets/corpus.jsonl");
    mn_buf file = MN_BUF_INIT;
    REQUIRE_OK(mn_fs_read(&file, path, 16 << 20));
    size_t texts = 0, hits = 0;
    for (char *line = file.ptr, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        mn_scan_hit *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        CHECK_OK(mn_scan_find(&a, &na, g, line, len, MN_SCAN_ALL));
        CHECK_OK(mn_scan_find(&b, &nb, y, line, len, MN_SCAN_ALL));
        bool same = na == nb;
        for (size_t i = 0; same && i < na; i++)
            same = strcmp(a[i].rule, b[i].rule) == 0 && a[i].start == b[i].start &&
                   a[i].end == b[i].end && a[i].cls == b[i].cls;
        if (!same) {
            fprintf(stderr, "generated and file scanners differ on: %.*s\n", (int)len, line);
            mn_test__failed_checks++;
        }
        texts++;
        hits += na;
        free(a);
        free(b);
    }
    CHECK(texts >= 300 && hits >= texts);
    mn_buf_release(&file);
    free(path);
    mn_scanner_free(y);
}

/* A copy of the built-in scanner whose rules have not been used: the same
 * data with fresh first-use slots. Free with free_fresh. */
static mn_scanner *fresh_builtin(void)
{
    const mn_scanner *b = builtin();
    mn_scanner *f = mn_malloc(sizeof(*f));
    *f = *b;
    f->rules = mn_malloc(b->nrules * sizeof(*f->rules));
    for (size_t i = 0; i < b->nrules; i++) {
        f->rules[i] = b->rules[i];
        f->rules[i].lazy = mn_calloc(1, sizeof(mn_scan__lazy));
    }
    f->mctx = pcre2_match_context_copy(b->mctx);
    return f;
}

static void free_fresh(mn_scanner *f)
{
    for (size_t i = 0; i < f->nrules; i++) {
        mn_scan__lazy *l = f->rules[i].lazy;
        pcre2_code_free(atomic_load(&l->code));
        pcre2_code_free(atomic_load(&l->jit));
        for (size_t k = 0; l->allow && k < f->rules[i].nallow; k++)
            pcre2_code_free(l->allow[k]);
        free(l->allow);
        free(l);
    }
    free(f->rules);
    pcre2_match_context_free(f->mctx);
    free(f);
}

/* Starting the built-in scanner compiles nothing: each rule is compiled on
 * its first use, only the rules a text wakes. This test runs first, before
 * any other has used a rule. */
static void test_lazy_compile(void)
{
    const mn_scanner *s = builtin();
    for (size_t i = 0; i < s->nrules; i++)
        CHECK(atomic_load(&s->rules[i].lazy->code) == NULL);
    const char *text = "token ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA";
    expect_rule(s, text, "github-pat", "ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA");
    size_t compiled = 0;
    for (size_t i = 0; i < s->nrules; i++)
        if (atomic_load(&s->rules[i].lazy->code)) {
            compiled++;
            /* github-pat, and rules the keyword "token" wakes */
            CHECK(strcmp(s->rules[i].id, "github-pat") == 0 || s->rules[i].has_keywords);
        }
    CHECK(compiled >= 1 && compiled <= 8);
}

/* Whether PCRE2's JIT runs here (not under valgrind: see use_jit in scan_rules.c). */
static bool jit_runs(void)
{
    uint32_t jit = 0;
    pcre2_config(PCRE2_CONFIG_JIT, &jit);
#ifdef MN_HAVE_VALGRIND_H
    if (RUNNING_ON_VALGRIND)
        return false;
#endif
    return jit != 0;
}

/* A rule runs interpreted until the interpreter has spent
 * mn_scan__jit.after_ns on it, then from its JIT copy; a window of
 * mn_scan__jit.window bytes gets the copy at once. The hits are the same
 * either way. */
static void test_jit_after(void)
{
    mn_scanner *f = fresh_builtin();
    size_t gh = 0;
    while (gh < f->nrules && strcmp(f->rules[gh].id, "github-pat") != 0)
        gh++;
    REQUIRE(gh < f->nrules);
    const mn_scan__lazy *l = f->rules[gh].lazy;
    const char *line = "key ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA\n";
    expect_rule(f, line, "github-pat", "ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA");
    CHECK(atomic_load(&l->code) != NULL);
    CHECK(atomic_load(&l->jit) == NULL);
    /* the same line until the interpreter has spent its time */
    for (size_t i = 0;
         jit_runs() && i < 1000000 && atomic_load(&l->spent_ns) < mn_scan__jit.after_ns; i++)
        expect_rule(f, line, "github-pat", "ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA");
    CHECK(atomic_load(&l->jit) == NULL);
    expect_rule(f, line, "github-pat", "ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA");
    CHECK((atomic_load(&l->jit) != NULL) == jit_runs());
    free_fresh(f);

    /* one window of mn_scan__jit.window bytes or more: JIT at once */
    f = fresh_builtin();
    l = f->rules[gh].lazy;
    mn_buf big = MN_BUF_INIT;
    for (size_t i = 0; i < mn_scan__jit.window / 32; i++)
        mn_buf_puts(&big, "ghp_ghp_ghp_ghp_ghp_ghp_ghp_ghp_");
    mn_buf_puts(&big, " ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA");
    expect_rule(f, big.ptr, "github-pat", "ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA");
    CHECK((atomic_load(&l->jit) != NULL) == jit_runs());
    mn_buf_release(&big);
    free_fresh(f);
}

/* 8 threads race to the first use of every built-in rule: each gets what
 * the (used) built-in scanner gives. */
typedef struct {
    const mn_scanner *s;
    char **texts;
    size_t n;
    char **out;
} race_arg;

static void *race_main(void *p)
{
    race_arg *a = p;
    for (size_t i = 0; i < a->n; i++) {
        mn_buf out = MN_BUF_INIT;
        if (mn_scan_redact(&out, a->s, a->texts[i], strlen(a->texts[i]), MN_SCAN_ALL, NULL) == 0)
            a->out[i] = mn_buf_detach(&out);
        mn_buf_release(&out);
    }
    return NULL;
}

static void test_threads_first_use(void)
{
    char *path = data_path("secrets/corpus.jsonl");
    mn_buf file = MN_BUF_INIT;
    REQUIRE_OK(mn_fs_read(&file, path, 16 << 20));
    char **texts = NULL;
    size_t n = 0;
    for (char *line = file.ptr, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        texts = mn_realloc(texts, (n + 1) * sizeof(*texts));
        texts[n++] = line;
    }
    REQUIRE(n >= 300);
    mn_scanner *f = fresh_builtin();
    pthread_t th[8];
    race_arg args[8];
    for (int t = 0; t < 8; t++) {
        args[t].s = f;
        args[t].texts = texts;
        args[t].n = n;
        args[t].out = mn_calloc(n, sizeof(char *));
        REQUIRE(pthread_create(&th[t], NULL, race_main, &args[t]) == 0);
    }
    for (int t = 0; t < 8; t++)
        pthread_join(th[t], NULL);
    size_t compiled = 0;
    for (size_t i = 0; i < f->nrules; i++)
        compiled += atomic_load(&f->rules[i].lazy->code) != NULL;
    CHECK(compiled == f->nrules); /* the corpus wakes every rule */
    for (size_t i = 0; i < n; i++) {
        char *want = redact(builtin(), texts[i], MN_SCAN_ALL, NULL);
        for (int t = 0; t < 8; t++)
            if (!want || !args[t].out[i] || strcmp(want, args[t].out[i]) != 0) {
                fprintf(stderr, "thread %d differs on: %s\n", t, texts[i]);
                mn_test__failed_checks++;
            }
        free(want);
    }
    for (int t = 0; t < 8; t++) {
        for (size_t i = 0; i < n; i++)
            free(args[t].out[i]);
        free(args[t].out);
    }
    free_fresh(f);
    free(texts);
    mn_buf_release(&file);
    free(path);
}

/* A project's file that adds no keyword shares the built-in automaton (a
 * disabled rule keeps its place and never runs); one that adds keywords
 * gets its own, over every rule that runs. Both find what the file says. */
static void test_project_automaton(void)
{
    char dir[] = "/tmp/mnemo-scan-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const mn_scanner *b = builtin();
    const char *text = "mail jane.doe@gmail.com, key ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA,"
                       " card 4111 1111 1111 1111, badge B-12345678";
    /* disable and allow only */
    char *p1 = write_file(dir, "a.yaml",
                          "disable: [email, credit-card]\n"
                          "allow:\n  values: [ghp_NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnA]\n");
    mn_scanner *s = NULL;
    REQUIRE_OK(mn_scanner_new(&s, p1));
    CHECK(s->ac.shared && s->ac.delta16 == b->ac.delta16);
    expect_none(s, text);
    size_t n = 0, nb = 0;
    const char *const *ids = mn_scanner_rules(s, &n);
    mn_scanner_rules(b, &nb);
    CHECK(n == nb - 2);
    for (size_t i = 0; i < n; i++)
        CHECK(strcmp(ids[i], "email") != 0 && strcmp(ids[i], "credit-card") != 0);
    mn_scanner_free(s);

    /* a rule with a keyword, and a built-in id replaced */
    char *p2 = write_file(dir, "b.yaml",
                          "disable: [email]\n"
                          "rules:\n"
                          "  - id: badge\n"
                          "    class: pii\n"
                          "    keywords: [badge]\n"
                          "    pattern: 'B-(?<secret>\\d{8})'\n"
                          "  - id: email\n"
                          "    class: pii\n"
                          "    keywords: ['@gmail.']\n"
                          "    pattern: '(?<secret>[a-z.]+)@gmail\\.com'\n");
    REQUIRE_OK(mn_scanner_new(&s, p2));
    CHECK(!s->ac.shared && s->ac.delta16 != b->ac.delta16);
    char *red = redact(s, text, MN_SCAN_ALL, NULL);
    CHECK_STR(red, "mail [REDACTED:email]@gmail.com, key [REDACTED:github-pat], card "
                   "[REDACTED:credit-card], badge B-[REDACTED:badge]");
    free(red);
    ids = mn_scanner_rules(s, &n);
    CHECK(n == nb + 1);
    CHECK_STR(ids[n - 2], "badge");
    CHECK_STR(ids[n - 1], "email");
    mn_scanner_free(s);
    /* the built-in scanner is as it was */
    red = redact(b, text, MN_SCAN_ALL, NULL);
    CHECK_STR(red, "mail [REDACTED:email], key [REDACTED:github-pat], card "
                   "[REDACTED:credit-card], badge B-12345678");
    free(red);

    /* keywords enough for over 65,535 states: the automaton's 32-bit table */
    mn_buf y = MN_BUF_INIT;
    mn_buf_puts(&y, "rules:\n");
    uint32_t x = 7;
    char last_kw[101] = {0};
    for (int r = 0; r < 3; r++) {
        mn_buf_printf(&y,
                      "  - id: many-%d\n    class: secret\n    window: [0, 40]\n"
                      "    pattern: 'zq[a-z]{98}=(?<secret>[0-9]{8})'\n    keywords:\n",
                      r);
        for (int k = 0; k < 256; k++) {
            memcpy(last_kw, "zq", 2);
            for (int c = 0; c < 98; c++) {
                x = x * 1103515245u + 12345u;
                last_kw[2 + c] = (char)('a' + (x >> 16) % 26);
            }
            mn_buf_printf(&y, "      - %s\n", last_kw);
        }
    }
    char *p3 = write_file(dir, "c.yaml", y.ptr);
    REQUIRE_OK(mn_scanner_new(&s, p3));
    CHECK(s->ac.delta16 == NULL && s->ac.delta != NULL && s->ac.nstates > 65535);
    /* the last keyword written, then a value */
    mn_buf t = MN_BUF_INIT;
    mn_buf_puts(&t, "mail jane.doe@gmail.com then ");
    mn_buf_put(&t, last_kw, 100);
    mn_buf_puts(&t, "=12345678 end");
    char want[256];
    snprintf(want, sizeof(want), "mail [REDACTED:email] then %.100s=[REDACTED:many-2] end",
             last_kw);
    red = redact(s, t.ptr, MN_SCAN_ALL, NULL);
    CHECK_STR(red, want);
    free(red);
    mn_scanner_free(s);
    mn_buf_release(&t);
    mn_buf_release(&y);
    free(p1);
    free(p2);
    free(p3);
    rm_rf(dir);
}

/* mn_scan_find_redact: the hits of mn_scan_find and the text of
 * mn_scan_redact from one scan; a clean text leaves out as it was. */
static void test_find_redact(void)
{
    const mn_scanner *s = builtin();
    const char *texts[] = {
        ("deploy with AKIAIOSFODNN7EXAMPLE; the admin password = \"hunter2\"\n"
         "write to jane.doe@gmail.com\n"),
        "nothing here at all",
        "[REDACTED:email] and again jane.doe@gmail.com",
    };
    for (size_t t = 0; t < MN_ARRAY_SIZE(texts); t++) {
        const char *text = texts[t];
        size_t len = strlen(text);
        mn_scan_hit *a = NULL, *b = (mn_scan_hit *)1;
        size_t na = 0, nb = 99;
        mn_buf out = MN_BUF_INIT;
        mn_buf_puts(&out, "prefix:");
        mn_scan_summary sa, sb;
        REQUIRE_OK(mn_scan_find(&a, &na, s, text, len, MN_SCAN_ALL));
        REQUIRE_OK(mn_scan_find_redact(&b, &nb, &out, s, text, len, MN_SCAN_ALL, &sb));
        CHECK(na == nb);
        for (size_t i = 0; i < na && i < nb; i++)
            CHECK(a[i].start == b[i].start && a[i].end == b[i].end &&
                  strcmp(a[i].rule, b[i].rule) == 0);
        if (na) {
            char *want = redact(s, text, MN_SCAN_ALL, &sa);
            CHECK(out.len == 7 + strlen(want) && memcmp(out.ptr + 7, want, strlen(want)) == 0);
            CHECK(sa.secrets == sb.secrets && sa.pii == sb.pii && sa.bytes == sb.bytes &&
                  same_str(sa.rule, sb.rule));
            free(want);
        } else {
            CHECK(b == NULL);
            CHECK_STR(out.ptr, "prefix:");
            CHECK(sb.secrets == 0 && sb.pii == 0 && sb.bytes == 0 && sb.rule == NULL);
        }
        /* hits not wanted */
        mn_buf out2 = MN_BUF_INIT;
        size_t n2 = 0;
        REQUIRE_OK(mn_scan_find_redact(NULL, &n2, &out2, s, text, len, MN_SCAN_ALL, NULL));
        CHECK(n2 == na);
        CHECK(out2.len == (na ? out.len - 7 : 0));
        mn_buf_release(&out2);
        mn_buf_release(&out);
        free(a);
        free(b);
    }
}

MN_TEST_MAIN(MN_TEST(test_lazy_compile), MN_TEST(test_basics), MN_TEST(test_corpus),
             MN_TEST(test_fixture_repo), MN_TEST(test_rules_by_example),
             MN_TEST(test_no_false_positives), MN_TEST(test_idempotent), MN_TEST(test_no_overlap),
             MN_TEST(test_project_file), MN_TEST(test_bad_files), MN_TEST(test_binary),
             MN_TEST(test_long_lines), MN_TEST(test_threads), MN_TEST(test_checks_reject),
             MN_TEST(test_rule_options), MN_TEST(test_generated_data), MN_TEST(test_jit_after),
             MN_TEST(test_threads_first_use), MN_TEST(test_project_automaton),
             MN_TEST(test_find_redact))
