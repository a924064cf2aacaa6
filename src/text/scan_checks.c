/*
 * scan_checks.c - what a regex cannot say: checksums, issuer prefixes, valid
 * dates, entropy, placeholders, path globs.
 *
 * Each named check takes the secret part of a match as written (with its
 * spaces, dashes or dots) and answers whether it is a real instance of the
 * format: a card number passes Luhn and belongs to an issuer whose lengths
 * it has; an IBAN has its country's length and passes mod 97; a national id
 * passes its own check digit or letter and encodes a valid date where it
 * has one. These are what keep a random number in code or prose from being
 * taken for personal data: a random digit string passes a single check
 * digit one time in ten, so rules on bare digits also ask for a context
 * word (scan_rules.yaml).
 *
 * The placeholder test says that a value is something a person writes in
 * place of a secret (`<your-token>`, `${API_KEY}`, `changeme`, `xxxx`, a
 * reference to an environment variable or a setting, a run of one
 * character) rather than a secret. It is applied to every secret rule's
 * match unless the rule turns it off.
 */
#include "common.h"
#include <math.h>

#include "text/scan_internal.h"

static const char *const CHECK_NAMES[MN_SCAN__CHECK_COUNT] = {
    [MN_SCAN__CHECK_LUHN] = "luhn",
    [MN_SCAN__CHECK_CARD] = "card",
    [MN_SCAN__CHECK_IBAN] = "iban",
    [MN_SCAN__CHECK_US_SSN] = "us_ssn",
    [MN_SCAN__CHECK_US_ITIN] = "us_itin",
    [MN_SCAN__CHECK_US_ABA] = "us_aba",
    [MN_SCAN__CHECK_CA_SIN] = "ca_sin",
    [MN_SCAN__CHECK_FR_NIR] = "fr_nir",
    [MN_SCAN__CHECK_DE_TAXID] = "de_taxid",
    [MN_SCAN__CHECK_ES_DNI] = "es_dni",
    [MN_SCAN__CHECK_ES_NIE] = "es_nie",
    [MN_SCAN__CHECK_IT_CF] = "it_cf",
    [MN_SCAN__CHECK_NL_BSN] = "nl_bsn",
    [MN_SCAN__CHECK_PL_PESEL] = "pl_pesel",
    [MN_SCAN__CHECK_SE_PNR] = "se_pnr",
    [MN_SCAN__CHECK_FI_HETU] = "fi_hetu",
    [MN_SCAN__CHECK_BR_CPF] = "br_cpf",
    [MN_SCAN__CHECK_BR_CNPJ] = "br_cnpj",
    [MN_SCAN__CHECK_IN_AADHAAR] = "in_aadhaar",
    [MN_SCAN__CHECK_CN_RID] = "cn_rid",
    [MN_SCAN__CHECK_RU_INN] = "ru_inn",
    [MN_SCAN__CHECK_RU_SNILS] = "ru_snils",
    [MN_SCAN__CHECK_JWT] = "jwt",
    [MN_SCAN__CHECK_BASIC_AUTH] = "basic_auth",
    [MN_SCAN__CHECK_PHONE] = "phone",
    [MN_SCAN__CHECK_DATE] = "date",
    [MN_SCAN__CHECK_IPV4_PUBLIC] = "ipv4_public",
    [MN_SCAN__CHECK_NOT_IDENTIFIER] = "not_identifier",
    [MN_SCAN__CHECK_MIXED] = "mixed",
    [MN_SCAN__CHECK_MIXED_CASE] = "mixed_case",
};

int mn_scan__check_parse(mn_scan__check *out, const char *name)
{
    for (int i = 0; i < MN_SCAN__CHECK_COUNT; i++)
        if (strcmp(CHECK_NAMES[i], name) == 0) {
            *out = (mn_scan__check)i;
            return 0;
        }
    return MN_EINVAL;
}

const char *mn_scan__check_name(mn_scan__check c)
{
    return c < MN_SCAN__CHECK_COUNT ? CHECK_NAMES[c] : "?";
}

/* ---- helpers ---- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
    return is_digit(c) || is_alpha(c);
}

static char upper(char c)
{
    return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

/* The letters and digits of s (upper-cased) into out (at most cap - 1, NUL
 * terminated); returns their count, or cap when there are too many. */
static size_t alnum_of(char *out, size_t cap, const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_alnum(s[i]))
            continue;
        if (k + 1 >= cap)
            return cap;
        out[k++] = upper(s[i]);
    }
    out[k] = '\0';
    return k;
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_digit(s[i]))
            return false;
    return n > 0;
}

static bool all_same(const char *s, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (s[i] != s[0])
            return false;
    return true;
}

static int num(const char *s, size_t n)
{
    int v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

static bool leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static bool valid_date(int y, int m, int d)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1)
        return false;
    int max = days[m - 1] + (m == 2 && leap(y) ? 1 : 0);
    return d <= max;
}

