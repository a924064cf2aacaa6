#!/usr/bin/env bash
# declared_check.sh - file ranking for issues that name a command-line
# option, an environment variable or a config key (issue 22), on a check
# set made from pytest's own history: the newest N changelog entries
# (changelog/<n>.<type>.rst, as each commit added it) whose text names an
# option (--x), a PYTEST_ variable or an ini key (``key`` ini /
# :confval:`key`); the query is the entry's text, the gold files are the
# commit's changed src/*.py files present at HEAD. One index of HEAD with
# changelog/ and doc/en/changelog.rst removed (no entry's own text is
# indexed; the fixes are in the indexed code, as in any index made after
# the fact).
#
#   bench/declared_check.sh PYTEST_GIT_DIR --mnemo PATH [--base PATH] [--n 40]
#
# PYTEST_GIT_DIR: a full-history clone of github.com/pytest-dev/pytest
# (a bare directory or a work tree's .git). --base: another mnemo build
# (the one before the change) run on its own index of the same tree, for
# the items moved. Prints Acc@1/3/5 per build and each item that moved.
# Measured (docs/internals/retrieval.md, declared names): HEAD df87db7,
# 40 entries, 0.700/0.950/1.000 (a405119) -> 0.850/0.975/1.000.
set -euo pipefail
git_dir=${1:?usage: declared_check.sh PYTEST_GIT_DIR --mnemo PATH [--base PATH] [--n N]}
shift
mnemo=${MNEMO:-}
base=
n=40
while [ $# -gt 0 ]; do
  case $1 in
  --mnemo) mnemo=$2; shift 2 ;;
  --base) base=$2; shift 2 ;;
  --n) n=$2; shift 2 ;;
  *) echo "declared_check: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$mnemo" ] || { echo "declared_check: give --mnemo PATH" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tree"
git --git-dir="$git_dir" archive HEAD | tar -x -C "$tmp/tree"
rm -rf "$tmp/tree/changelog" "$tmp/tree/doc/en/changelog.rst"
(cd "$tmp/tree" && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm tree)
"$mnemo" --db "$tmp/new.db" index "$tmp/tree" >/dev/null
[ -z "$base" ] || "$base" --db "$tmp/base.db" index "$tmp/tree" >/dev/null
GIT_DIR=$git_dir N=$n TREE=$tmp/tree MNEMO_NEW=$mnemo MNEMO_BASE=$base TMPD=$tmp python3 - <<'PY'
import json, os, re, subprocess
G = ["git", "--git-dir=" + os.environ["GIT_DIR"]]
def out(*a):
    return subprocess.run(G + list(a), capture_output=True, text=True).stdout
head = set(out("ls-tree", "-r", "--name-only", "HEAD").split())
items, cur = [], None
for l in out("log", "--diff-filter=A", "--format=@%H", "--name-only", "--", "changelog/").splitlines():
    if l.startswith("@"):
        cur = l[1:]
        continue
    if not l.endswith(".rst") or not cur or len(items) >= int(os.environ["N"]):
        continue
    text = out("show", cur + ":" + l)
    names = re.findall(r"(?<![\w-])--[a-zA-Z][\w-]+", text) + re.findall(r"\bPYTEST_[A-Z_]+\b", text)
    names += re.findall(r"``(\w+)``\s+(?:ini|configuration)", text) + re.findall(r":confval:`(\w+)`", text)
    if not names:
        continue
    gold = [f for f in out("show", "--format=", "--name-only", cur).split()
            if f.startswith("src/") and f.endswith(".py") and f in head]
    if gold:
        items.append((cur, l, text.strip(), gold))
def ranks(binary, db):
    r = []
    for _, _, text, gold in items:
        q = json.dumps({"query": text, "kinds": ["file"], "k": 5})
        res = subprocess.run([binary, "--db", db, "call", "search", q], capture_output=True,
                             text=True, cwd=os.environ["TREE"]).stdout
        ids = [i["id"] for i in json.loads(res)["items"]]
        r.append(next((k + 1 for k, f in enumerate(ids) if f in gold), None))
    return r
runs = [("new", ranks(os.environ["MNEMO_NEW"], os.environ["TMPD"] + "/new.db"))]
if os.environ["MNEMO_BASE"]:
    runs.insert(0, ("base", ranks(os.environ["MNEMO_BASE"], os.environ["TMPD"] + "/base.db")))
print("pytest declared-names check: %d entries" % len(items))
for name, r in runs:
    print("%-5s Acc@1 %.3f  @3 %.3f  @5 %.3f" % ((name,) + tuple(
        sum(1 for v in r if v and v <= k) / max(1, len(r)) for k in (1, 3, 5))))
if len(runs) == 2:
    for it, a, b in zip(items, runs[0][1], runs[1][1]):
        if a != b:
            print("moved %s %s: %s -> %s" % (it[0][:10], it[1], a, b))
PY
