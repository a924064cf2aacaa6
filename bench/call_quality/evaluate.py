"""evaluate.py - mnemo's call edges against a reference resolver's call sites.

    python3 evaluate.py LANG ROOT SYMBOLS.json CALLS.json REF.jsonl MISSES

SYMBOLS.json and CALLS.json are sqlite3 -json dumps of mnemo's store
(call_quality.sh makes them); REF.jsonl has one line per call site found by
the reference (ref_*.py/go/js): path, line, col (0-based, in characters, of
the callee's last name), name, ref ("repo" with defs [[path, line]...],
"external", or "unknown"), optionally decls [[path, line]...] (C/C++: the
declarations of the callee) and why.

mnemo keeps no line per call: an edge is (calling symbol, callee as written,
occurrences). A site is matched to the edge of the innermost mnemo symbol of
its file whose line span holds the site's line (or the file's own edges for
top-level code) and whose key (the callee's last name, edges.dst_key) is the
site's name; among several, the one whose dst_name is the callee as mnemo
writes it, rebuilt from the source line by parse.c's add_call rules (the
dotted chain before the name, "::" and "->" as ".", receivers self./this./
cls. dropped). Prints one summary line as JSON (for the table) after the
details.
"""
import json
import os
import sys

lang, root, sym_path, call_path, ref_path, show = sys.argv[1:7]
show = int(show)


def load_json(path):
    with open(path, encoding="utf-8") as f:
        text = f.read().strip()
    return json.loads(text) if text else []


syms = load_json(sym_path)
calls = load_json(call_path)
sites = []
with open(ref_path, encoding="utf-8") as f:
    for line in f:
        line = line.strip()
        if line:
            st = json.loads(line)
            st["path"] = os.path.normpath(st["path"])
            sites.append(st)

sym_by_id = {s["id"]: s for s in syms}
syms_by_file = {}
for s in syms:
    syms_by_file.setdefault(s["path"], []).append(s)
# (file, src symbol id or 0 for the file, key) -> [edges]
edges = {}
for e in calls:
    k = (e["path"], e["src"] or 0, e["key"])
    edges.setdefault(k, []).append(e)

lines_cache = {}


def line_text(path, n):
    if path not in lines_cache:
        try:
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                lines_cache[path] = f.read().split("\n")
        except OSError:
            lines_cache[path] = []
    ls = lines_cache[path]
    return ls[n - 1] if 0 < n <= len(ls) else ""


def ident(ch):
    return ch >= "\x80" or ch.isalnum() or ch in "_$"


def written(site):
    """The callee as parse.c's add_call stores it (dst_name), or None."""
    t = line_text(site["path"], site["line"])
    s, name = site["col"], site["name"]
    if t[s:s + len(name)] != name:
        return None
    a = s
    while a > 0 and s - a < 256:
        ch = t[a - 1]
        if ident(ch) or ch in ".@\\":
            a -= 1
        elif ch in ":>" and a >= 2 and t[a - 2] == (":" if ch == ":" else "-"):
            a -= 2
        else:
            break
    b = t[a:s + len(name)].replace("::", ".").replace("->", ".").replace("\\", ".")
    if not all(ident(c) or c in ".@!?" for c in b):
        b = name
    b = b.lstrip(".@")
    for r in ("self.", "this.", "cls.", "$this.", "Self."):
        if b.startswith(r) and len(b) > len(r):
            b = b[len(r):]
            break
    if b.startswith("$") and "." in b:
        b = b[1:]
    return b


def match(site):
    """mnemo's edge for this site, or None."""
    path, line, key = site["path"], site["line"], site["name"]
    holders = [s for s in syms_by_file.get(path, []) if s["start"] <= line <= s["end"]]
    holders.sort(key=lambda s: (s["end"] - s["start"], -s["start"]))
    want = written(site)
    for src in [h["id"] for h in holders] + [0]:
        cands = edges.get((path, src, key))
        if not cands:
            continue
        for e in cands:
            if e["name"] == want:
                return e
        return cands[0]
    return None


def at(defs, path, start, end):
    return any(d[0] == path and start <= d[1] <= end for d in defs)


