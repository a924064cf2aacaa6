/*
 * lang.c - stop words per language and the cheap language guess of a text.
 *
 * Stop words are the function words of each language (articles, pronouns,
 * prepositions, auxiliaries), written here in the normalised form the
 * tokenizer produces: case-folded, Latin without diacritics ("ete" for
 * "été"), Cyrillic with ё as е. Words that carry meaning in code or in dated
 * conversation ("may", "will", "won", "all", "before", "after", "over") are left out
 * on purpose. All lists live in one open-addressing table mapping a word to
 * a bit mask of the languages that list it, built once (pthread_once).
 *
 * mn_lang_detect reads at most the first 4 KiB (or up to its 24th stop
 * word): if Cyrillic letters outnumber
 * Latin ones the text is Russian; otherwise each Latin language scores
 * 2 points per stop word of its list and 1 per letter only it uses
 * (è ê à ç œ ... for French, ä ö ü ß for German, ñ á í ó ú ¿ ¡ for Spanish).
 * A language other than English wins only with at least 4 points and more
 * than 1.5 x English's score + 1, because code and English prose mention
 * "de", "la", "die" now and then; English wins with at least one stop word;
 * otherwise the text is MN_LANG_UNKNOWN (the tokenizer then uses English).
 */
#include <pthread.h>
#include <utf8proc.h>

#include "common.h"
#include "text/tokenize.h"

static const char *const stop_en[] = {
    "a",        "an",         "the",        "and",   "or",     "but",     "if",      "then",
    "else",     "when",       "while",      "of",    "at",     "by",      "for",     "with",
    "about",    "into",       "to",         "from",  "in",     "on",      "is",      "are",
    "was",      "were",       "be",         "been",  "being",  "am",      "have",    "has",
    "had",      "having",     "do",         "does",  "did",    "doing",   "i",       "me",
    "my",       "mine",       "myself",     "we",    "us",     "our",     "ours",    "you",
    "your",     "yours",      "he",         "him",   "his",    "she",     "her",     "hers",
    "it",       "its",        "itself",     "they",  "them",   "their",   "theirs",  "what",
    "which",    "who",        "whom",       "whose", "this",   "that",    "these",   "those",
    "there",    "here",       "where",      "why",   "how",    "as",      "so",      "than",
    "too",      "can",        "could",      "would", "should", "shall",   "might",   "must",
    "just",     "also",       "not",        "no",    "nor",    "very",    "because", "whether",
    "until",    "s",          "t",          "d",     "ll",     "m",       "re",      "ve",
    "don",      "doesn",      "didn",       "isn",   "aren",   "wasn",    "weren",   "wouldn",
    "shouldn",  "couldn",     "hasn",       "haven", "hadn",   "himself", "herself", "ourselves",
    "yourself", "yourselves", "themselves",
};

static const char *const stop_ru[] = {
    "и",     "в",       "во",      "не",      "что",     "он",      "на",      "я",       "с",
    "со",    "как",     "а",       "то",      "все",     "она",     "так",     "его",     "но",
    "да",    "ты",      "к",       "у",       "же",      "вы",      "за",      "бы",      "по",
    "ее",    "мне",     "было",    "вот",     "от",      "меня",    "еще",     "нет",     "о",
    "об",    "из",      "ему",     "когда",   "даже",    "ну",      "ли",      "если",    "уже",
    "или",   "ни",      "быть",    "был",     "была",    "были",    "него",    "нее",     "до",
    "вас",   "вам",     "ведь",    "там",     "себя",    "себе",    "ей",      "они",     "тут",
    "где",   "есть",    "ней",     "для",     "мы",      "тебя",    "тебе",    "их",      "чем",
    "сам",   "чтобы",   "без",     "чего",    "тоже",    "под",     "будет",   "тогда",   "кто",
    "этот",  "эта",     "это",     "эти",     "этого",   "этой",    "этом",    "эту",     "того",
    "тот",   "та",      "те",      "том",     "тем",     "потому",  "какой",   "какая",   "какие",
    "ним",   "них",     "нам",     "нас",     "им",      "здесь",   "мой",     "моя",     "мое",
    "мои",   "свой",    "свою",    "при",     "после",   "над",     "через",   "про",     "перед",
    "также", "который", "которая", "которое", "которые", "которых", "которую", "котором", "ж",
};

