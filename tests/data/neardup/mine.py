#!/usr/bin/env python3
"""Mine candidate pairs for the near-duplicate set from public git histories.

Usage: mine.py OUTDIR GITDIR:NAME [GITDIR:NAME ...]

GITDIR is a bare clone (e.g. of pytest-dev/pytest), NAME its owner/name as on
GitHub. Writes one JSONL pool per kind of pair into OUTDIR; pairs.jsonl is
assembled from these pools by assemble.py (with the hand labels of the
look-alike pool). Only commit messages and changelog fragments are read: text
written by the projects' contributors, cited by commit URL. Deterministic:
commits are read in git's order and samples are taken with a fixed seed.

Pools:
  backport.jsonl   a backport or cherry-pick and its original (same change)
  revert.jsonl     'Revert "X"' and X (the change undone)
  bump.jsonl       dependency bumps: same package, other versions; other packages
  changelog.jsonl  a commit's subject and the changelog fragment it added
  lookalike.jsonl  commit subjects of different changes that share most words
"""
import json
import os
import random
import re
import subprocess
import sys

SEP = "\x1e"


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True,
                          capture_output=True, text=True, errors="replace").stdout


def commits(gitdir, *revs):
    out = git(gitdir, "log", "--format=%H%x1f%s%x1f%B" + SEP, *revs)
    for rec in out.split(SEP):
        rec = rec.strip("\n")
        if not rec:
            continue
        h, s, b = rec.split("\x1f", 2)
        yield h, s, b


TRAILER = re.compile(r"^(co-authored-by|signed-off-by|reviewed-by|cc):", re.I)


def message(body, cap=600):
    """The commit message as a memory would hold it: trailers and dependabot's
    YAML block dropped, blank runs collapsed, at most cap characters."""
    lines = []
    for line in body.splitlines():
        if line.strip() == "---" or line.startswith("updated-dependencies:"):
            break
        if TRAILER.match(line.strip()):
            continue
        lines.append(line.rstrip())
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return text[:cap].rstrip()


def url(name, h):
    return f"https://github.com/{name}/commit/{h}"


BACKPORT = re.compile(r"^(\[PR #\d+/[0-9a-f]+ backport\])?\[\d+\.\d+\.x\] ")
PRNUM = re.compile(r"\s*\(#\d+\)$")


def mine_backports(gitdir, name, all_commits):
    by_subject = {}
    by_hash = {}
    for h, s, b in all_commits:
        by_hash[h] = (s, b)
        if not BACKPORT.match(s):
            by_subject.setdefault(PRNUM.sub("", s), (h, s, b))
    pairs = []
    seen = set()
    for h, s, b in all_commits:
        orig = None
        m = re.search(r"cherry picked from commit ([0-9a-f]{40})", b)
        if m and m.group(1) in by_hash:
            oh = m.group(1)
            orig = (oh,) + by_hash[oh]
        elif BACKPORT.match(s):
            key = PRNUM.sub("", BACKPORT.sub("", s))
            orig = by_subject.get(key)
        if not orig or orig[0] == h:
            continue
        a, o = message(b), message(orig[2])
        if (a, o) in seen:
            continue
        seen.add((a, o))
        pairs.append({"a": a, "b": o, "label": "duplicate",
                      "source": "git-backport:" + name,
                      "note": f"backport or cherry-pick {url(name, h)} of {url(name, orig[0])}"})
    return pairs


def mine_reverts(gitdir, name, all_commits):
    by_hash = {h: (s, b) for h, s, b in all_commits}
    pairs = []
    for h, s, b in all_commits:
        m = re.search(r"This reverts commit ([0-9a-f]{40})", b)
        if not s.startswith("Revert") or not m or m.group(1) not in by_hash:
            continue
        os_, ob = by_hash[m.group(1)]
        pairs.append({"a": message(b), "b": message(ob), "label": "conflicting",
                      "source": "git-revert:" + name,
                      "note": f"{url(name, h)} reverts {url(name, m.group(1))}"})
    return pairs


BUMP = re.compile(r"Bumps \[([^\]]+)\]\([^)]*\) from ([\w.\-]+) to ([\w.\-]+)")