static bool luhn_digits(const char *d, size_t n)
{
    int sum = 0;
    for (size_t i = 0; i < n; i++) {
        int v = d[n - 1 - i] - '0';
        if (i % 2 == 1) {
            v *= 2;
            if (v > 9)
                v -= 9;
        }
        sum += v;
    }
    return sum % 10 == 0;
}

/* ---- payment cards ---- */

static bool prefix_in(const char *d, size_t plen, int lo, int hi)
{
    int v = num(d, plen);
    return v >= lo && v <= hi;
}

/* Issuer ranges (IIN) and the lengths each issues; a Luhn-valid number
 * outside them is not taken for a card. */
static bool card_issuer(const char *d, size_t n)
{
    if (d[0] == '4')
        return n == 13 || n == 16 || n == 19; /* Visa */
    if (prefix_in(d, 2, 51, 55) || prefix_in(d, 4, 2221, 2720))
        return n == 16; /* Mastercard */
    if (prefix_in(d, 2, 34, 34) || prefix_in(d, 2, 37, 37))
        return n == 15; /* American Express */
    if (prefix_in(d, 4, 6011, 6011) || prefix_in(d, 2, 65, 65) || prefix_in(d, 3, 644, 649))
        return n >= 16 && n <= 19; /* Discover */
    if (prefix_in(d, 4, 3528, 3589))
        return n >= 16 && n <= 19; /* JCB */
    if (prefix_in(d, 3, 300, 305) || prefix_in(d, 2, 36, 36) || prefix_in(d, 2, 38, 39))
        return n >= 14 && n <= 19; /* Diners Club */
    if (prefix_in(d, 2, 62, 62))
        return n >= 16 && n <= 19; /* UnionPay */
    if (prefix_in(d, 2, 50, 50) || prefix_in(d, 2, 56, 69))
        return n >= 12 && n <= 19; /* Maestro */
    if (prefix_in(d, 4, 2200, 2204))
        return n == 16; /* Mir */
    return false;
}

/* Groups as cards are printed: all digits together, or groups of 4 (Amex
 * and Diners 4-6-5 / 4-6-4), with one kind of separator. */
static bool card_grouping(const char *s, size_t n)
{
    size_t groups[8], ng = 0, cur = 0;
    char sep = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_digit(s[i])) {
            cur++;
            continue;
        }
        if (sep && s[i] != sep)
            return false;
        sep = s[i];
        if (ng == MN_ARRAY_SIZE(groups) || cur == 0)
            return false;
        groups[ng++] = cur;
        cur = 0;
    }
    if (ng == MN_ARRAY_SIZE(groups))
        return false;
    groups[ng++] = cur;
    if (ng == 1)
        return true;
    if (ng == 3 && groups[0] == 4 && groups[1] == 6 && (groups[2] == 5 || groups[2] == 4))
        return true;
    for (size_t i = 0; i + 1 < ng; i++)
        if (groups[i] != 4)
            return false;
    return groups[ng - 1] >= 1 && groups[ng - 1] <= 4;
}

static bool check_card(const char *s, size_t n)
{
    char d[24];
    size_t k = alnum_of(d, sizeof(d), s, n);
    if (k < 12 || k > 19 || !all_digits(d, k))
        return false;
    return card_grouping(s, n) && card_issuer(d, k) && luhn_digits(d, k);
}

/* ---- IBAN ---- */

static int iban_length(const char *cc)
{
    static const struct {
        char cc[3];
        int len;
    } table[] = {
        {"AD", 24}, {"AE", 23}, {"AL", 28}, {"AT", 20}, {"AZ", 28}, {"BA", 20}, {"BE", 16},
        {"BG", 22}, {"BH", 22}, {"BR", 29}, {"BY", 28}, {"CH", 21}, {"CR", 22}, {"CY", 28},
        {"CZ", 24}, {"DE", 22}, {"DK", 18}, {"DO", 28}, {"EE", 20}, {"EG", 29}, {"ES", 24},
        {"FI", 18}, {"FO", 18}, {"FR", 27}, {"GB", 22}, {"GE", 22}, {"GI", 23}, {"GL", 18},
        {"GR", 27}, {"GT", 28}, {"HR", 21}, {"HU", 28}, {"IE", 22}, {"IL", 23}, {"IQ", 23},
        {"IS", 26}, {"IT", 27}, {"JO", 30}, {"KW", 30}, {"KZ", 20}, {"LB", 28}, {"LC", 32},
        {"LI", 21}, {"LT", 20}, {"LU", 20}, {"LV", 21}, {"MC", 27}, {"MD", 24}, {"ME", 22},
        {"MK", 19}, {"MR", 27}, {"MT", 31}, {"MU", 30}, {"NL", 18}, {"NO", 15}, {"PK", 24},
        {"PL", 28}, {"PS", 29}, {"PT", 25}, {"QA", 29}, {"RO", 24}, {"RS", 22}, {"SA", 24},
        {"SC", 31}, {"SE", 24}, {"SI", 19}, {"SK", 24}, {"SM", 27}, {"ST", 25}, {"SV", 28},
        {"TL", 23}, {"TN", 24}, {"TR", 26}, {"UA", 29}, {"VA", 22}, {"VG", 24}, {"XK", 20}};
    for (size_t i = 0; i < MN_ARRAY_SIZE(table); i++)
        if (cc[0] == table[i].cc[0] && cc[1] == table[i].cc[1])
            return table[i].len;
    return 0;
}

