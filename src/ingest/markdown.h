/*
 * markdown.h - a Markdown or reStructuredText document cut into what the
 * document ingest keeps (markdown.c): its front matter, its title, its
 * sections by heading, and the local documents it links to.
 *
 * Headings: ATX (# .. ######) and setext (a line underlined with === or
 * ---) outside fenced code, in Markdown; in reST a title underlined (and
 * maybe overlined) with one punctuation character at least as long as the
 * title, levels in the order the adornments first appear. Front matter:
 * YAML between "---" lines at the very top (Jekyll, Hugo, Obsidian, MADR).
 *
 * Sections: a document with one heading of its top level (its title) is
 * cut at the next level; otherwise at the top level. Deeper headings stay
 * inside their section. The text before the first cut is the preamble
 * (level 0), titled as the document.
 */
#ifndef MN_INGEST_MARKDOWN_H
#define MN_INGEST_MARKDOWN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *heading; /* the heading's text ("" for the preamble) */
    char *anchor;  /* a slug of it, unique in the document */
    int level;     /* 0: preamble */
    char *text;    /* the section's body (deeper headings kept), without its own heading */
    size_t line;   /* 1-based line of the heading */
} mn_md_section;

typedef struct {
    json_t *front; /* front matter (an object), or NULL */
    char *title;   /* front title, else the first top heading, else the file's name */
    mn_md_section *sections;
    size_t nsections;
    json_t *links; /* local targets: "path/rel.md" (resolved against the document's directory),
                      "wiki:Name" for [[Name]] */
} mn_md_doc;

/** Parse text (valid UTF-8) of the document at path (relative; for its name and links). */
int mn_md_parse(mn_md_doc *out, const char *path, const char *text, size_t len);
void mn_md_doc_release(mn_md_doc *d);

/** The section whose heading is one of the names (space-separated alternatives with '|'). */
const mn_md_section *mn_md_find(const mn_md_doc *d, const char *names);

/** Local link targets of a text, appended to links (as mn_md_doc.links). */
void mn_md_links(json_t *links, const char *doc_path, const char *text, size_t len);

#endif
