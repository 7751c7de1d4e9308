#!/usr/bin/env bash
# Copies the assembled scripts (build/lua, or $TOLLGATE_LUA_DIR) into the module's lua/, which
# embeds them. They are never edited here: scripts_test.go fails when the copy differs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source="${TOLLGATE_LUA_DIR:-$root/build/lua}"
if [[ ! -f "$source/hit.lua" ]]; then
    (cd "$root" && bash scripts/build.sh tollgate_lua_scripts)
    source="$root/build/lua"
fi
rm -f "$here"/lua/*.lua
mkdir -p "$here/lua"
cp "$source"/*.lua "$here/lua/"