static bool check_iban(const char *s, size_t n)
{
    char a[40];
    size_t k = alnum_of(a, sizeof(a), s, n);
    if (k < 15 || k > 34 || !is_alpha(a[0]) || !is_alpha(a[1]) || !is_digit(a[2]) ||
        !is_digit(a[3]))
        return false;
    if (iban_length(a) != (int)k)
        return false;
    /* mod 97 of BBAN + country + check digits, letters as 10..35 */
    unsigned rem = 0;
    for (size_t i = 0; i < k; i++) {
        char c = a[(i + 4) % k];
        if (is_digit(c))
            rem = (rem * 10 + (unsigned)(c - '0')) % 97;
        else
            rem = (rem * 100 + (unsigned)(c - 'A' + 10)) % 97;
    }
    return rem == 1;
}

/* ---- national ids ---- */

static bool check_us_ssn(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 9 || !all_digits(d, 9))
        return false;
    int area = num(d, 3), group = num(d + 3, 2), serial = num(d + 5, 4);
    return area != 0 && area != 666 && area < 900 && group != 0 && serial != 0;
}

static bool check_us_itin(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 9 || !all_digits(d, 9) || d[0] != '9')
        return false;
    int g = num(d + 3, 2);
    return (g >= 50 && g <= 65) || (g >= 70 && g <= 88) || (g >= 90 && g <= 92) ||
           (g >= 94 && g <= 99);
}

static bool check_us_aba(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 9 || !all_digits(d, 9))
        return false;
    int p = num(d, 2);
    if (!((p <= 12) || (p >= 21 && p <= 32) || (p >= 61 && p <= 72) || p == 80))
        return false;
    int sum = 0;
    static const int w[] = {3, 7, 1};
    for (int i = 0; i < 9; i++)
        sum += (d[i] - '0') * w[i % 3];
    return sum % 10 == 0 && !all_same(d, 9);
}

static bool check_ca_sin(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 9 || !all_digits(d, 9))
        return false;
    /* 0 and 8 are not assigned, but the published examples start with 0 */
    return !all_same(d, 9) && luhn_digits(d, 9);
}

static bool check_fr_nir(const char *s, size_t n)
{
    char d[20];
    if (alnum_of(d, sizeof(d), s, n) != 15)
        return false;
    /* Corsica: departments 2A and 2B count as 19 and 18 for the key */
    if (d[5] == '2' && (d[6] == 'A' || d[6] == 'B')) {
        d[5] = '1';
        d[6] = d[6] == 'A' ? '9' : '8';
    }
    if (!all_digits(d, 15) || !strchr("123478", d[0]))
        return false;
    long long base = 0;
    for (int i = 0; i < 13; i++)
        base = base * 10 + (d[i] - '0');
    int key = num(d + 13, 2);
    return key >= 1 && key <= 97 && key == 97 - (int)(base % 97);
}

static bool check_de_taxid(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 11 || !all_digits(d, 11) || d[0] == '0')
        return false;
    /* in the first ten digits one digit occurs twice or three times, the
     * others at most once */
    int count[10] = {0};
    for (int i = 0; i < 10; i++)
        count[d[i] - '0']++;
    int multi = 0;
    for (int i = 0; i < 10; i++) {
        if (count[i] > 3)
            return false;
        if (count[i] >= 2)
            multi++;
    }
    if (multi != 1)
        return false;
    /* ISO 7064 MOD 11,10 */
    int product = 10;
    for (int i = 0; i < 10; i++) {
        int sum = (d[i] - '0' + product) % 10;
        if (sum == 0)
            sum = 10;
        product = (2 * sum) % 11;
    }
    int check = 11 - product;
    if (check == 10)
        check = 0;
    return check == d[10] - '0';
}

static const char DNI_LETTERS[] = "TRWAGMYFPDXBNJZSQVHLCKE";

static bool check_es_dni(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 9 || !all_digits(d, 8) || !is_alpha(d[8]))
        return false;
    long v = num(d, 8);
    return DNI_LETTERS[v % 23] == d[8] && v != 0;
}

static bool check_es_nie(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 9 || !all_digits(d + 1, 7) || !is_alpha(d[8]))
        return false;
    int lead = d[0] == 'X' ? 0 : d[0] == 'Y' ? 1 : d[0] == 'Z' ? 2 : -1;
    if (lead < 0)
        return false;
    long v = lead * 10000000L + num(d + 1, 7);
    return DNI_LETTERS[v % 23] == d[8];
}

