#!/usr/bin/env bash
# The client's instructions per hit at one hit in flight (`tollgatectl bench hit -c 1 -P 1`), for
# each event loop of the I/O threads: EpollDispatcher (the default) and Qt's own
# (TOLLGATE_EVENT_LOOP=qt). Counted by valgrind's callgrind over a short and a long run, so the
# start (loading Qt, connecting) cancels out: (instructions long - short) / (hits long - short).
# Wall time and CPU time on a shared VM move by 10 % from one minute to the next; these counts
# move by well under 1 %, so two builds compare exactly. One private redis-server.
#
#   bench/bench_client_instructions.sh [--port 7494] [--build build]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
port=7494
build="$root/build"
while (($#)); do
    case "$1" in
    --port) port="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    *) echo "usage: $0 [--port N] [--build DIR]" >&2; exit 2 ;;
    esac
done
ctl="$build/app/tollgatectl"
[[ -x "$ctl" ]] || { echo "$ctl not built (bash scripts/build.sh)" >&2; exit 3; }
command -v valgrind >/dev/null || { echo "valgrind needed (apt-get install valgrind)" >&2; exit 3; }

dir="$(mktemp -d)"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize no \
    >"$dir/log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 300); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.1; done

# hits and instructions of one run under callgrind: loop seconds
count() {
    local out="$dir/cg.$1.$2"
    local hits
    hits=$(TOLLGATE_EVENT_LOOP="$1" valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$ctl" --url "redis://127.0.0.1:$port" bench hit --connections 1 --pipeline 1 \
        --seconds "$2" --users 1 2>/dev/null | awk '/hits in/ { print $1 }')
    echo "$hits $(awk '/^summary:/ { print $2 }' "$out")"
}

printf '%-8s %12s %16s\n' "loop" "hits" "instructions/hit"
for loop in epoll qt; do
    read -r short_hits short_ir < <(count "$loop" 2)
    read -r long_hits long_ir < <(count "$loop" 6)
    awk -v loop="$loop" -v hits=$((long_hits - short_hits)) -v ir=$((long_ir - short_ir)) \
        'BEGIN { printf "%-8s %12d %16.0f\n", loop, hits, ir / hits }'
done
