#!/usr/bin/env python3
"""How long tollgated takes to answer while Redis is frozen (SIGSTOP): each decision should get
the failure policy's answer at the Redis URL's `timeout` plus a millisecond or two.

    /usr/bin/python3 bench/service/frozen_redis.py BUILD_DIR [--timeouts 20,50] [--calls 200]

Starts its own redis-server and tollgated (BUILD_DIR/app/tollgated, `--on-error allow`), freezes
Redis and measures, per timeout: gRPC calls one after the other; HTTP requests one after the
other on one kept-alive connection; HTTP requests sent two at a time on one connection (the time
to the second answer: it must not wait for the first's deadline); a subject refused before the
freeze (answered from the refusal cache, or at the deadline once the cache is off). Prints
p50/p99/max in ms for each.
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentiles(samples):
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]
    return "p50 %6.1f  p99 %6.1f  max %6.1f ms" % (pick(0.5), pick(0.99), ordered[-1])


def stubs(directory):
    protos = ["envoy/type/v3/ratelimit_unit.proto", "envoy/config/core/v3/base.proto",
              "envoy/extensions/common/ratelimit/v3/ratelimit.proto",
              "envoy/service/ratelimit/v3/rls.proto"]
    subprocess.run(["protoc", "--python_out=" + directory, "--grpc_python_out=" + directory,
                    "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin"] + protos,
                   cwd=os.path.join(ROOT, "proto"), check=True)
    sys.path.insert(0, directory)


def request_body(value):
    return json.dumps({"domain": "edge", "descriptors": [
        {"entries": [{"key": "remote_address", "value": value}]}]}).encode()


def http_request(value):
    body = request_body(value)
    return (b"POST /v1/decide HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)) + body


def read_answers(sock, count, buffer=b""):
    """Reads `count` answers; returns the time each was complete and what is left."""
    times = []
    while len(times) < count:
        head_end = buffer.find(b"\r\n\r\n")
        if head_end >= 0:
            head = buffer[:head_end].decode()
            length = int([l.split(":")[1] for l in head.split("\r\n") if l.lower().startswith("content-length")][0])
            if len(buffer) >= head_end + 4 + length:
                times.append(time.perf_counter())
                buffer = buffer[head_end + 4 + length:]
                continue
        buffer += sock.recv(65536)
    return times, buffer


def measure(build, timeout_ms, calls):
    import grpc
    from google.protobuf import json_format
    from envoy.service.ratelimit.v3 import rls_pb2, rls_pb2_grpc

    work = tempfile.mkdtemp(prefix="frozen-redis-")
    port = free_port()
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--dir", work, "--save", "",
                              "--appendonly", "no"], stdout=subprocess.DEVNULL)
    time.sleep(0.3)
    daemon = subprocess.Popen([os.path.join(build, "app", "tollgated"), "--config",
                               os.path.join(ROOT, "tests/data/service_edge.yaml"), "--url",
                               "redis://127.0.0.1:%d?timeout=%d" % (port, timeout_ms), "--on-error",
                               "allow", "--grpc", "127.0.0.1:0", "--http", "127.0.0.1:0",
                               "--no-announce"], stderr=subprocess.PIPE, text=True)
    try:
        grpc_port = http_port = None
        while grpc_port is None:
            line = daemon.stderr.readline()
            if not line:
                sys.exit("tollgated exited")
            if "serving:" in line:
                words = line.replace(",", "").replace(";", "").split()
                grpc_port = int(words[words.index("gRPC") + 2])
                http_port = int(words[words.index("HTTP") + 2])
        time.sleep(1.0)  # the policies written, the events connection up
        channel = grpc.insecure_channel("127.0.0.1:%d" % grpc_port)
        stub = rls_pb2_grpc.RateLimitServiceStub(channel)
        message = lambda value: json_format.Parse(request_body(value), rls_pb2.RateLimitRequest())
        for i in range(4):  # 3 a minute: the 4th and later are refused, and cached
            stub.ShouldRateLimit(message("refused"), timeout=5)
        stub.ShouldRateLimit(message("warm"), timeout=5)

        os.kill(redis.pid, signal.SIGSTOP)
        results = {}
        samples = []
        for i in range(calls):
            start = time.perf_counter()
            stub.ShouldRateLimit(message("g%d" % i), timeout=5)
            samples.append((time.perf_counter() - start) * 1000)
        results["gRPC, one at a time"] = samples

        sock = socket.create_connection(("127.0.0.1", http_port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        samples, left = [], b""
        for i in range(calls):
            start = time.perf_counter()
            sock.sendall(http_request("h%d" % i))
            times, left = read_answers(sock, 1, left)
            samples.append((times[0] - start) * 1000)
        results["HTTP, one at a time"] = samples
        samples = []
        for i in range(calls // 2):
            start = time.perf_counter()
            sock.sendall(http_request("p%da" % i) + http_request("p%db" % i))
            times, left = read_answers(sock, 2, left)
            samples.append((times[1] - start) * 1000)
        results["HTTP, two sent at once (the second)"] = samples
        sock.close()

        samples = []
        for i in range(calls):
            start = time.perf_counter()
            stub.ShouldRateLimit(message("refused"), timeout=5)
            samples.append((time.perf_counter() - start) * 1000)
        results["gRPC, a subject refused before"] = samples
        os.kill(redis.pid, signal.SIGCONT)
        return results
    finally:
        daemon.terminate()
        daemon.wait()
        redis.kill()
        redis.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--timeouts", default="20,50")
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    stubs(tempfile.mkdtemp(prefix="frozen-redis-stubs-"))
    for timeout in [int(t) for t in args.timeouts.split(",")]:
        print("Redis frozen, timeout=%d ms" % timeout)
        for name, samples in measure(os.path.abspath(args.build), timeout, args.calls).items():
            print("  %-38s %s" % (name, percentiles(samples)))


if __name__ == "__main__":
    main()