static bool check_it_cf(const char *s, size_t n)
{
    /* the values of characters in odd (1st, 3rd, ...) positions */
    static const int odd_digit[10] = {1, 0, 5, 7, 9, 13, 15, 17, 19, 21};
    static const int odd_alpha[26] = {1,  0,  5, 7, 9, 13, 15, 17, 19, 21, 2,  4,  18,
                                      20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23};
    char d[20];
    if (alnum_of(d, sizeof(d), s, n) != 16)
        return false;
    int sum = 0;
    for (int i = 0; i < 15; i++) {
        char c = d[i];
        int v;
        if (i % 2 == 0)
            v = is_digit(c) ? odd_digit[c - '0'] : odd_alpha[c - 'A'];
        else
            v = is_digit(c) ? c - '0' : c - 'A';
        sum += v;
    }
    return d[15] == 'A' + sum % 26;
}

static bool check_nl_bsn(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 9 || !all_digits(d, 9) || all_same(d, 9))
        return false;
    int sum = 0;
    for (int i = 0; i < 8; i++)
        sum += (9 - i) * (d[i] - '0');
    sum -= d[8] - '0';
    return sum % 11 == 0;
}

static bool check_pl_pesel(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 11 || !all_digits(d, 11))
        return false;
    static const int w[] = {1, 3, 7, 9, 1, 3, 7, 9, 1, 3};
    int sum = 0;
    for (int i = 0; i < 10; i++)
        sum += w[i] * (d[i] - '0');
    if ((10 - sum % 10) % 10 != d[10] - '0')
        return false;
    int yy = num(d, 2), mm = num(d + 2, 2), dd = num(d + 4, 2);
    int century = mm / 20; /* 0: 1900s, 1: 2000s, 2: 2100s, 3: 2200s, 4: 1800s */
    static const int base[] = {1900, 2000, 2100, 2200, 1800};
    if (century > 4)
        return false;
    return valid_date(base[century] + yy, mm % 20, dd);
}

static bool check_se_pnr(const char *s, size_t n)
{
    char d[16];
    size_t k = alnum_of(d, sizeof(d), s, n);
    if ((k != 10 && k != 12) || !all_digits(d, k))
        return false;
    const char *t = d + (k - 10); /* YYMMDDNNNC */
    int mm = num(t + 2, 2), dd = num(t + 4, 2);
    if (dd > 60)
        dd -= 60; /* samordningsnummer */
    if (!valid_date(2000, mm, dd))
        return false;
    return luhn_digits(t, 10);
}

static bool check_fi_hetu(const char *s, size_t n)
{
    if (n != 11 || !all_digits(s, 6) || !all_digits(s + 7, 3))
        return false;
    const char *sign = strchr("+-ABCDEFUVWXY", s[6]);
    if (!sign || s[6] == '\0')
        return false;
    int year = num(s + 4, 2) + (s[6] == '+' ? 1800 : strchr("-UVWXY", s[6]) ? 1900 : 2000);
    if (!valid_date(year, num(s + 2, 2), num(s, 2)))
        return false;
    static const char chk[] = "0123456789ABCDEFHJKLMNPRSTUVWXY";
    long v = (long)num(s, 6) * 1000 + num(s + 7, 3);
    return upper(s[10]) == chk[v % 31];
}

static bool check_br_cpf(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 11 || !all_digits(d, 11) || all_same(d, 11))
        return false;
    for (int k = 9; k <= 10; k++) {
        int sum = 0;
        for (int i = 0; i < k; i++)
            sum += (d[i] - '0') * (k + 1 - i);
        int c = (sum * 10) % 11 % 10;
        if (c != d[k] - '0')
            return false;
    }
    return true;
}

static bool check_br_cnpj(const char *s, size_t n)
{
    char d[20];
    if (alnum_of(d, sizeof(d), s, n) != 14 || !all_digits(d, 14) || all_same(d, 14))
        return false;
    static const int w1[] = {5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2};
    static const int w2[] = {6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2};
    int sum = 0;
    for (int i = 0; i < 12; i++)
        sum += (d[i] - '0') * w1[i];
    int c1 = sum % 11 < 2 ? 0 : 11 - sum % 11;
    sum = 0;
    for (int i = 0; i < 13; i++)
        sum += (d[i] - '0') * w2[i];
    int c2 = sum % 11 < 2 ? 0 : 11 - sum % 11;
    return c1 == d[12] - '0' && c2 == d[13] - '0';
}

