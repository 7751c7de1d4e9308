#!/usr/bin/env bash
# Builds the npm tarball of the tollgate package: copies the assembled scripts from the build
# (build/lua, target tollgate_lua_scripts) into lua/, never edited by hand, then `npm pack`.
# Prints the tarball's path.
#
#   clients/node/package.sh [--build-dir build] [--out dist] [--no-build]
#
# --no-build takes the scripts as the build left them (the tests: the suite built them).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build" out="$root/dist" rebuild=true
while (($#)); do
    case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-build) rebuild=false; shift ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
if [[ $rebuild == false ]]; then
    [[ -f "$build/lua/hit.lua" ]] || { echo "no assembled scripts in $build/lua" >&2; exit 2; }
elif [[ -f "$build/CMakeCache.txt" ]]; then
    cmake --build "$build" --target tollgate_lua_scripts >&2
elif [[ "$build" == "$root/build" ]]; then
    (cd "$root" && bash scripts/build.sh tollgate_lua_scripts) >&2
else
    echo "$build is no configured build tree" >&2
    exit 2
fi
rm -rf "$here/lua"
mkdir -p "$here/lua" "$out"
cp "$build"/lua/*.lua "$here/lua/"
cd "$here"
tarball="$(npm pack --silent --pack-destination "$out" | tail -n 1)"
echo "$out/$tarball"
