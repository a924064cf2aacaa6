#!/usr/bin/env bash
# cli_options.sh - names people write in issues (issue 22): a git repository
# of a small test runner made here, whose command line, environment and
# config keys are declared in modules of their own (argparse, os.environ,
# an addini-style config table), indexed by `mnemo index`; an issue that
# types an option (`--tb=line`), a short option (`-x`), an environment
# variable or a config key ranks the declaring file first, above modules
# whose words the issue repeats. `index` stores the declarations (table
# declared_names) and a re-index of a changed file replaces them.
set -euo pipefail
shopt -s lastpipe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg MNEMO_NOW_MS=1795239445123
unset MNEMO_DB MNEMO_PROJECT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# first FILE-QUERY: the first file of a file search
first() {
  local args
  args=$(node -e 'console.log(JSON.stringify({query: process.argv[1], kinds: ["file"], k: 5}))' "$1")
  $M call search "$args" | node -e "const d=JSON.parse(require('fs').readFileSync(0,'utf8')); console.log(d.items.length ? d.items[0].id : '')"
}

repo=$tmp/repo
mkdir -p "$repo/runner"
cd "$repo"
git init -q
: >runner/__init__.py
cat >runner/options.py <<'PY'
"""The command line of the runner."""
import argparse


def make_parser():
    parser = argparse.ArgumentParser(prog="runner")
    parser.add_argument("--tb", dest="tbstyle", default="auto", choices=["auto", "long", "short"])
    parser.add_argument("-x", "--exitfirst", action="store_true", help="stop at the first failure")
    parser.add_argument("--maxfail", type=int, default=0)
    return parser
PY
cat >runner/env.py <<'PY'
"""Settings the runner takes from its environment."""
import os


def extra_args():
    return os.environ.get("RUNNER_ADDOPTS", "").split()
PY
cat >runner/ini.py <<'PY'
"""Keys of the runner's configuration file."""


def declare(parser):
    parser.addini("testpaths", "directories to search when none are given", type="args")
    parser.addini("norecursedirs", "directory patterns to skip", type="args")
PY
cat >runner/report.py <<'PY'
"""Report failures: each failing test with its traceback, one line or long."""


def write_traceback(out, failure, style):
    """Write a failure's traceback in a style: long, short or a single line."""
    if style == "line":
        out.write(failure.path + ":" + str(failure.line) + ": " + failure.message + "\n")
        return
    for entry in failure.traceback:
        out.write(entry.line_text + "\n")
        if style == "long":
            out.write(entry.source + "\n")


def summary(out, failures, stop_after_first):
    """The summary line: how many failed, whether the run stopped at the first failure."""
    out.write("%d failed%s\n" % (len(failures), " (stopped at first failure)" if stop_after_first else ""))
PY
cat >runner/collect.py <<'PY'
"""Collect tests: the directories given, else the configured ones; options
of the environment are added to the arguments before collection."""


def directories(config, args):
    """The directories to search for tests: the arguments, else the configured paths."""
    return args or config.paths or ["."]


def arguments(argv, environment_args):
    """The arguments of a run: those of the environment, then the command line's."""
    return list(environment_args) + list(argv)
PY
git add -A
git -c user.name=t -c user.email=t@t commit -qm init
M=$MNEMO
$M init >/dev/null
$M index >/dev/null

got=$(first '`--tb=line` is ignored

With `--tb=line` the report of a failure is still in the long style.')
[ "$got" = "runner/options.py" ] || fail "--tb=line: got '$got'"

got=$(first '`-x` is ignored

With `runner -x` the run goes on after a failure.')
[ "$got" = "runner/options.py" ] || fail "-x: got '$got'"

got=$(first 'RUNNER_ADDOPTS arguments come after the command line

Setting RUNNER_ADDOPTS="-x" in the environment: its arguments come after those of the command line.')
[ "$got" = "runner/env.py" ] || fail "RUNNER_ADDOPTS: got '$got'"

got=$(first '`testpaths` is ignored when directories are given

With `testpaths = tests` in the configuration, the configured paths are searched even when directories are given.')
[ "$got" = "runner/ini.py" ] || fail "testpaths: got '$got'"

# a re-index replaces a changed file's declarations
sed -i 's/--maxfail/--max-failures/' runner/options.py
$M index >/dev/null
db=$(ls "$repo"/.mnemo/*.db 2>/dev/null | head -1)
if [ -n "$db" ] && command -v sqlite3 >/dev/null; then
  names=$(sqlite3 "$db" "SELECT group_concat(name, ' ') FROM (SELECT d.name FROM declared_names d JOIN files f ON f.id = d.file_id WHERE f.path = 'runner/options.py' ORDER BY d.name)")
  [ "$names" = "--exitfirst --max-failures --tb -x" ] || fail "options.py's declarations after a re-index: '$names'"
fi

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "cli_options: ok"
