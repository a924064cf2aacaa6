#!/usr/bin/env bash
# discovery_check.sh - discovery on real repositories, and its speed.
#
#   bench/discovery_check.sh REQUESTS_DIR FLASK_DIR PYTEST_DIR
#
# Takes checkouts of psf/requests, pallets/flask and pytest-dev/pytest (any
# recent commit; they need no .git), indexes each into a scratch store,
# runs discovery and asserts the L0 facts that are known to be true of
# them: main language, project type, package manager, test command, main
# package, CI, code style... (each repository needs at least 5). A second
# run must change nothing. Then it generates a 10,000-file tree, indexes it
# and checks that discovery alone takes at most 2 seconds.
# Needs a built mnemo ($MNEMO, default build/mnemo) and node. These
# repositories are not available in CI (no network): run it by hand.
set -euo pipefail
[ $# -eq 3 ] || {
    echo "usage: bench/discovery_check.sh REQUESTS_DIR FLASK_DIR PYTEST_DIR" >&2
    exit 2
}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MNEMO=${MNEMO:-$here/build/mnemo}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# check NAME DIR CHECKS...: each check is "key /regex/" against that fact's title
check() {
    local name=$1 dir=$2
    shift 2
    local db=$tmp/$name.db
    "$MNEMO" --db "$db" index "$dir" >/dev/null
    "$MNEMO" --db "$db" discover "$dir" --json >"$tmp/$name.json"
    "$MNEMO" --db "$db" discover "$dir" --json >"$tmp/$name.again.json"
    echo "== $name ($dir)"
    "$MNEMO" --db "$db" discover "$dir" | sed 's/^/   /'
    node - "$tmp/$name.json" "$tmp/$name.again.json" "$@" <<'JS' || fails=$((fails + 1))
const fs = require('fs');
const [first, again, ...checks] = process.argv.slice(2);
const d = JSON.parse(fs.readFileSync(first, 'utf8'));
const e = JSON.parse(fs.readFileSync(again, 'utf8'));
const title = k => (d.facts.find(f => f.key === k && f.action !== 'archived') || {}).title || '';
let ok = 0, bad = 0;
const l0 = new Set();
for (const c of checks) {
  const sp = c.indexOf(' ');
  const key = c.slice(0, sp), re = new RegExp(c.slice(sp + 1).replace(/^\/|\/$/g, ''));
  const t = title(key);
  if (re.test(t)) {
    ok++;
    const f = d.facts.find(f => f.key === key);
    if (f.level === 'L0') l0.add(key);
  } else {
    bad++;
    console.log(`   FAIL ${key}: '${t}' !~ ${re}`);
  }
}
if (e.created || e.updated || e.archived) {
  bad++;
  console.log(`   FAIL a second run changed facts: ${JSON.stringify(e).slice(0, 200)}`);
}
if (l0.size < 5) {
  bad++;
  console.log(`   FAIL only ${l0.size} true L0 facts`);
}
console.log(`   ${ok} checks passed, ${l0.size} true L0 facts, ${bad} failed; discovery ${d.seconds.toFixed(3)} s`);
process.exit(bad ? 1 : 0);
JS
}

check requests "$1" \
    'languages /^Main language: Python \(/' \
    'project-type /^Project: requests, a Python library/' \
    'package-manager /pip.*setuptools/' \
    'dependencies /urllib3/' \
    'runtime /^Runtime: Python >=3/' \
    'test-command /pytest/' \
    'build-command /python -m build/' \
    'main-package /^Main package: src\/requests \(requests\)/' \
    'code-style /Ruff/' \
    'ci /^CI: GitHub Actions/' \
    'docs /Sphinx/' \
    'domain:src/requests /^Domain src\/requests: \d+ Python files/'

check flask "$2" \
    'languages /^Main language: Python \(/' \
    'project-type /^Project: Flask, a Python framework with a command-line tool flask/' \
    'package-manager /uv.*flit/' \
    'frameworks /Click.*Jinja.*Werkzeug/' \
    'dependencies /werkzeug/' \
    'test-command /pytest/' \
    'run-command /^Run command: flask /' \
    'entry-points /flask\.cli:main/' \
    'main-package /^Main package: src\/flask \(Flask\)/' \
    'code-style /Ruff.*mypy/' \
    'ci /^CI: GitHub Actions/' \
    'domain:src/flask /^Domain src\/flask: \d+ Python files/'

check pytest "$3" \
    'languages /^Main language: Python \(/' \
    'project-type /^Project: pytest, a Python testing tool with command-line tools/' \
    'package-manager /setuptools/' \
    'dependencies /pluggy/' \
    'test-command /pytest|tox/' \
    'run-command /^Run command: pytest /' \
    'entry-points /_pytest\.config:_console_main/' \
    'main-package /^Main package: pytest \(src\/pytest\), implemented mostly in src\/_pytest/' \
    'code-style /Ruff/' \
    'ci /^CI: GitHub Actions/' \
    'docs /Sphinx/' \
    'domain:src/_pytest /^Domain src\/_pytest: \d+ Python files/'

# speed: a generated tree of 10,000 files
big=$tmp/big
node - "$big" <<'JS'
const fs = require('fs'), path = require('path');
const root = process.argv[2];
const w = (p, s) => { fs.mkdirSync(path.dirname(path.join(root, p)), {recursive: true}); fs.writeFileSync(path.join(root, p), s); };
w('pyproject.toml', '[project]\nname = "big"\ndependencies = ["flask"]\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n');
w('package.json', '{"name": "bigweb", "scripts": {"build": "vite build"}, "dependencies": {"react": "18"}}\n');
w('Makefile', 'test:\n\tpytest\n');
let n = 3;
for (const top of ['src/big', 'web/src', 'tools', 'tests'])
  for (let d = 0; d < 25; d++)
    for (let i = 0; i < 100 && n < 10000; i++, n++) {
      const ts = top === 'web/src';
      const name = top === 'tests' ? `test_f${i}.py` : `f${i}.${ts ? 'ts' : 'py'}`;
      w(`${top}/mod${d}/${name}`, ts
        ? `import { g${(i + 1) % 100} } from "./f${(i + 1) % 100}";\nexport function g${i}(): number { return ${i}; }\n`
        : `from .f${(i + 1) % 100} import g${(i + 1) % 100}\n\n\nclass C${i}:\n    def m(self):\n        return g${i}()\n\n\ndef g${i}():\n    return ${i}\n`);
    }
JS
"$MNEMO" --db "$tmp/big.db" index "$big" >/dev/null
"$MNEMO" --db "$tmp/big.db" discover "$big" --json >"$tmp/big.json"
node -e "
const d = JSON.parse(require('fs').readFileSync('$tmp/big.json', 'utf8'));
console.log('== 10,000 files: discovery ' + d.seconds.toFixed(3) + ' s, ' + d.facts.length + ' facts');
process.exit(d.seconds <= 2 ? 0 : 1)" || {
    echo "   FAIL discovery took more than 2 s"
    fails=$((fails + 1))
}
[ "$fails" -eq 0 ] || {
    echo "discovery_check: $fails failure(s)"
    exit 1
}
echo "discovery_check: ok"
