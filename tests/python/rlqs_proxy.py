#!/usr/bin/env python3
"""A proxy that uses tollgated's quota streaming (envoy.service.rate_limit_quota.v3) the way
Envoy's rate_limit_quota filter does, as its documentation describes it; Python's grpcio with
stubs protoc generated from proto/ (PYTHONPATH points at them).

- One stream per proxy; its first message names the domain.
- A request in a bucket it does not track yet creates the bucket, applies the no-assignment
  behaviour (allow all unless told otherwise) and sends a report at once: the server takes a
  bucket's first report as the subscription to its assignments.
- Every bucket is reported each reporting interval: requests allowed and denied since the
  previous report.
- An assignment replaces the active one when its strategy differs (a token bucket then starts
  full) or the active one has expired; the same strategy only extends the time to live.
- A token bucket allows a request per token; ALLOW_ALL / DENY_ALL allow or deny them all.
- An expired assignment applies the expired-assignment behaviour (reuse the last one, or a
  blanket rule); an abandon action forgets the bucket (no more reports until a new request).

    rlqs_proxy.py TARGET DOMAIN interactive    commands on stdin, one JSON line each; answers
        on stdout, one JSON line each:
        {"cmd": "requests", "bucket": {...}, "n": N}     -> {"allowed": a, "denied": d}
        {"cmd": "wait", "bucket": {...}, "kind": K, "timeout": s}
            K: ALLOW_ALL, DENY_ALL, TOKEN_BUCKET or ABANDONED -> {"ms": elapsed} or {"timeout": true}
        {"cmd": "state", "bucket": {...}}                -> the bucket's state
        {"cmd": "quit"}
    rlqs_proxy.py TARGET DOMAIN share PROXIES RATE SECONDS INTERVAL BUCKET_JSON
        PROXIES proxies, each sending RATE requests/s into one bucket for SECONDS, reporting
        every INTERVAL s: {"requests": n, "allowed_at": [epoch seconds of each allowed request],
        "reported_allowed": n} (drive(), which bench/rlqs_bench.py uses too)
"""
import json
import queue
import sys
import threading
import time

import grpc

from envoy.service.rate_limit_quota.v3 import rlqs_pb2, rlqs_pb2_grpc
from envoy.type.v3 import ratelimit_strategy_pb2

Strategy = ratelimit_strategy_pb2.RateLimitStrategy


def bucket_key(bucket):
    return tuple(sorted(bucket.items()))


class Bucket:
    def __init__(self, bucket_id):
        self.id = bucket_id
        self.allowed = 0          # since the last report
        self.denied = 0
        self.last_report = time.monotonic()
        self.strategy = None      # the active assignment's RateLimitStrategy (None: none yet)
        self.expires = None       # monotonic seconds; None: no end
        self.tokens = 0.0
        self.refilled = 0.0

    def kind(self):
        if self.strategy is None:
            return "NONE"
        which = self.strategy.WhichOneof("strategy")
        if which == "token_bucket":
            return "TOKEN_BUCKET"
        if which == "blanket_rule" or which is None:
            return Strategy.BlanketRule.Name(self.strategy.blanket_rule)
        return which.upper()


