#!/usr/bin/env python3
"""A gRPC client of tollgated that is not Tollgate's own code: Python's grpcio with stubs that
protoc generated from proto/ (PYTHONPATH points at them; tests/support/ServiceProcess.cpp).

    rls_client.py TARGET decide            stdin: one RateLimitRequest per line, in protobuf's
                                           JSON mapping; stdout: one JSON line per answer,
                                           {"response": {...}} or {"error": CODE, "message": ...}
    rls_client.py TARGET invalid-utf8      a request whose entry value is not UTF-8
    rls_client.py TARGET health [SERVICE]  grpc.health.v1 Check: {"status": "SERVING"}
    rls_client.py TARGET watch N           grpc.health.v1 Watch: its first N statuses, a line each
    rls_client.py TARGET reflect SYMBOL    server reflection, as grpcurl asks it: the services
                                           listed, and the files that define SYMBOL
    rls_client.py TARGET load SECONDS N    stdin: one request; N calls in flight for SECONDS:
                                           {"ok", "over_limit", "errors": {CODE: n}, "p99_ms"}
"""
import json
import sys
import threading
import time

import grpc
from google.protobuf import json_format

from envoy.service.ratelimit.v3 import rls_pb2, rls_pb2_grpc
from google.protobuf import descriptor_pb2
from health.v1 import health_pb2, health_pb2_grpc  # package grpc.health.v1
from reflection.v1alpha import reflection_pb2, reflection_pb2_grpc  # grpc.reflection.v1alpha

METHOD = "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit"


def answer(call):
    try:
        response = call()
    except grpc.RpcError as error:
        return {"error": error.code().name, "message": error.details()}
    return {"response": json_format.MessageToDict(
        response, preserving_proto_field_name=True, including_default_value_fields=True)}


def decide(channel):
    stub = rls_pb2_grpc.RateLimitServiceStub(channel)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json_format.Parse(line, rls_pb2.RateLimitRequest())
        print(json.dumps(answer(lambda: stub.ShouldRateLimit(request, timeout=10))), flush=True)


def invalid_utf8(channel):
    # protobuf refuses to build such a message, so its bytes are edited after serializing.
    request = rls_pb2.RateLimitRequest(domain="edge")
    entry = request.descriptors.add().entries.add()
    entry.key, entry.value = "remote_address", "PLACEHOLDER"
    raw = request.SerializeToString().replace(b"PLACEHOLDER", b"\xff\xfe\xc3(bad-utf")  # same length
    call = channel.unary_unary(METHOD, request_serializer=None,
                               response_deserializer=rls_pb2.RateLimitResponse.FromString)
    print(json.dumps(answer(lambda: call(raw, timeout=10))), flush=True)


def health(channel, service):
    stub = health_pb2_grpc.HealthStub(channel)
    try:
        reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        print(json.dumps({"status": health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}))
    except grpc.RpcError as error:
        print(json.dumps({"error": error.code().name, "message": error.details()}))


def watch(channel, count):
    """Prints the first `count` statuses grpc.health.v1 Watch streams, one JSON line each."""
    stub = health_pb2_grpc.HealthStub(channel)
    try:
        for reply in stub.Watch(health_pb2.HealthCheckRequest(service=""), timeout=30):
            print(json.dumps({"status": health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}),
                  flush=True)
            count -= 1
            if count == 0:
                return
    except grpc.RpcError as error:
        print(json.dumps({"error": error.code().name, "message": error.details()}), flush=True)


def reflect(channel, symbol):
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    asks = [reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol=symbol)]
    services, messages = [], []
    for reply in stub.ServerReflectionInfo(iter(asks), timeout=10):
        if reply.HasField("list_services_response"):
            services = [s.name for s in reply.list_services_response.service]
        elif reply.HasField("file_descriptor_response"):
            for raw in reply.file_descriptor_response.file_descriptor_proto:
                file = descriptor_pb2.FileDescriptorProto.FromString(raw)
                messages += [file.package + "." + m.name for m in file.message_type]
        elif reply.HasField("error_response"):
            messages.append("error: " + reply.error_response.error_message)
    print(json.dumps({"services": services, "messages": messages}))


def load(channel, seconds, in_flight):
    stub = rls_pb2_grpc.RateLimitServiceStub(channel)
    request = json_format.Parse(sys.stdin.readline(), rls_pb2.RateLimitRequest())
    lock = threading.Lock()
    counts = {"ok": 0, "over_limit": 0, "errors": {}, "messages": []}
    latencies = []
    deadline = time.monotonic() + seconds

    def worker():
        while time.monotonic() < deadline:
            start = time.monotonic()
            try:
                response = stub.ShouldRateLimit(request, timeout=10)
                key = "over_limit" if response.overall_code == rls_pb2.RateLimitResponse.OVER_LIMIT else "ok"
                with lock:
                    counts[key] += 1
                    latencies.append(time.monotonic() - start)
            except grpc.RpcError as error:
                with lock:
                    name = error.code().name
                    counts["errors"][name] = counts["errors"].get(name, 0) + 1
                    if len(counts["messages"]) < 5:
                        counts["messages"].append(error.details())

    threads = [threading.Thread(target=worker) for _ in range(in_flight)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    latencies.sort()
    counts["p99_ms"] = 1000 * latencies[int(0.99 * (len(latencies) - 1))] if latencies else None
    print(json.dumps(counts))


def main():
    target, command = sys.argv[1], sys.argv[2]
    with grpc.insecure_channel(target) as channel:
        if command == "decide":
            decide(channel)
        elif command == "invalid-utf8":
            invalid_utf8(channel)
        elif command == "health":
            health(channel, sys.argv[3] if len(sys.argv) > 3 else "")
        elif command == "watch":
            watch(channel, int(sys.argv[3]))
        elif command == "reflect":
            reflect(channel, sys.argv[3])
        elif command == "load":
            load(channel, float(sys.argv[3]), int(sys.argv[4]))
        else:
            sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
