/*
 * other.c - ecosystems discovery knows only by their manifest: Elixir
 * (mix.exs), Dart and Flutter (pubspec.yaml), Swift (Package.swift).
 *
 * Nothing of them is read yet: a sub-directory holding one of these
 * manifests is a package of a monorepo (layout.c), named by its directory.
 * To read one, give it a scan function and its own file (see
 * docs/internals/index.md, "Adding an ecosystem").
 */
#include "common.h"

#include "index/discover/discover_internal.h"

const dx_ecosystem dx_elixir = {
    .name = "Elixir",
    .manifests = "mix.exs",
};
const dx_ecosystem dx_dart = {
    .name = "Dart",
    .manifests = "pubspec.yaml",
};
const dx_ecosystem dx_swift = {
    .name = "Swift",
    .manifests = "Package.swift",
};
