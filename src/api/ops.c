/*
 * ops.c - the operation table: every operation mnemo offers, once.
 *
 * The CLI builds its commands, flags and --help from this table; the MCP
 * server lists these as tools and the HTTP API routes to them. Input
 * schemas live in src/api/schemas/<name>.json (embedded at build time) and
 * are checked by tests/unit/api/test_ops.c. Descriptions are written for
 * the agent that reads them in a tool list as much as for a person.
 */
#include "common.h"

#include "api/api_internal.h"
#include "api/op_ingest.h"

extern const char mn_schema_save[], mn_schema_get[], mn_schema_list[], mn_schema_update[],
    mn_schema_forget[], mn_schema_link[], mn_schema_export[], mn_schema_import[],
    mn_schema_config[], mn_schema_index[], mn_schema_status[], mn_schema_files[],
    mn_schema_symbols[], mn_schema_graph[], mn_schema_out_index[], mn_schema_out_status[],
    mn_schema_out_files[], mn_schema_out_symbols[], mn_schema_out_graph[], mn_schema_out_save[],
    mn_schema_out_get[], mn_schema_out_list[], mn_schema_out_update[], mn_schema_out_forget[],
    mn_schema_out_link[], mn_schema_out_export[], mn_schema_out_import[], mn_schema_out_config[],
    mn_schema_discover[], mn_schema_out_discover[], mn_schema_search[], mn_schema_out_search[],
    mn_schema_feedback[], mn_schema_out_feedback[], mn_schema_context[], mn_schema_out_context[],
    mn_schema_recall[], mn_schema_out_recall[], mn_schema_search_code[],
    mn_schema_out_search_code[], mn_schema_scan[], mn_schema_out_scan[], mn_schema_stale[],
    mn_schema_out_stale[], mn_schema_revalidate[], mn_schema_out_revalidate[], mn_schema_gc[],
    mn_schema_out_gc[];
extern const char mn_schema_review[], mn_schema_out_review[], mn_schema_consolidate[],
    mn_schema_out_consolidate[];

/* the file plan (op_plan.c) */
extern const char mn_schema_plan_files[], mn_schema_out_plan_files[];
int mn_op_plan(mn_ctx *ctx, const json_t *args, json_t **out);

/* the audit log (op_audit.c) */
extern const char mn_schema_audit[], mn_schema_out_audit[];

/* the ingests (op_ingest.c, api/op_ingest.h) */
extern const char mn_schema_ingest_git[], mn_schema_out_ingest_git[], mn_schema_ingest_docs[],
    mn_schema_out_ingest_docs[], mn_schema_open_doc[], mn_schema_out_open_doc[],
    mn_schema_ingest_issues[], mn_schema_out_ingest_issues[], mn_schema_link_issue[],
    mn_schema_out_link_issue[], mn_schema_capture[], mn_schema_out_capture[],
    mn_schema_record_decision[], mn_schema_out_record_decision[], mn_schema_chain[],
    mn_schema_out_chain[];

