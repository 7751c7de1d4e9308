#!/usr/bin/env bash
# THE test command: installs what is missing, builds, and runs the whole Qt Test suite against
# private redis-server instances. Arguments go to ctest, e.g. `scripts/test.sh -L unit` or
# `scripts/test.sh -R integration.FixedWindow`. Exits with ctest's status.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/build.sh

# The tests mostly wait (TTLs, failovers, timers, their servers' start): the whole suite keeps
# the CPU busy about a tenth of its time, so three run side by side per core, the longest first
# (their COST in tests/CMakeLists.txt). A -j among the arguments takes precedence.
jobs=$(($(nproc) * 3))
if ((jobs > 16)); then
    jobs=16
fi
export QT_QPA_PLATFORM=offscreen
exec ctest --test-dir build --output-on-failure -j"$jobs" --timeout 900 "$@"
