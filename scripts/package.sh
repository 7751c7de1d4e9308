#!/usr/bin/env bash
# Builds the Debian packages into dist/: tollgate (the console), tollgatectl (the CLI),
# tollgated (the rate limit service) and libtollgate-dev (headers, static library, CMake
# package, Lua scripts), then checks them with lintian. Install them with
# `sudo apt install ./dist/*.deb`. A Release build of its own (build-package/), without tests
# or benchmarks. Also the Go module folder, dist/go/tollgate.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/setup.sh

configure=(-S . -B build-package -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr
           -DTOLLGATE_BUILD_TESTS=OFF -DTOLLGATE_BUILD_BENCH=OFF)
if [[ ! -f build-package/CMakeCache.txt ]]; then
    configure+=(-G Ninja)
fi
cmake "${configure[@]}"
cmake --build build-package -j2

rm -rf dist
mkdir -p dist
(cd build-package && cpack -G DEB -B "$root/dist/cpack" >/dev/null)
mv dist/cpack/*.deb dist/
rm -rf dist/cpack

# The Go module folder (dist/go/tollgate) with the scripts of this very build: what a Go
# application vendors or points a replace directive at (clients/go/README.md).
TOLLGATE_LUA_DIR="$root/build-package/lua" bash clients/go/package.sh "$root/dist/go"

# lintian: errors fail the build; the warnings left are listed in docs/packaging.md.
status=0
for deb in dist/*.deb; do
    echo "package.sh: $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version) -> $deb"
    lintian --fail-on error "$deb" || status=1
done
exit $status
