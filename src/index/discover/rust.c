/*
 * rust.c - the Rust ecosystem: Cargo.toml ([package], [dependencies],
 * [dev-dependencies], [workspace] members and dependencies, [[bin]]),
 * rust-toolchain(.toml), rustfmt and Clippy configuration, and Cargo's
 * layout conventions (src/main.rs, src/lib.rs, src/bin/<name>.rs).
 *
 * Commands are Cargo's (cargo build, test, run when there is a binary
 * target, clippy: 60 when Clippy is configured, else 45). A crate with a
 * binary target is an application, or a command-line tool when it uses
 * clap; src/lib.rs makes it a library; a Cargo.toml with only a
 * [workspace] is a Cargo workspace, whose members feed the monorepo fact.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static const dx_framework frameworks[] = {
    {"tokio", "Tokio", "async"},   {"actix-web", "Actix Web", "web"}, {"axum", "Axum", "web"},
    {"rocket", "Rocket", "web"},   {"warp", "warp", "web"},           {"serde", "Serde", "data"},
    {"clap", "clap", "cli"},       {"diesel", "Diesel", "orm"},       {"sqlx", "SQLx", "orm"},
    {"tauri", "Tauri", "desktop"}, {"bevy", "Bevy", "game"},
};

static void scan_rust(dx_ctx *d)
{
    json_t *c = dx_load(d, "Cargo.toml", FMT_TOML, true);
    if (!c)
        return;
    json_t *pk = dx_jget(c, "package", NULL);
    dx_set_name(d, dx_jstr(pk, "name"), dx_jstr(pk, "description"), "Cargo.toml [package]");
    dx_add_manager(d, "rust", "Cargo", "Cargo.toml", "cargo build");
    if (json_is_object(dx_jget(c, "dependencies", NULL)))
        dx_add_deps(d, "Cargo.toml", "runtime",
                    dx_keys_as_deps(d, "rust", dx_jget(c, "dependencies", NULL),
                                    "Cargo.toml [dependencies]", NULL));
    if (json_is_object(dx_jget(c, "workspace", "dependencies", NULL)))
        dx_add_deps(d, "Cargo.toml", "workspace",
                    dx_keys_as_deps(d, "rust", dx_jget(c, "workspace", "dependencies", NULL),
                                    "Cargo.toml [workspace.dependencies]", NULL));
    d->dev = true;
    if (json_is_object(dx_jget(c, "dev-dependencies", NULL)))
        dx_add_deps(d, "Cargo.toml", "development",
                    dx_keys_as_deps(d, "rust", dx_jget(c, "dev-dependencies", NULL),
                                    "Cargo.toml [dev-dependencies]", NULL));
    d->dev = false;
    const char *ed = dx_jstr(pk, "edition"), *rv = dx_jstr(pk, "rust-version");
    if (ed || rv) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "Rust%s%s%s%s (Cargo.toml)", rv ? " " : "", rv ? rv : "",
                      ed ? ", edition " : "", ed ? ed : "");
        dx_add_unique(d->runtime, b.ptr);
        mn_buf_release(&b);
    }
    if (dx_have(d, "rust-toolchain.toml") || dx_have(d, "rust-toolchain"))
        dx_add_unique(d->runtime, dx_have(d, "rust-toolchain.toml")
                                      ? "Rust toolchain pinned in rust-toolchain.toml"
                                      : "Rust toolchain pinned in rust-toolchain");
    size_t i;
    json_t *m;
    json_array_foreach(dx_jget(c, "workspace", "members", NULL), i, m) if (json_is_string(m))
        dx_add_workspace(d, json_string_value(m), "Cargo.toml [workspace] members");
    dx_add_cmd(d, CMD_BUILD, 50, "cargo build", "Cargo.toml", NULL);
    dx_add_cmd(d, CMD_TEST, 50, "cargo test", "Cargo.toml", NULL);
    dx_add_cmd(d, CMD_LINT, dx_have(d, "clippy.toml") || dx_have(d, ".clippy.toml") ? 60 : 45,
               "cargo clippy", dx_have(d, "clippy.toml") ? "clippy.toml" : "Cargo.toml", NULL);
    if (dx_have(d, "rustfmt.toml") || dx_have(d, ".rustfmt.toml"))
        dx_add_kv(d->style, "rustfmt",
                  dx_have(d, "rustfmt.toml") ? "rustfmt.toml" : ".rustfmt.toml");
    if (dx_have(d, "clippy.toml") || dx_have(d, ".clippy.toml"))
        dx_add_kv(d->style, "Clippy", dx_have(d, "clippy.toml") ? "clippy.toml" : ".clippy.toml");
    bool bin = false;
    if (dx_have(d, "src/main.rs")) {
        dx_add_entry(d, "src/main.rs (the binary)", "Cargo convention");
        bin = true;
    }
    json_array_foreach(dx_jget(c, "bin", NULL), i, m)
    {
        mn_buf w = MN_BUF_INIT;
        mn_buf_printf(&w, "binary %s%s%s", dx_jstr(m, "name") ? dx_jstr(m, "name") : "?",
                      dx_jstr(m, "path") ? " -> " : "",
                      dx_jstr(m, "path") ? dx_jstr(m, "path") : "");
        dx_add_entry(d, w.ptr, "Cargo.toml [[bin]]");
        mn_buf_release(&w);
        bin = true;
    }
    for (size_t k = 0; k < d->files.len; k++) {
        const char *p = d->files.items[k].path;
        if (dx_starts(p, "src/bin/") && dx_ends(p, ".rs") && dx_depth_of(p) == 2) {
            dx_add_entry(d, p, "src/bin/*.rs");
            bin = true;
        }
    }
    if (bin)
        dx_add_cmd(d, CMD_RUN, 50, "cargo run", "Cargo.toml with a binary target", NULL);
    if (dx_have(d, "src/lib.rs")) {
        dx_add_entry(d, "src/lib.rs (the library)", "Cargo convention");
        dx_add_kv(d->types, "library", "src/lib.rs");
    }
    if (bin)
        dx_add_kv(d->types,
                  json_object_get(d->frameworks, "clap") ? "command-line tool" : "application",
                  json_object_get(d->frameworks, "clap") ? "a binary target using clap"
                                                         : "a binary target");
    if (!pk && dx_jget(c, "workspace", NULL))
        dx_add_kv(d->types, "Cargo workspace", "Cargo.toml [workspace]");
    json_decref(c);
}

/* A package of a monorepo (a workspace member): its Cargo.toml [package]. */
static void rust_package(dx_ctx *d, json_t *pkg, const char *manifest)
{
    dx_package_toml(d, pkg, manifest, "package", false);
}

const dx_ecosystem dx_rust = {
    .name = "Rust",
    .lang = "rust",
    .deps = "rust",
    .frameworks = frameworks,
    .nframeworks = MN_ARRAY_SIZE(frameworks),
    .manifests = "Cargo.toml",
    .entry_files = "main.rs lib.rs",
    .scan = scan_rust,
    .package = rust_package,
};
