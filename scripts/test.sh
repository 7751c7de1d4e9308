#!/usr/bin/env bash
# THE test command: installs what is missing, builds, and runs the whole Qt Test suite against
# private redis-server instances. Arguments go to ctest, e.g. `scripts/test.sh -L unit` or
# `scripts/test.sh -R integration.FixedWindow`. Exits with ctest's status.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/build.sh

export QT_QPA_PLATFORM=offscreen
exec ctest --test-dir build --output-on-failure -j2 --timeout 900 "$@"
