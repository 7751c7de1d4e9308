#!/usr/bin/env bash
# The Node client's tests as ctest's clients.node runs them: the dependencies from
# package-lock.json (npm ci, skipped while node_modules matches it), the package from the
# build's scripts (package.sh), then `node --test`: unit, Redis, Cluster, conformance, types,
# and an Express and a Fastify app installed from the tarball.
#
#   clients/node/test.sh [--build-dir build] [node --test arguments...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build"
if [[ "${1:-}" == "--build-dir" ]]; then
    build="$2"
    shift 2
fi
cd "$here"
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
    npm ci --no-audit --no-fund --loglevel error
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
tarball="$(bash package.sh --build-dir "$build" --out "$out" --no-build)"
export TOLLGATE_NODE_TARBALL="$tarball" TOLLGATE_BUILD_DIR="$build"
exec node --test "$@" test/*.test.js
