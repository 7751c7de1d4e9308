#!/usr/bin/env bash
# Where a hit's server time goes, counted rather than timed: valgrind's callgrind counts the
# instructions redis-server runs inside EVALSHA (the same count on a busy machine as on an idle
# one, so one run is enough). Two tables, one private redis-server:
#   1. the ladder from the minimal fixed window (bench/reference/fixed_window.lua) to hit.lua's
#      fixed-window fast path, one part added per step (bench/reference/ladder/), then hit.lua;
#   2. per algorithm, hit.lua's short form against the minimal script doing the same job.
# One user, every hit allowed (limit 1e9 per hour; the sliding logs 100000 per second).
#
#   bench/bench_hit_ladder.sh [--calls 3000] [--port 7495] [--hit path/to/assembled/hit.lua]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
calls=3000 port=7495 hit=""
while (($#)); do
    case "$1" in
    --calls) calls="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --hit) hit="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
# The assembled script of the build tree (lua/hit.lua is its source, not a loadable script).
hit="${hit:-$root/build/lua/hit.lua}"
[[ -f "$hit" ]] || { echo "$hit: no such script (cmake --build build --target tollgate_lua_scripts)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind is needed (apt install valgrind)" >&2; exit 2; }

dir="$(mktemp -d)"
valgrind --tool=callgrind --toggle-collect=evalShaCommand --callgrind-out-file="$dir/cg.%p" \
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    >"$dir/log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$dir"' EXIT
cli() { redis-cli -p "$port" "$@"; }
for _ in $(seq 600); do cli PING >/dev/null 2>&1 && break; sleep 0.2; done

# instructions per call of `calls` EVALSHAs of script $1 with the keys and arguments that follow
count() {
    local sha
    sha="$(cli SCRIPT LOAD "$(cat "$1")")"
    cli FLUSHALL >/dev/null
    callgrind_control -z "$server" >/dev/null 2>&1
    redis-benchmark -p "$port" -n "$calls" -c 8 -P 16 -q EVALSHA "$sha" "${@:2}" >/dev/null
    callgrind_control -d "$server" >/dev/null 2>&1
    # shellcheck disable=SC2012 # the newest dump: names are cg.<pid>.<n>
    sed -n 's/^totals: //p' "$(ls -t "$dir"/cg.*.* | head -1)" | awk -v n="$calls" '{printf "%.0f\n", $1 / n}'
}
# hit.lua's short form for a plain policy: alg code limit window [script]; a script whose header
# names contract 3 or later gets the user's overrides hash as KEYS[3] (the ladder's steps follow 2)
short() {
    local contract=2
    [[ -z "${5:-}" ]] || contract="$(sed -n 's/^Contract: \([0-9]*\).*/\1/p' "$5" | head -1)"
    if ((contract >= 3)); then
        echo 4 'tg:{u}:ban' 'tg:{u}:a:ban' 'tg:{u}:overrides' "tg:{u}:a:$2:$4" hit "$1" 1 "$3" "$4"
    else
        echo 3 'tg:{u}:ban' 'tg:{u}:a:ban' "tg:{u}:a:$2:$4" hit "$1" 1 "$3" "$4"
    fi
}

echo "hit.lua: ${hit#"$root/"}; $calls calls per figure; instructions per call inside EVALSHA"
echo
echo "1. fixed window, from the minimal script to hit.lua's fast path"
printf '  %-50s %8s %8s\n' step instr added
# shellcheck disable=SC2046 # short's words are the arguments
last="$(count "$root/bench/reference/fixed_window.lua" 1 'ref:{u}:fw' 1000000000 3600000)"
printf '  %-50s %8s\n' "minimal fixed window (1 key, 2 args)" "$last"
for step in "$root"/bench/reference/ladder/*.lua "$hit"; do
    # shellcheck disable=SC2046
    n="$(count "$step" $(short fixed_window fw 1000000000 3600000 "$step"))"
    label="$(sed -n 's/^-- This step: \([^:]*\):.*/\1/p' "$step")"
    [[ -n "$label" ]] || label="= hit.lua (its preamble and dispatch on top)"
    printf '  %-50s %8s %+8d\n' "${label:0:50}" "$n" "$((n - last))"
    last="$n"
done

echo
echo "2. per algorithm, hit.lua's short form against the minimal script"
printf '  %-15s %10s %10s %7s\n' algorithm hit.lua minimal ratio
for spec in "fixed_window fw 1000000000 3600000" "token_bucket tb 1000000000 3600000" \
    "sliding_window sw 1000000000 3600000" "sliding_log sl 100000 1000"; do
    read -r alg code limit window <<<"$spec"
    # shellcheck disable=SC2046
    t="$(count "$hit" $(short "$alg" "$code" "$limit" "$window" "$hit"))"
    m="$(count "$root/bench/reference/$alg.lua" 1 "ref:{u}:$code" "$limit" "$window")"
    printf '  %-15s %10s %10s %7.2f\n' "$alg" "$t" "$m" "$(echo "$t / $m" | bc -l)"
done
