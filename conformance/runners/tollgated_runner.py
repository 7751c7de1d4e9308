#!/usr/bin/python3
"""Runs the conformance cases through tollgated's HTTP endpoint, POST /v1/hit
(conformance/README.md).

usage: tollgated_runner.py TOLLGATED TOLLGATECTL LUA_DIR CASES_DIR [case.json ...]

Hits go to tollgated; bans, unbans, resets and overrides are support's writes, made with
tollgatectl as support would make them. What the endpoint cannot express skips the case with the
reason: it has no peek, refund or penalty, and the deadline and failure policy are the service's
own (--url, --on-error), not the caller's.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from conformance import (Policies, Run, RedisServer, Scripts, Skip, StepError, case_paths, free_port,
                         id_bytes, usage_exit)
from tollgatectl_runner import TollgatectlClient

PROBE_ACTION = b"conformance-probe"
# The kinds of tollgated's error bodies (tollgate/Result.h's names) as the README's kinds.
ERROR_KINDS = {"invalid": "invalid", "notfound": "no_policy", "wrongtype": "corrupt",
               "contract": "contract", "noperm": "noperm", "timeout": "unavailable",
               "io": "unavailable", "closed": "unavailable"}


class Service:
    """A tollgated on a free HTTP port, with an empty configuration: the stored policies only."""

    def __init__(self, binary, server):
        self.config = tempfile.mkdtemp(prefix="tg-conformance-config-")
        # A domain of its own with no rules: every decision is /v1/hit's, by the stored policies.
        with open(os.path.join(self.config, "conformance.yaml"), "w") as config:
            config.write("domain: conformance\ndescriptors: []\n")
        self.port = free_port()
        self.process = subprocess.Popen(
            [binary, "--config", self.config, "--url", server.url, "--http", "127.0.0.1:%d" % self.port,
             "--grpc", "off", "--no-announce", "--cache-size", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while not self.get_ok("/readyz"):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("tollgated did not start: %s" % self.process.stderr.read(2000))
            time.sleep(0.05)

    def get_ok(self, path):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d%s" % (self.port, path), timeout=2):
                return True
        except (urllib.error.URLError, ConnectionError):
            return False

    def hit(self, action, user, cost=None):
        body = {"action": action.decode("utf-8", "surrogateescape"),
                "user": user.decode("utf-8", "surrogateescape")}
        if cost is not None:
            body["cost"] = cost
        request = urllib.request.Request(
            "http://127.0.0.1:%d/v1/hit" % self.port, method="POST",
            data=json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogateescape"))
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def stop(self):
        self.process.terminate()
        self.process.wait(10)
        shutil.rmtree(self.config, ignore_errors=True)


class TollgatedClient(TollgatectlClient):
    probes = 0  # every probe's limit differs from all before it, whatever the case
    def __init__(self, service, tollgatectl, lua_dir, server, case):
        super().__init__(tollgatectl, server, case)
        self.service, self.policies_seen = service, False
        self.policies = Policies(Scripts(lua_dir), server.client, case.prefix, False)
        self.prefix_ok = case.prefix == "tg"

    def policy_changed(self, action):
        self.policies_seen = False

    def wait_for_policies(self):
        """tollgated rereads the stored policies on each policy event: a probe policy written
        after the case's shows up once the events before it have been read. An event sent while
        it was still subscribing is lost, so a probe not seen within 2 s is written again."""
        if self.policies_seen:
            return
        for _ in range(5):
            TollgatedClient.probes += 1
            limit = 1000 + TollgatedClient.probes
            self.policies.set(PROBE_ACTION, {"windows": "60000:%d" % limit})
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline:
                status, reply = self.service.hit(PROBE_ACTION, b"probe")
                if status == 200 and reply.get("limit") == limit:
                    self.policies_seen = True
                    return
                time.sleep(0.02)
        raise StepError("unavailable", "tollgated did not see the policies within 10 s")

    def hit(self, step):
        if not self.prefix_ok:
            raise Skip("the service runs with the prefix tg")
        if "client" in step:
            raise Skip("the deadline and failure policy are the service's own, not the caller's")
        self.wait_for_policies()
        status, reply = self.service.hit(id_bytes(step["action"]), id_bytes(step["user"]), step.get("cost"))
        if status not in (200, 429):
            raise StepError(ERROR_KINDS.get(reply.get("kind"), "unexpected %s" % status), reply.get("error", ""))
        reply["source"] = "redis" if reply.get("decided_by") in ("redis", "cache") else "failure_policy"
        reply["shadow"] = (2 if reply.get("would_ban") else 1) if reply.get("shadow") else 0
        reply.setdefault("message", None)
        if reply.get("message") == "":
            reply["message"] = None
        reply.setdefault("override", "")
        return reply

    def peek(self, step):
        raise Skip("the HTTP endpoint has no peek")

    def refund(self, step):
        raise Skip("the HTTP endpoint has no refund")

    def penalize(self, step):
        raise Skip("the HTTP endpoint has no penalty")


def main(argv):
    if len(argv) < 5:
        usage_exit(__doc__)
    tollgated, tollgatectl, lua_dir, cases_dir = argv[1:5]
    server = RedisServer()
    service = Service(tollgated, server)
    try:
        run = Run("tollgated", lambda srv, case: TollgatedClient(service, tollgatectl, lua_dir, srv, case), lua_dir)
        return run.run_all(case_paths(argv[5:], cases_dir), server)
    finally:
        service.stop()
        server.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
