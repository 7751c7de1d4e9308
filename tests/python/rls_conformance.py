#!/usr/bin/env python3
"""Runs tests/data/rls_conformance/cases.json against a running tollgated, in order, and says
which answers differ from what each case expects (the case format: that folder's README.md).

    rls_conformance.py grpc TARGET CASES     through grpcio, with the stubs protoc generated
                                             from proto/ (PYTHONPATH points at them)
    rls_conformance.py http BASE_URL CASES   POST BASE_URL/v1/decide with curl

Prints one line per case ("ok NAME" or "FAIL NAME: what differs") and exits 1 when any failed.
"""
import json
import subprocess
import sys


def grpc_asker(target):
    import grpc
    from google.protobuf import json_format
    from envoy.service.ratelimit.v3 import rls_pb2, rls_pb2_grpc

    channel = grpc.insecure_channel(target)
    stub = rls_pb2_grpc.RateLimitServiceStub(channel)

    def ask(request):
        message = json_format.Parse(json.dumps(request), rls_pb2.RateLimitRequest())
        try:
            response = stub.ShouldRateLimit(message, timeout=10)
        except grpc.RpcError as error:
            return {"error": error.code().name, "message": error.details()}
        return json_format.MessageToDict(response, preserving_proto_field_name=True,
                                         including_default_value_fields=True)
    return ask


def http_asker(base):
    def ask(request):
        run = subprocess.run(["curl", "-s", "-w", "\n%{http_code}", "-H", "Content-Type: application/json",
                              "--data-binary", "@-", base + "/v1/decide"],
                             input=json.dumps(request).encode(), capture_output=True, timeout=20)
        body, _, status = run.stdout.decode().rpartition("\n")
        if status != "200":
            return {"error": "HTTP " + status, "message": body}
        return json.loads(body)
    return ask


def seconds(duration):
    return float(str(duration).rstrip("s"))


def differences(expected, actual, path="response"):
    """What in `actual` does not match `expected`, one line each."""
    if isinstance(expected, str) and expected == "*":
        return [] if actual is not None else [path + ": absent"]
    if isinstance(expected, str) and expected.startswith("<="):
        if actual is None:
            return [path + ": absent"]
        value = seconds(actual)
        return [] if 0 < value <= float(expected[2:]) else ["%s: %s, not in (0, %s]" % (path, actual, expected[2:])]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return ["%s: %r, not an object" % (path, actual)]
        found = []
        for key, value in expected.items():
            if value is None:
                if key in actual:
                    found.append("%s.%s: %r, expected absent" % (path, key, actual[key]))
            elif key not in actual:
                found.append("%s.%s: absent, expected %r" % (path, key, value))
            else:
                found += differences(value, actual[key], path + "." + key)
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return ["%s: %r, expected %d elements" % (path, actual, len(expected))]
        found = []
        for index, (want, got) in enumerate(zip(expected, actual)):
            found += differences(want, got, "%s[%d]" % (path, index))
        return found
    if isinstance(expected, (int, float)) and not isinstance(expected, bool) and \
            isinstance(actual, (int, float, str)) and not isinstance(actual, bool):
        try:
            return [] if float(actual) == float(expected) else ["%s: %r, expected %r" % (path, actual, expected)]
        except ValueError:
            pass
    return [] if actual == expected else ["%s: %r, expected %r" % (path, actual, expected)]


def main():
    transport, where, cases_path = sys.argv[1], sys.argv[2], sys.argv[3]
    ask = grpc_asker(where) if transport == "grpc" else http_asker(where)
    with open(cases_path) as file:
        cases = json.load(file)
    failed = 0
    for case in cases:
        for _ in range(case.get("repeat", 0)):
            ask(case["request"])
        answer = ask(case["request"])
        found = differences(case["expect"], answer)
        if found:
            failed += 1
            print("FAIL %s: %s" % (case["name"], "; ".join(found)), flush=True)
        else:
            print("ok %s" % case["name"], flush=True)
    print("%d of %d cases pass over %s" % (len(cases) - failed, len(cases), transport))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