/* Handlers in op_search.c (declared here: api_internal.h lists the older ones). */
int mn_op_search(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_feedback(mn_ctx *ctx, const json_t *args, json_t **out);
/* op_scan.c */
int mn_op_scan(mn_ctx *ctx, const json_t *args, json_t **out);
/* op_review.c */
int mn_op_review(mn_ctx *ctx, const json_t *args, json_t **out);
int mn_op_consolidate(mn_ctx *ctx, const json_t *args, json_t **out);

/*
 * search_code: search with kinds limited to code and files, for an agent
 * that wants places in the code rather than the team's knowledge (a tool
 * of its own so its schema says exactly that).
 */
static int op_search_code(mn_ctx *ctx, const json_t *args, json_t **out)
{
    json_t *a = json_deep_copy(args);
    int rc;
    if (!json_object_get(a, "kinds"))
        json_object_set_new(a, "kinds", json_pack("[s,s]", "code", "file"));
    rc = mn_api__search(ctx, "search_code", a, out); /* served and audited as such */
    json_decref(a);
    return rc;
}

static const mn_op ops[] = {
    {"save", "Save a fact, decision, gotcha, pattern or other memory.",
     "Save what you learned so the next session knows it, as soon as you learn it: a bug solved "
     "or a trap found (kind gotcha: context.situation, context.what_failed, "
     "context.error_messages verbatim, context.solution), a decision made and why (kind "
     "decision: the reason in body), a convention the code follows (pattern or rule), a fact "
     "about the project (fact). Do not save what the code or git history already says plainly. "
     "An agent saving a fact, gotcha, fewshot or pattern must give context.situation (when it "
     "applies), context.solution (what to do) and context.trigger_keywords (3-8 words or "
     "identifiers a future question would use). "
     "Scope it with scope.paths (files or directories it is about). Example: "
     "{\"kind\":\"gotcha\",\"title\":\"Cart sessions expire at once when delay is None\","
     "\"body\":\"Session.refresh() treats delay=None as 0, so idle carts log out on the next "
     "request. Default the delay to 30s where the session is built.\",\"context\":"
     "{\"situation\":\"checkout returned 401 after the cart was idle for a few seconds\","
     "\"what_failed\":\"raising the token lifetime in settings.py changed nothing\","
     "\"error_messages\":[\"SessionExpired: delay=None\"],\"solution\":\"default delay to "
     "30s in cart/session.py (Session.__init__)\",\"files_modified\":[\"cart/session.py\"],"
     "\"trigger_keywords\":[\"cart\",\"session\",\"delay\",\"401\",\"SessionExpired\"]},"
     "\"scope\":{\"paths\":[\"cart/session.py\"]}}. A duplicate (the same words, or a "
     "rewording: the answer's merged_into) is merged into the existing memory; one that says "
     "the opposite (a changed number, a negation, \"instead of\") is saved pending and linked "
     "(conflicts_with). A judge scores novelty, specificity and evidence (judgement); low "
     "confidence saves wait in the review queue (status pending).",
     mn_schema_save, mn_schema_out_save, MN_OP_MCP_DEFAULT, "body", mn_op_save_here},
    {"get", "Show one memory with every field, its links and what links to it.",
     "Read a memory by id or unique id prefix.", mn_schema_get, mn_schema_out_get,
     MN_OP_READONLY | MN_OP_IDEMPOTENT, "id", mn_op_get},
    {"list", "List memories, newest first, filtered by kind, level, tag, status, path, age.",
     "Browse what is stored, the last saved or changed first (by updated_at), a page at a time "
     "(limit, default 50; offset skips that many). Filters combine; 'path' matches memories "
     "scoped to that path, a directory above it or a path below it.",
     mn_schema_list, mn_schema_out_list, MN_OP_READONLY | MN_OP_IDEMPOTENT, NULL, mn_op_list},
    {"update", "Change fields of a memory.",
     "Fields given replace the stored ones; inside context, scope and provenance each key "
     "given replaces that key and null removes it. Set status to active to approve a pending "
     "memory, superseded or archived to retire one.",
     mn_schema_update, mn_schema_out_update, MN_OP_IDEMPOTENT, "id", mn_op_update},
    {"forget", "Forget a memory (hide it; --purge deletes it for good; --undo brings it back).",
     "Forgetting hides a memory from every answer but keeps it for undo and export. Purging "
     "deletes it with its links and citations.",
     mn_schema_forget, mn_schema_out_forget,
     MN_OP_DESTRUCTIVE | MN_OP_IDEMPOTENT | MN_OP_MCP_DEFAULT, "id", mn_op_forget},
    {"link", "Link a memory to another memory, a file, a symbol, a task, a doc or a commit.",
     "Kinds: caused_by, supersedes, relates_to, contradicts, derived_from, about. Decisions and "
     "their caused_by/supersedes links form the causal chains that answers include.",
     mn_schema_link, mn_schema_out_link, MN_OP_IDEMPOTENT, "from kind to", mn_op_link},
    {"export", "Export memories with every field (a full backup by default).",
     "Returns memories in the canonical shape that import takes; the CLI writes them as JSONL or "
     "YAML. With audit, the audit log follows them (records {\"audit\": row} in a file, which "
     "import leaves out).",
     mn_schema_export, mn_schema_out_export, MN_OP_READONLY | MN_OP_IDEMPOTENT, NULL, mn_op_export},
    {"import", "Import memories exported by mnemo, keeping their ids and every field.",
     "All or nothing: one bad memory rejects the whole import and nothing is written.",
     mn_schema_import, mn_schema_out_import, 0, NULL, mn_op_import},
    {"config", "Read or change this project's mnemo configuration.",
     "Actions: list, get KEY, set KEY VALUE, unset KEY. Unknown keys and bad values are refused.",
     mn_schema_config, mn_schema_out_config, 0, "action key value", mn_op_config},
    {"audit", "Who changed or read what, when: the audit log, newest first.",
     "One row per save, merge, update, forget, link, review decision, import, export and "
     "config change, and per answer read (context, recall, search, search_code, an MCP "
     "resource), with the actor (cli, mcp, http, hook...), the op, the ids it touched or "
     "served and the time; never a question's text. Filter by since (an RFC 3339 time or an "
     "age such as 7d), op and actor; page with limit and offset. Reads are kept as long as "
     "served answers (config served.max_age, served.max_rows).",
     mn_schema_audit, mn_schema_out_audit, MN_OP_READONLY | MN_OP_IDEMPOTENT, NULL, mn_op_audit},
    {"index", "Index the repository's code: files, symbols, imports and calls.",
     "Walks the repository (honouring .gitignore, .git/info/exclude and .mnemoignore), parses "
     "what changed since the last run with tree-sitter, resolves imports and calls, and ranks "
     "files and symbols by how central they are in the graph. Only changed files are re-read.",
     mn_schema_index, mn_schema_out_index, MN_OP_IDEMPOTENT, "path", mn_op_index},
    {"status", "How the code index compares with the files: fresh, stale, new, removed.",
     "Reads no file: compares sizes and modification times with what was indexed. With files, "
     "names the stale, new and removed files too.",
     mn_schema_status, mn_schema_out_status, MN_OP_READONLY | MN_OP_IDEMPOTENT, "path",
     mn_op_status},
    {"files", "List indexed files with their language, role, size and rank.",
     "Filter by a path glob, a language or a role (source, test, doc, config, build, generated, "
     "vendored, marker, lock).",
     mn_schema_files, mn_schema_out_files, MN_OP_READONLY | MN_OP_IDEMPOTENT, "pattern",
     mn_op_files},
    {"symbols", "Find functions, classes and methods by name or glob.",
     "Matches the name or the qualified name (Class.method); filter by kind and by a path glob.",
     mn_schema_symbols, mn_schema_out_symbols, MN_OP_READONLY | MN_OP_IDEMPOTENT, "name",
     mn_op_symbols},
    {"graph", "What a file imports and who imports it; what a symbol calls and who calls it.",
     "Give a repository path or a symbol name. References to code outside the repository are "
     "listed by name.",
     mn_schema_graph, mn_schema_out_graph, MN_OP_READONLY | MN_OP_IDEMPOTENT, "target",
     mn_op_graph},
    {"discover", "Find the project overview: languages, package managers, commands, domains.",
     "Reads the code index and the manifests (package.json, pyproject.toml, go.mod, Cargo.toml, "
     "Makefile, CI workflows...) and keeps the project overview as fact memories with "
     "provenance discovery: L0 facts (main language, project type, package manager, frameworks, "
     "dependencies, build/test/run/lint commands, entry points, main package, code style, CI, "
     "docs) and an L1 fact per domain or monorepo package. Facts are refreshed in place, never "
     "duplicated; those that no longer hold are archived. 'index' runs it by itself the first "
     "time and when the manifests change.",
     mn_schema_discover, mn_schema_out_discover, MN_OP_IDEMPOTENT, "path", mn_op_discover},
    {"search",
     "Search memories and code: ranked items with the score of each signal and a snippet.",
     "Hybrid search over the team's memories and the indexed code. Give the question, an error "
     "message, identifiers or a whole issue text as `query`. kinds picks what comes back: memory, "
     "code (functions, classes, windows of files), file (whole files, ranked: the files to look "
     "at for an issue). Each item has its fused score and the signals behind it (lexical: BM25 "
     "over memory fields and code; semantic; names: it defines a name the query mentions; "
     "graph: import/call neighbours of matched code, memories scoped to matched files; "
     "history: a file's past commits say what the query says; when: a memory of the time the "
     "query names; recency, usefulness from feedback, scope: the `files` you work on, level; "
     "a file also has title, path_words, share, named_path, fault, message, graph_gap and "
     "role, from which its score reads off), "
     "a snippet, and for memories their status (pending and stale are marked). "
     "Archived, superseded and forgotten memories are left out unless filters.status asks for "
     "them. The answer's `served` id lets you rate it with feedback. With the team's servers "
     "added (mnemo remote), their memories come after the local items, marked with `remote`. "
     "Example: "
     "{\"query\":\"session expires after idle\",\"kinds\":[\"memory\",\"code\"],\"k\":5}.",
     mn_schema_search, mn_schema_out_search, MN_OP_READONLY | MN_OP_MCP_DEFAULT, "query",
     mn_op_search},
    {"search_code", "Search the indexed code only: functions, classes and files for a question.",
     "The code half of search: ranked chunks of code (functions, classes, methods, windows of "
     "lines) and whole files, each with its path, lines, score, signals and a snippet. Use it to "
     "find where something is implemented or which files an issue touches; use search or "
     "context when the team's memories matter too. Give `files` you work on to rank what is "
     "near them higher. Example: {\"query\":\"where are cart sessions refreshed\","
     "\"kinds\":[\"code\"],\"k\":5}.",
     mn_schema_search_code, mn_schema_out_search_code, MN_OP_READONLY | MN_OP_MCP_DEFAULT, "query",
     op_search_code},
    {"feedback", "Tell whether served items helped: used, ignored, or the query was refined.",
     "Rate items an answer served (context, search, recall): give their ids as it printed them "
     "(a memory's id or its first 12 characters, code as path:line, a file's path), the "
     "signal, and the answer's `served` number; an id no answer served is refused. used and "
     "ignored move the usefulness counters of memories, which later searches rank by; refined "
     "takes the question that replaced the answer's (query). The Claude Code hooks give it by "
     "themselves (session): the files the agent opens mark what was served at them used.",
     mn_schema_feedback, mn_schema_out_feedback, MN_OP_MCP_DEFAULT, "signal", mn_op_feedback},
    {"context", "The one call before a task: what the project's memory says about it, in Markdown.",
     "Call this first, with the task or question as `query`. Returns one Markdown text to read "
     "before working, never longer than max_tokens (default 3000, counted exactly) and filling "
     "it when there is enough: the project overview (L0: languages, commands, layout), the "
     "facts, gotchas and patterns that match, whole or shortened on a sentence with the id of "
     "the rest, decisions with their reasons and the decisions they replaced, and the code to "
     "look at with its lines; each item says why it is there. "
     "When nothing matches well, it says there is no relevant project memory rather than "
     "padding. The repository is indexed (and discovered) first when it never was or the index "
     "is older than config index.refresh_age. Pass `files` you are working on to bring what is "
     "about them. Rate what helped with feedback (served id). Example: "
     "{\"query\":\"checkout returns 401 after idle\",\"max_tokens\":1500}.",
     mn_schema_context, mn_schema_out_context, MN_OP_MCP_DEFAULT, "query", mn_op_context},
    {"plan_files", "Which files to read for a task: graph first, then semantic, under a budget.",
     "Call it before reading code for a task, with the task as `task`. Returns the files to "
     "read, best first (selected: path, final_score from graph_score and semantic_score, the "
     "task's matched_terms, an evidence line), and a text of three sections: Graph Seeds "
     "(files the task names directly: paths, symbols it defines, words), Semantic Hits "
     "(candidate files whose text holds the task's words) and Final Context Files, never "
     "longer than budget tokens (default 1800). Lock files and empty marker files never come; "
     "tests, docs and config make at most 20% of the files unless the task is about them. "
     "legacy gives the plain lexical plan; trace adds why each file came or went. Example: "
     "{\"task\":\"the session cookie is not refreshed after login\",\"budget\":800}.",
     mn_schema_plan_files, mn_schema_out_plan_files, MN_OP_READONLY | MN_OP_IDEMPOTENT, "task",
     mn_op_plan},
    {"recall",
     "What the project's memory knows about a question, as data: facts, examples, "
     "decisions, code.",
     "The findings of context without the Markdown: facts (at most 300 characters each), "
     "few_shots (situation, what failed, solution), decisions with their reason and chain, "
     "links to code, and a confidence in [0, 1] (0: nothing relevant). Bounded by "
     "limit_tokens (default 1500); the team's servers (mnemo remote) add `team`. Example: "
     "{\"query\":\"how are sessions refreshed\","
     "\"symbols\":[\"Session.refresh\"]}.",
     mn_schema_recall, mn_schema_out_recall, MN_OP_MCP_DEFAULT, "query", mn_op_recall},
    {"scan", "Look for secrets and personal data stored before a rule caught them; --fix redacts.",
     "Scans every memory and every other stored text (code chunks, signatures, commit "
     "subjects, served queries, audit details) with the project's rules (built-in, plus "
     ".mnemo-scan.yaml) and reports hits by rule, never the text. fix rewrites each hit as "
     "[REDACTED:<rule>], rebuilds the full-text indexes, vacuums the store with secure_delete "
     "and truncates its write-ahead log, so no copy is left in the store's files. New saves, "
     "indexed code and every answer are scrubbed already; this is for stores made before.",
     mn_schema_scan, mn_schema_out_scan, MN_OP_DESTRUCTIVE, NULL, mn_op_scan},
    /* the life cycle: op_lifecycle.c */
    {"stale", "Memories whose cited code changed or is gone, with a diff of each change.",
     "A memory about code cites it (files, symbols, lines, with a hash of each span). When an "
     "index run finds a cited span changed or gone, the memory is stale: search marks it, and "
     "context and recall list it apart as possibly out of date instead of serving it as "
     "current. This lists them, most recently changed first, each stale citation with where "
     "the code is now and a line diff from the text cited to today's. Revalidate one with "
     "revalidate, or correct it with update.",
     mn_schema_stale, mn_schema_out_stale, MN_OP_IDEMPOTENT, NULL, mn_op_stale},
    {"revalidate", "Make a stale memory current again: it cites today's code.",
     "Each stale citation of the memory now cites today's span (its lines, hash and text); a "
     "citation of code that is gone is removed. Use it after checking that the memory still "
     "holds for the changed code (stale shows the diff).",
     mn_schema_revalidate, mn_schema_out_revalidate, MN_OP_IDEMPOTENT, "id", mn_op_revalidate},
    {"gc",
     "Archive expired and long-superseded memories; purge old ones on request. Dry run by "
     "default.",
     "Expired memories (past their ttl, or their kind's time to live since last saved, changed "
     "or served: config memory.ttl.<kind>, episodes 180d) are never served; gc archives them, "
     "and superseded memories older than config memory.gc.superseded_after (90d). "
     "purge_archived_older_than and purge_forgotten_older_than delete those for good. Without "
     "apply it only counts.",
     mn_schema_gc, mn_schema_out_gc, MN_OP_DESTRUCTIVE, NULL, mn_op_gc},
    /* the review queue: op_review.c */
    {"review", "List the memories waiting for review; approve, reject, edit or merge them.",
     "Memories the save pipeline was not sure of wait with status pending (low confidence, an "
     "agent's rule or pattern without evidence, a near-duplicate that says something else). "
     "action list (default) shows each with the judge's scores and reasons, how it came and its "
     "near neighbours with the verdict on each. approve makes it active (what it supersedes "
     "turns superseded); reject archives it and the same text, or a near-duplicate of it, is "
     "never proposed again; edit changes title, body, context or scope, then approves; merge "
     "folds it into another memory (into) as a near-duplicate save does. Decide on one (id), "
     "several (ids) or a selection (all_from a source, or all with kind, tag, path, since), all "
     "or none; each decision is audited with who made it and note. Example: "
     "{\"action\":\"reject\",\"id\":\"3f2a9c\",\"note\":\"says what the README says\"}.",
     mn_schema_review, mn_schema_out_review, 0, "action id into", mn_op_review},
    {"consolidate", "Propose one pattern per cluster of 3 or more similar episodes or gotchas.",
     "Episodic memory made semantic, without a model: active episodes and gotchas (kinds) are "
     "clustered by their near-duplicate fingerprints, looser than a duplicate; each cluster of "
     "min_size or more gets a proposed pattern (generalize: title, the shared situation and "
     "solution, the words most members share). A dry run by default; apply saves each through "
     "the save pipeline, linked derived_from its sources, which stay unchanged. A cluster a "
     "pattern already comes from is not proposed again (extend links the new members).",
     mn_schema_consolidate, mn_schema_out_consolidate, 0, NULL, mn_op_consolidate},
    /* the ingests: op_ingest.c */
    {"ingest_git",
     "Turn the git history into memories: dependencies, APIs, CI, decisions, reverts.",
     "Reads the commits of the repository (newest max, or those after since) that were not read "
     "before, and for each: the files and symbols it touched, and fact candidates from its "
     "message and diff, each with a kind, a confidence and its evidence (sha, file, hunk): a "
     "dependency added, removed or re-pinned, the language version required, a new or removed "
     "module, public API renamed, moved or removed, CI and build changes, a tool adopted, a "
     "schema migration, decision language in the message, a revert and what it undid. "
     "Candidates at or above config capture.auto_approve (0.85) are saved active, the rest wait "
     "in the review queue (status pending). Each memory links to its commit (commit:<sha>); a "
     "newer fact supersedes the older one about the same thing. Running it again never "
     "duplicates. Example: {\"max\":200}.",
     mn_schema_ingest_git, mn_schema_out_ingest_git, MN_OP_IDEMPOTENT, NULL, mn_op_ingest_git},
    {"ingest_docs", "Turn Markdown and reST documents (ADRs, a wiki, a vault) into memories.",
     "Each file inside the project is split by its headings into doc memories that link to "
     "the document (doc:<path>) and to the documents it links to; front matter gives tags, "
     "scope, status and date. An architecture decision record becomes one decision with its "
     "status (accepted: active, proposed: pending, superseded: superseded, linked from the one "
     "that replaced it). Running it again updates what changed in place and archives sections "
     "that are gone.",
     mn_schema_ingest_docs, mn_schema_out_ingest_docs, MN_OP_IDEMPOTENT, "paths",
     mn_op_ingest_docs},
    {"open_doc", "Open a document by title, path or URL, with the memories made from it.",
     "An ingested document as stored (scrubbed of secrets), or a Markdown file of the project "
     "by its path. Paths outside the project are refused.",
     mn_schema_open_doc, mn_schema_out_open_doc, MN_OP_READONLY | MN_OP_IDEMPOTENT, "title",
     mn_op_open_doc},
    {"ingest_issues", "Import issues and their comments (GitHub, Jira, YouTrack JSON) as tasks.",
     "Each issue becomes a task (its id as people write it: #123, CS-214) and a memory that "
     "search, recall and context find by that id; decisions its thread states are saved as "
     "candidates (capture.auto_approve). Commits whose messages say \"Fixes #123\" are tied "
     "to the task. Running it again updates the issues that changed.",
     mn_schema_ingest_issues, mn_schema_out_ingest_issues, MN_OP_IDEMPOTENT, "file",
     mn_op_ingest_issues},
    {"link_issue", "Tie an issue to memories, commits and conversations.",
     "Memories get the tag issue:<id> (so a search for the id finds them) and a relates_to "
     "link; commits and dialogs are recorded with the task.",
     mn_schema_link_issue, mn_schema_out_link_issue, MN_OP_IDEMPOTENT, "issue", mn_op_link_issue},
    {"capture", "Keep what a conversation decided, fixed or warned about.",
     "Reads a transcript (Claude Code JSONL, by path) or a text and saves its decisions, errors "
     "that were fixed (an error, a change, a passing run) and gotchas as candidates with the "
     "excerpt (compressed, capped, scrubbed), the files touched and the session id; below "
     "config capture.auto_approve they wait for review. Running it again on the same "
     "transcript adds only what is new.",
     mn_schema_capture, mn_schema_out_capture, MN_OP_IDEMPOTENT, "transcript_path", mn_op_capture},
    {"record_decision", "Record a decision with its reasons, alternatives and consequences.",
     "Saves a decision memory through the save pipeline, linked into the causal chains: "
     "supersedes (those decisions become superseded once it is active: at once, or when a "
     "reviewer approves it) and caused_by (what led to it). Example: {\"decision\":\"Use "
     "PostgreSQL for "
     "the team store\",\"reasons\":[\"concurrent writers\"],\"alternatives\":[\"MySQL\"],"
     "\"supersedes\":[\"01J...\"]}.",
     mn_schema_record_decision, mn_schema_out_record_decision, 0, "decision",
     mn_op_record_decision},
    {"chain", "The chain of decisions behind a decision or a question, as a tree.",
     "From a decision id, or the decisions a question finds: what each one superseded or was "
     "caused by, and what superseded it or followed from it, with dates and reasons.",
     mn_schema_chain, mn_schema_out_chain, MN_OP_READONLY | MN_OP_IDEMPOTENT, "query", mn_op_chain},
};

const mn_op *mn_api_ops(size_t *count)
{
    *count = MN_ARRAY_SIZE(ops);
    return ops;
}
