#!/usr/bin/env bash
# bench_ingest.sh - `mnemo ingest git` on a whole history, next to git
# reading the same history itself, and a random sample of the candidates
# it saved active, for review.
#
#   bench/bench_ingest.sh REPO [--mnemo PATH] [--sample N] [--seed S] [--strict]
#
# REPO is a git work tree or a bare git directory (it is cloned to a
# scratch directory either way, so the checkout is not touched); without it
# (or $MNEMO_BENCH_REPO) the bench says it skipped and exits 0. For
# psf/requests: a clone of github.com/psf/requests (full history).
#
# Prints: commits in the history and commits recorded (every one must be:
# "linked"), the memories each linking to its commit, candidates per kind,
# saved active / queued for review, wall time of `mnemo index` and of
# `mnemo ingest git`, and the baseline: `git log -p --no-merges` (git
# reading every patch of the history once, output thrown away) in the same
# run; the ratio ingest/baseline is the number to compare over time.
# Targets (issue 21): the whole history in <= 60 s; every commit recorded.
# With --sample N: N candidates chosen at random (seeded) among those saved
# active (confidence >= capture.auto_approve), as Markdown rows to judge
# (bench/ingest_review.md holds the judged sample).
set -euo pipefail

repo=${MNEMO_BENCH_REPO:-}
mnemo=${MNEMO:-}
sample=0
seed=21
strict=0
while [ $# -gt 0 ]; do
    case $1 in
    --mnemo) mnemo=$2; shift 2 ;;
    --sample) sample=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --strict) strict=1; shift ;;
    -h | --help) sed -n '2,24p' "$0"; exit 0 ;;
    -*) echo "bench_ingest: unknown option $1" >&2; exit 2 ;;
    *) repo=$1; shift ;;
    esac
done
if [ -z "$repo" ]; then
    echo "bench_ingest: skipped (give a repository, or set MNEMO_BENCH_REPO)"
    exit 0
fi
if [ -z "$mnemo" ]; then
    here=$(cd "$(dirname "$0")/.." && pwd)
    for m in "$here/build-bench/mnemo" "$here/build/mnemo"; do
        [ -x "$m" ] && { mnemo=$m; break; }
    done
fi
[ -x "${mnemo:-}" ] || { echo "bench_ingest: no mnemo binary (--mnemo PATH)" >&2; exit 2; }
mnemo=$(cd "$(dirname "$mnemo")" && pwd)/$(basename "$mnemo")
command -v node >/dev/null || { echo "bench_ingest: node is needed to read the JSON" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset MNEMO_DB MNEMO_PROJECT
git clone -q "$repo" "$tmp/repo"
cd "$tmp/repo"
ms() { echo $(($(date +%s%N) / 1000000)); }

commits=$(git rev-list --count HEAD)
t0=$(ms)
git log -p --no-merges --format=%H >/dev/null
t1=$(ms)
base_ms=$((t1 - t0))

"$mnemo" init >/dev/null
t0=$(ms)
"$mnemo" index >/dev/null
t1=$(ms)
index_ms=$((t1 - t0))
t0=$(ms)
"$mnemo" --json ingest git >"$tmp/run.json"
t1=$(ms)
ingest_ms=$((t1 - t0))
recorded=$(sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM git_commits WHERE state='done'")
"$mnemo" export --format json >"$tmp/all.json"

node - "$tmp/run.json" "$tmp/all.json" "$commits" "$recorded" "$base_ms" "$index_ms" "$ingest_ms" \
    "$sample" "$seed" "$strict" <<'EOF'
const fs = require('fs');
const [run, all, commits, recorded, baseMs, indexMs, ingestMs, sample, seed, strict] = process.argv.slice(2);
const r = JSON.parse(fs.readFileSync(run)), mems = JSON.parse(fs.readFileSync(all));
const git = mems.filter(m => m.provenance.source === 'git');
const linked = git.filter(m => /^[0-9a-f]{40}$/.test(m.provenance.commit) &&
    (m.links || []).some(l => l.kind === 'derived_from' && l.to === 'commit:' + m.provenance.commit));
const kinds = ['dependency', 'runtime', 'module', 'api', 'ci', 'build', 'config', 'migration', 'decision', 'gotcha', 'revert'];
const tag = m => (m.scope?.tags || []).find(t => ['dependencies', ...kinds].includes(t)) || m.kind;
const auto = git.filter(m => m.confidence >= 0.85);
const byStatus = {};
for (const m of git) byStatus[m.status] = (byStatus[m.status] || 0) + 1;
console.log(`commits: ${commits} in the history, ${recorded} recorded (${+recorded === +commits ? 'every commit linked' : 'MISSING ' + (commits - recorded)}), ${r.commits.merges} merges read for their message`);
console.log(`memories from git: ${git.length}, ${linked.length} linking to their commit (derived_from commit:<sha>, provenance.commit the full sha)`);
console.log(`candidates by kind: ${kinds.filter(k => r.candidates[k]).map(k => `${k} ${r.candidates[k]}`).join(', ')} (${Object.values(r.candidates).reduce((a, b) => a + b, 0)} in all)`);
console.log(`saved active (auto-approved, >= capture.auto_approve 0.85): ${r.saved}; queued for review: ${r.queued}; merged: ${r.merged}; refused: ${r.refused}`);
console.log(`status now: ${Object.entries(byStatus).map(([k, v]) => `${k} ${v}`).join(', ')} (superseded: a later fact about the same thing replaced it)`);
console.log(`auto-approved by kind: ${Object.entries(auto.reduce((a, m) => (a[tag(m)] = (a[tag(m)] || 0) + 1, a), {})).map(([k, v]) => `${k} ${v}`).join(', ')}`);
console.log(`time: mnemo index ${(indexMs / 1000).toFixed(1)} s; mnemo ingest git ${(ingestMs / 1000).toFixed(1)} s (its own count: ${r.seconds.toFixed(1)} s); baseline git log -p ${(baseMs / 1000).toFixed(1)} s; ratio ingest/baseline ${(ingestMs / baseMs).toFixed(2)}`);
const pass = ingestMs <= 60000 && +recorded === +commits && linked.length === git.length;
console.log(`targets: whole history <= 60 s: ${ingestMs <= 60000 ? 'PASS' : 'FAIL'}; every commit recorded and every memory linked: ${+recorded === +commits && linked.length === git.length ? 'PASS' : 'FAIL'}`);
if (+sample > 0) {
    // a seeded shuffle (mulberry32), so the sample can be drawn again
    let s = +seed >>> 0;
    const rnd = () => { s = (s + 0x6D2B79F5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
    const pool = auto.slice().sort((a, b) => a.id < b.id ? -1 : 1);
    for (let i = pool.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [pool[i], pool[j]] = [pool[j], pool[i]]; }
    console.log(`\nsample of ${sample} auto-approved candidates (seed ${seed}, of ${auto.length}):\n`);
    console.log('| # | kind | commit | confidence | status now | title |');
    console.log('|---|---|---|---|---|---|');
    pool.slice(0, +sample).forEach((m, i) => console.log(`| ${i + 1} | ${tag(m)} | ${m.provenance.commit.slice(0, 12)} | ${m.confidence} | ${m.status} | ${m.title.replace(/\|/g, '\\|')} |`));
}
process.exit(+strict && !pass ? 1 : 0);
EOF
