#!/usr/bin/env bash
# Quota streaming (RLQS) against per-request RLS, with tollgated and one private redis-server
# started here and simulated proxies that behave as Envoy's rate_limit_quota filter
# (tests/python/rlqs_proxy.py):
#   1. overshoot: 4 proxies share one bucket of 1,200 a minute (calendar minutes), each asked
#      for 20 requests/s (4x the limit), reporting every 5 s: the requests let through per
#      whole minute, and how far over the limit.
#   2. CPU: tollgated's CPU (/proc/<pid>/stat) per 1,000 proxied requests with 4 proxies at
#      200 requests/s each reporting every 5 s, against the same number of ShouldRateLimit
#      calls (32 in flight), all allowed (a bucket of 1e9 a minute); tollgated's idle CPU over
#      as long as each phase is measured first and shown apart.
#
#   bench/bench_rlqs.sh [--minutes 3] [--cpu-seconds 60] [--only overshoot|cpu] [--port 7497]
# Needs build/app/tollgated, redis-server, protoc, grpc_python_plugin and python3-grpcio.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
minutes=3
cpu_seconds=60
port=7497
only=""
while (($#)); do
    case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --cpu-seconds) cpu_seconds="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
work="$(mktemp -d)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

redis-server --port "$port" --save '' --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)
cat >"$work/quota.yaml" <<'YAML'
domain: quota
descriptors:
  - key: tenant
    rate_limit: {unit: minute, requests_per_unit: 1200}
  - key: bulk
    rate_limit: {unit: minute, requests_per_unit: 1000000000}
YAML
"$root/build/app/tollgated" --config "$work/quota.yaml" --url "redis://127.0.0.1:$port" \
    --grpc 127.0.0.1:0 --http off --no-announce --prefix rlqsbench 2>"$work/tollgated.log" &
tollgated=$!
pids+=($tollgated)
for _ in $(seq 100); do grep -q "serving: gRPC port" "$work/tollgated.log" && break; sleep 0.1; done
grpc_port="$(grep -o 'gRPC port [0-9]*' "$work/tollgated.log" | grep -o '[0-9]*$')"

mkdir -p "$work/stubs"
(cd "$root/proto" && protoc --python_out="$work/stubs" --grpc_python_out="$work/stubs" \
    --plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin \
    envoy/type/v3/ratelimit_unit.proto envoy/type/v3/token_bucket.proto \
    envoy/type/v3/ratelimit_strategy.proto envoy/service/rate_limit_quota/v3/rlqs.proto \
    envoy/config/core/v3/base.proto envoy/extensions/common/ratelimit/v3/ratelimit.proto \
    envoy/service/ratelimit/v3/rls.proto)
export PYTHONPATH="$work/stubs:$root/tests/python" PYTHONDONTWRITEBYTECODE=1
bench=(/usr/bin/python3 "$root/bench/rlqs_bench.py" "127.0.0.1:$grpc_port" "$tollgated")
if [[ "$only" != cpu ]]; then
    echo "overshoot: 4 proxies x 20 requests/s, 1,200 a minute, reports every 5 s, $minutes minutes"
    "${bench[@]}" overshoot 4 20 "$minutes" 5 1200
fi
if [[ "$only" != overshoot ]]; then
    echo "CPU: 4 proxies x 200 requests/s for $cpu_seconds s, then as many ShouldRateLimit calls"
    "${bench[@]}" cpu 4 200 "$cpu_seconds" 5
fi