static const char *const stop_fr[] = {
    "au",    "aux",   "avec",  "ce",    "ces",  "dans",  "de",    "des",   "du",   "elle",
    "elles", "en",    "et",    "eux",   "il",   "ils",   "je",    "la",    "le",   "les",
    "leur",  "leurs", "lui",   "ma",    "mais", "me",    "meme",  "mes",   "moi",  "mon",
    "ne",    "nos",   "notre", "nous",  "on",   "ou",    "par",   "pas",   "pour", "qu",
    "que",   "qui",   "sa",    "se",    "ses",  "son",   "sur",   "ta",    "te",   "tes",
    "toi",   "ton",   "tu",    "un",    "une",  "vos",   "votre", "vous",  "c",    "d",
    "j",     "l",     "m",     "n",     "s",    "t",     "y",     "a",     "est",  "sont",
    "ete",   "etre",  "ai",    "avons", "avez", "ont",   "etait", "cette", "cet",  "comme",
    "donc",  "car",   "ni",    "si",    "tres", "aussi", "sans",  "sous",  "cela", "ca",
};

static const char *const stop_de[] = {
    "der",   "die",    "das",   "den",  "dem",   "des",    "ein",    "eine", "einer", "eines",
    "einem", "einen",  "und",   "oder", "aber",  "nicht",  "ist",    "sind", "war",   "waren",
    "sein",  "bin",    "bist",  "hat",  "haben", "hatte",  "ich",    "du",   "er",    "sie",
    "es",    "wir",    "ihr",   "mit",  "von",   "zu",     "zum",    "zur",  "auf",   "fur",
    "in",    "im",     "an",    "am",   "bei",   "aus",    "nach",   "uber", "auch",  "als",
    "wie",   "wenn",   "dass",  "so",   "noch",  "nur",    "schon",  "sich", "mich",  "mir",
    "dich",  "dir",    "uns",   "euch", "ihm",   "ihn",    "ihnen",  "kein", "keine", "doch",
    "wird",  "werden", "wurde", "kann", "diese", "dieser", "dieses", "sehr", "hier",
};

static const char *const stop_es[] = {
    "el",    "la",   "los",    "las",   "un",    "una",  "unos", "unas",  "y",
    "o",     "pero", "no",     "es",    "son",   "fue",  "era",  "ser",   "estar",
    "esta",  "este", "esto",   "estos", "estas", "ese",  "esa",  "de",    "del",
    "al",    "a",    "en",     "con",   "por",   "para", "sin",  "sobre", "que",
    "quien", "como", "cuando", "donde", "mas",   "muy",  "ya",   "se",    "su",
    "sus",   "le",   "les",    "lo",    "me",    "mi",   "mis",  "te",    "tu",
    "yo",    "nos",  "ella",   "ellos", "ha",    "han",  "hay",  "tiene", "tambien",
};

typedef struct {
    const char *word;
    uint8_t len;
    uint8_t mask; /* bit (1 << lang) per language listing the word */
} stop_entry;

#define STOP_SLOTS 2048u /* power of two, well over twice the number of distinct words */

static stop_entry stop_table[STOP_SLOTS];
static pthread_once_t stop_once = PTHREAD_ONCE_INIT;