def mine_bumps(gitdir, name, all_commits):
    items = []
    for h, s, b in all_commits:
        m = BUMP.search(b)
        if not m or BACKPORT.match(s):
            continue
        subject = PRNUM.sub("", s)
        text = f"{subject}\n\nBumps {m.group(1)} from {m.group(2)} to {m.group(3)}."
        items.append((h, m.group(1), m.group(2), m.group(3), text))
    rnd = random.Random(20)
    pairs = []
    by_pkg = {}
    for it in items:
        by_pkg.setdefault(it[1], []).append(it)
    # same package, other versions: a changed version (conflicting)
    for pkg in sorted(by_pkg):
        v = by_pkg[pkg]
        for i in range(0, len(v) - 1, 2):
            x, y = v[i], v[i + 1]
            if (x[2], x[3]) == (y[2], y[3]):
                continue
            pairs.append({"a": x[4], "b": y[4], "label": "conflicting",
                          "source": "git-bump:" + name,
                          "note": f"same package, other versions: {url(name, x[0])} {url(name, y[0])}"})
    # other packages: distinct
    rnd.shuffle(items)
    for i in range(0, len(items) - 1, 2):
        x, y = items[i], items[i + 1]
        if x[1] == y[1]:
            continue
        pairs.append({"a": x[4], "b": y[4], "label": "distinct",
                      "source": "git-bump:" + name,
                      "note": f"other packages: {url(name, x[0])} {url(name, y[0])}"})
    return pairs


def mine_changelog(gitdir, name):
    out = git(gitdir, "log", "--first-parent", "--diff-filter=A", "--name-only",
              "--format=" + SEP + "%H%x1f%s", "HEAD", "--", "changelog/*.rst")
    pairs = []
    for rec in out.split(SEP):
        rec = rec.strip("\n")
        if not rec:
            continue
        head, _, files = rec.partition("\n")
        h, s = head.split("\x1f", 1)
        files = [f for f in files.split("\n") if f.strip()]
        if len(files) != 1:
            continue
        subject = PRNUM.sub("", s)
        if len(re.findall(r"[A-Za-z]{3,}", subject)) < 4:
            continue
        frag = git(gitdir, "show", f"{h}:{files[0]}").strip()
        frag = re.sub(r"\s+", " ", frag)[:600]
        pairs.append({"a": subject, "b": frag, "label": "duplicate",
                      "source": "git-changelog:" + name,
                      "note": f"subject of {url(name, h)} and the fragment {files[0]} it adds"})
    return pairs


WORD = re.compile(r"[a-z0-9_]+")
AUTOMATED = re.compile(r"update plugin list|pre-commit|autoupdate|bump|merge |revert|release|"
                       r"prepare|version|\[\d+\.\d+\.x\]|backport", re.I)


def mine_lookalikes(gitdir, name, limit):
    subj = []
    seen = set()
    for h, s, b in commits(gitdir, "--first-parent", "--no-merges", "HEAD"):
        s2 = PRNUM.sub("", s).strip()
        key = s2.lower()
        if AUTOMATED.search(s2) or key in seen or len(WORD.findall(key)) < 4:
            continue
        seen.add(key)
        subj.append((h, s2, set(WORD.findall(key))))
    index = {}
    for i, (_, _, ws) in enumerate(subj):
        for w in ws:
            index.setdefault(w, []).append(i)
    cands = []
    for i, (h, s, ws) in enumerate(subj):
        counts = {}
        for w in ws:
            if len(index[w]) > 400:
                continue
            for j in index[w]:
                if j > i:
                    counts[j] = counts.get(j, 0) + 1
        for j, c in counts.items():
            wj = subj[j][2]
            jac = len(ws & wj) / len(ws | wj)
            if jac >= 0.5:
                cands.append((jac, i, j))
    cands.sort(key=lambda t: (-t[0], t[1], t[2]))
    rnd = random.Random(7)
    rnd.shuffle(cands)
    pairs = []
    for jac, i, j in cands[:limit]:
        pairs.append({"a": subj[i][1], "b": subj[j][1], "label": "?",
                      "source": "git-lookalike:" + name,
                      "note": f"{url(name, subj[i][0])} {url(name, subj[j][0])} (word Jaccard {jac:.2f})"})
    return pairs


def main():
    outdir = sys.argv[1]
    pools = {k: [] for k in ("backport", "revert", "bump", "changelog", "lookalike")}
    for spec in sys.argv[2:]:
        gitdir, name = spec.rsplit(":", 1)
        allc = list(commits(gitdir, "--all"))
        pools["backport"] += mine_backports(gitdir, name, allc)
        pools["revert"] += mine_reverts(gitdir, name, allc)
        pools["bump"] += mine_bumps(gitdir, name, allc)
        pools["changelog"] += mine_changelog(gitdir, name)
        pools["lookalike"] += mine_lookalikes(gitdir, name, 120)
    os.makedirs(outdir, exist_ok=True)
    for k, v in pools.items():
        with open(os.path.join(outdir, k + ".jsonl"), "w") as f:
            for p in v:
                f.write(json.dumps(p, ensure_ascii=False) + "\n")
        print(k, len(v))


if __name__ == "__main__":
    main()
