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

MN_TEST_MAIN(MN_TEST(test_basics), MN_TEST(test_corpus), MN_TEST(test_fixture_repo),
             MN_TEST(test_rules_by_example), MN_TEST(test_no_false_positives),
             MN_TEST(test_idempotent), MN_TEST(test_no_overlap), MN_TEST(test_project_file),
             MN_TEST(test_bad_files), MN_TEST(test_binary), MN_TEST(test_long_lines),
             MN_TEST(test_threads), MN_TEST(test_checks_reject), MN_TEST(test_rule_options))
