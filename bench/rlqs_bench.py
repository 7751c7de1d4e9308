#!/usr/bin/env python3
"""Quota streaming against per-request RLS (bench/bench_rlqs.sh starts redis-server and
tollgated and runs this; PYTHONPATH holds the stubs generated from proto/ and tests/python).

    rlqs_bench.py TARGET PID overshoot PROXIES RATE MINUTES INTERVAL LIMIT
        PROXIES simulated proxies (tests/python/rlqs_proxy.py, Envoy's rate_limit_quota filter
        as its docs describe it) send RATE requests/s each into one bucket of LIMIT a minute for
        MINUTES whole calendar minutes, reporting every INTERVAL s: per minute, the requests the
        proxies let through and how far that is over LIMIT.
    rlqs_bench.py TARGET PID cpu PROXIES RATE SECONDS INTERVAL
        tollgated's CPU (utime + stime of PID) per 1,000 requests: the proxies above for SECONDS,
        then the same number of requests asked one by one with ShouldRateLimit (32 in flight),
        all allowed; tollgated's idle CPU over as long as each phase, measured first, is shown
        and taken off (it is spent whatever the protocol: timers, Redis pings, gRPC's pollers).
"""
import json
import os
import sys
import threading
import time

import grpc

from envoy.service.ratelimit.v3 import rls_pb2, rls_pb2_grpc
from rlqs_proxy import drive

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS     # utime, stime


def overshoot(target, proxies, rate, minutes, interval, limit):
    # Start just after a minute begins, run `minutes` whole minutes plus the next one's start.
    time.sleep(60 - time.time() % 60 + 0.2)
    first = int(time.time()) // 60
    allowed_at = drive(target, "quota", proxies, rate, minutes * 60 - 0.5, interval, {"tenant": "shared"})["allowed_at"]
    rows = []
    for minute in range(first, first + minutes):
        allowed = sum(1 for t in allowed_at if int(t) // 60 == minute)
        rows.append({"minute": minute, "allowed": allowed, "over_pct": round(100.0 * (allowed - limit) / limit, 2)})
    return {"limit": limit, "proxies": proxies, "interval_s": interval, "rate_per_proxy": rate, "minutes": rows}


def rls_cpu(target, pid, requests):
    channel = grpc.insecure_channel(target)
    stub = rls_pb2_grpc.RateLimitServiceStub(channel)
    request = rls_pb2.RateLimitRequest(domain="quota")
    entry = request.descriptors.add().entries.add()
    entry.key, entry.value = "bulk", "rls"
    before = cpu_seconds(pid)
    started = time.monotonic()
    left = [requests]
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if left[0] <= 0:
                    return
                left[0] -= 1
            stub.ShouldRateLimit(request, timeout=10)

    threads = [threading.Thread(target=worker) for _ in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    spent = cpu_seconds(pid) - before
    channel.close()
    return spent, time.monotonic() - started


def idle_cpu(pid, seconds):
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return cpu_seconds(pid) - before


def cpu(target, pid, proxies, rate, seconds, interval):
    idle_per_s = idle_cpu(pid, 10) / 10
    before, started = cpu_seconds(pid), time.monotonic()
    requests = drive(target, "quota", proxies, rate, seconds, interval, {"bulk": "cpu"})["requests"]
    rlqs, rlqs_seconds = cpu_seconds(pid) - before, time.monotonic() - started
    rls, rls_seconds = rls_cpu(target, pid, requests)

    def per_1000(spent):
        return round(1e6 * spent / requests, 2)         # ms of CPU per 1,000 requests

    rlqs_own = max(rlqs - idle_per_s * rlqs_seconds, 0.0)
    rls_own = max(rls - idle_per_s * rls_seconds, 0.0)
    return {"requests": requests, "idle_cpu_ms_per_s": round(1000 * idle_per_s, 2),
            "rlqs_ms_per_1000": per_1000(rlqs), "rlqs_seconds": round(rlqs_seconds, 1),
            "rlqs_ms_per_1000_over_idle": per_1000(rlqs_own),
            "rls_ms_per_1000": per_1000(rls), "rls_seconds": round(rls_seconds, 1),
            "rls_ms_per_1000_over_idle": per_1000(rls_own),
            "ratio": round(rls / rlqs, 1) if rlqs > 0 else None,
            "ratio_over_idle": round(rls_own / rlqs_own, 1) if rlqs_own > 0 else None}


def main():
    target, pid, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    args = sys.argv[4:]
    if mode == "overshoot":
        print(json.dumps(overshoot(target, int(args[0]), float(args[1]), int(args[2]), float(args[3]), int(args[4]))))
    elif mode == "cpu":
        print(json.dumps(cpu(target, pid, int(args[0]), float(args[1]), float(args[2]), float(args[3]))))
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