static bool verhoeff(const char *d, size_t n)
{
    static const uint8_t mul[10][10] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 0, 6, 7, 8, 9, 5},
        {2, 3, 4, 0, 1, 7, 8, 9, 5, 6}, {3, 4, 0, 1, 2, 8, 9, 5, 6, 7},
        {4, 0, 1, 2, 3, 9, 5, 6, 7, 8}, {5, 9, 8, 7, 6, 0, 4, 3, 2, 1},
        {6, 5, 9, 8, 7, 1, 0, 4, 3, 2}, {7, 6, 5, 9, 8, 2, 1, 0, 4, 3},
        {8, 7, 6, 5, 9, 3, 2, 1, 0, 4}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}};
    static const uint8_t perm[8][10] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 5, 7, 6, 2, 8, 3, 0, 9, 4},
        {5, 8, 0, 3, 7, 9, 6, 1, 4, 2}, {8, 9, 1, 6, 0, 4, 3, 5, 2, 7},
        {9, 4, 5, 3, 1, 2, 6, 8, 7, 0}, {4, 2, 8, 6, 5, 7, 3, 9, 0, 1},
        {2, 7, 9, 3, 8, 0, 6, 4, 1, 5}, {7, 0, 4, 6, 9, 1, 3, 2, 5, 8}};
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c = mul[c][perm[i % 8][d[n - 1 - i] - '0']];
    return c == 0;
}

static bool check_in_aadhaar(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 12 || !all_digits(d, 12) || d[0] < '2')
        return false;
    return !all_same(d, 12) && verhoeff(d, 12);
}

static bool check_cn_rid(const char *s, size_t n)
{
    char d[24];
    if (alnum_of(d, sizeof(d), s, n) != 18 || !all_digits(d, 17))
        return false;
    static const int w[] = {7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2};
    int sum = 0;
    for (int i = 0; i < 17; i++)
        sum += (d[i] - '0') * w[i];
    static const char chk[] = "10X98765432";
    if (chk[sum % 11] != d[17])
        return false;
    int y = num(d + 6, 4);
    return y >= 1900 && y <= 2099 && valid_date(y, num(d + 10, 2), num(d + 12, 2));
}

static int weighted(const char *d, const int *w, int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += (d[i] - '0') * w[i];
    return sum % 11 % 10;
}

static bool check_ru_inn(const char *s, size_t n)
{
    char d[16];
    size_t k = alnum_of(d, sizeof(d), s, n);
    if (!all_digits(d, k) || all_same(d, k))
        return false;
    static const int w10[] = {2, 4, 10, 3, 5, 9, 4, 6, 8};
    static const int w11[] = {7, 2, 4, 10, 3, 5, 9, 4, 6, 8};
    static const int w12[] = {3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8};
    if (k == 10)
        return weighted(d, w10, 9) == d[9] - '0';
    if (k == 12)
        return weighted(d, w11, 10) == d[10] - '0' && weighted(d, w12, 11) == d[11] - '0';
    return false;
}

static bool check_ru_snils(const char *s, size_t n)
{
    char d[16];
    if (alnum_of(d, sizeof(d), s, n) != 11 || !all_digits(d, 11) || all_same(d, 9))
        return false;
    if (num(d, 9) <= 1001998)
        return false; /* numbers up to 001-001-998 carry no check */
    int sum = 0;
    for (int i = 0; i < 9; i++)
        sum += (d[i] - '0') * (9 - i);
    int c = sum % 101;
    if (c == 100)
        c = 0;
    return c == num(d + 9, 2);
}

/* ---- tokens ---- */

static int b64val(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (is_digit(c))
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* Decode base64 or base64url (padding optional) into out; returns the
 * length, or -1 on a bad character. */
static long b64decode(char *out, size_t cap, const char *s, size_t n)
{
    size_t k = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '=')
            break;
        int v = b64val(s[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (k == cap)
                return (long)k;
            out[k++] = (char)((acc >> bits) & 0xff);
        }
    }
    return (long)k;
}

static bool check_jwt(const char *s, size_t n)
{
    const char *dot = memchr(s, '.', n);
    if (!dot)
        return false;
    char hdr[256];
    long k = b64decode(hdr, sizeof(hdr) - 1, s, (size_t)(dot - s));
    if (k < 2)
        return false;
    hdr[k] = '\0';
    return hdr[0] == '{' && (strstr(hdr, "\"alg\"") || strstr(hdr, "\"typ\""));
}

static bool check_basic_auth(const char *s, size_t n)
{
    char dec[256];
    long k = b64decode(dec, sizeof(dec), s, n);
    if (k < 3)
        return false;
    bool colon = false;
    for (long i = 0; i < k; i++) {
        unsigned char c = (unsigned char)dec[i];
        if (c < 0x20 || c == 0x7f)
            return false;
        colon |= c == ':';
    }
    return colon && dec[0] != ':';
}

static bool check_phone(const char *s, size_t n)
{
    char d[32];
    size_t k = 0;
    for (size_t i = 0; i < n && k < sizeof(d); i++)
        if (is_digit(s[i]))
            d[k++] = s[i];
    if (k < 7 || k > 15 || all_same(d, k))
        return false;
    /* 0123456789-like runs are filler, not numbers */
    size_t seq = 0;
    for (size_t i = 1; i < k; i++)
        seq += d[i] == d[i - 1] + 1;
    return seq + 1 < k;
}

/* A date of birth as written: Y-M-D, D.M.Y, D/M/Y or M/D/Y (either order
 * valid), with a four-digit year from 1900 to 2030; dates with month names
 * are left to the pattern. */
