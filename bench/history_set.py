#!/usr/bin/env python3
"""history_set.py - a file-localisation check set built from a repository's
own history, in bench_swebench's input format (one JSON object a line:
instance_id, repo, base_commit, patch, problem_statement, language).

Why: the dev files of ../shared/eval are what mnemo's constants were measured
on; a set made from other fixes of other years shows whether a change holds
beyond them (docs/internals/retrieval.md, "Check sets from history"). The
fixes come from a changelog the project writes by hand: each entry under a
heading that says "fix" (Fixed, Bug Fixes), or an entry starting with
"Fix", names its commit (a /commit/<sha> link, or jq's "@author <sha>" at
its end) or its pull request (#N, /pull/N, jq's "@author #N": the
squash-merge commit whose subject ends "(#N)", or the merge commit "Merge
pull request #N"). The entry's text, its links and
references removed, is the problem statement: shorter than an issue, and
written after the fix, as a changelog line is. The base commit is the
fix's first parent; the gold files are the source files the fix changed
and that existed at the base (tests, benchmarks, examples, docs and build
files left out); only fixes of 1 to --max-gold such files are kept. A
deterministic sample (sha256 of the seed and the commit) of --n of them,
oldest first. A project without a changelog (cli/cli, go-zero): --from-log
takes the titles of the pull requests merged on the first-parent line that
say they fix ("Fix ...", "fix(scope): ..."), a weaker statement (a title).

    bench/history_set.py --repo /work/.mirror/tokio-rs+tokio/repo \\
        --name tokio-rs/tokio --changelog tokio/CHANGELOG.md --n 40 > tokio-cl.jsonl
    build-bench/bench/bench_swebench tokio-cl.jsonl --repos /work/.mirror --stores NEW_DIR

Only git and Python's standard library; the repository is read, never written.
"""
import argparse
import hashlib
import json
import re
import subprocess
import sys

SOURCE_EXT = {
    ".rs": "rust", ".go": "go", ".java": "java", ".kt": "kotlin", ".js": "javascript",
    ".mjs": "javascript", ".cjs": "javascript", ".ts": "typescript", ".tsx": "typescript",
    ".py": "python", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp",
    ".hpp": "cpp", ".hh": "cpp", ".rb": "ruby", ".php": "php", ".cs": "csharp",
}
# test, benchmark, example and documentation trees, and test file names
NOT_SOURCE = re.compile(
    r"(^|/)(tests?|testing|spec|specs|__tests__|testdata|fixtures|benches|benchmarks?|"
    r"examples?|samples?|demos?|docs?|documentation|[^/]*[a-z]Tests?)/|"
    r"(^|/)(test_[^/]*|[^/]*_test\.[a-z]+|[^/]*Tests?\.java|[^/]*\.(test|spec)\.[jt]sx?|[^/]*\.d\.[cm]?ts)$",
    re.I)


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True, errors="replace").stdout


def entries(text):
    """(heading, item text) of every list item of a Markdown changelog; an
    item runs until the next item, heading or blank line."""
    heading, item = "", None
    for line in text.splitlines() + [""]:
        m = re.match(r"\s*(#+)\s*(.*)", line)
        start = re.match(r"\s*[-*]\s+(.*)", line)
        if item is not None and (m or start or not line.strip()):
            yield heading, item
            item = None
        if m:
            heading = m.group(2)
        elif start:
            item = start.group(1)
        elif item is not None:
            item += " " + line.strip()


def refs(item, links):
    """The commits and pull requests an item names, and whether the numbers
    are only plain "(#N)", which GitHub links to an issue or a pull request
    alike. "[#N](url)" and "[#N]" with a definition "[#N]: url" count only
    when the url is a pull request's (jib's changelogs link issues)."""
    shas = re.findall(r"/commit/([0-9a-f]{7,40})", item)
    prs = re.findall(r"/pull/(\d+)", item)
    prs += [n for n in re.findall(r"\[#(\d+)\](?!\()", item) if "/pull/" in links.get(n, "")]
    plain = False
    if not shas and not prs and not re.search(r"\[#\d+\]", item):
        prs, plain = re.findall(r"\(#(\d+)\)", item), True
    if not shas and not prs:
        # jq's notes end with their authors and a full commit id or a bare #N
        shas = re.findall(r"(?<![\w/])([0-9a-f]{40})\s*$", item)
        prs = [] if shas else re.findall(r"@[\w-]+\s+#(\d+)\s*$", item)
        plain = not shas
    return shas, list(dict.fromkeys(prs)), plain


