/*
 * speaker.c - the speaker signal of search (fusion.c): an episode written
 * as a transcript turn ("Melanie: I just signed up for a pottery class")
 * said by someone the query names ("What activities does Melanie partake
 * in?") gets speaker = 1.
 *
 * Why: in a conversation between two people, the question about one of
 * them is answered by what that one said, but BM25 weighs the name the
 * same in "Melanie: ..." (her turn) and in "Caroline: Wow, Melanie! ..."
 * (the other speaking to her), and the name is in half the turns, so its
 * idf is low either way. The speaker is metadata of the turn, not a word
 * of it; this signal keeps the two apart (on LoCoMo's dev conversations
 * turn recall@10 0.725 -> 0.76, docs/internals/retrieval.md).
 *
 * The speaker is the label a turn starts with: one to three words, each
 * beginning with a capital letter (ASCII) or a non-ASCII letter, before a
 * colon that ends the label (followed by a space or the end), at most
 * LABEL_MAX bytes. It is read from the candidate's title (the first line of
 * the body when the turn was saved without one): no more reads. Only
 * episodes: "Decision: ..." in a decision's title is not a speaker.
 * speaker = the share of the label's words (of two characters or more)
 * that are whole words of the query, ASCII case folded ("melanie's" names
 * Melanie; "John" names "John Smith" half). Bounded: a pass over the query
 * per word of a candidate's label.
 */
#include "common.h"

#include "retrieve/retrieve_internal.h"

#define LABEL_MAX   40
#define LABEL_WORDS 3

static bool word_byte(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch >= 0x80;
}

static unsigned char fold(unsigned char ch)
{
    return ch >= 'A' && ch <= 'Z' ? (unsigned char)(ch + 32) : ch;
}

/* w[0..n) is a whole word of text (ASCII case folded) */
static bool has_word(const char *text, size_t len, const char *w, size_t n)
{
    for (size_t i = 0; i + n <= len; i++) {
        if (i > 0 && word_byte((unsigned char)text[i - 1]))
            continue;
        size_t j = 0;
        while (j < n && fold((unsigned char)text[i + j]) == fold((unsigned char)w[j]))
            j++;
        if (j == n && (i + n == len || !word_byte((unsigned char)text[i + n])))
            return true;
    }
    return false;
}

size_t mn_speaker_label(const char *title, const char **start)
{
    const char *p = title;
    while (*p == ' ' || *p == '\t')
        p++;
    *start = p;
    size_t words = 0;
    for (;;) {
        unsigned char ch = (unsigned char)*p;
        if (!((ch >= 'A' && ch <= 'Z') || ch >= 0x80))
            return 0;
        while (word_byte((unsigned char)*p) || *p == '.' || *p == '\'' || *p == '-' || *p == '_')
            p++;
        if (++words > LABEL_WORDS || (size_t)(p - *start) > LABEL_MAX)
            return 0;
        if (*p == ':' && (p[1] == ' ' || p[1] == '\t' || p[1] == '\0'))
            return (size_t)(p - *start);
        if (*p != ' ')
            return 0;
        p++;
    }
}

double mn_speaker_named(const char *label, size_t n, const char *query, size_t qlen)
{
    size_t words = 0, found = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && !word_byte((unsigned char)label[i]))
            i++;
        size_t s = i;
        while (i < n && word_byte((unsigned char)label[i]))
            i++;
        if (i - s < 2)
            continue;
        words++;
        found += has_word(query, qlen, label + s, i - s);
    }
    return words ? (double)found / (double)words : 0;
}

void mn_speaker_signal(mn_search_ctx *c)
{
    const char *query = c->req->query;
    size_t qlen = query ? strlen(query) : 0;
    for (size_t i = 0; i < c->memories.len && qlen; i++) {
        mn_memory_cand *m = &c->memories.items[i];
        const char *label;
        size_t n;
        m->speaker = 0;
        m->labelled = false;
        if (!m->kind || strcmp(m->kind, "episode") != 0 || !m->title)
            continue;
        if ((n = mn_speaker_label(m->title, &label)) > 0) {
            m->labelled = true;
            m->speaker = mn_speaker_named(label, n, query, qlen);
        }
    }
}