class QuotaProxy:
    """One simulated proxy: a stream, its buckets, their enforcement."""

    def __init__(self, target, domain, interval=5.0, no_assignment="ALLOW_ALL", expired="reuse"):
        self.domain = domain
        self.interval = interval
        self.no_assignment = no_assignment
        self.expired = expired        # "reuse" the last assignment, or "ALLOW_ALL" / "DENY_ALL"
        self.buckets = {}
        self.lock = threading.Condition()
        self.outbox = queue.Queue()
        self.first = True
        self.reported_allowed = 0
        self.channel = grpc.insecure_channel(target)
        stub = rlqs_pb2_grpc.RateLimitQuotaServiceStub(self.channel)
        self.responses = stub.StreamRateLimitQuotas(iter(self.outbox.get, None))
        self.stopped = False
        threading.Thread(target=self._receive, daemon=True).start()
        threading.Thread(target=self._report_loop, daemon=True).start()

    def close(self):
        self.stopped = True
        self.outbox.put(None)
        self.channel.close()

    # ---- reports
    def _send(self, buckets):
        now = time.monotonic()
        message = rlqs_pb2.RateLimitQuotaUsageReports()
        if self.first:
            message.domain = self.domain
            self.first = False
        for bucket in buckets:
            usage = message.bucket_quota_usages.add()
            usage.bucket_id.bucket.update(bucket.id)
            elapsed = max(now - bucket.last_report, 0.001)
            usage.time_elapsed.seconds = int(elapsed)
            usage.time_elapsed.nanos = int((elapsed % 1) * 1e9)
            usage.num_requests_allowed = bucket.allowed
            usage.num_requests_denied = bucket.denied
            self.reported_allowed += bucket.allowed
            bucket.allowed = bucket.denied = 0
            bucket.last_report = now
        self.outbox.put(message)

    def _report_loop(self):
        while not self.stopped:
            time.sleep(self.interval)
            with self.lock:
                if self.buckets:
                    self._send(list(self.buckets.values()))

    # ---- assignments
    def _receive(self):
        try:
            for response in self.responses:
                with self.lock:
                    for action in response.bucket_action:
                        self._apply(action)
                    self.lock.notify_all()
        except grpc.RpcError:
            pass

    def _apply(self, action):
        key = bucket_key(dict(action.bucket_id.bucket))
        bucket = self.buckets.get(key)
        if bucket is None:
            return
        if action.HasField("abandon_action"):
            del self.buckets[key]
            return
        assignment = action.quota_assignment_action
        now = time.monotonic()
        expired = bucket.expires is not None and now >= bucket.expires
        strategy = assignment.rate_limit_strategy
        if bucket.strategy is None or expired or strategy != bucket.strategy:
            bucket.strategy = Strategy()
            bucket.strategy.CopyFrom(strategy)
            if strategy.WhichOneof("strategy") == "token_bucket":
                bucket.tokens = float(strategy.token_bucket.max_tokens)   # starts full
                bucket.refilled = now
        if assignment.HasField("assignment_time_to_live"):
            ttl = assignment.assignment_time_to_live
            bucket.expires = now + ttl.seconds + ttl.nanos / 1e9
        else:
            bucket.expires = None

    # ---- enforcement
    def _blanket(self, rule):
        return rule != "DENY_ALL"

    def _decide(self, bucket, now):
        strategy = bucket.strategy
        if strategy is None:
            return self._blanket(self.no_assignment)
        if bucket.expires is not None and now >= bucket.expires and self.expired != "reuse":
            return self._blanket(self.expired)
        if strategy.WhichOneof("strategy") == "token_bucket":
            spec = strategy.token_bucket
            fill = spec.fill_interval.seconds + spec.fill_interval.nanos / 1e9
            per_fill = spec.tokens_per_fill.value if spec.HasField("tokens_per_fill") else 1
            fills = int((now - bucket.refilled) / fill) if fill > 0 else 0
            if fills:
                bucket.tokens = min(float(spec.max_tokens), bucket.tokens + fills * per_fill)
                bucket.refilled += fills * fill
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return True
            return False
        return strategy.blanket_rule != Strategy.DENY_ALL

    def request(self, bucket_id):
        """One request into the bucket: True when allowed."""
        with self.lock:
            key = bucket_key(bucket_id)
            bucket = self.buckets.get(key)
            new = bucket is None
            if new:
                bucket = self.buckets[key] = Bucket(dict(bucket_id))
            allowed = self._decide(bucket, time.monotonic())
            if allowed:
                bucket.allowed += 1
            else:
                bucket.denied += 1
            if new:
                self._send([bucket])    # the first report subscribes at once
            return allowed

    def wait(self, bucket_id, kind, timeout):
        start = time.monotonic()
        key = bucket_key(bucket_id)
        with self.lock:
            while True:
                bucket = self.buckets.get(key)
                now_kind = "ABANDONED" if bucket is None else bucket.kind()
                if now_kind == kind:
                    return {"ms": int((time.monotonic() - start) * 1000)}
                left = timeout - (time.monotonic() - start)
                if left <= 0:
                    return {"timeout": True, "kind": now_kind}
                self.lock.wait(left)

    def state(self, bucket_id):
        with self.lock:
            bucket = self.buckets.get(bucket_key(bucket_id))
            if bucket is None:
                return {"kind": "ABANDONED"}
            out = {"kind": bucket.kind()}
            if bucket.strategy is not None and bucket.strategy.WhichOneof("strategy") == "token_bucket":
                spec = bucket.strategy.token_bucket
                out["max_tokens"] = spec.max_tokens
                out["tokens_per_fill"] = spec.tokens_per_fill.value
                out["fill_interval_ms"] = spec.fill_interval.seconds * 1000 + spec.fill_interval.nanos // 1000000
            if bucket.expires is not None:
                out["ttl_ms"] = int((bucket.expires - time.monotonic()) * 1000)
            return out


def interactive(target, domain):
    proxy = QuotaProxy(target, domain, interval=float(sys.argv[4]) if len(sys.argv) > 4 else 1.0)
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        cmd = command["cmd"]
        if cmd == "quit":
            break
        bucket = command.get("bucket", {})
        if cmd == "requests":
            results = [proxy.request(bucket) for _ in range(command.get("n", 1))]
            out = {"allowed": results.count(True), "denied": results.count(False)}
        elif cmd == "wait":
            out = proxy.wait(bucket, command["kind"], command.get("timeout", 5))
        elif cmd == "state":
            out = proxy.state(bucket)
        else:
            out = {"error": "unknown command " + cmd}
        print(json.dumps(out), flush=True)
    proxy.close()


def drive(target, domain, proxies, rate, seconds, interval, bucket):
    """PROXIES proxies sending RATE requests/s each into one bucket for SECONDS: the requests
    made, when each allowed one was (wall clock), and what the proxies reported allowed."""
    allowed_at = []
    made = [0]
    lock = threading.Lock()
    members = [QuotaProxy(target, domain, interval=interval) for _ in range(proxies)]

    def run(proxy):
        period = 1.0 / rate
        end = time.monotonic() + seconds
        next_at = time.monotonic()
        while time.monotonic() < end:
            allowed = proxy.request(bucket)
            with lock:
                made[0] += 1
                if allowed:
                    allowed_at.append(time.time())
            next_at += period
            pause = next_at - time.monotonic()
            if pause > 0:
                time.sleep(pause)

    threads = [threading.Thread(target=run, args=(p,)) for p in members]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(interval + 0.5)            # the last reports reach the server
    reported = sum(p.reported_allowed for p in members)
    for proxy in members:
        proxy.close()
    return {"requests": made[0], "allowed_at": sorted(allowed_at), "reported_allowed": reported}


def main():
    target, domain, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "interactive":
        interactive(target, domain)
    elif mode == "share":
        proxies, rate, seconds, interval = int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
        print(json.dumps(drive(target, domain, proxies, rate, seconds, interval, json.loads(sys.argv[8]))))
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