def words(text):
    return {w for w in re.findall(r"[a-z][a-z0-9_]{3,}", text.lower()) if w not in ("fixed", "fixes")}


def statement(item):
    """The item's words: links, references and emphasis markers removed."""
    item = re.sub(r"\\([\\`*_{}\[\]()#+.!-])", r"\1", item).rstrip("\\ ")  # Markdown escapes
    s = re.sub(r"\(\s*\[[^\]]*\]\([^)]*\)\s*\)", "", item)  # ([#12](url)) ([abc1234](url))
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)  # [text](url) -> text
    s = re.sub(r"\(?https?://\S+\)?", "", s)
    s = re.sub(r"\(\s*\[?#\d+\]?(,\s*\[?#\d+\]?)*\s*\)", "", s)  # ([#12], [#13]) (#12)
    s = re.sub(r"\[#\d+\]|(?<![\w&])#\d+\b", "", s)  # [#12], a bare #12 (axios's older notes)
    s = re.sub(r"(\s@[\w-]+)+\s*([0-9a-f]{40})?\s*$", "", s)  # jq's "@author <commit id>"
    s = s.replace("**", "")
    s = re.sub(r"\s+([.,;:])", r"\1", re.sub(r"\s+", " ", s))
    return s.strip(" ;,.")


def changelog_fixes(o, subjects, subject_of, skip_prs):
    """(statement, commit) of each fix entry of the changelogs that names one commit."""
    for path in o.changelog:
        log = git(o.repo, "show", f"{o.rev}:{path}")
        links = dict(re.findall(r"^\[#(\d+)\]:\s*(\S+)", log, re.M))
        for heading, item in entries(log):
            if "fix" not in heading.lower() and not re.match(r"(\*\*[^*]*\*\*\s*)?fix", item, re.I):
                continue
            shas, prs, plain = refs(item, links)
            if any(p in skip_prs for p in prs):
                continue
            commits = shas or [subjects[p] for p in prs if p in subjects]
            text = statement(item)
            if len(commits) != 1 or len(text) < 12:
                continue
            # a plain (#N) may be an issue's number: the merge's subject must share a word
            if plain and not words(text) & words(subject_of.get(commits[0], "")):
                continue
            yield text, commits[0]