static uint32_t fnv1a(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static void stop_add(const char *w, mn_lang lang)
{
    size_t n = strlen(w);
    uint32_t i = fnv1a(w, n) & (STOP_SLOTS - 1);
    for (;;) {
        stop_entry *e = &stop_table[i];
        if (!e->word) {
            e->word = w;
            e->len = (uint8_t)n;
            e->mask = (uint8_t)(1u << lang);
            return;
        }
        if (e->len == n && memcmp(e->word, w, n) == 0) {
            e->mask |= (uint8_t)(1u << lang);
            return;
        }
        i = (i + 1) & (STOP_SLOTS - 1);
    }
}

static void stop_build(void)
{
    static const struct {
        const char *const *words;
        size_t n;
        mn_lang lang;
    } lists[] = {
        {stop_en, MN_ARRAY_SIZE(stop_en), MN_LANG_EN},
        {stop_ru, MN_ARRAY_SIZE(stop_ru), MN_LANG_RU},
        {stop_fr, MN_ARRAY_SIZE(stop_fr), MN_LANG_FR},
        {stop_de, MN_ARRAY_SIZE(stop_de), MN_LANG_DE},
        {stop_es, MN_ARRAY_SIZE(stop_es), MN_LANG_ES},
    };
    for (size_t l = 0; l < MN_ARRAY_SIZE(lists); l++)
        for (size_t i = 0; i < lists[l].n; i++)
            stop_add(lists[l].words[i], lists[l].lang);
}

/* The language mask of a normalised word (0 when no list has it). */
static unsigned stop_mask(const char *w, size_t n)
{
    if (n == 0 || n > 24)
        return 0;
    pthread_once(&stop_once, stop_build);
    uint32_t i = fnv1a(w, n) & (STOP_SLOTS - 1);
    for (;;) {
        const stop_entry *e = &stop_table[i];
        if (!e->word)
            return 0;
        if (e->len == n && memcmp(e->word, w, n) == 0)
            return e->mask;
        i = (i + 1) & (STOP_SLOTS - 1);
    }
}

int mn_lang_is_stopword(mn_lang lang, const char *word, size_t len)
{
    /* Cyrillic starts with 0xD0..0xD3 in UTF-8: those words are Russian whatever the text. */
    if (len > 0 && (unsigned char)word[0] >= 0xD0 && (unsigned char)word[0] <= 0xD4)
        lang = MN_LANG_RU;
    else if (lang == MN_LANG_UNKNOWN || lang == MN_LANG_RU)
        lang = MN_LANG_EN;
    if ((unsigned)lang >= MN_LANG__COUNT)
        return 0;
    return (stop_mask(word, len) >> lang) & 1u;
}

static const char *const lang_codes[MN_LANG__COUNT] = {"", "en", "ru", "fr", "de", "es"};

const char *mn_lang_code(mn_lang lang)
{
    return (unsigned)lang < MN_LANG__COUNT ? lang_codes[lang] : "";
}

mn_lang mn_lang_from_code(const char *code)
{
    if (!code)
        return MN_LANG_UNKNOWN;
    for (int l = 1; l < MN_LANG__COUNT; l++)
        if (strcasecmp(code, lang_codes[l]) == 0)
            return (mn_lang)l;
    return MN_LANG_UNKNOWN;
}

/* Letters only one of the Latin languages uses, as hints (lower and upper case). */
static mn_lang accent_lang(int32_t cp)
{
    switch (cp | 0x20) { /* Latin-1 upper case is lower case - 0x20 */
    case 0xE8:
    case 0xEA:
    case 0xE0:
    case 0xE2:
    case 0xE7:
    case 0xEE:
    case 0xF4:
    case 0xF9:
    case 0xFB:
    case 0xEB:
    case 0xEF:
    case 0xE9:
        return MN_LANG_FR;
    case 0xE4:
    case 0xF6:
    case 0xFC:
        return MN_LANG_DE;
    case 0xF1:
    case 0xE1:
    case 0xED:
    case 0xF3:
    case 0xFA:
        return MN_LANG_ES;
    default:
        break;
    }
    if (cp == 0xDF)
        return MN_LANG_DE;
    if (cp == 0x153 || cp == 0x152)
        return MN_LANG_FR;
    if (cp == 0xBF || cp == 0xA1)
        return MN_LANG_ES;
    return MN_LANG_UNKNOWN;
}

#define DETECT_BYTES 4096
#define WORD_CAP     32
#define ENOUGH_HITS  24 /* stop words enough to decide: reading on would not change the outcome */

mn_lang mn_lang_detect(const char *text, size_t len)
{
    if (!text)
        return MN_LANG_UNKNOWN;
    if (len > DETECT_BYTES)
        len = DETECT_BYTES;
    const uint8_t *s = (const uint8_t *)text;
    unsigned hits[MN_LANG__COUNT] = {0}, accents[MN_LANG__COUNT] = {0};
    size_t latin = 0, cyr = 0, total_hits = 0;
    char word[WORD_CAP];
    size_t wlen = 0;
    bool wbad = false;
    size_t i = 0;
    for (;;) {
        int32_t cp = -1;
        size_t n = 1;
        if (i < len) {
            if (s[i] < 0x80) {
                cp = s[i];
            } else {
                utf8proc_ssize_t r = utf8proc_iterate(s + i, (utf8proc_ssize_t)(len - i), &cp);
                if (r > 0)
                    n = (size_t)r;
                else
                    cp = -1;
            }
        }
        char enc[8];
        size_t enc_n = 0;
        bool letter = false;
        if (i >= len || cp < 0) {
            letter = false;
        } else if (cp < 0x80) {
            if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') {
                letter = true;
                latin++;
                enc[0] = (char)(cp | 0x20);
                enc_n = 1;
            }
        } else if (cp >= 0x400 && cp <= 0x4FF) {
            letter = true;
            cyr++;
            int32_t lc = cp;
            if (lc == 0x401 || lc == 0x451)
                lc = 0x435; /* ё -> е, as the tokenizer does */
            else if (lc >= 0x410 && lc <= 0x42F)
                lc += 0x20;
            else if (lc >= 0x400 && lc <= 0x40F)
                lc += 0x50;
            enc_n = (size_t)utf8proc_encode_char(lc, (utf8proc_uint8_t *)enc);
        } else {
            mn_lang hint = accent_lang(cp);
            if (hint != MN_LANG_UNKNOWN)
                accents[hint]++;
            utf8proc_category_t cat = utf8proc_category(cp);
            if (cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) {
                letter = true;
                if (cp <= 0x24F || (cp >= 0x1E00 && cp <= 0x1EFF)) {
                    latin++;
                    /* Base letter without its accent, folded: "été" -> "ete". */
                    utf8proc_int32_t dec[4];
                    int last = 0;
                    utf8proc_ssize_t dn = utf8proc_decompose_char(
                        cp, dec, 4, UTF8PROC_DECOMPOSE | UTF8PROC_CASEFOLD | UTF8PROC_STRIPMARK,
                        &last);
                    for (utf8proc_ssize_t k = 0; k < dn && k < 4; k++)
                        if (dec[k] < 0x80 && enc_n < sizeof(enc))
                            enc[enc_n++] = (char)dec[k];
                    if (enc_n == 0)
                        wbad = true;
                } else {
                    wbad = true; /* a script with no stop list */
                }
            }
        }
        if (letter) {
            if (wlen + enc_n <= WORD_CAP)
                memcpy(word + wlen, enc, enc_n);
            else
                wbad = true;
            wlen += enc_n;
        } else if (wlen > 0) {
            if (!wbad && wlen <= WORD_CAP) {
                unsigned mask = stop_mask(word, wlen);
                for (int l = 1; l < MN_LANG__COUNT; l++)
                    if (mask & (1u << l))
                        hits[l]++;
                total_hits += mask != 0;
            }
            wlen = 0;
            wbad = false;
            if (total_hits >= ENOUGH_HITS)
                break;
        }
        if (i >= len)
            break;
        i += n;
    }
    if (cyr > latin)
        return MN_LANG_RU;
    if (latin == 0)
        return MN_LANG_UNKNOWN;
    unsigned en = 2 * hits[MN_LANG_EN];
    mn_lang best = MN_LANG_UNKNOWN;
    unsigned best_score = 0;
    static const mn_lang latin_langs[] = {MN_LANG_FR, MN_LANG_DE, MN_LANG_ES};
    for (size_t k = 0; k < MN_ARRAY_SIZE(latin_langs); k++) {
        mn_lang l = latin_langs[k];
        unsigned sc = 2 * hits[l] + accents[l];
        if (sc > best_score) {
            best_score = sc;
            best = l;
        }
    }
    if (best != MN_LANG_UNKNOWN && best_score >= 4 && 2 * best_score > 3 * en + 2)
        return best;
    if (en >= 2)
        return MN_LANG_EN;
    return MN_LANG_UNKNOWN;
}
