#!/usr/bin/env bash
# Makes the Composer archive of the PHP client: copies the assembled scripts from the build
# (build/lua, made by `bash scripts/build.sh tollgate_lua_scripts`) into lua/, so the package
# ships exactly what the C++ library compiles in, then `composer archive` (offline) writes
# dist/tollgate-php-<version>.zip.
#
#   clients/php/package.sh [output folder]        (default: dist/ at the repository's root)
#
# TOLLGATE_LUA_DIR: take the assembled scripts from another folder (skips the build); the
# package's own lua/ archives the copy as it is.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/dist}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

lua="${TOLLGATE_LUA_DIR:-}"
if [[ -z "$lua" ]]; then
    (cd "$root" && bash scripts/build.sh tollgate_lua_scripts >/dev/null)
    lua="$root/build/lua"
fi
if ! compgen -G "$lua/*.lua" >/dev/null; then
    echo "package.sh: no assembled scripts in $lua" >&2
    exit 1
fi
if [[ "$(cd "$lua" && pwd)" != "$here/lua" ]]; then # the copy as it is: nothing to refresh
    mkdir -p "$here/lua"
    rm -f "$here"/lua/*.lua
    cp "$lua"/*.lua "$here/lua/"
fi

version="$(sed -n 's/^project(Tollgate VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
cd "$here"
COMPOSER_DISABLE_NETWORK=1 composer archive --no-interaction --quiet --format=zip \
    --dir="$out" --file="tollgate-php-$version"
echo "$out/tollgate-php-$version.zip"
