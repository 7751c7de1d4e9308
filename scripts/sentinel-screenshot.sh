#!/usr/bin/env bash
# The console connected through Redis Sentinel, for docs/sentinel.md: starts a private primary, a
# replica and three sentinels on free loopback ports in a temporary directory, runs demo traffic
# through the sentinels (tollgatectl simulate), then `tollgate --url redis+sentinel://...
# --screenshots` under Xvfb, and keeps its Topology page as docs/screenshots/sentinel-topology.png
# (or <dir>/sentinel-topology.png with a directory argument). Expects a build in build/
# (scripts/screenshots.sh builds first and calls this). Everything it started is stopped at the end.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${1:-docs/screenshots}"
work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_for() { # port, command...
    local port=$1; shift
    for _ in $(seq 100); do
        if redis-cli -p "$port" "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.1
    done
    echo "sentinel-screenshot.sh: nothing answers on port $port" >&2
    return 1
}

primary=$(free_port)
replica=$(free_port)
common=(--bind 127.0.0.1 --save "" --appendonly no --daemonize no)
mkdir -p "$work/primary" "$work/replica"
redis-server --port "$primary" --dir "$work/primary" "${common[@]}" >"$work/primary.log" 2>&1 &
pids+=($!)
redis-server --port "$replica" --dir "$work/replica" --replicaof 127.0.0.1 "$primary" \
    "${common[@]}" >"$work/replica.log" 2>&1 &
pids+=($!)
wait_for "$primary" ping
wait_for "$replica" ping

sentinels=()
for n in 1 2 3; do
    port=$(free_port)
    mkdir -p "$work/sentinel$n"
    printf 'sentinel monitor orders 127.0.0.1 %s 2\nsentinel down-after-milliseconds orders 2000\n' \
        "$primary" >"$work/sentinel$n/sentinel.conf"
    redis-server "$work/sentinel$n/sentinel.conf" --sentinel --port "$port" --bind 127.0.0.1 \
        --dir "$work/sentinel$n" >"$work/sentinel$n.log" 2>&1 &
    pids+=($!)
    sentinels+=("127.0.0.1:$port")
done
for address in "${sentinels[@]}"; do wait_for "${address#*:}" ping; done
url="redis+sentinel://$(IFS=,; echo "${sentinels[*]}")/orders"
# The sentinels find each other through their hello messages (every 2 s).
for _ in $(seq 100); do
    others=$(redis-cli -p "${sentinels[0]#*:}" sentinel master orders | sed -n '/^num-other-sentinels$/{n;p}')
    [[ "$others" == "2" ]] && break
    sleep 0.2
done

export TOLLGATE_URL="$url"
build/app/tollgatectl simulate --seconds 40 >"$work/simulate.log" 2>&1 &
pids+=($!)
sleep 6

shots="$work/shots"
mkdir -p "$shots" "$out"
export TOLLGATE_NO_DIALOGS=1
unset QT_QPA_PLATFORM QT_STYLE_OVERRIDE
xvfb-run -a -s "-screen 0 1920x1080x24" build/app/tollgate --url "$url" --screenshots "$shots"
cp "$shots/cluster.png" "$out/sentinel-topology.png"
echo "sentinel-screenshot.sh: wrote $out/sentinel-topology.png (the whole tour was in $shots)"
