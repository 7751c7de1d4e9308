#!/usr/bin/env bash
# Produces the Go module folder a user vendors or points a replace directive at:
#   clients/go/package.sh [<out>]        (default dist/go)
# <out>/tollgate holds the module tollgate.dev/tollgate (standard library only) with the
# assembled scripts copied from the build, and <out>/tollgate/redigo the redigo adapter's module.
# Tests, the conformance runner and this repository's offline replacements are left out.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/dist/go}"
bash "$here/copy-lua.sh"

target="$out/tollgate"
rm -rf "$target"
mkdir -p "$target/lua" "$target/redigo"
for f in "$here"/*.go; do
    [[ "$f" == *_test.go ]] || cp "$f" "$target/"
done
cp "$here/go.mod" "$here/README.md" "$target/"
cp "$root/LICENSE" "$target/"
cp "$here"/lua/*.lua "$target/lua/"
cp "$here/redigo/adapter.go" "$target/redigo/"
# The adapter's go.mod without the replace block (Debian's redigo, the module beside it): a
# user's own go.mod decides where both come from.
sed '/^\/\/ For developing and testing offline/,$d' "$here/redigo/go.mod" > "$target/redigo/go.mod"
echo "package.sh: Go module folder -> $target"
