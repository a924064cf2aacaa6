#!/usr/bin/env bash
# history_set.sh - bench/history_set.py on a real git repository made here:
# a changelog whose fix entries name pull requests, squash-merge commits
# "(#N)", jq's notes ending "@author <commit id>" or "@author #N", the
# titles of merged pull requests (--from-log), and
# entries that must not become instances (an added file, only
# docs changed, an issue's link, a pull request no commit names, a section
# that is no fix, a plain "(#N)" whose commit says something else). Then
# bench_swebench scores what it wrote, so the format is the one it reads.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg TMPDIR=$tmp GIT_CONFIG_NOSYSTEM=1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
script=${MNEMO_SOURCE_DIR:?MNEMO_SOURCE_DIR is not set}/bench/history_set.py
bench=${MNEMO_BENCH_DIR:?MNEMO_BENCH_DIR, the bench directory of the build, is not set}/bench_swebench

repo=$tmp/mirrors/o+r/repo
mkdir -p "$repo/src" "$repo/tests" "$repo/docs"
cd "$repo"
git init -q -b main .
git config user.name t && git config user.email t@example.org
commit() { git add -A && git commit -q -m "$1"; }
printf 'pub fn read_frame() -> u32 { 1 }\n' >src/reader.rs
printf 'pub fn drop_order() -> u32 { 2 }\n' >src/sync.rs
printf '#[test] fn t() {}\n' >tests/reader.rs
printf '# docs\n' >docs/guide.md
commit "initial"
base12=$(git rev-parse HEAD)
printf 'pub fn read_frame() -> u32 { 3 }\n' >src/reader.rs
printf '#[test] fn t() { assert!(true) }\n' >tests/reader.rs
commit "net: fix the frame reader (#12)"
printf 'pub fn spawn() {}\n' >src/spawn.rs
commit "rt: fix spawn on a new runtime (#13)"
base14=$(git rev-parse HEAD)
printf 'pub fn read_frame() -> u32 { 4 }\n' >src/reader.rs
printf 'pub fn drop_order() -> u32 { 5 }\n' >src/sync.rs
commit "sync: fix drop order of the reader (#14)"
printf '# the guide\n' >docs/guide.md
commit "docs: fix a typo (#15)"
printf 'pub fn drop_order() -> u32 { 6 }\n' >src/sync.rs
commit "sync: faster notify (#17)"
base18=$(git rev-parse HEAD)
printf 'pub fn drop_order() -> u32 { 7 }\n' >src/sync.rs
commit "Notify once on drop"
sha18=$(git rev-parse HEAD)
base19=$(git rev-parse HEAD)
printf 'pub fn read_frame() -> u32 { 8 }\n' >src/reader.rs
commit "Fix a leak in the frame reader (#19)"
printf 'pub fn read_frame() -> u32 { 9 }\n' >src/reader.rs
commit "Faster reads (#20)"
# jq's NEWS.md: each note ends with its authors and a commit id or a bare #N
cat >NEWS.md <<EOF
# 1.1

## Bug fixes

- Fix the notify of the drop.
  @dev @other $sha18
- Fix a leak in the frame reader. @dev #19
- Fix the read speed. @dev #20
EOF
cat >CHANGELOG.md <<'EOF'
# 1.0.0

### Fixed

