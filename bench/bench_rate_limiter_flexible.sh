#!/usr/bin/env bash
# Tollgate's Node.js client against rate-limiter-flexible (the most used Node.js rate limiter)
# and a bare EVALSHA loop of the same call, with `tollgatectl bench hit` beside them when it is
# built: one run, one private redis-server, the Node.js loads in one process taking turns round
# by round (bench/rate-limiter-flexible/compare.js says how the figures are taken).
# rate-limiter-flexible and ioredis are installed with npm into a cache folder (never into the
# repository); the client's own dependencies come from clients/node (npm ci).
#
#   bench/bench_rate_limiter_flexible.sh [--slice 2] [--turn 0.1] [--rounds 15] [--users 1000] [--port 7494]
#                                        [--tollgatectl build/app/tollgatectl]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
port=7494 ctl="$root/build/app/tollgatectl"
args=()
while (($#)); do
    case "$1" in
    --slice | --turn | --rounds | --users | --warmup) args+=("$1" "$2"); shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --tollgatectl) ctl="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
command -v node >/dev/null && command -v npm >/dev/null ||
    { echo "node and npm are needed (apt install nodejs npm)" >&2; exit 2; }
[[ -f "$root/build/lua/hit.lua" ]] ||
    { echo "no build/lua: build the scripts first (bash scripts/build.sh tollgate_lua_scripts)" >&2; exit 2; }

modules="${XDG_CACHE_HOME:-$HOME/.cache}/tollgate/bench-npm"
if [[ ! -d "$modules/node_modules/rate-limiter-flexible" ]]; then
    mkdir -p "$modules"
    npm install --prefix "$modules" --no-audit --no-fund --loglevel error \
        rate-limiter-flexible@11 ioredis@5 >&2
fi
if [[ ! -d "$root/clients/node/node_modules/ioredis" ]]; then
    (cd "$root/clients/node" && npm ci --no-audit --no-fund --loglevel error >&2)
fi
# One ioredis for every load: the client's own.
export NODE_PATH="$root/clients/node/node_modules:$modules/node_modules"
[[ -x "$ctl" ]] && args+=(--tollgatectl "$ctl")

dir="$(mktemp -d)"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    --daemonize no >"$dir/log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 300); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.1; done

node "$root/bench/rate-limiter-flexible/compare.js" --port "$port" --scripts "$root/build/lua" "${args[@]}"
