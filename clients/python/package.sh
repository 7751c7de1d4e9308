#!/usr/bin/env bash
# Builds the tollgate wheel offline into clients/python/dist/ (or $1): copies the assembled
# scripts from the build (build/lua, or $TOLLGATE_LUA_DIR) into the package, then runs
# setuptools' own build backend with Debian's setuptools and wheel (no PyPI, no isolation).
# The scripts are never edited here: tests/test_scripts.py fails when the copy differs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$here/dist}"
lua="${TOLLGATE_LUA_DIR:-$root/build/lua}"
if [[ ! -f "$lua/hit.lua" ]]; then
    bash "$root/scripts/build.sh" tollgate_lua_scripts
fi
rm -rf "$here/src/tollgate/lua"
mkdir -p "$here/src/tollgate/lua" "$out"
cp "$lua"/*.lua "$here/src/tollgate/lua/"
cd "$here"
rm -rf build src/*.egg-info
/usr/bin/python3 - "$out" <<'PY'
import sys
from setuptools import build_meta
import os
print(os.path.join(sys.argv[1], build_meta.build_wheel(sys.argv[1])))
PY
rm -rf build src/*.egg-info