- net: fix the frame reader ([#12])
- rt: fix spawn on a new runtime ([#13])
- docs: fix a typo ([#15])
- io: fix the writer ([#99])
- sync: fix `drop` order
  of the reader (#14)
- time: fix the clock (#17)

### Added

- net: read frames ([#16])

[#12]: https://github.com/o/r/pull/12
[#13]: https://github.com/o/r/pull/13
[#15]: https://github.com/o/r/issues/15
[#16]: https://github.com/o/r/pull/16
[#99]: https://github.com/o/r/pull/99
EOF
commit "changelog"

python3 "$script" --repo "$repo" --name o/r --changelog CHANGELOG.md >"$tmp/set.jsonl" 2>"$tmp/err" ||
    fail "history_set.py: exit $?: $(cat "$tmp/err")"
python3 - "$tmp/set.jsonl" "$base12" "$base14" <<'EOF' || fail "the instances written (above)"
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want = {  # statement -> (base commit, gold files)
    "net: fix the frame reader": (sys.argv[2], ["src/reader.rs"]),
    "sync: fix `drop` order of the reader": (sys.argv[3], ["src/reader.rs", "src/sync.rs"]),
}
got = {r["problem_statement"]: (r["base_commit"], re.findall(r"^diff --git a/(\S+)", r["patch"], re.M))
       for r in rows}
ok = got == want and all(r["repo"] == "o/r" and r["language"] == "rust" and
                         r["instance_id"].startswith("o__r-cl-") for r in rows)
if not ok:
    print("got", json.dumps(got, indent=1), "\nwant", json.dumps(want, indent=1))
sys.exit(0 if ok else 1)
EOF
grep -q "o/r: 2 fixes found, 2 written" "$tmp/err" || fail "the count on stderr: $(cat "$tmp/err")"

# jq's notes: the commit named by its id, the pull request by its bare number (its subject shares
# a word with the note); #20's subject says something else
python3 "$script" --repo "$repo" --name o/r --changelog NEWS.md >"$tmp/news.jsonl" 2>/dev/null
python3 - "$tmp/news.jsonl" "$base18" "$base19" <<'EOF' || fail "jq's notes (above)"
import json, re, sys
got = {r["problem_statement"]: (r["base_commit"], re.findall(r"^diff --git a/(\S+)", r["patch"], re.M))
       for r in map(json.loads, open(sys.argv[1]))}
want = {"Fix the notify of the drop": (sys.argv[2], ["src/sync.rs"]),
        "Fix a leak in the frame reader": (sys.argv[3], ["src/reader.rs"])}
if got != want:
    print("got", json.dumps(got, indent=1), "\nwant", json.dumps(want, indent=1))
sys.exit(0 if got == want else 1)
EOF

# --from-log: no changelog, the pull requests' titles that say they fix (a merge's first body
# line, a squash's subject); "fix issue #23" says nothing and is left out
git checkout -q -b topic
printf 'pub fn read_frame() -> u32 { 10 }\n' >src/reader.rs
commit "bound the frame"
git checkout -q main
base21=$(git rev-parse HEAD)
git merge -q --no-ff topic -m "Merge pull request #21 from o/topic" -m "Fix the frame bound of the reader"
base22=$(git rev-parse HEAD)
printf 'pub fn drop_order() -> u32 { 11 }\n' >src/sync.rs
commit "fix(sync): drop order after a notify (#22)"
printf 'pub fn drop_order() -> u32 { 12 }\n' >src/sync.rs
commit "fix issue #23 (#24)"
python3 "$script" --repo "$repo" --name o/r --from-log >"$tmp/log.jsonl" 2>/dev/null
python3 - "$tmp/log.jsonl" "$base21" "$base22" "$base19" <<'EOF' || fail "--from-log (above)"
import json, re, sys
got = {r["problem_statement"]: (r["base_commit"], re.findall(r"^diff --git a/(\S+)", r["patch"], re.M))
       for r in map(json.loads, open(sys.argv[1]))}
want = {"Fix the frame bound of the reader": (sys.argv[2], ["src/reader.rs"]),
        "fix(sync): drop order after a notify": (sys.argv[3], ["src/sync.rs"]),
        "Fix a leak in the frame reader": (sys.argv[4], ["src/reader.rs"])}
if got != want:
    print("got", json.dumps(got, indent=1), "\nwant", json.dumps(want, indent=1))
sys.exit(0 if got == want else 1)
EOF
python3 "$script" --repo "$repo" --name o/r 2>"$tmp/usage" && fail "no --changelog nor --from-log: exit 0"
grep -q "name a --changelog, or --from-log" "$tmp/usage" || fail "usage: $(cat "$tmp/usage")"

# a dev set's instance of the same pull request is left out
printf '{"instance_id": "o__r-14", "repo": "o/r", "base_commit": "x"}\n' >"$tmp/dev.jsonl"
python3 "$script" --repo "$repo" --name o/r --changelog CHANGELOG.md --exclude "$tmp/dev.jsonl" \
    >"$tmp/set2.jsonl" 2>/dev/null
[ "$(wc -l <"$tmp/set2.jsonl")" = 1 ] && grep -q '"net: fix the frame reader"' "$tmp/set2.jsonl" ||
    fail "--exclude: $(cat "$tmp/set2.jsonl")"
# --n 1: one of the two, the same one on every run
python3 "$script" --repo "$repo" --name o/r --changelog CHANGELOG.md --n 1 >"$tmp/a.jsonl" 2>/dev/null
python3 "$script" --repo "$repo" --name o/r --changelog CHANGELOG.md --n 1 >"$tmp/b.jsonl" 2>/dev/null
[ "$(wc -l <"$tmp/a.jsonl")" = 1 ] && cmp -s "$tmp/a.jsonl" "$tmp/b.jsonl" || fail "--n 1 is not one, the same"

# bench_swebench reads the set: both instances scored, their gold files found in the base trees
"$bench" "$tmp/set.jsonl" --repos "$tmp/mirrors" >"$tmp/bench.out" 2>&1 || fail "bench_swebench: exit $?"
grep -q "^note: 0 instances not scored" "$tmp/bench.out" || fail "bench_swebench: $(grep -E '^note|unscored|not scored' "$tmp/bench.out")"
grep -q "reachable (every gold file in the base tree, at most k of them): k=1 1, k=3 2, k=5 2 of 2" "$tmp/bench.out" ||
    fail "bench_swebench reachable: $(grep reachable "$tmp/bench.out")"

[ "$fails" = 0 ] && echo "ok"
exit "$fails"
