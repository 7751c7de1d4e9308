#!/usr/bin/env bash
# Builds and starts the console in demo mode: a private redis-server plus a traffic simulator.
# Arguments go to `tollgate --demo`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
    echo "demo.sh: the Tollgate console needs a display, and neither DISPLAY nor" >&2
    echo "WAYLAND_DISPLAY is set. Run it from a desktop session (or over ssh -X)." >&2
    exit 1
fi

# Only the console and what it needs: the tests and benchmarks are scripts/test.sh's.
TOLLGATE_SETUP=demo bash scripts/build.sh tollgate
exec "$root/build/app/tollgate" --demo "$@"
