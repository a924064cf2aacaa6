"""ref_python.py - the reference resolver for Python calls: jedi.

    python3 ref_python.py ROOT FILE...      (FILE relative to ROOT)

Prints one JSON line per call site of each FILE: every ast.Call whose callee
is a name (`f(...)`) or an attribute (`x.f(...)`), at the position of the
callee's last name, with jedi's definition of it (Script.goto with
follow_imports, the whole checkout as jedi's project):
  ref "repo"      defs = [[path, line]...] in the checkout (line of the name)
  ref "external"  jedi found it outside the checkout (standard library, a
                  package, a builtin)
  ref "unknown"   jedi found nothing, or only a parameter or a name whose
                  value it could not infer (a call through a variable)
Needs Debian's python3-jedi (run with /usr/bin/python3).
"""
import ast
import json
import os
import sys

import jedi

root = os.path.abspath(sys.argv[1])
project = jedi.Project(root, added_sys_path=[root, os.path.join(root, "src")])


def under_root(p):
    return p is not None and (str(p) + "/").startswith(root + "/") and "/site-packages/" not in str(p)


def classify(names):
    repo, ext = [], False
    for n in names:
        if n.module_path is None or n.in_builtin_module() or not under_root(n.module_path):
            ext = True
            continue
        if n.type == "param":
            continue
        if n.line is None:
            continue
        repo.append([os.path.relpath(str(n.module_path), root), n.line])
    return repo, ext


def site_ref(script, line, col):
    try:
        names = script.goto(line, col, follow_imports=True)
    except Exception as e:  # jedi raises on odd code; the site stays unjudged
        return "unknown", [], "jedi: %s" % type(e).__name__
    if names and all(n.type in ("param", "statement") for n in names):
        # a call through a variable or parameter: what does it hold?
        try:
            inf = [n for n in script.infer(line, col) if n.type in ("function", "class")]
        except Exception:
            inf = []
        if inf:
            names = inf
        elif all(n.type == "param" for n in names):
            return "unknown", [], "parameter"
    repo, ext = classify(names)
    if repo:
        return "repo", repo, ""
    if ext:
        return "external", [], ""
    return "unknown", [], "no definition"


for rel in sys.argv[2:]:
    path = os.path.join(root, rel)
    try:
        with open(path, encoding="utf-8") as f:
            code = f.read()
        tree = ast.parse(code)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        continue
    script = jedi.Script(code, path=path, project=project)
    lines = code.split("\n")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn = node.func
        if isinstance(fn, ast.Name):
            line, col, name = fn.lineno, fn.col_offset, fn.id
        elif isinstance(fn, ast.Attribute) and fn.end_lineno is not None:
            line, col, name = fn.end_lineno, fn.end_col_offset - len(fn.attr), fn.attr
        else:
            continue
        # ast's columns count UTF-8 bytes; jedi's and ours count characters
        col = len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))
        ref, defs, why = site_ref(script, line, col)
        print(json.dumps({"path": rel, "line": line, "col": col, "name": name,
                          "ref": ref, "defs": defs, "why": why}))
    sys.stdout.flush()
