#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), then configures and builds into build/ with Ninja,
# RelWithDebInfo: everything, or only the targets named as arguments (`build.sh tollgate`).
# Warnings are errors when CI=true. Extra CMake arguments: TOLLGATE_CMAKE_ARGS.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# TOLLGATE_SETUP=demo: only the packages the console and its demo need (scripts/demo.sh).
if [[ "${TOLLGATE_SETUP:-}" == "demo" ]]; then
    bash scripts/setup.sh --demo
else
    bash scripts/setup.sh
fi

werror=OFF
if [[ "${CI:-}" == "true" ]]; then
    werror=ON
fi

# Line tables only (-g1): backtraces keep their file and line, and the build is a quarter faster.
# For full debug information: TOLLGATE_CMAKE_ARGS=-DTOLLGATE_LINE_TABLES_ONLY=OFF.
configure=(-S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOLLGATE_WERROR="$werror"
           -DTOLLGATE_LINE_TABLES_ONLY=ON)
# The generator is fixed at the first configure; naming it again on an existing tree made with
# another one would be an error, so only a fresh tree gets -G Ninja.
if [[ ! -f build/CMakeCache.txt ]]; then
    configure+=(-G Ninja)
fi
# shellcheck disable=SC2206 # word splitting of the user's extra arguments is intended
configure+=(${TOLLGATE_CMAKE_ARGS:-})

cmake "${configure[@]}"
targets=()
for target in "$@"; do
    targets+=(--target "$target")
done
cmake --build build -j2 "${targets[@]}"