static bool check_date(const char *s, size_t n)
{
    int f[3], nf = 0, len[3] = {0};
    size_t i = 0;
    while (i < n && nf < 3) {
        if (!is_digit(s[i])) {
            i++;
            continue;
        }
        int v = 0;
        int l = 0;
        while (i < n && is_digit(s[i]) && l < 5) {
            v = v * 10 + (s[i] - '0');
            l++;
            i++;
        }
        len[nf] = l;
        f[nf++] = v;
    }
    if (nf < 3) {
        /* "12 March 1985": a day and a year around a month's name (the
         * pattern checked the name); the year must be a plausible one */
        for (int k = 0; k < nf; k++)
            if (len[k] == 4)
                return f[k] >= 1900 && f[k] <= 2030;
        return false;
    }
    int y, m, d;
    if (len[0] == 4) {
        y = f[0];
        m = f[1];
        d = f[2];
    } else if (len[2] == 4) {
        y = f[2];
        if (valid_date(y, f[1], f[0])) {
            m = f[1];
            d = f[0];
        } else {
            m = f[0];
            d = f[1];
        }
    } else {
        return false;
    }
    return y >= 1900 && y <= 2030 && valid_date(y, m, d);
}

static bool check_ipv4_public(const char *s, size_t n)
{
    int o[4], k = 0, v = -1;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && is_digit(s[i])) {
            v = (v < 0 ? 0 : v * 10) + (s[i] - '0');
            if (v > 255)
                return false;
        } else {
            if (v < 0 || k == 4)
                return false;
            o[k++] = v;
            v = -1;
            if (i < n && s[i] != '.')
                return false;
        }
    }
    if (k != 4)
        return false;
    if (o[0] == 0 || o[0] == 10 || o[0] == 127 || o[0] >= 224 || o[3] == 0 || o[3] == 255)
        return false; /* private, loopback, multicast; network and broadcast addresses */
    if ((o[0] == 169 && o[1] == 254) || (o[0] == 172 && o[1] >= 16 && o[1] <= 31) ||
        (o[0] == 192 && o[1] == 168) || (o[0] == 100 && o[1] >= 64 && o[1] <= 127))
        return false;
    return true;
}

/* A name in code, not a value: a dotted or indexed reference
 * (settings.SECRET_KEY, os.environ["X"], get_token()), a snake_case or
 * SCREAMING_CASE name without digits, or a camelCase name. */