def log_fixes(o, skip_prs):
    """(title, commit) of each commit on the first-parent line whose pull request's title (the
    merge's first body line, or the squash's subject without its "(#N)") says it fixes."""
    out = git(o.repo, "log", "--first-parent", "--format=%H%x1f%s%x1f%b%x1e", o.rev)
    for rec in out.split("\x1e"):
        parts = rec.strip("\n").split("\x1f")
        if len(parts) < 3:
            continue
        sha, subject, body = parts[0], parts[1], parts[2]
        m = re.match(r"Merge pull request #(\d+)", subject)
        if m:
            title = next((l.strip() for l in body.splitlines() if l.strip()), "")
        else:
            m = re.search(r"\(#(\d+)\)\s*$", subject)
            title = re.sub(r"\s*\(#\d+\)\s*$", "", subject)
        if not m or m.group(1) in skip_prs:
            continue
        if not re.match(r"(fix(es|ed)?\b|fix\(|bug ?fix)", title, re.I):
            continue
        # a title that says what: three words beside "fix" and the numbers ("fix issue #266"
        # and "fix golint issues" say nothing an index could match)
        if len(re.findall(r"[a-z]{3,}", re.sub(r"^\S*fix\S*|#\d+", "", title, flags=re.I),
                          re.I)) < 3:
            continue
        yield title, sha


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True, help="a full-history clone (bare or not)")
    ap.add_argument("--name", required=True, help="owner/name, as bench_swebench finds the clone")
    ap.add_argument("--changelog", action="append", default=[],
                    help="a changelog's path in the repository (repeatable)")
    ap.add_argument("--from-log", action="store_true",
                    help="no changelog: the titles of the pull requests merged on the first-parent "
                         "line that say they fix (cli/cli, go-zero)")
    ap.add_argument("--rev", default="HEAD", help="the revision whose changelogs are read")
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--max-gold", type=int, default=3)
    ap.add_argument("--seed", default="mnemo")
    ap.add_argument("--exclude", action="append", default=[],
                    help="a JSONL of instances (a dev set) whose fixes are left out: the same "
                         "base commit, or a pull request of the instance's number")
    ap.add_argument("--source-ext", action="append", default=[], metavar=".EXT=LANGUAGE",
                    help="one more extension of source files (repeatable): .pony=pony counts "
                         "ponyc's standard library among the gold (retrieval.md)")
    o = ap.parse_args()
    for spec in o.source_ext:
        ext, _, lang = spec.partition("=")
        if not ext.startswith(".") or not lang:
            ap.error("--source-ext wants .EXT=LANGUAGE, got %r" % spec)
        SOURCE_EXT[ext] = lang
    if not o.changelog and not o.from_log:
        ap.error("name a --changelog, or --from-log")

    skip_bases, skip_prs = set(), set()
    for path in o.exclude:
        for line in open(path, encoding="utf-8"):
            d = json.loads(line)
            skip_bases.add(d.get("base_commit"))
            if d.get("repo") == o.name:
                skip_prs.add(d["instance_id"].rsplit("-", 1)[-1])

    subjects, subject_of = {}, {}  # pull request number -> commit; commit -> subject
    for line in git(o.repo, "log", "--first-parent", "--format=%H %s", o.rev).splitlines():
        sha, _, subject = line.partition(" ")
        subject_of[sha] = subject
        m = re.search(r"\(#(\d+)\)\s*$", subject) or re.match(r"Merge pull request #(\d+)", subject)
        if m:
            subjects.setdefault(m.group(1), sha)

    fixes = list(changelog_fixes(o, subjects, subject_of, skip_prs))
    if o.from_log:
        fixes += list(log_fixes(o, skip_prs))
    seen, found = set(), []
    for text, commit in fixes:
        try:
            sha = git(o.repo, "rev-parse", "--verify", "-q", commit + "^{commit}").strip()
            parent = git(o.repo, "rev-parse", sha + "^1").strip()
        except subprocess.CalledProcessError:
            continue  # a commit this clone does not hold, or a root commit
        if sha in seen or parent in skip_bases:
            continue
        seen.add(sha)
        gold = []
        for row in git(o.repo, "diff", "--name-status", "--no-renames", parent, sha).splitlines():
            status, _, file = row.partition("\t")
            ext = file[file.rfind("."):] if "." in file else ""
            if ext in SOURCE_EXT and not NOT_SOURCE.search(file):
                gold.append((status, file))
        if not gold or len(gold) > o.max_gold or any(s != "M" for s, _ in gold):
            continue
        files = [f for _, f in gold]
        langs = [SOURCE_EXT[f[f.rfind("."):]] for f in files]
        found.append({
            "instance_id": "%s-cl-%s" % (o.name.replace("/", "__"), sha[:10]),
            "repo": o.name,
            "base_commit": parent,
            "patch": git(o.repo, "diff", parent, sha, "--", *files),
            "problem_statement": text,
            "language": max(set(langs), key=langs.count),
            "created_at": git(o.repo, "show", "-s", "--format=%cI", sha).strip(),
        })
    key = lambda d: hashlib.sha256((o.seed + d["instance_id"]).encode()).hexdigest()
    chosen = sorted(sorted(found, key=key)[: o.n], key=lambda d: d["created_at"])
    for d in chosen:
        print(json.dumps(d, ensure_ascii=False))
    print("%s: %d fixes found, %d written" % (o.name, len(found), len(chosen)), file=sys.stderr)


if __name__ == "__main__":
    main()
