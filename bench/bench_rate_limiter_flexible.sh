#!/usr/bin/env bash
# Tollgate's hit against rate-limiter-flexible (the most used Node.js rate limiter), end to end,
# in one run against one private redis-server: `tollgatectl bench hit` and
# rate-limiter-flexible's RateLimiterRedis.consume() over ioredis (bench/rate-limiter-flexible/
# consume.js), both 8 connections x 16 in flight over the same random users, every hit allowed.
# Rounds alternate the two; the best of each is kept. rate-limiter-flexible and ioredis are
# installed with npm into a cache folder (never into the repository, never by the tests).
#
#   bench/bench_rate_limiter_flexible.sh [--seconds 5] [--rounds 3] [--users 1000] [--port 7494]
#                                        [--tollgatectl build/app/tollgatectl]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=5 rounds=3 users=1000 port=7494 ctl="$root/build/app/tollgatectl"
while (($#)); do
    case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --users) users="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --tollgatectl) ctl="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
[[ -x "$ctl" ]] || { echo "no $ctl: build it first (bash scripts/build.sh tollgatectl)" >&2; exit 2; }
command -v node >/dev/null && command -v npm >/dev/null ||
    { echo "node and npm are needed (apt install nodejs npm)" >&2; exit 2; }

modules="${XDG_CACHE_HOME:-$HOME/.cache}/tollgate/bench-npm"
if [[ ! -d "$modules/node_modules/rate-limiter-flexible" ]]; then
    mkdir -p "$modules"
    npm install --prefix "$modules" --no-audit --no-fund --loglevel error \
        rate-limiter-flexible@11 ioredis@5 >&2
fi
rlf_version="$(node -p "require('$modules/node_modules/rate-limiter-flexible/package.json').version")"

dir="$(mktemp -d)"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    --daemonize no >"$dir/log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 300); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.1; done

load=(--connections 8 --pipeline 16 --users "$users" --seconds "$seconds")
field() { node -p "JSON.parse(require('fs').readFileSync(0, 'utf8')).$1"; }
best_t=0 best_r=0
for ((round = 0; round < rounds; round++)); do
    t="$("$ctl" --url "redis://127.0.0.1:$port" --json bench hit "${load[@]}" | field ops_per_sec)"
    r="$(NODE_PATH="$modules/node_modules" node "$root/bench/rate-limiter-flexible/consume.js" \
        --port "$port" "${load[@]}" | field ops_per_sec)"
    printf 'round %d: tollgate %.0f hits/s, rate-limiter-flexible %.0f consumes/s\n' \
        "$((round + 1))" "$t" "$r"
    best_t="$(node -p "Math.max($best_t, $t)")"
    best_r="$(node -p "Math.max($best_r, $r)")"
done
printf 'best of %d rounds, 8x16, %d random users: tollgate %.0f hits/s, rate-limiter-flexible %s %.0f/s: %.2fx (goal >= 3)\n' \
    "$rounds" "$users" "$best_t" "$rlf_version" "$best_r" "$(node -p "$best_t / $best_r")"
