/*
 * test_parse.c - extraction of one file (src/index/parse.h): symbols with
 * their kinds, qualified names, lines, signatures and docstrings; imports,
 * calls and base classes; chunks; and the inputs that must never crash or
 * leak (broken code, empty files, a 1 MB minified line, deep nesting,
 * invalid UTF-8, NUL bytes, random bytes).
 *
 * Every result goes through check_invariants(), which holds for any input:
 * strings are valid UTF-8 without NUL, spans lie inside the file, indexes
 * point at existing symbols, hashes are 32 hex digits, chunks respect their
 * size limits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#include "index/parse.h"
#include "util/buf.h"

#include "test.h"

static mn_parser *parser;
static mn_parse_result result = MN_PARSE_RESULT_INIT;

/* ---- helpers ---- */

static bool valid_utf8(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        size_t n;
        uint32_t cp;
        if (u[0] < 0x80) {
            u++;
            continue;
        } else if (u[0] >= 0xC2 && u[0] <= 0xDF) {
            n = 2;
            cp = u[0] & 0x1F;
        } else if (u[0] >= 0xE0 && u[0] <= 0xEF) {
            n = 3;
            cp = u[0] & 0x0F;
        } else if (u[0] >= 0xF0 && u[0] <= 0xF4) {
            n = 4;
            cp = u[0] & 0x07;
        } else {
            return false;
        }
        for (size_t i = 1; i < n; i++) {
            if ((u[i] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (u[i] & 0x3F);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        u += n;
    }
    return true;
}

static bool valid_hash(const char *h)
{
    if (strlen(h) != 32)
        return false;
    for (size_t i = 0; i < 32; i++)
        if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')))
            return false;
    return true;
}

/* What holds for every result, whatever the input. */
static void check_invariants(const mn_parse_result *r, size_t len)
{
    int64_t lines = r->lines;
    for (size_t i = 0; i < r->symbols.len; i++) {
        const mn_symbol_rec *s = &r->symbols.items[i];
        CHECK(s->name && *s->name && valid_utf8(s->name));
        CHECK(s->qualified_name && valid_utf8(s->qualified_name));
        CHECK(s->kind && *s->kind);
        CHECK(s->start_line >= 1 && s->start_line <= s->end_line && s->end_line <= lines);
        CHECK(s->start_byte >= 0 && s->start_byte <= s->end_byte && (size_t)s->end_byte <= len);
        CHECK(!s->signature ||
              (valid_utf8(s->signature) && strlen(s->signature) <= MN_PARSE_SIGNATURE_MAX));
        CHECK(!s->docstring ||
              (valid_utf8(s->docstring) && strlen(s->docstring) <= MN_PARSE_DOCSTRING_MAX));
        CHECK(valid_hash(s->hash));
        if (i > 0)
            CHECK(r->symbols.items[i - 1].start_byte <= s->start_byte);
    }
    for (size_t i = 0; i < r->refs.len; i++) {
        const mn_ref_rec *f = &r->refs.items[i];
        CHECK(f->src_symbol >= -1 && f->src_symbol < (int)r->symbols.len);
        CHECK(f->kind && (!strcmp(f->kind, "import") || !strcmp(f->kind, "call") ||
                          !strcmp(f->kind, "inherit")));
        CHECK(f->target && *f->target && valid_utf8(f->target));
        CHECK(f->weight >= 1);
    }
    for (size_t i = 0; i < r->chunks.len; i++) {
        const mn_chunk_rec *c = &r->chunks.items[i];
        CHECK(c->symbol >= -1 && c->symbol < (int)r->symbols.len);
        CHECK(c->start_line >= 1 && c->start_line <= c->end_line && c->end_line <= lines);
        CHECK(c->end_line - c->start_line < MN_PARSE_SYMBOL_WINDOW);
        CHECK(c->text && valid_utf8(c->text) && strlen(c->text) <= MN_PARSE_CHUNK_TEXT_MAX);
        CHECK(valid_hash(c->hash));
    }
}

static void parse_n(const char *language, const char *path, const char *src, size_t len)
{
    int rc = mn_parser_parse(parser, &result, language, path, src, len);
    CHECK(rc == 0);
    check_invariants(&result, len);
}

static void parse(const char *language, const char *path, const char *src)
{
    parse_n(language, path, src, strlen(src));
}

static int sym_ix(const char *qualified)
{
    for (size_t i = 0; i < result.symbols.len; i++)
        if (!strcmp(result.symbols.items[i].qualified_name, qualified))
            return (int)i;
    return -1;
}

static const mn_symbol_rec *sym(const char *qualified)
{
    int i = sym_ix(qualified);
    if (i < 0)
        fprintf(stderr, "  no symbol '%s'\n", qualified);
    return i < 0 ? NULL : &result.symbols.items[i];
}

/* The symbol `qualified` exists with this kind and lines. */
static bool sym_is(const char *qualified, const char *kind, int64_t start, int64_t end)
{
    const mn_symbol_rec *s = sym(qualified);
    if (!s)
        return false;
    if (strcmp(s->kind, kind) || s->start_line != start || s->end_line != end) {
        fprintf(stderr, "  '%s' is %s L%lld-%lld\n", qualified, s->kind, (long long)s->start_line,
                (long long)s->end_line);
        return false;
    }
    return true;
}

/* A reference of kind to target from `from` (a qualified name, or NULL: -1). */
static const mn_ref_rec *ref_from(const char *kind, const char *target, const char *from)
{
    int src = from ? sym_ix(from) : -1;
    if (from && src < 0)
        return NULL;
    for (size_t i = 0; i < result.refs.len; i++) {
        const mn_ref_rec *f = &result.refs.items[i];
        if (!strcmp(f->kind, kind) && !strcmp(f->target, target) && f->src_symbol == src)
            return f;
    }
    fprintf(stderr, "  no %s '%s' from %s\n", kind, target, from ? from : "the file");
    return NULL;
}

static bool has_ref(const char *kind, const char *target, const char *from)
{
    return ref_from(kind, target, from) != NULL;
}

static bool no_ref(const char *kind, const char *target)
{
    for (size_t i = 0; i < result.refs.len; i++)
        if (!strcmp(result.refs.items[i].kind, kind) &&
            !strcmp(result.refs.items[i].target, target))
            return false;
    return true;
}

static size_t count_refs(const char *kind)
{
    size_t n = 0;
    for (size_t i = 0; i < result.refs.len; i++)
        n += !strcmp(result.refs.items[i].kind, kind);
    return n;
}

/* The chunk of symbol `qualified` (the first one), or NULL. */
static const mn_chunk_rec *chunk_of(const char *qualified)
{
    int s = sym_ix(qualified);
    for (size_t i = 0; s >= 0 && i < result.chunks.len; i++)
        if (result.chunks.items[i].symbol == s)
            return &result.chunks.items[i];
    return NULL;
}

static size_t chunks_of(int symbol)
{
    size_t n = 0;
    for (size_t i = 0; i < result.chunks.len; i++)
        n += result.chunks.items[i].symbol == symbol;
    return n;
}

static void setup(void)
{
    if (!parser)
        mn_parser_new(&parser);
}

/* ---- languages ---- */

static const char python_src[] =
    "\"\"\"Shopping carts.\"\"\"\n"                             /* 1 */
    "import os, sys as system\n"                                /* 2 */
    "import requests.adapters\n"                                /* 3 */
    "from . import utils, models\n"                             /* 4 */
    "from ..core.db import Session as S\n"                      /* 5 */
    "\n"                                                        /* 6 */
    "MAX_ITEMS = 100\n"                                         /* 7 */
    "logger = make_logger(__name__)\n"                          /* 8 */
    "\n"                                                        /* 9 */
    "\n"                                                        /* 10 */
    "# Base of every cart.\n"                                   /* 11 */
    "# Keeps items.\n"                                          /* 12 */
    "@dataclass\n"                                              /* 13 */
    "class Cart(BaseCart, mixins.Auditable, metaclass=Meta):\n" /* 14 */
    "    \"\"\"A cart of items.\n"                              /* 15 */
    "\n"                                                        /* 16 */
    "    Holds what the user picked.\n"                         /* 17 */
    "    \"\"\"\n"                                              /* 18 */
    "    currency = 'EUR'\n"                                    /* 19 */
    "\n"                                                        /* 20 */
    "    def add(self, item: Item,\n"                           /* 21 */
    "            qty: int = 1) -> None:  # adds\n"              /* 22 */
    "        self.validate(item)\n"                             /* 23 */
    "        self.validate(item)\n"                             /* 24 */
    "        self.items.append(item)\n"                         /* 25 */
    "\n"                                                        /* 26 */
    "    @property\n"                                           /* 27 */
    "    def total(self):\n"                                    /* 28 */
    "        def price(i):\n"                                   /* 29 */
    "            return i.price\n"                              /* 30 */
    "        return sum(map(price, self.items))\n"              /* 31 */
    "\n"                                                        /* 32 */
    "\n"                                                        /* 33 */
    "def checkout(cart):\n"                                     /* 34 */
    "    return requests.post(URL, json=cart.to_json())\n";     /* 35 */

static void test_python(void)
{
    setup();
    parse("python", "shop/cart.py", python_src);
    CHECK(result.lines == 35);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("MAX_ITEMS", "constant", 7, 7));
    CHECK(sym_is("logger", "variable", 8, 8));
    CHECK(sym_is("Cart", "class", 13, 31)); /* the decorator is part of the span */
    CHECK(sym_is("Cart.add", "method", 21, 25));
    CHECK(sym_is("Cart.total", "method", 27, 31));
    CHECK(sym_is("Cart.total.price", "function", 29, 30));
    CHECK(sym_is("checkout", "function", 34, 35));
    const mn_symbol_rec *cart = sym("Cart");
    REQUIRE(cart);
    CHECK_STR(cart->name, "Cart");
    CHECK_STR(cart->signature, "class Cart(BaseCart, mixins.Auditable, metaclass=Meta)");
    CHECK_STR(cart->docstring, "A cart of items.\n\nHolds what the user picked.");
    const mn_symbol_rec *add = sym("Cart.add");
    REQUIRE(add);
    CHECK_STR(add->name, "add");
    CHECK_STR(add->signature, "def add(self, item: Item, qty: int = 1) -> None");
    CHECK(add->docstring == NULL);
    CHECK(add->start_byte == (int64_t)(strstr(python_src, "    def add") - python_src + 4));
    CHECK_STR(sym("Cart.total")->signature, "def total(self)");
    CHECK_STR(sym("checkout")->signature, "def checkout(cart)");

    /* imports as written; from . import x gives .x */
    CHECK(has_ref("import", "os", NULL));
    CHECK(has_ref("import", "sys", NULL));
    CHECK(has_ref("import", "requests.adapters", NULL));
    CHECK(has_ref("import", ".utils", NULL));
    CHECK(has_ref("import", ".models", NULL));
    CHECK(has_ref("import", "..core.db", NULL));
    CHECK(count_refs("import") == 6);
    /* bases, keyword arguments left out */
    CHECK(has_ref("inherit", "BaseCart", "Cart"));
    CHECK(has_ref("inherit", "mixins.Auditable", "Cart"));
    CHECK(no_ref("inherit", "Meta"));
    CHECK(count_refs("inherit") == 2);
    /* calls: self. typed as the enclosing class, other receivers kept, repeated calls
     * weighted */
    const mn_ref_rec *v = ref_from("call", "self:Cart.validate", "Cart.add");
    CHECK(v && v->weight == 2);
    CHECK(has_ref("call", "items.append", "Cart.add"));
    CHECK(has_ref("call", "sum", "Cart.total"));
    CHECK(has_ref("call", "map", "Cart.total"));
    CHECK(has_ref("call", "requests.post", "checkout"));
    CHECK(has_ref("call", "cart.to_json", "checkout"));
    CHECK(has_ref("call", "make_logger", "logger"));
    CHECK(no_ref("call", "dataclass")); /* a decorator without () calls nothing */

    /* chunks: the module header, the class header, one per method, one per function */
    CHECK(chunks_of(sym_ix("Cart")) == 1);
    const mn_chunk_rec *head = chunk_of("Cart");
    REQUIRE(head);
    CHECK(head->start_line == 11 && head->end_line == 19); /* its comment, decorator, docstring */
    CHECK(strncmp(head->text, "# Base of every cart.\n# Keeps items.\n@dataclass\nclass Cart",
                  58) == 0);
    const mn_chunk_rec *ca = chunk_of("Cart.add");
    REQUIRE(ca);
    CHECK(ca->start_line == 21 && ca->end_line == 25);
    CHECK(strncmp(ca->text, "    def add(self", 16) == 0);
    CHECK(chunk_of("Cart.total.price") == NULL); /* inside Cart.total's chunk */
    CHECK(chunk_of("MAX_ITEMS") == NULL);        /* left to the windows */
    CHECK(chunks_of(-1) == 1);
    CHECK(result.chunks.items[0].symbol == -1 && result.chunks.items[0].start_line == 1 &&
          result.chunks.items[0].end_line == 8);
    CHECK(result.chunks.len == 5);
}

static const char javascript_src[] =
    "import React, { useState } from 'react';\n"                              /* 1 */
    "import './styles.css';\n"                                                /* 2 */
    "export { helper } from \"./lib/helper\";\n"                              /* 3 */
    "const fs = require('fs');\n"                                             /* 4 */
    "const lazy = () => import('./lazy');\n"                                  /* 5 */
    "\n"                                                                      /* 6 */
    "/**\n"                                                                   /* 7 */
    " * A widget.\n"                                                          /* 8 */
    " */\n"                                                                   /* 9 */
    "class Widget extends base.Component {\n"                                 /* 10 */
    "  constructor(props) { super(props); }\n"                                /* 11 */
    "  // Draws it.\n"                                                        /* 12 */
    "  render() {\n"                                                          /* 13 */
    "    return this.draw(fs.readFileSync('a.txt'));\n"                       /* 14 */
    "  }\n"                                                                   /* 15 */
    "}\n"                                                                     /* 16 */
    "\n"                                                                      /* 17 */
    "export const add = (a, b) => a + b;\n"                                   /* 18 */
    "export default function main() { add(1, 2); new Widget().render(); }\n"; /* 19 */

static void test_javascript(void)
{
    setup();
    parse("javascript", "src/widget.js", javascript_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("Widget", "class", 10, 16));
    CHECK(sym_is("Widget.render", "method", 13, 15));
    CHECK(sym_ix("Widget.constructor") < 0); /* tags.scm: #not-eq? @name "constructor" */
    CHECK(sym_is("add", "function", 18, 18));
    CHECK(sym_is("main", "function", 19, 19));
    CHECK(sym_is("lazy", "function", 5, 5));
    CHECK_STR(sym("Widget")->docstring, "A widget.");
    CHECK_STR(sym("Widget")->signature, "class Widget extends base.Component");
    CHECK_STR(sym("Widget.render")->docstring, "Draws it.");
    CHECK_STR(sym("add")->signature, "export const add = (a, b) =>");
    CHECK(sym("add")->start_byte ==
          (int64_t)(strstr(javascript_src, "export const") - javascript_src));
    CHECK_STR(sym("main")->signature, "export default function main()");

    CHECK(has_ref("import", "react", NULL));
    CHECK(has_ref("import", "./styles.css", NULL));
    CHECK(has_ref("import", "./lib/helper", NULL));
    CHECK(has_ref("import", "fs", NULL));
    CHECK(has_ref("import", "./lazy", NULL));
    CHECK(count_refs("import") == 5);
    CHECK(no_ref("call", "require")); /* tags.scm: #not-match? @name "^(require)$" */
    CHECK(has_ref("inherit", "base.Component", "Widget"));
    CHECK(has_ref("call", "this:Widget.draw", "Widget.render"));
    CHECK(has_ref("call", "fs.readFileSync", "Widget.render"));
    CHECK(has_ref("call", "add", "main"));
    CHECK(has_ref("call", "render", "main")); /* new Widget().render(): not a plain name */

    const mn_chunk_rec *w = chunk_of("Widget");
    REQUIRE(w);
    CHECK(w->start_line == 7 && w->end_line == 11);
    const mn_chunk_rec *r = chunk_of("Widget.render");
    REQUIRE(r);
    CHECK(r->start_line == 12 && r->end_line == 15);
}

static const char typescript_src[] =
    "import type { Shape } from './shape';\n"                                      /* 1 */
    "import * as path from 'path';\n"                                              /* 2 */
    "import fs = require('fs');\n"                                                 /* 3 */
    "\n"                                                                           /* 4 */
    "export interface Sized extends Shape, Named<string> {\n"                      /* 5 */
    "  area(): number;\n"                                                          /* 6 */
    "}\n"                                                                          /* 7 */
    "export type Id = string | number;\n"                                          /* 8 */
    "enum Color { Red, Green }\n"                                                  /* 9 */
    "\n"                                                                           /* 10 */
    "export abstract class Animal<T> extends Base<T> implements Sized, Walker {\n" /* 11 */
    "  abstract speak(): void;\n"                                                  /* 12 */
    "  move(d: number): void {\n"                                                  /* 13 */
    "    this.speak();\n"                                                          /* 14 */
    "    path.join(helper(d), 'x');\n"                                             /* 15 */
    "  }\n"                                                                        /* 16 */
    "}\n"                                                                          /* 17 */
    "namespace Geo {\n"                                                            /* 18 */
    "  export function dist(): number { return 0; }\n"                             /* 19 */
    "}\n";                                                                         /* 20 */

static void test_typescript(void)
{
    setup();
    parse("typescript", "src/animal.ts", typescript_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("Sized", "interface", 5, 7));
    CHECK(sym_is("Sized.area", "method", 6, 6));
    CHECK(sym_is("Id", "type", 8, 8));
    CHECK(sym_is("Color", "enum", 9, 9));
    CHECK(sym_is("Animal", "class", 11, 17));
    CHECK(sym_is("Animal.speak", "method", 12, 12));
    CHECK(sym_is("Animal.move", "method", 13, 16));
    CHECK(sym_is("Geo", "module", 18, 20));
    CHECK(sym_is("Geo.dist", "function", 19, 19));
    CHECK_STR(sym("Animal")->signature,
              "export abstract class Animal<T> extends Base<T> implements Sized, Walker");
    CHECK_STR(sym("Animal.move")->signature, "move(d: number): void");

    CHECK(has_ref("import", "./shape", NULL));
    CHECK(has_ref("import", "path", NULL));
    CHECK(has_ref("import", "fs", NULL));
    CHECK(has_ref("inherit", "Shape", "Sized"));
    CHECK(has_ref("inherit", "Named", "Sized"));
    CHECK(has_ref("inherit", "Base", "Animal"));
    CHECK(has_ref("inherit", "Sized", "Animal"));
    CHECK(has_ref("inherit", "Walker", "Animal"));
    CHECK(has_ref("call", "this:Animal.speak", "Animal.move"));
    CHECK(has_ref("call", "path.join", "Animal.move"));
    CHECK(has_ref("call", "helper", "Animal.move"));
}

static const char tsx_src[] =
    "import React from \"react\";\n"                                                 /* 1 */
    "import { Button } from \"./ui/button\";\n"                                      /* 2 */
    "\n"                                                                             /* 3 */
    "interface Props { title: string }\n"                                            /* 4 */
    "\n"                                                                             /* 5 */
    "/** Renders the header. */\n"                                                   /* 6 */
    "export function Header({ title }: Props) {\n"                                   /* 7 */
    "  const [open, setOpen] = React.useState(false);\n"                             /* 8 */
    "  return <div onClick={() => setOpen(!open)}><Button label={title} /></div>;\n" /* 9 */
    "}\n"                                                                            /* 10 */
    "\n"                                                                             /* 11 */
    "export default class Page extends React.Component<Props> {\n"                   /* 12 */
    "  render() { return <Header title={this.props.title} />; }\n"                   /* 13 */
    "}\n";                                                                           /* 14 */

static void test_tsx(void)
{
    setup();
    parse("tsx", "src/page.tsx", tsx_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("Props", "interface", 4, 4));
    CHECK(sym_is("Header", "function", 7, 10));
    CHECK(sym_is("Page", "class", 12, 14));
    CHECK(sym_is("Page.render", "method", 13, 13));
    CHECK_STR(sym("Header")->docstring, "Renders the header.");
    CHECK(has_ref("import", "react", NULL));
    CHECK(has_ref("import", "./ui/button", NULL));
    CHECK(has_ref("inherit", "React.Component", "Page"));
    CHECK(has_ref("call", "React.useState", "Header"));
    CHECK(has_ref("call", "setOpen", "Header"));
}

static const char go_src[] = "package store\n"                                           /* 1 */
                             "\n"                                                        /* 2 */
                             "import \"fmt\"\n"                                          /* 3 */
                             "import (\n"                                                /* 4 */
                             "\t\"os\"\n"                                                /* 5 */
                             "\tstr \"example.com/m/strings\"\n"                         /* 6 */
                             ")\n"                                                       /* 7 */
                             "\n"                                                        /* 8 */
                             "// Repo stores things.\n"                                  /* 9 */
                             "// It is safe for concurrent use.\n"                       /* 10 */
                             "type Repo struct {\n"                                      /* 11 */
                             "\tBase\n"                                                  /* 12 */
                             "\t*sync.Mutex\n"                                           /* 13 */
                             "\tname string\n"                                           /* 14 */
                             "}\n"                                                       /* 15 */
                             "\n"                                                        /* 16 */
                             "type Saver interface {\n"                                  /* 17 */
                             "\tio.Writer\n"                                             /* 18 */
                             "\tSave() error\n"                                          /* 19 */
                             "}\n"                                                       /* 20 */
                             "\n"                                                        /* 21 */
                             "type ID = int64\n"                                         /* 22 */
                             "\n"                                                        /* 23 */
                             "const MaxSize = 3\n"                                       /* 24 */
                             "\n"                                                        /* 25 */
                             "// Save writes the repo.\n"                                /* 26 */
                             "func (r *Repo) Save(x int) error {\n"                      /* 27 */
                             "\tfmt.Println(r.name)\n"                                   /* 28 */
                             "\treturn helper(x)\n"                                      /* 29 */
                             "}\n"                                                       /* 30 */
                             "\n"                                                        /* 31 */
                             "func helper(x int) error { return str.Check(os.Args) }\n"; /* 32 */

static void test_go(void)
{
    setup();
    parse("go", "store/repo.go", go_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("Repo", "struct", 11, 15));
    CHECK(sym_is("Saver", "interface", 17, 20));
    CHECK(sym_is("ID", "type", 22, 22));
    CHECK(sym_is("MaxSize", "constant", 24, 24));
    CHECK(sym_is("Repo.Save", "method", 27, 30));
    CHECK(sym_is("helper", "function", 32, 32));
    CHECK_STR(sym("Repo")->docstring, "Repo stores things.\nIt is safe for concurrent use.");
    CHECK_STR(sym("Repo")->signature, "type Repo struct");
    CHECK_STR(sym("Repo.Save")->name, "Save");
    CHECK_STR(sym("Repo.Save")->signature, "func (r *Repo) Save(x int) error");
    CHECK_STR(sym("Repo.Save")->docstring, "Save writes the repo.");

    CHECK(has_ref("import", "fmt", NULL));
    CHECK(has_ref("import", "os", NULL));
    CHECK(has_ref("import", "example.com/m/strings", NULL));
    CHECK(count_refs("import") == 3);
    CHECK(has_ref("inherit", "Base", "Repo"));
    CHECK(has_ref("inherit", "sync.Mutex", "Repo"));
    CHECK(has_ref("inherit", "io.Writer", "Saver"));
    CHECK(has_ref("call", "fmt.Println", "Repo.Save"));
    CHECK(has_ref("call", "helper", "Repo.Save"));
    CHECK(has_ref("call", "str.Check", "helper"));

    const mn_chunk_rec *c = chunk_of("Repo");
    REQUIRE(c);
    CHECK(c->start_line == 9 && c->end_line == 15); /* comment included */
}

static const char rust_src[] =
    "use std::collections::{HashMap, hash_map::Entry as E};\n"      /* 1 */
    "use crate::store::Store;\n"                                    /* 2 */
    "use super::util::*;\n"                                         /* 3 */
    "mod parse;\n"                                                  /* 4 */
    "\n"                                                            /* 5 */
    "/// A point.\n"                                                /* 6 */
    "#[derive(Debug)]\n"                                            /* 7 */
    "pub struct Point<T> { x: T }\n"                                /* 8 */
    "pub enum Shape { Circle }\n"                                   /* 9 */
    "pub trait Area {\n"                                            /* 10 */
    "    fn area(&self) -> f64;\n"                                  /* 11 */
    "}\n"                                                           /* 12 */
    "impl<T> Point<T> {\n"                                          /* 13 */
    "    /// Makes one.\n"                                          /* 14 */
    "    pub fn new(x: T) -> Self { Self::check(); Point { x } }\n" /* 15 */
    "}\n"                                                           /* 16 */
    "impl Area for Shape {\n"                                       /* 17 */
    "    fn area(&self) -> f64 { compute(1).unwrap() }\n"           /* 18 */
    "}\n"                                                           /* 19 */
    "mod inner {\n"                                                 /* 20 */
    "    pub fn f() { super::parse::run(); }\n"                     /* 21 */
    "}\n"                                                           /* 22 */
    "type Map = HashMap<u32, u32>;\n"                               /* 23 */
    "const MAX: u32 = 3;\n"                                         /* 24 */
    "macro_rules! square { ($x:expr) => { $x * $x } }\n";           /* 25 */

static void test_rust(void)
{
    setup();
    parse("rust", "src/geo.rs", rust_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("Point", "struct", 8, 8));
    CHECK(sym_is("Shape", "enum", 9, 9));
    CHECK(sym_is("Area", "trait", 10, 12));
    CHECK(sym_is("Area.area", "method", 11, 11));
    CHECK(sym_is("Point.new", "method", 15, 15));
    CHECK(sym_is("Shape.area", "method", 18, 18));
    CHECK(sym_is("inner", "module", 20, 22));
    CHECK(sym_is("inner.f", "function", 21, 21));
    CHECK(sym_is("Map", "type", 23, 23));
    CHECK(sym_is("MAX", "constant", 24, 24));
    CHECK(sym_is("square", "macro", 25, 25));
    CHECK_STR(sym("Point")->docstring, "A point."); /* over the attribute */
    CHECK_STR(sym("Point.new")->docstring, "Makes one.");
    CHECK_STR(sym("Point.new")->signature, "pub fn new(x: T) -> Self");

    CHECK(has_ref("import", "std::collections::HashMap", NULL));
    CHECK(has_ref("import", "std::collections::hash_map::Entry", NULL));
    CHECK(has_ref("import", "crate::store::Store", NULL));
    CHECK(has_ref("import", "super::util", NULL));
    CHECK(has_ref("import", "parse", NULL)); /* mod parse; */
    CHECK(count_refs("import") == 5);
    CHECK(has_ref("inherit", "Area", "Shape")); /* impl Area for Shape */
    CHECK(has_ref("call", "Self:Point.check", "Point.new"));
    CHECK(has_ref("call", "compute", "Shape.area"));
    CHECK(has_ref("call", "unwrap", "Shape.area"));
    CHECK(has_ref("call", "super.parse.run", "inner.f"));
}

static const char java_src[] =
    "package com.acme.shop;\n"                                                             /* 1 */
    "\n"                                                                                   /* 2 */
    "import java.util.List;\n"                                                             /* 3 */
    "import static java.util.Collections.emptyList;\n"                                     /* 4 */
    "import com.acme.util.*;\n"                                                            /* 5 */
    "\n"                                                                                   /* 6 */
    "/** A cart. */\n"                                                                     /* 7 */
    "@Entity\n"                                                                            /* 8 */
    "public class Cart<T> extends BaseCart<T> implements Serializable, Iterable<Item> {\n" /* 9 */
    "    private List<Item> items;\n"                                                      /* 10 */
    "    public Cart(int n) { super(n); }\n"                                               /* 11 */
    "    /** Adds an item. */\n"                                                           /* 12 */
    "    @Override\n"                                                                      /* 13 */
    "    public void add(Item item) {\n"                                                   /* 14 */
    "        items.add(item);\n"                                                           /* 15 */
    "        validate();\n"                                                                /* 16 */
    "    }\n"                                                                              /* 17 */
    "    enum State { OPEN, CLOSED }\n"                                                    /* 18 */
    "    interface Listener extends EventListener { void on(); }\n"                        /* 19 */
    "}\n";                                                                                 /* 20 */

static void test_java(void)
{
    setup();
    parse("java", "src/main/java/com/acme/shop/Cart.java", java_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("Cart", "class", 8, 20));
    CHECK(sym_is("Cart.Cart", "method", 11, 11));
    CHECK(sym_is("Cart.add", "method", 13, 17));
    CHECK(sym_is("Cart.State", "enum", 18, 18));
    CHECK(sym_is("Cart.Listener", "interface", 19, 19));
    CHECK(sym_is("Cart.Listener.on", "method", 19, 19));
    CHECK_STR(sym("Cart")->signature,
              "public class Cart<T> extends BaseCart<T> implements Serializable, Iterable<Item>");
    CHECK_STR(sym("Cart")->docstring, "A cart.");
    CHECK_STR(sym("Cart.add")->signature, "public void add(Item item)");
    CHECK_STR(sym("Cart.add")->docstring, "Adds an item.");

    CHECK(has_ref("import", "java.util.List", NULL));
    CHECK(has_ref("import", "java.util.Collections", NULL)); /* static: the class */
    CHECK(has_ref("import", "com.acme.util.*", NULL));
    CHECK(has_ref("inherit", "BaseCart", "Cart"));
    CHECK(has_ref("inherit", "Serializable", "Cart"));
    CHECK(has_ref("inherit", "Iterable", "Cart"));
    CHECK(has_ref("inherit", "EventListener", "Cart.Listener"));
    CHECK(has_ref("call", "items:List.add", "Cart.add")); /* the field's declared type */
    CHECK(has_ref("call", "validate", "Cart.add"));
}

static const char c_src[] =
    "#include <stdio.h>\n"                                                 /* 1 */
    "#include \"util/buf.h\"\n"                                            /* 2 */
    "\n"                                                                   /* 3 */
    "#define MAX_LEN 64\n"                                                 /* 4 */
    "#define SQUARE(x) ((x) * (x))\n"                                      /* 5 */
    "\n"                                                                   /* 6 */
    "static int helper(int n);\n"                                          /* 7 */
    "void api(void);\n"                                                    /* 8 */
    "\n"                                                                   /* 9 */
    "typedef struct node { int v; } node_t;\n"                             /* 10 */
    "struct list {\n"                                                      /* 11 */
    "    node_t *head;\n"                                                  /* 12 */
    "};\n"                                                                 /* 13 */
    "enum color { RED, GREEN };\n"                                         /* 14 */
    "\n"                                                                   /* 15 */
    "/* Frees a list.\n"                                                   /* 16 */
    " * Safe on NULL. */\n"                                                /* 17 */
    "static void list_free(struct list *l)\n"                              /* 18 */
    "{\n"                                                                  /* 19 */
    "    free(l->head);\n"                                                 /* 20 */
    "    l->ops->release(l);\n"                                            /* 21 */
    "}\n"                                                                  /* 22 */
    "\n"                                                                   /* 23 */
    "static int helper(int n) { return SQUARE(n) + printf(\"%d\", n); }\n" /* 24 */
    "static const char *\n"                                                /* 25 */
    "name_of(\n"                                                           /* 26 */
    "    int kind,\n"                                                      /* 27 */
    "    int flags)\n"                                                     /* 28 */
    "{\n"                                                                  /* 29 */
    "    return 0;\n"                                                      /* 30 */
    "}\n";                                                                 /* 31 */

static void test_c(void)
{
    setup();
    parse("c", "src/list.c", c_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("MAX_LEN", "constant", 4, 4));
    CHECK(sym_is("SQUARE", "macro", 5, 5));
    CHECK(sym_is("api", "function", 8, 8)); /* a prototype only: kept */
    CHECK(sym_is("node_t", "type", 10, 10));
    CHECK(sym_is("node", "struct", 10, 10));
    CHECK(sym_is("list", "struct", 11, 13));
    CHECK(sym_is("color", "enum", 14, 14));
    CHECK(sym_is("list_free", "function", 18, 22));
    CHECK(sym_is("helper", "function", 24, 24)); /* the definition, not the prototype */
    size_t helpers = 0;
    for (size_t i = 0; i < result.symbols.len; i++)
        helpers += !strcmp(result.symbols.items[i].name, "helper");
    CHECK(helpers == 1);
    CHECK_STR(sym("list_free")->signature, "static void list_free(struct list *l)");
    CHECK_STR(sym("list_free")->docstring, "Frees a list.\nSafe on NULL.");
    CHECK_STR(sym("api")->signature, "void api(void)");
    CHECK_STR(sym("node_t")->signature, "typedef struct node node_t");
    CHECK_STR(sym("list")->signature, "struct list");
    CHECK(sym_is("name_of", "function", 25, 31));
    CHECK_STR(sym("name_of")->signature, "static const char *name_of(int kind, int flags)");

    CHECK(has_ref("import", "<stdio.h>", NULL));
    CHECK(has_ref("import", "\"util/buf.h\"", NULL));
    CHECK(has_ref("call", "free", "list_free"));
    CHECK(has_ref("call", "l.ops.release", "list_free"));
    CHECK(has_ref("call", "SQUARE", "helper"));
    CHECK(has_ref("call", "printf", "helper"));
    CHECK(count_refs("inherit") == 0);
    /* node lives in node_t's chunk */
    CHECK(chunk_of("node") == NULL && chunk_of("node_t") != NULL);
}

static const char cpp_src[] = "#include <vector>\n"                                    /* 1 */
                              "#include \"widget.h\"\n"                                /* 2 */
                              "\n"                                                     /* 3 */
                              "namespace app {\n"                                      /* 4 */
                              "\n"                                                     /* 5 */
                              "// A widget on screen.\n"                               /* 6 */
                              "class Widget : public Base, private ns::Mixin<int> {\n" /* 7 */
                              "public:\n"                                              /* 8 */
                              "    Widget();\n"                                        /* 9 */
                              "    void draw() const;\n"                               /* 10 */
                              "    int size() const { return n_; }\n"                  /* 11 */
                              "private:\n"                                             /* 12 */
                              "    int n_;\n"                                          /* 13 */
                              "};\n"                                                   /* 14 */
                              "\n"                                                     /* 15 */
                              "void Widget::draw() const\n"                            /* 16 */
                              "{\n"                                                    /* 17 */
                              "    helper();\n"                                        /* 18 */
                              "    this->paint(size());\n"                             /* 19 */
                              "    util::log::write(\"x\");\n"                         /* 20 */
                              "}\n"                                                    /* 21 */
                              "\n"                                                     /* 22 */
                              "template <typename T>\n"                                /* 23 */
                              "T clamp(T v) { return std::max(v, T()); }\n"            /* 24 */
                              "\n"                                                     /* 25 */
                              "}  // namespace app\n";                                 /* 26 */

static void test_cpp(void)
{
    setup();
    parse("cpp", "src/widget.cpp", cpp_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("app", "module", 4, 26));
    CHECK(sym_is("app.Widget", "class", 7, 14));
    CHECK(sym_is("app.Widget.Widget", "method", 9, 9)); /* declared only: kept */
    CHECK(sym_is("app.Widget.size", "method", 11, 11));
    CHECK(sym_is("app.Widget.draw", "method", 16, 21)); /* the definition wins */
    CHECK(sym_is("app.clamp", "function", 23, 24));     /* template <...> included */
    size_t draws = 0;
    for (size_t i = 0; i < result.symbols.len; i++)
        draws += !strcmp(result.symbols.items[i].name, "draw");
    CHECK(draws == 1);
    CHECK_STR(sym("app.Widget")->docstring, "A widget on screen.");
    CHECK_STR(sym("app.Widget.draw")->name, "draw");
    CHECK_STR(sym("app.Widget.draw")->signature, "void Widget::draw() const");
    CHECK_STR(sym("app.clamp")->signature, "T clamp(T v)");

    CHECK(has_ref("import", "<vector>", NULL));
    CHECK(has_ref("import", "\"widget.h\"", NULL));
    CHECK(has_ref("inherit", "Base", "app.Widget"));
    CHECK(has_ref("inherit", "ns.Mixin", "app.Widget"));
    CHECK(has_ref("call", "helper", "app.Widget.draw"));
    CHECK(has_ref("call", "this:Widget.paint", "app.Widget.draw"));
    CHECK(has_ref("call", "size", "app.Widget.draw"));
    CHECK(has_ref("call", "util.log.write", "app.Widget.draw"));
    CHECK(has_ref("call", "std.max", "app.clamp"));
}

static const char ruby_src[] = "require 'json'\n"                  /* 1 */
                               "require_relative \"lib/helper\"\n" /* 2 */
                               "\n"                                /* 3 */
                               "# The shop.\n"                     /* 4 */
                               "module Shop\n"                     /* 5 */
                               "  # A cart.\n"                     /* 6 */
                               "  class Cart < Base::Cart\n"       /* 7 */
                               "    include Enumerable\n"          /* 8 */
                               "\n"                                /* 9 */
                               "    def initialize(items)\n"       /* 10 */
                               "      @items = items\n"            /* 11 */
                               "      validate!(items)\n"          /* 12 */
                               "    end\n"                         /* 13 */
                               "\n"                                /* 14 */
                               "    def self.build\n"              /* 15 */
                               "      new([])\n"                   /* 16 */
                               "    end\n"                         /* 17 */
                               "\n"                                /* 18 */
                               "    def total\n"                   /* 19 */
                               "      @items.sum(&:price)\n"       /* 20 */
                               "    end\n"                         /* 21 */
                               "  end\n"                           /* 22 */
                               "\n"                                /* 23 */
                               "  def self.helper\n"               /* 24 */
                               "    JSON.parse('{}')\n"            /* 25 */
                               "  end\n"                           /* 26 */
                               "end\n";                            /* 27 */

static void test_ruby(void)
{
    setup();
    parse("ruby", "lib/shop/cart.rb", ruby_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("Shop", "module", 5, 27));
    CHECK(sym_is("Shop.Cart", "class", 7, 22));
    CHECK(sym_is("Shop.Cart.initialize", "method", 10, 13));
    CHECK(sym_is("Shop.Cart.build", "method", 15, 17));
    CHECK(sym_is("Shop.Cart.total", "method", 19, 21));
    CHECK(sym_is("Shop.helper", "method", 24, 26)); /* a method of the module */
    CHECK_STR(sym("Shop")->docstring, "The shop.");
    CHECK_STR(sym("Shop.Cart")->docstring, "A cart.");
    CHECK_STR(sym("Shop.Cart")->signature, "class Cart < Base::Cart");
    CHECK_STR(sym("Shop.Cart.initialize")->signature, "def initialize(items)");

    CHECK(has_ref("import", "json", NULL));
    CHECK(has_ref("import", "./lib/helper", NULL));
    CHECK(count_refs("import") == 2);
    CHECK(has_ref("inherit", "Base.Cart", "Shop.Cart"));
    CHECK(has_ref("inherit", "Enumerable", "Shop.Cart"));
    CHECK(no_ref("call", "require") && no_ref("call", "include"));
    CHECK(has_ref("call", "validate!", "Shop.Cart.initialize"));
    CHECK(has_ref("call", "new", "Shop.Cart.build"));
    CHECK(has_ref("call", "items.sum", "Shop.Cart.total"));
    CHECK(has_ref("call", "JSON.parse", "Shop.helper"));
    /* "end" alone is no chunk */
    for (size_t i = 0; i < result.chunks.len; i++)
        CHECK(strcmp(result.chunks.items[i].text, "end") != 0 &&
              strcmp(result.chunks.items[i].text, "  end") != 0);
}

static const char php_src[] =
    "<?php\n"                                                           /* 1 */
    "namespace App\\Models;\n"                                          /* 2 */
    "\n"                                                                /* 3 */
    "use App\\Contracts\\Shape;\n"                                      /* 4 */
    "use Illuminate\\Support\\{Arr, Str as S};\n"                       /* 5 */
    "require_once __DIR__ . '/helpers.php';\n"                          /* 6 */
    "\n"                                                                /* 7 */
    "/** A user. */\n"                                                  /* 8 */
    "class User extends Model implements Shape, \\JsonSerializable {\n" /* 9 */
    "    use HasFactory;\n"                                             /* 10 */
    "    public function save(array $o = []): bool {\n"                 /* 11 */
    "        $this->validate();\n"                                      /* 12 */
    "        return parent::save($o) && helper($o);\n"                  /* 13 */
    "    }\n"                                                           /* 14 */
    "}\n"                                                               /* 15 */
    "interface Named extends Base {}\n"                                 /* 16 */
    "trait Loud { function shout() { \\Log\\info('x'); } }\n"           /* 17 */
    "function top() { return new User(); }\n";                          /* 18 */

static void test_php(void)
{
    setup();
    parse("php", "app/Models/User.php", php_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("App.Models", "module", 2, 2));
    CHECK(sym_is("User", "class", 9, 15));
    CHECK(sym_is("User.save", "method", 11, 14));
    CHECK(sym_is("Named", "interface", 16, 16));
    CHECK(sym_is("Loud", "trait", 17, 17));
    CHECK(sym_is("Loud.shout", "method", 17, 17));
    CHECK(sym_is("top", "function", 18, 18));
    CHECK_STR(sym("User")->docstring, "A user.");
    CHECK_STR(sym("User.save")->signature, "public function save(array $o = []): bool");

    CHECK(has_ref("import", "App\\Contracts\\Shape", NULL));
    CHECK(has_ref("import", "Illuminate\\Support\\Arr", NULL));
    CHECK(has_ref("import", "Illuminate\\Support\\Str", NULL));
    CHECK(has_ref("import", "/helpers.php", NULL));
    CHECK(has_ref("inherit", "Model", "User"));
    CHECK(has_ref("inherit", "Shape", "User"));
    CHECK(has_ref("inherit", "JsonSerializable", "User"));
    CHECK(has_ref("inherit", "HasFactory", "User"));
    CHECK(has_ref("inherit", "Base", "Named"));
    CHECK(has_ref("call", "this:User.validate", "User.save"));
    CHECK(has_ref("call", "parent.save", "User.save"));
    CHECK(has_ref("call", "helper", "User.save"));
    CHECK(has_ref("call", "Log.info", "Loud.shout"));
}

static const char csharp_src[] =
    "using System;\n"                                               /* 1 */
    "using System.Collections.Generic;\n"                           /* 2 */
    "using Json = Newtonsoft.Json;\n"                               /* 3 */
    "\n"                                                            /* 4 */
    "namespace Acme.Shop\n"                                         /* 5 */
    "{\n"                                                           /* 6 */
    "    /// <summary>A cart.</summary>\n"                          /* 7 */
    "    [Serializable]\n"                                          /* 8 */
    "    public class Cart : BaseCart, ICart<int>\n"                /* 9 */
    "    {\n"                                                       /* 10 */
    "        public Cart() { Init(); }\n"                           /* 11 */
    "        public void Add(Item i)\n"                             /* 12 */
    "        {\n"                                                   /* 13 */
    "            items.Add(i);\n"                                   /* 14 */
    "            Validate(i);\n"                                    /* 15 */
    "        }\n"                                                   /* 16 */
    "    }\n"                                                       /* 17 */
    "    public interface ICart<T> : IBase { void Add(Item i); }\n" /* 18 */
    "    struct Point { }\n"                                        /* 19 */
    "    enum Color { Red }\n"                                      /* 20 */
    "}\n";                                                          /* 21 */

static void test_csharp(void)
{
    setup();
    parse("csharp", "src/Cart.cs", csharp_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("Acme.Shop", "module", 5, 21));
    CHECK_STR(sym("Acme.Shop")->name, "Shop");
    CHECK(sym_is("Acme.Shop.Cart", "class", 8, 17)); /* attributes belong to it */
    CHECK(sym_is("Acme.Shop.Cart.Cart", "method", 11, 11));
    CHECK(sym_is("Acme.Shop.Cart.Add", "method", 12, 16));
    CHECK(sym_is("Acme.Shop.ICart", "interface", 18, 18));
    CHECK(sym_is("Acme.Shop.Point", "struct", 19, 19));
    CHECK(sym_is("Acme.Shop.Color", "enum", 20, 20));
    CHECK_STR(sym("Acme.Shop.Cart")->docstring, "<summary>A cart.</summary>");
    CHECK_STR(sym("Acme.Shop.Cart")->signature, "public class Cart : BaseCart, ICart<int>");

    CHECK(has_ref("import", "System", NULL));
    CHECK(has_ref("import", "System.Collections.Generic", NULL));
    CHECK(has_ref("import", "Newtonsoft.Json", NULL));
    CHECK(has_ref("inherit", "BaseCart", "Acme.Shop.Cart"));
    CHECK(has_ref("inherit", "ICart", "Acme.Shop.Cart"));
    CHECK(has_ref("inherit", "IBase", "Acme.Shop.ICart"));
    CHECK(has_ref("call", "Init", "Acme.Shop.Cart.Cart"));
    CHECK(has_ref("call", "items.Add", "Acme.Shop.Cart.Add"));
    CHECK(has_ref("call", "Validate", "Acme.Shop.Cart.Add"));
}

static const char bash_src[] = "#!/bin/bash\n"                     /* 1 */
                               "source ./lib/common.sh\n"          /* 2 */
                               ". \"$DIR/util.sh\"\n"              /* 3 */
                               "\n"                                /* 4 */
                               "# Builds everything.\n"            /* 5 */
                               "build() {\n"                       /* 6 */
                               "  make_dirs \"$1\"\n"              /* 7 */
                               "  echo done\n"                     /* 8 */
                               "}\n"                               /* 9 */
                               "\n"                                /* 10 */
                               "function deploy {\n"               /* 11 */
                               "  build && rsync -a . host:\n"     /* 12 */
                               "}\n"                               /* 13 */
                               "deploy\n"                          /* 14 */
                               ". \"$(dirname \"$0\")\"/env.sh\n"; /* 15 */

static void test_bash(void)
{
    setup();
    parse("bash", "scripts/deploy.sh", bash_src);
    CHECK(!result.syntax_errors);
    CHECK(sym_is("build", "function", 6, 9));
    CHECK(sym_is("deploy", "function", 11, 13));
    CHECK_STR(sym("build")->docstring, "Builds everything.");
    CHECK(has_ref("import", "./lib/common.sh", NULL));
    CHECK(has_ref("import", "$DIR/util.sh", NULL));
    CHECK(has_ref("import", "$(dirname $0)/env.sh", NULL)); /* quotes are shell syntax */
    CHECK(count_refs("import") == 3);
    CHECK(has_ref("call", "make_dirs", "build"));
    CHECK(has_ref("call", "build", "deploy"));
    CHECK(has_ref("call", "rsync", "deploy"));
    CHECK(has_ref("call", "deploy", NULL));
    CHECK(no_ref("call", "echo") && no_ref("call", "source"));
}

/* ---- documents and text ---- */

static const char markdown_src[] = "---\n"                   /* 1 */
                                   "title: Guide\n"          /* 2 */
                                   "---\n"                   /* 3 */
                                   "Intro text.\n"           /* 4 */
                                   "\n"                      /* 5 */
                                   "# Guide\n"               /* 6 */
                                   "\n"                      /* 7 */
                                   "Some words.\n"           /* 8 */
                                   "\n"                      /* 9 */
                                   "## Install ##\n"         /* 10 */
                                   "\n"                      /* 11 */
                                   "```sh\n"                 /* 12 */
                                   "# not a heading\n"       /* 13 */
                                   "make\n"                  /* 14 */
                                   "```\n"                   /* 15 */
                                   "\n"                      /* 16 */
                                   "### Linux\n"             /* 17 */
                                   "apt-get install mnemo\n" /* 18 */
                                   "\n"                      /* 19 */
                                   "Usage\n"                 /* 20 */
                                   "-----\n"                 /* 21 */
                                   "Run it.\n"               /* 22 */
                                   "\n"                      /* 23 */
                                   "# Reference\n";          /* 24 */

static void test_markdown(void)
{
    setup();
    parse("markdown", "docs/guide.md", markdown_src);
    CHECK(result.symbols.len == 5);
    CHECK(sym_is("Guide", "section", 6, 22));
    CHECK(sym_is("Guide > Install", "section", 10, 18));
    CHECK(sym_is("Guide > Install > Linux", "section", 17, 18));
    CHECK(sym_is("Guide > Usage", "section", 20, 22)); /* setext */
    CHECK(sym_is("Reference", "section", 24, 24));
    CHECK_STR(sym("Guide > Install")->name, "Install");
    CHECK_STR(sym("Guide > Install")->signature, "## Install ##");
    CHECK(result.refs.len == 0);
    /* the preamble, then one chunk per section with its own lines */
    REQUIRE(result.chunks.len == 6);
    CHECK(result.chunks.items[0].symbol == -1 && result.chunks.items[0].end_line == 4);
    const mn_chunk_rec *g = chunk_of("Guide");
    REQUIRE(g);
    CHECK(g->start_line == 6 && g->end_line == 8);
    CHECK_STR(g->text, "# Guide\n\nSome words.");
    const mn_chunk_rec *i = chunk_of("Guide > Install");
    REQUIRE(i);
    CHECK(i->start_line == 10 && i->end_line == 15);
    CHECK(strstr(i->text, "# not a heading") != NULL);

    /* no language, but a markdown path */
    parse(NULL, "README.md", "# Title\ntext\n");
    CHECK(result.symbols.len == 1);
}

static void test_plain_text(void)
{
    setup();
    mn_buf b = MN_BUF_INIT;
    for (int i = 1; i <= 130; i++)
        mn_buf_printf(&b, "line %d\n", i);
    parse("yaml", "config.yml", b.ptr);
    CHECK(result.lines == 130);
    CHECK(result.symbols.len == 0 && result.refs.len == 0);
    REQUIRE(result.chunks.len == 3);
    CHECK(result.chunks.items[0].start_line == 1 && result.chunks.items[0].end_line == 60);
    CHECK(result.chunks.items[1].start_line == 61 && result.chunks.items[1].end_line == 120);
    CHECK(result.chunks.items[2].start_line == 121 && result.chunks.items[2].end_line == 130);
    CHECK(!strncmp(result.chunks.items[0].text, "line 1\nline 2\n", 14));
    CHECK(result.chunks.items[0].symbol == -1);
    /* the same text twice gives the same hashes */
    char h[MN_HASH_HEX];
    memcpy(h, result.chunks.items[1].hash, sizeof(h));
    parse(NULL, NULL, b.ptr);
    CHECK(result.chunks.len == 3 && !strcmp(result.chunks.items[1].hash, h));
    /* blank windows are dropped */
    parse(NULL, "x.txt", "\n\n   \n\t\n");
    CHECK(result.lines == 4 && result.chunks.len == 0);
    mn_buf_release(&b);
}

/* ---- chunking ---- */

static void test_large_symbol_windows(void)
{
    setup();
    mn_buf b = MN_BUF_INIT;
    mn_buf_puts(&b, "def big():\n");
    for (int i = 0; i < 199; i++)
        mn_buf_printf(&b, "    x%d = compute(%d)\n", i, i);
    parse("python", "big.py", b.ptr);
    CHECK(sym_is("big", "function", 1, 200));
    CHECK(chunks_of(0) == 3);
    REQUIRE(result.chunks.len == 3);
    CHECK(result.chunks.items[0].start_line == 1 && result.chunks.items[0].end_line == 80);
    CHECK(result.chunks.items[1].start_line == 81 && result.chunks.items[1].end_line == 160);
    CHECK(result.chunks.items[2].start_line == 161 && result.chunks.items[2].end_line == 200);
    CHECK(ref_from("call", "compute", "big") && ref_from("call", "compute", "big")->weight == 199);
    mn_buf_release(&b);
}

static void test_chunk_text_cap(void)
{
    setup();
    /* one 20 KB line of 3-byte characters inside a function */
    mn_buf b = MN_BUF_INIT;
    mn_buf_puts(&b, "def f():\n    s = '");
    for (int i = 0; i < 7000; i++)
        mn_buf_puts(&b, "\xE2\x82\xAC"); /* euro sign */
    mn_buf_puts(&b, "'\n    return s\n");
    parse("python", "euro.py", b.ptr);
    REQUIRE(result.chunks.len == 1);
    size_t n = strlen(result.chunks.items[0].text);
    CHECK(n <= MN_PARSE_CHUNK_TEXT_MAX && n > MN_PARSE_CHUNK_TEXT_MAX - 4);
    CHECK(result.chunks.items[0].start_line == 1 && result.chunks.items[0].end_line == 3);
    mn_buf_release(&b);
}

static void test_class_header_and_gaps(void)
{
    setup();
    static const char src[] = "class A:\n"         /* 1 */
                              "    '''Doc.'''\n"   /* 2 */
                              "    x = 1\n"        /* 3 */
                              "\n"                 /* 4 */
                              "    def m(self):\n" /* 5 */
                              "        pass\n"     /* 6 */
                              "\n"                 /* 7 */
                              "    y = 2\n"        /* 8 */
                              "\n"                 /* 9 */
                              "    def n(self):\n" /* 10 */
                              "        pass\n"     /* 11 */
                              "\n"                 /* 12 */
                              "print(A())\n";      /* 13 */
    parse("python", "a.py", src);
    /* header, m, the lines between (symbol A), n, the tail of the file */
    REQUIRE(result.chunks.len == 5);
    int a = sym_ix("A");
    CHECK(result.chunks.items[0].symbol == a && result.chunks.items[0].start_line == 1 &&
          result.chunks.items[0].end_line == 3);
    CHECK(result.chunks.items[1].symbol == sym_ix("A.m"));
    CHECK(result.chunks.items[2].symbol == a && result.chunks.items[2].start_line == 8 &&
          result.chunks.items[2].end_line == 8);
    CHECK_STR(result.chunks.items[2].text, "    y = 2");
    CHECK(result.chunks.items[3].symbol == sym_ix("A.n"));
    CHECK(result.chunks.items[4].symbol == -1 && result.chunks.items[4].start_line == 13);
    CHECK(has_ref("call", "print", NULL));
    CHECK(has_ref("call", "A", NULL));

    /* a one-line class is one chunk */
    parse("typescript", "i.ts", "interface I { a(): void; b(): void }\n");
    CHECK(result.symbols.len == 3 && result.chunks.len == 1 && result.chunks.items[0].symbol == 0);
}

/*
 * A short comment alone between two symbols heads the symbol after it: it
 * joins that symbol's chunk instead of making a chunk of a few words. A
 * longer one, one at the top of the file, and one above code that is no
 * symbol keep chunks of their own; "#endif" lines make no chunk.
 */
static void test_section_comments(void)
{
    setup();
    static const char src[] = "#ifndef X_H\n"                     /* 1 */
                              "#define X_H\n"                     /* 2 */
                              "\n"                                /* 3 */
                              "int first(void) { return 1; }\n"   /* 4 */
                              "\n"                                /* 5 */
                              "/* ---- served answers ---- */\n"  /* 6 */
                              "\n"                                /* 7 */
                              "/** Record an answer. */\n"        /* 8 */
                              "int record(int x) { return x; }\n" /* 9 */
                              "\n"                                /* 10 */
                              "/* one */\n"                       /* 11 */
                              "/* two */\n"                       /* 12 */
                              "/* three */\n"                     /* 13 */
                              "/* four */\n"                      /* 14 */
                              "\n"                                /* 15 */
                              "int later(void) { return 2; }\n"   /* 16 */
                              "\n"                                /* 17 */
                              "/* a heading */\n"                 /* 18 */
                              "\n"                                /* 19 */
                              "/* another */\n"                   /* 20 */
                              "\n"                                /* 21 */
                              "int last(void) { return 3; }\n"    /* 22 */
                              "\n"                                /* 23 */
                              "#endif /* X_H */\n";               /* 24 */
    parse("c", "x.h", src);
    const mn_chunk_rec *r = chunk_of("record");
    REQUIRE(r != NULL);
    CHECK(r->start_line == 6 && r->end_line == 9);
    CHECK(!strncmp(r->text, "/* ---- served answers ---- */\n\n/** Record", 42));
    /* four lines of comment: a chunk of their own, as two blank-separated ones */
    const mn_chunk_rec *l = chunk_of("later");
    REQUIRE(l != NULL);
    CHECK(l->start_line == 16);
    const mn_chunk_rec *z = chunk_of("last");
    REQUIRE(z != NULL);
    CHECK(z->start_line == 22);
    size_t gaps = 0;
    for (size_t i = 0; i < result.chunks.len; i++) {
        const mn_chunk_rec *c = &result.chunks.items[i];
        if (c->symbol != -1)
            continue;
        gaps++;
        CHECK(c->start_line != 6 && c->start_line != 24); /* no heading alone, no #endif */
    }
    /* the guard's first lines, the four comment lines, the two headings */
    CHECK(gaps == 3);
    CHECK(result.chunks.len == 7);

    /* Python: a "# ----" heading joins the function below it */
    parse("python", "m.py",
          "import os\n\n\ndef a():\n    pass\n\n\n# ---- b's part ----\n\n\ndef b():\n"
          "    pass\n");
    const mn_chunk_rec *b = chunk_of("b");
    REQUIRE(b != NULL);
    CHECK(b->start_line == 8 && !strncmp(b->text, "# ---- b's part", 15));
}

static void test_crlf(void)
{
    setup();
    parse("python", "w.py", "# Doc.\r\ndef f(a):\r\n    return g(a)\r\n");
    CHECK(sym_is("f", "function", 2, 3));
    CHECK_STR(sym("f")->signature, "def f(a)");
    CHECK_STR(sym("f")->docstring, "Doc.");
    CHECK(has_ref("call", "g", "f"));
    CHECK(result.lines == 3);
}

static void test_docstring_edges(void)
{
    setup();
    /* a trailing comment on code is no docstring; nor is one a blank line away */
    parse("c", "d.c",
          "int x = 1; /* note */\nint f(void) { return 0; }\n/* far */\n\nint g(void);\n");
    CHECK(sym("f") && sym("f")->docstring == NULL);
    CHECK(sym("g") && sym("g")->docstring == NULL);
    parse("python", "d.py", "x = 1  # trailing\ndef f():\n    pass\n");
    CHECK(sym("f") && sym("f")->docstring == NULL);
    /* a decorator over several lines belongs to the span */
    parse("python", "v.py", "@app.route(\n    \"/x\",\n)\ndef view():\n    '''Shows x.'''\n");
    CHECK(sym_is("view", "function", 1, 5));
    CHECK_STR(sym("view")->signature, "def view()");
    CHECK_STR(sym("view")->docstring, "Shows x.");
    /* comment rulers are dropped, text kept */
    parse("python", "r.py", "# =====\n# Helpers\n# =====\ndef h():\n    pass\n");
    CHECK_STR(sym("h")->docstring, "Helpers");
    /* a long signature is cut at a character boundary */
    mn_buf b = MN_BUF_INIT;
    mn_buf_puts(&b, "def long(");
    for (int i = 0; i < 100; i++)
        mn_buf_printf(&b, "\xC3\xA9%d, ", i);
    mn_buf_puts(&b, "z):\n    pass\n");
    parse("python", "l.py", b.ptr);
    CHECK(sym("long") && strlen(sym("long")->signature) <= MN_PARSE_SIGNATURE_MAX &&
          strlen(sym("long")->signature) > MN_PARSE_SIGNATURE_MAX - 4);
    mn_buf_release(&b);
}

/* ---- robustness ---- */

static void test_empty(void)
{
    setup();
    const char *langs[] = {"python", "javascript", "typescript", "tsx",  "go",  "rust",
                           "java",   "c",          "cpp",        "ruby", "php", "csharp",
                           "bash",   "markdown",   "text",       NULL};
    for (int i = 0; langs[i]; i++) {
        parse_n(langs[i], "empty", "", 0);
        CHECK(result.lines == 0 && result.symbols.len == 0 && result.refs.len == 0 &&
              result.chunks.len == 0);
        parse_n(langs[i], "empty", NULL, 0);
        CHECK(result.lines == 0 && result.chunks.len == 0);
        parse(langs[i], "nl", "\n");
        CHECK(result.lines == 1 && result.chunks.len == 0);
    }
    CHECK(mn_parser_parse(parser, &result, "python", "x", NULL, 5) == MN_EINVAL);
}

static void test_broken_code(void)
{
    setup();
    parse("python", "broken.py",
          "def broken(:\n    return\n\nclass Fine:\n    def ok(self):\n        return go()\n");
    CHECK(result.syntax_errors);
    CHECK(sym_ix("Fine") >= 0);
    parse("c", "broken.c", "int main( { if (x) { return ; }\nstruct { int\n");
    CHECK(result.syntax_errors);
    parse("javascript", "broken.js", "function (a, { class extends ;;; }} import from ");
    CHECK(result.syntax_errors);
    parse("rust", "broken.rs", "impl for { fn ( -> }} use ::;");
    CHECK(result.syntax_errors);
}

static void test_minified_megabyte(void)
{
    setup();
    mn_buf b = MN_BUF_INIT;
    for (int i = 0; b.len < (1u << 20); i++)
        mn_buf_printf(&b, "function f%d(a,b){return a+g%d(b)}var v%d=f%d(1,2);", i, i, i, i);
    parse_n("javascript", "app.min.js", b.ptr, b.len);
    CHECK(result.lines == 1);
    CHECK(!result.syntax_errors);
    CHECK(result.symbols.len > 10000);
    CHECK(sym_is("f0", "function", 1, 1));
    CHECK(has_ref("call", "g0", "f0"));
    for (size_t i = 0; i < result.chunks.len; i++)
        CHECK(strlen(result.chunks.items[i].text) <= MN_PARSE_CHUNK_TEXT_MAX);
    /* the same megabyte as plain text: one window, cut to the cap */
    parse_n(NULL, "app.min.js.map", b.ptr, b.len);
    REQUIRE(result.chunks.len == 1);
    CHECK(strlen(result.chunks.items[0].text) == MN_PARSE_CHUNK_TEXT_MAX ||
          strlen(result.chunks.items[0].text) > MN_PARSE_CHUNK_TEXT_MAX - 64);
    mn_buf_release(&b);
}

static void test_deep_nesting(void)
{
    setup();
    mn_buf b = MN_BUF_INIT;
    /* 3000 nested functions */
    for (int i = 0; i < 3000; i++)
        mn_buf_printf(&b, "function f%d() {\n", i);
    mn_buf_puts(&b, "leaf();\n");
    for (int i = 0; i < 3000; i++)
        mn_buf_puts(&b, "}\n");
    parse_n("javascript", "deep.js", b.ptr, b.len);
    CHECK(result.symbols.len == 3000);
    CHECK(sym_ix("f0") == 0);
    CHECK(result.refs.len == 1 && result.refs.items[0].src_symbol == 2999);
    const mn_symbol_rec *last = &result.symbols.items[2999];
    CHECK_STR(last->name, "f2999");
    CHECK(strlen(last->qualified_name) <= 512);
    /* 100000 nested brackets */
    mn_buf_clear(&b);
    mn_buf_puts(&b, "x = ");
    for (int i = 0; i < 100000; i++)
        mn_buf_putc(&b, '[');
    for (int i = 0; i < 100000; i++)
        mn_buf_putc(&b, ']');
    mn_buf_puts(&b, "\n");
    parse_n("python", "deep.py", b.ptr, b.len);
    parse_n("javascript", "deep.js", b.ptr, b.len);
    parse_n("c", "deep.c", b.ptr, b.len);
    /* 300 nested classes */
    mn_buf_clear(&b);
    for (int i = 0; i < 300; i++) {
        for (int k = 0; k < i; k++)
            mn_buf_puts(&b, " ");
        mn_buf_printf(&b, "class C%d:\n", i);
    }
    for (int k = 0; k < 300; k++)
        mn_buf_puts(&b, " ");
    mn_buf_puts(&b, "def m(self): pass\n");
    parse_n("python", "nest.py", b.ptr, b.len);
    mn_buf_release(&b);
}

static bool contains_replacement(const char *s)
{
    return s && strstr(s, "\xEF\xBF\xBD") != NULL;
}

static void test_invalid_utf8_and_nul(void)
{
    setup();
    static const char src[] = "def f\x00oo(x):\n"
                              "    \"\"\"Doc \xff\xfe with \xc3\x28 bytes.\"\"\"\n"
                              "    return g\x00(x)\n"
                              "# caf\xc3\xa9 \xed\xa0\x80 surrogate\n"
                              "def h\xc3\xa9():\n"
                              "    pass\n";
    parse_n("python", "bad.py", src, sizeof(src) - 1);
    CHECK(result.lines == 6);
    bool replaced = false;
    for (size_t i = 0; i < result.symbols.len; i++) {
        const mn_symbol_rec *s = &result.symbols.items[i];
        replaced |= contains_replacement(s->signature) || contains_replacement(s->docstring);
    }
    CHECK(replaced);
    const mn_symbol_rec *h = sym("h\xc3\xa9");
    REQUIRE(h);
    CHECK(contains_replacement(h->docstring)); /* the lone surrogate */
    CHECK(strstr(h->docstring, "caf\xc3\xa9") != NULL);
    for (size_t i = 0; i < result.chunks.len; i++)
        CHECK(strlen(result.chunks.items[i].text) > 0);

    /* the same bytes through every language and as text */
    const char *langs[] = {"javascript", "go",     "rust", "java",     "c",          "cpp", "ruby",
                           "php",        "csharp", "bash", "markdown", "typescript", NULL};
    for (int i = 0; langs[i]; i++)
        parse_n(langs[i], "bad", src, sizeof(src) - 1);
    parse_n(NULL, "bad.txt", src, sizeof(src) - 1);
    REQUIRE(result.chunks.len == 1);
    CHECK(contains_replacement(result.chunks.items[0].text));
}

/* Random bytes and mutated snippets through every language: invariants only. */
static void test_random_inputs(void)
{
    setup();
    const char *langs[] = {"python", "javascript", "typescript", "tsx",      "go",
                           "rust",   "java",       "c",          "cpp",      "ruby",
                           "php",    "csharp",     "bash",       "markdown", NULL};
    const char *snippets[] = {python_src, javascript_src, typescript_src, tsx_src,     go_src,
                              rust_src,   java_src,       c_src,          cpp_src,     ruby_src,
                              php_src,    csharp_src,     bash_src,       markdown_src};
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    char buf[4096];
    for (int round = 0; round < 6; round++) {
        for (int l = 0; langs[l]; l++) {
            size_t n;
            if (round % 2 == 0) {
                /* a snippet with bytes flipped and cut */
                const char *s = snippets[l];
                n = strlen(s);
                if (n > sizeof(buf))
                    n = sizeof(buf);
                memcpy(buf, s, n);
                for (int k = 0; k < 12; k++) {
                    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                    buf[(seed >> 33) % n] = (char)(seed >> 17);
                }
                n -= (seed >> 40) % (n / 2 + 1);
            } else {
                n = 1 + round * 500;
                for (size_t k = 0; k < n; k++) {
                    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                    buf[k] = (char)(seed >> 33);
                }
            }
            parse_n(langs[l], "fuzz", buf, n);
        }
    }
}

static void test_reuse_and_release(void)
{
    mn_parser *p = NULL;
    REQUIRE_OK(mn_parser_new(&p));
    mn_parse_result r = MN_PARSE_RESULT_INIT;
    CHECK_OK(mn_parser_parse(p, &r, "python", "a.py", python_src, strlen(python_src)));
    size_t n = r.symbols.len;
    CHECK_OK(mn_parser_parse(p, &r, "go", "b.go", go_src, strlen(go_src)));
    CHECK_OK(mn_parser_parse(p, &r, "python", "a.py", python_src, strlen(python_src)));
    CHECK(r.symbols.len == n);
    mn_file_content fc;
    mn_parse_result_content(&r, &fc);
    CHECK(fc.nsymbols == r.symbols.len && fc.symbols == r.symbols.items);
    CHECK(fc.nrefs == r.refs.len && fc.nchunks == r.chunks.len);
    mn_parse_result_release(&r);
    CHECK(r.symbols.len == 0 && r.symbols.items == NULL);
    mn_parse_result_release(&r); /* twice is fine */
    /* a zeroed result works too */
    mn_parse_result z;
    memset(&z, 0, sizeof(z));
    CHECK_OK(mn_parser_parse(p, &z, "rust", "c.rs", rust_src, strlen(rust_src)));
    CHECK(z.symbols.len > 5);
    mn_parse_result_release(&z);
    mn_parser_free(p);
    mn_parser_free(NULL);
}

static void test_query_info(void)
{
    setup();
    const char *langs[] = {"python", "javascript", "typescript", "tsx", "go",     "rust", "java",
                           "c",      "cpp",        "ruby",       "php", "csharp", "bash", NULL};
    for (int i = 0; langs[i]; i++) {
        mn_parse_query_info qi;
        CHECK_OK(mn_parser_query_info(parser, langs[i], &qi));
        CHECK(qi.has_grammar && qi.compiled && qi.patterns > 0);
        if (qi.dropped_forms)
            fprintf(stderr, "  %s: %zu patterns dropped\n", langs[i], qi.dropped_forms);
        CHECK(qi.dropped_forms == 0);
        /* only ruby's `(#is-not? local)` pattern is beyond us */
        CHECK(qi.disabled == (strcmp(langs[i], "ruby") == 0 ? 1u : 0u));
        CHECK(mn_parse_language_supported(langs[i]));
    }
    CHECK(mn_parse_language_supported("markdown"));
    CHECK(!mn_parse_language_supported("yaml"));
    CHECK(!mn_parse_language_supported(NULL));
    mn_parse_query_info qi;
    CHECK(mn_parser_query_info(parser, "cobol", &qi) == MN_ENOTFOUND);
}

static void test_teardown(void)
{
    mn_parse_result_release(&result);
    mn_parser_free(parser);
    parser = NULL;
}

MN_TEST_MAIN(MN_TEST(test_python), MN_TEST(test_javascript), MN_TEST(test_typescript),
             MN_TEST(test_tsx), MN_TEST(test_go), MN_TEST(test_rust), MN_TEST(test_java),
             MN_TEST(test_c), MN_TEST(test_cpp), MN_TEST(test_ruby), MN_TEST(test_php),
             MN_TEST(test_csharp), MN_TEST(test_bash), MN_TEST(test_markdown),
             MN_TEST(test_plain_text), MN_TEST(test_large_symbol_windows),
             MN_TEST(test_chunk_text_cap), MN_TEST(test_class_header_and_gaps),
             MN_TEST(test_section_comments), MN_TEST(test_crlf), MN_TEST(test_docstring_edges),
             MN_TEST(test_empty), MN_TEST(test_broken_code), MN_TEST(test_minified_megabyte),
             MN_TEST(test_deep_nesting), MN_TEST(test_invalid_utf8_and_nul),
             MN_TEST(test_random_inputs), MN_TEST(test_reuse_and_release), MN_TEST(test_query_info),
             MN_TEST(test_teardown))