static bool looks_identifier(const char *s, size_t n)
{
    if (n == 0)
        return true;
    bool ref = false, under = false, digit = false, lower = false, camel = false;
    if (!(is_alpha(s[0]) || s[0] == '_' || s[0] == '$'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.' || c == '[' || c == '(') {
            ref = true;
            break;
        }
        if (c == '_')
            under = true;
        else if (is_digit(c))
            digit = true;
        else if (c >= 'a' && c <= 'z')
            lower = true;
        else if (c >= 'A' && c <= 'Z') {
            if (lower)
                camel = true;
        } else if (c != '$')
            return false;
    }
    if (ref) {
        /* name(.name | [..] | (..))+ */
        size_t i = 0;
        while (i < n) {
            if (!(is_alpha(s[i]) || s[i] == '_' || s[i] == '$'))
                return false;
            while (i < n && (is_alnum(s[i]) || s[i] == '_' || s[i] == '$'))
                i++;
            while (i < n && (s[i] == '[' || s[i] == '(')) {
                char close = s[i] == '[' ? ']' : ')';
                const char *e = memchr(s + i, close, n - i);
                if (!e)
                    return false;
                i = (size_t)(e - s) + 1;
            }
            if (i == n)
                return true;
            if (s[i] != '.')
                return false;
            i++;
        }
        return false;
    }
    if (digit)
        return false;
    return under || camel;
}

static bool check_mixed(const char *s, size_t n)
{
    bool alpha = false, digit = false;
    for (size_t i = 0; i < n; i++) {
        alpha |= is_alpha(s[i]);
        digit |= is_digit(s[i]);
    }
    return alpha && digit;
}

static bool check_mixed_case(const char *s, size_t n)
{
    bool lo = false, up = false;
    for (size_t i = 0; i < n; i++) {
        lo |= s[i] >= 'a' && s[i] <= 'z';
        up |= s[i] >= 'A' && s[i] <= 'Z';
    }
    return lo && up;
}

bool mn_scan__check_run(mn_scan__check c, const char *s, size_t n)
{
    char d[64];
    switch (c) {
    case MN_SCAN__CHECK_LUHN: {
        size_t k = alnum_of(d, sizeof(d), s, n);
        return k < sizeof(d) && all_digits(d, k) && luhn_digits(d, k);
    }
    case MN_SCAN__CHECK_CARD:
        return check_card(s, n);
    case MN_SCAN__CHECK_IBAN:
        return check_iban(s, n);
    case MN_SCAN__CHECK_US_SSN:
        return check_us_ssn(s, n);
    case MN_SCAN__CHECK_US_ITIN:
        return check_us_itin(s, n);
    case MN_SCAN__CHECK_US_ABA:
        return check_us_aba(s, n);
    case MN_SCAN__CHECK_CA_SIN:
        return check_ca_sin(s, n);
    case MN_SCAN__CHECK_FR_NIR:
        return check_fr_nir(s, n);
    case MN_SCAN__CHECK_DE_TAXID:
        return check_de_taxid(s, n);
    case MN_SCAN__CHECK_ES_DNI:
        return check_es_dni(s, n);
    case MN_SCAN__CHECK_ES_NIE:
        return check_es_nie(s, n);
    case MN_SCAN__CHECK_IT_CF:
        return check_it_cf(s, n);
    case MN_SCAN__CHECK_NL_BSN:
        return check_nl_bsn(s, n);
    case MN_SCAN__CHECK_PL_PESEL:
        return check_pl_pesel(s, n);
    case MN_SCAN__CHECK_SE_PNR:
        return check_se_pnr(s, n);
    case MN_SCAN__CHECK_FI_HETU:
        return check_fi_hetu(s, n);
    case MN_SCAN__CHECK_BR_CPF:
        return check_br_cpf(s, n);
    case MN_SCAN__CHECK_BR_CNPJ:
        return check_br_cnpj(s, n);
    case MN_SCAN__CHECK_IN_AADHAAR:
        return check_in_aadhaar(s, n);
    case MN_SCAN__CHECK_CN_RID:
        return check_cn_rid(s, n);
    case MN_SCAN__CHECK_RU_INN:
        return check_ru_inn(s, n);
    case MN_SCAN__CHECK_RU_SNILS:
        return check_ru_snils(s, n);
    case MN_SCAN__CHECK_JWT:
        return check_jwt(s, n);
    case MN_SCAN__CHECK_BASIC_AUTH:
        return check_basic_auth(s, n);
    case MN_SCAN__CHECK_PHONE:
        return check_phone(s, n);
    case MN_SCAN__CHECK_DATE:
        return check_date(s, n);
    case MN_SCAN__CHECK_IPV4_PUBLIC:
        return check_ipv4_public(s, n);
    case MN_SCAN__CHECK_NOT_IDENTIFIER:
        return !looks_identifier(s, n);
    case MN_SCAN__CHECK_MIXED:
        return check_mixed(s, n);
    case MN_SCAN__CHECK_MIXED_CASE:
        return check_mixed_case(s, n);
    case MN_SCAN__CHECK_COUNT:
        break;
    }
    return false;
}

/* Shannon entropy H = -sum p(b) log2 p(b) over the bytes b of s, in bits
 * per byte: 0 for "aaaa", log2(n) at most for n bytes. */
double mn_scan__entropy(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    unsigned count[256] = {0};
    for (size_t i = 0; i < n; i++)
        count[(uint8_t)s[i]]++;
    double h = 0;
    for (int i = 0; i < 256; i++)
        if (count[i]) {
            double p = (double)count[i] / (double)n;
            h -= p * log2(p);
        }
    return h;
}

bool mn_scan__placeholder(const char *s, size_t n)
{
    /* quotes around the value are not part of it */
    while (n && (s[0] == '"' || s[0] == '\'' || s[0] == '`')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == '"' || s[n - 1] == '\'' || s[n - 1] == '`'))
        n--;
    if (n == 0)
        return true;
    /* templates and variables: ${X}, {{ x }}, <%= x %>, $(cmd), %(x)s, #{x}, $X */
    static const char *const templ[] = {"${", "{{", "{%", "<%", "$(", "%(", "#{", "%{"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(templ); i++)
        if (n >= 2 && memmem(s, n, templ[i], 2))
            return true;
    if (s[0] == '$' && (n == 1 || is_alpha(s[1]) || s[1] == '_'))
        return true;
    /* file paths and URLs name where a secret is, not the secret */
    if (s[0] == '/' || (n > 1 && s[0] == '~' && s[1] == '/') ||
        (n > 2 && s[0] == '.' && (s[1] == '/' || (s[1] == '.' && s[2] == '/')))) {
        /* a path has a file extension or no capitals; base64 has both
         * cases and no dot */
        size_t slashes = 0;
        bool pathy = true, caps = false;
        for (size_t i = 0; i < n && pathy; i++) {
            slashes += s[i] == '/';
            caps |= s[i] >= 'A' && s[i] <= 'Z';
            pathy = is_alnum(s[i]) || strchr("/._-~", s[i]);
        }
        const char *last = memrchr(s, '/', n);
        bool ext = last && memchr(last, '.', n - (size_t)(last - s));
        if (pathy && (ext || (!caps && slashes >= 2)))
            return true;
    }
    if ((n > 7 && memcmp(s, "http://", 7) == 0) || (n > 8 && memcmp(s, "https://", 8) == 0) ||
        (n > 7 && memcmp(s, "file://", 7) == 0))
        return true;
    if (s[0] == '%' && s[n - 1] == '%')
        return true; /* %APPDATA% */
    /* <your-token>, [token], {token}, (token) */
    if ((s[0] == '<' && s[n - 1] == '>') || (s[0] == '[' && s[n - 1] == ']') ||
        (s[0] == '{' && s[n - 1] == '}') || (s[0] == '(' && s[n - 1] == ')'))
        return true;
    /* masks: xxxx, ****, ...., a run of one character */
    size_t run = 1, distinct = 0;
    bool seen[256] = {false};
    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)s[i];
        if (!seen[c]) {
            seen[c] = true;
            distinct++;
        }
        if (i && s[i] == s[i - 1]) {
            run++;
            if (run >= 4 && (c == 'x' || c == 'X' || c == '*' || c == '#' || c == '?'))
                return true;
        } else {
            run = 1;
        }
    }
    if (distinct <= 2 && n >= 4)
        return true;
    if (memmem(s, n, "\xe2\x80\xa2\xe2\x80\xa2", 6))
        return true; /* •• */
    /* the words below are looked up in a lower-cased copy (its first 512
     * bytes: placeholders are short) */
    char low[512];
    size_t ln = n < sizeof(low) ? n : sizeof(low);
    for (size_t i = 0; i < ln; i++)
        low[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i];
    /* words people put where the secret goes */
    static const char *const within[] = {"your",     "changeme", "change_me",   "change-me",
                                         "changeit", "replace",  "placeholder", "redacted",
                                         "dummy",    "insert",   "fixme",       "todo",
                                         "<",        "_here",    "-here"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(within); i++)
        if (memmem(low, ln, within[i], strlen(within[i])))
            return true;

    /* values that stand for "no value" or name the field; weak passwords
     * (admin, root, 123456, password123) are secrets and stay out */
    static const char *const exact[] = {
        "password", "passwd",   "secret",   "token",     "apikey", "api_key", "none",    "null",
        "nil",      "true",     "false",    "undefined", "empty",  "string",  "str",     "bytes",
        "int",      "optional", "required", "example",   "sample", "value",   "default", "unknown",
        "xxx",      "na",       "n/a",      "tbd",       "foo",    "bar",     "foobar",  "baz"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(exact); i++)
        if (strlen(exact[i]) == n && memcmp(low, exact[i], n) == 0)
            return true;
    /* references to the environment or to settings in code */
    static const char *const refs[] = {
        "os.environ", "os.getenv",     "getenv(",      "process.env",     "env(",      "env[",
        "env.",       "system.getenv", "environment.", "config.",         "settings.", "secrets.",
        "vault:",     "secretref",     "valuefrom",    "import.meta.env", "ssm:",      "keyvault"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(refs); i++)
        if (memmem(low, ln, refs[i], strlen(refs[i])))
            return true;
    return false;
}

