#!/usr/bin/env bash
# Makes docs/screenshots/prometheus.png: a private redis-server with `tollgatectl simulate`
# traffic, `tollgatectl exporter`, a private Prometheus scraping it every 2 s with the rules of
# resources/prometheus, and headless Chromium on Prometheus' graph page. Needs a build
# (scripts/build.sh); installs chromium when it is missing. Everything runs on loopback, on
# ports the kernel picks, in a temporary directory removed at the end.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ctl="$root/build/app/tollgatectl"
bash "$root/scripts/setup.sh" chromium # only this script needs a browser
out="$root/docs/screenshots/prometheus.png"
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
redis_port=$(free_port)
exporter_port=$(free_port)
prometheus_port=$(free_port)

redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" \
    >"$work/redis.log" 2>&1 &
pids+=($!)
sleep 0.5
url="redis://127.0.0.1:$redis_port"
"$ctl" --url "$url" simulate --seconds 0 --rate 200 >"$work/simulate.log" 2>&1 &
pids+=($!)
"$ctl" --url "$url" exporter --listen "127.0.0.1:$exporter_port" --interval 5s \
    2>"$work/exporter.log" &
pids+=($!)
cat >"$work/prometheus.yml" <<YAML
global:
  scrape_interval: 2s
  evaluation_interval: 2s
rule_files:
  - $root/resources/prometheus/tollgate-rules.yml
scrape_configs:
  - job_name: tollgate
    static_configs:
      - targets: ['127.0.0.1:$exporter_port']
YAML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
    --web.listen-address="127.0.0.1:$prometheus_port" --log.level=warn >"$work/prometheus.log" 2>&1 &
pids+=($!)

echo "prometheus-screenshot.sh: two minutes of traffic for the graph..."
sleep 120
query='sum%20by%20(action%2C%20outcome)%20(rate(tollgate_hits_total%5B30s%5D))'
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=15000 \
    --window-size=1280,800 --screenshot="$out" \
    "http://127.0.0.1:$prometheus_port/graph?g0.expr=$query&g0.tab=0&g0.range_input=2m" \
    2>/dev/null
echo "prometheus-screenshot.sh: wrote $out"