n = matched = resolved = judged = right = decl = 0
ref_repo = ref_ext = ref_unk = rec_hit = 0
wrong_ext = wrong_repo = wrong_dyn = unjudged = 0
no_edge_repo = unresolved_repo = 0
examples = {"wrong": [], "missed": [], "external": []}
files = set()
for st in sites:
    files.add(st["path"])
    n += 1
    ref = st["ref"]
    ref_repo += ref == "repo"
    ref_ext += ref == "external"
    ref_unk += ref == "unknown"
    e = match(st)
    if e is None:
        if ref == "repo":
            no_edge_repo += 1
            examples["missed"].append((st, "no mnemo call edge"))
        continue
    matched += 1
    if e["dst"] is None:
        if ref == "repo":
            unresolved_repo += 1
            examples["missed"].append((st, "unresolved (%s)" % e["name"]))
        continue
    resolved += 1
    if ref == "unknown":
        unjudged += 1
        continue
    judged += 1
    ok = ref == "repo" and at(st["defs"], e["dpath"], e["dstart"], e["dend"])
    if ok:
        right += 1
        rec_hit += 1
    elif ref == "repo" and at(st.get("decls", []), e["dpath"], e["dstart"], e["dend"]):
        decl += 1
        examples["wrong"].append((st, "to a declaration: %s %s:%d-%d" % (
            e["dname"], e["dpath"], e["dstart"], e["dend"])))
    elif ref == "repo":
        wrong_repo += 1
        wrong_dyn += st.get("why", "").startswith("dynamic")
        examples["wrong"].append((st, "%s -> %s %s:%d-%d, reference %s" % (
            e["name"], e["dname"], e["dpath"], e["dstart"], e["dend"], st["defs"][:3])))
    else:
        wrong_ext += 1
        examples["external"].append((st, "%s -> %s %s:%d" % (
            e["name"], e["dname"], e["dpath"], e["dstart"])))

# mnemo's own view of the sample files: every call occurrence it recorded
own = own_res = 0
for e in calls:
    if e["path"] in files:
        own += e["weight"]
        own_res += e["weight"] if e["dst"] is not None else 0


def pct(a, b):
    return 100.0 * a / b if b else 0.0


print("   reference: %d call sites in %d files: %d defined in the repository, %d outside, "
      "%d unknown to it" % (n, len(files), ref_repo, ref_ext, ref_unk))
print("   mnemo: %d call occurrences recorded in those files, %d resolved (%.1f%%)"
      % (own, own_res, pct(own_res, own)))
print("   sites with a mnemo edge %d (%.1f%%); resolved %d (%.1f%% of matched)"
      % (matched, pct(matched, n), resolved, pct(resolved, matched)))
print("   precision %d/%d (%.1f%%): wrong %d to another repository symbol, %d to a declaration"
      " (not the definition), %d where the callee is outside the repository; %d resolved sites"
      " the reference cannot judge" % (right, judged, pct(right, judged), wrong_repo, decl,
                                       wrong_ext, unjudged))
if wrong_dyn:
    print("   of the %d wrong in the repository, %d are dynamic calls (an interface's or a virtual"
          " method: the reference names the declared method, mnemo may name an implementation)"
          % (wrong_repo, wrong_dyn))
print("   recall %d/%d (%.1f%%): %d without a mnemo edge, %d unresolved" % (
    rec_hit, ref_repo, pct(rec_hit, ref_repo), no_edge_repo, unresolved_repo))
for k in ("wrong", "external", "missed"):
    for st, why in examples[k][:show]:
        print("     %s %s:%d %s: %s" % (k, st["path"], st["line"], st["name"], why))
print("SUMMARY " + json.dumps({
    "lang": lang, "root": root, "files": len(files), "sites": n, "ref_repo": ref_repo,
    "ref_ext": ref_ext, "ref_unk": ref_unk, "matched": matched, "resolved": resolved,
    "judged": judged, "right": right, "decl": decl, "wrong_repo": wrong_repo,
    "wrong_ext": wrong_ext, "wrong_dyn": wrong_dyn, "unjudged": unjudged, "recall_hit": rec_hit, "own": own,
    "own_res": own_res}))