/* ---- path globs ---- */

/* '*' any run without '/', '**' any run (with "**\/" also none), '?' one
 * character other than '/'. */
static bool glob_at(const char *g, const char *p)
{
    while (*g) {
        if (g[0] == '*' && g[1] == '*') {
            const char *rest = g + 2;
            if (*rest == '/') {
                /* "**\/": zero or more directories */
                rest++;
                if (glob_at(rest, p))
                    return true;
                for (const char *q = p; *q; q++)
                    if (*q == '/' && glob_at(rest, q + 1))
                        return true;
                return false;
            }
            for (const char *q = p;; q++) {
                if (glob_at(rest, q))
                    return true;
                if (*q == '\0')
                    return false;
            }
        }
        if (*g == '*') {
            g++;
            for (const char *q = p;; q++) {
                if (glob_at(g, q))
                    return true;
                if (*q == '\0' || *q == '/')
                    return false;
            }
        }
        if (*p == '\0')
            return false;
        if (*g == '?') {
            if (*p == '/')
                return false;
        } else if (*g != *p) {
            return false;
        }
        g++;
        p++;
    }
    return *p == '\0';
}

bool mn_scan__glob_match(const char *glob, const char *path)
{
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    while (path[0] == '/')
        path++;
    while (glob[0] == '.' && glob[1] == '/')
        glob += 2;
    size_t gl = strlen(glob);
    if (gl && glob[gl - 1] == '/') {
        /* "dir/": everything under it */
        char buf[1024];
        if (gl + 2 >= sizeof(buf))
            return false;
        memcpy(buf, glob, gl);
        memcpy(buf + gl, "**", 3);
        return mn_scan__glob_match(buf, path);
    }
    if (glob[0] == '/')
        return glob_at(glob + 1, path);
    if (!strchr(glob, '/')) {
        /* no slash: the file name at any depth, as in .gitignore */
        const char *base = strrchr(path, '/');
        return glob_at(glob, base ? base + 1 : path) || glob_at(glob, path);
    }
    return glob_at(glob, path);
}
