#!/usr/bin/env python3
"""Assemble pairs.jsonl, the labelled near-duplicate set, from hand.txt,
light.txt, topics.tsv, sources.tsv and bumps.tsv (README.md says what each
holds).

Usage: assemble.py [DIR]   (default: this script's directory)

Deterministic: the same inputs give the same pairs.jsonl byte for byte.
Kinds of pairs, each with its source:
  hand-reword       A and its light rewording L (light.txt)        duplicate
  hand-paraphrase   A and its free rewording D                     duplicate
  hand-lookalike    A and its look-alike C (conflicting) or X (distinct)
  hand-paraphrase-lookalike  D and the look-alike, every other block
  pattern-backport  "[N.x] A (#issue)" or A + a cherry-pick trailer, and A,
                    as pytest's backport commits carry a change  duplicate
  pattern-revert    'Revert "A"' + "This reverts commit <sha>." and A, for
                    the changes that were really reverted          conflicting
  hand-same-topic   the statements A of two blocks on one topic    distinct
  bump              "Bump P from X to Y" pairs: same package with other
                    versions (conflicting), other packages (distinct)
"""
import json
import os
import sys

BACKPORT_EXAMPLE = ("https://github.com/pytest-dev/pytest/commit/"
                    "0675383bac14ce8e8d04b94d8d08029ac26fbbfc")
BRANCHES = ["6.2.x", "7.0.x", "7.4.x", "8.0.x", "8.1.x", "8.2.x", "8.3.x"]


def read_blocks(path):
    blocks, cur = [], None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        if line.startswith("= "):
            fields = line[2:].split()
            cur = {"id": fields[0], "lang": fields[1] if len(fields) > 1 else "en"}
            blocks.append(cur)
        else:
            key, _, text = line.partition(": ")
            assert cur is not None and key in ("A", "D", "C", "X", "L") and text, line
            cur[key] = text
    return blocks


def read_tsv(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        rows.append(line.rstrip("\n").split("\t"))
    return rows


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    sources = {r[0]: (r[1], r[2]) for r in read_tsv(os.path.join(d, "sources.tsv"))}
    pairs = []

    def add(a, b, label, source, note):
        pairs.append({"a": a, "b": b, "label": label, "source": source, "note": note})

    for n, blk in enumerate(read_blocks(os.path.join(d, "hand.txt"))):
        url, extra = sources[blk["id"]]
        prov = f"about {url} ({extra})"
        lang = blk["lang"]
        tag = "" if lang == "en" else "-" + lang
        add(blk["A"], blk["D"], "duplicate", "hand-paraphrase" + tag, "reworded; " + prov)
        look, label = (blk["C"], "conflicting") if "C" in blk else (blk["X"], "distinct")
        add(blk["A"], look, label, "hand-lookalike" + tag, "look-alike; " + prov)
        if n % 2 == 0:
            add(blk["D"], look, label, "hand-paraphrase-lookalike" + tag,
                "rewording against look-alike; " + prov)
        if lang != "en":
            continue
        if not blk["id"].startswith("r"):
            issue = extra.split("/")[1].split(".")[0]
            if n % 3 == 2:
                sha = url.rsplit("/", 1)[1]
                a = f"{blk['A']}\n\n(cherry picked from commit {sha})"
            else:
                a = f"[{BRANCHES[n % len(BRANCHES)]}] {blk['A']} (#{issue})"
            add(a, blk["A"], "duplicate", "pattern-backport",
                f"backport form of pytest's branches (e.g. {BACKPORT_EXAMPLE}); " + prov)
        else:
            sha = url.rsplit("/", 1)[1]
            add(f'Revert "{blk["A"]}"\n\nThis reverts commit {sha}.', blk["A"], "conflicting",
                "pattern-revert", "revert form of the real revert; " + prov)
            add(f"{blk['D']}\n\n(cherry picked from commit {sha})", blk["D"], "duplicate",
                "pattern-backport", "cherry-pick form; " + prov)

    by_key = {(b["id"], b["lang"]): b for b in read_blocks(os.path.join(d, "hand.txt"))}
    english = {k[0]: b for k, b in by_key.items() if k[1] == "en"}
    for blk in read_blocks(os.path.join(d, "light.txt")):
        url, extra = sources[blk["id"]]
        tag = "" if blk["lang"] == "en" else "-" + blk["lang"]
        add(by_key[(blk["id"], blk["lang"])]["A"], blk["L"], "duplicate", "hand-reword" + tag,
            f"light rewording; about {url} ({extra})")
    for x, y, topic in read_tsv(os.path.join(d, "topics.tsv")):
        add(english[x]["A"], english[y]["A"], "distinct", "hand-same-topic",
            f"same topic ({topic}), other facts: {sources[x][0]} {sources[y][0]}")

    bumps = read_tsv(os.path.join(d, "bumps.tsv"))
    text = lambda r: f"Bump {r[0]} from {r[1]} to {r[2]}"
    by_pkg = {}
    for r in bumps:
        by_pkg.setdefault(r[0], []).append(r)
    same = 0
    for pkg in sorted(by_pkg):
        rs = by_pkg[pkg]
        for i in range(0, len(rs) - 1, 2):
            if same >= 20 or (rs[i][1], rs[i][2]) == (rs[i + 1][1], rs[i + 1][2]):
                continue
            add(text(rs[i]), text(rs[i + 1]), "conflicting", "bump",
                f"same package, other versions: {rs[i][3]} {rs[i + 1][3]}")
            same += 1
    other = 0
    for i in range(0, len(bumps) - 1, 2):
        x, y = bumps[i], bumps[i + 1]
        if x[0] == y[0] or other >= 20:
            continue
        add(text(x), text(y), "distinct", "bump", f"other packages: {x[3]} {y[3]}")
        other += 1

    with open(os.path.join(d, "pairs.jsonl"), "w", encoding="utf-8") as f:
        for p in pairs:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    counts = {}
    for p in pairs:
        counts[p["label"]] = counts.get(p["label"], 0) + 1
    print(len(pairs), counts)


if __name__ == "__main__":
    main()
