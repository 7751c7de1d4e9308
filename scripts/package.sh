#!/usr/bin/env bash
# Builds the Debian packages into dist/: tollgate (the console), tollgatectl (the CLI),
# tollgated (the rate limit service) and libtollgate-dev (headers, static library, CMake
# package, Lua scripts), then checks them with lintian. Install them with
# `sudo apt install ./dist/*.deb`. A Release build of its own (build-package/), without tests
# or benchmarks. Then the language packages over the same assembled scripts, each made by its
# client's own clients/<language>/package.sh: the Python wheel, the npm tarball, the Composer
# archive and the Go module folder dist/go/tollgate (docs/clients.md).
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

# lintian: errors fail the build; the warnings left are listed in docs/packaging.md.
status=0
for deb in dist/*.deb; do
    echo "package.sh: $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version) -> $deb"
    lintian --fail-on error "$deb" || status=1
done

# The language packages, each from the scripts of this very build, never a copy edited by hand
# (docs/clients.md): the wheel (offline, Debian's setuptools), the npm tarball, the Go module
# folder a Go application vendors or points a replace directive at, the Composer archive.
lua="$root/build-package/lua"
echo "package.sh: python -> $(TOLLGATE_LUA_DIR="$lua" bash clients/python/package.sh "$root/dist" | tail -n 1)"
echo "package.sh: node -> $(bash clients/node/package.sh --build-dir "$root/build-package" --out "$root/dist" --no-build)"
TOLLGATE_LUA_DIR="$lua" bash clients/go/package.sh "$root/dist/go"
echo "package.sh: php -> $(TOLLGATE_LUA_DIR="$lua" bash clients/php/package.sh "$root/dist" | tail -n 1)"
exit $status
