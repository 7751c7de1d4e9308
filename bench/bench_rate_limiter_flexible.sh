#!/usr/bin/env bash
# Tollgate's hit against rate-limiter-flexible (the most used Node.js rate limiter), in one run
# against one private redis-server, every load 8 connections x 16 in flight (128) over the same
# random users, every hit allowed:
#   node     Tollgate's Node.js client, Limiter.hit() (clients/node) over ioredis
#   evalsha  a bare ioredis EVALSHA loop sending the very call the client sends (hit.lua's short form)
#   rlf      rate-limiter-flexible's RateLimiterRedis.consume() over ioredis
#   ctl      `tollgatectl bench hit` (the C++ client), when built
# Rounds alternate the loads; the best of each is kept. Each load's Redis server µs per
# decision is INFO commandstats' usec of its script calls, after CONFIG RESETSTAT, over its
# decisions (the Node.js loads run a second unmeasured first and reset the statistics
# themselves when their clock starts). rate-limiter-flexible and ioredis are installed with npm
# into a cache folder (never into the repository); the client's own dependencies come from
# clients/node (npm ci).
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
rlf_version="$(node -p "require('$modules/node_modules/rate-limiter-flexible/package.json').version")"

dir="$(mktemp -d)"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    --daemonize no >"$dir/log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 300); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.1; done

load=(--connections 8 --pipeline 16 --users "$users" --seconds "$seconds")
loads=(node evalsha rlf)
[[ -x "$ctl" ]] && loads+=(ctl)
run() {
    case "$1" in
    node) node "$root/bench/rate-limiter-flexible/tollgate.js" --reset-stats --port "$port" --scripts "$root/build/lua" "${load[@]}" ;;
    evalsha) node "$root/bench/rate-limiter-flexible/tollgate.js" --bare --reset-stats --port "$port" --scripts "$root/build/lua" "${load[@]}" ;;
    rlf) node "$root/bench/rate-limiter-flexible/consume.js" --reset-stats --port "$port" "${load[@]}" ;;
    ctl) "$ctl" --url "redis://127.0.0.1:$port" --json bench hit "${load[@]}" ;;
    esac
}
# The server's µs in scripts since the last CONFIG RESETSTAT: every load decides with one script
# call (EVALSHA, or EVAL after a NOSCRIPT), whose time includes the commands it runs (which
# commandstats lists again on their own lines, so those are not added).
server_usec() {
    redis-cli -p "$port" INFO commandstats | tr -d '\r' |
        sed -n 's/^cmdstat_eval[a-z_]*:.*,usec=\([0-9]*\),.*/\1/p' | awk '{s += $1} END {print s + 0}'
}
declare -A best_rate best_us best_cpu
for name in "${loads[@]}"; do best_rate[$name]=0 best_us[$name]=0 best_cpu[$name]=0; done
for ((round = 0; round < rounds; round++)); do
    line="round $((round + 1)):"
    for name in "${loads[@]}"; do
        redis-cli -p "$port" CONFIG RESETSTAT >/dev/null
        json="$(run "$name")"
        usec="$(server_usec)"
        read -r rate ops cpu < <(node -e '
            const r = JSON.parse(process.argv[1]);
            console.log(r.ops_per_sec, r.ops, r.client_cpu_us_per_op ?? r.client_cpu_us_per_hit ?? -1);' "$json")
        line+="$(printf ' %s %.0f/s' "$name" "$rate")"
        if node -e "process.exit($rate > ${best_rate[$name]} ? 0 : 1)"; then
            best_rate[$name]=$rate
            best_us[$name]="$(node -p "($usec / Math.max(1, $ops)).toFixed(2)")"
            best_cpu[$name]=$cpu
        fi
    done
    echo "$line"
done
printf '\nbest of %d rounds, 8 connections x 16 in flight, %d random users, %d s each:\n' "$rounds" "$users" "$seconds"
printf '%-48s %12s %22s %22s\n' load 'decisions/s' 'server µs/decision' 'client CPU µs/decision'
label() {
    case "$1" in
    node) echo "Tollgate Node.js client, Limiter.hit()" ;;
    evalsha) echo "bare EVALSHA loop, the same hit.lua call" ;;
    rlf) echo "rate-limiter-flexible $rlf_version consume()" ;;
    ctl) echo "tollgatectl bench hit (C++ client)" ;;
    esac
}
for name in "${loads[@]}"; do
    cpu="${best_cpu[$name]}"
    [[ "$cpu" == -1 ]] && cpu='' || cpu="$(node -p "Number($cpu).toFixed(1)")"
    printf '%-48s %12.0f %22s %22s\n' "$(label "$name")" "${best_rate[$name]}" "${best_us[$name]}" "$cpu"
done
printf '\nNode.js client / bare EVALSHA loop: %.2fx (goal >= 0.9)\n' "$(node -p "${best_rate[node]} / ${best_rate[evalsha]}")"
printf 'Node.js client / rate-limiter-flexible: %.2fx (goal >= 1.5)\n' "$(node -p "${best_rate[node]} / ${best_rate[rlf]}")"
if [[ -n "${best_rate[ctl]:-}" ]]; then
    printf 'tollgatectl / rate-limiter-flexible: %.2fx\n' "$(node -p "${best_rate[ctl]} / ${best_rate[rlf]}")"
fi
