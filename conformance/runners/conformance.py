"""The parts of a conformance runner that do not depend on the client under test
(conformance/README.md): reading cases, the private redis-server, the steps every runner runs the
same way (policies, sleep, raw commands, freeze/thaw, the TTL check) and comparing expectations.

A runner supplies a Client with one method per client op (hit, peek, refund, penalize, ban, unban,
reset, override); each returns a dict of the reply fields or raises StepError(kind).
Standard library plus redis-py (Debian's python3-redis); run with /usr/bin/python3.
"""
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import redis

CLIENT_OPS = {"hit", "peek", "refund", "penalize", "ban", "unban", "reset", "override"}
STEP_FIELDS = {
    "hit": {"action", "user", "cost", "repeat", "client"},
    "peek": {"action", "user", "cost", "repeat", "client"},
    "refund": {"action", "user", "cost", "reason", "actor", "client"},
    "penalize": {"action", "user", "cost", "reason", "actor", "client"},
    "ban": {"user", "action", "ms", "reason", "actor"},
    "unban": {"user", "action", "reason", "actor"},
    "reset": {"user", "action", "reason", "actor"},
    "override": {"user", "action", "windows", "unlimited", "ms", "reason", "actor"},
    "policy": {"action", "fields", "delete"},
    "sleep": {"ms"},
    "redis": {"command"},
    "freeze": set(),
    "thaw": set(),
    "check": set(),
}
# Bytes an id keeps as they are (lua/README.md, "Conventions"); the rest of ASCII is %XX.
PLAIN_ASCII = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                        b"-_.@+=!~,;#&$()'/<>|^`\"")


class StepError(Exception):
    """A step failed the way a case may expect: kind is one of the README's `error` kinds."""

    def __init__(self, kind, detail=""):
        super().__init__("%s: %s" % (kind, detail))
        self.kind, self.detail = kind, detail


class Skip(Exception):
    """The runner cannot express this case by design; the message says why."""


def id_bytes(value):
    """A case's id: a string, {"repeat": s, "times": n} or {"hex": "ff41"}."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, dict) and set(value) == {"repeat", "times"}:
        return value["repeat"].encode("utf-8") * value["times"]
    if isinstance(value, dict) and set(value) == {"hex"}:
        return bytes.fromhex(value["hex"])
    raise ValueError("an id is a string, {repeat, times} or {hex}: %r" % (value,))


def escape_id(raw):
    """Plain ASCII and well-formed UTF-8 stay; every other byte is %XX, upper-case hex."""
    out, i = bytearray(), 0
    while i < len(raw):
        width = 1 if raw[i] in PLAIN_ASCII else 0
        if raw[i] >= 0x80:
            width = next((n for n in (2, 3, 4) if _utf8_at(raw, i, n)), 0)
        if width:
            out += raw[i:i + width]
            i += width
        else:
            out += b"%%%02X" % raw[i]
            i += 1
    return bytes(out)


def _utf8_at(raw, i, n):
    try:
        raw[i:i + n].decode("utf-8", errors="strict")
        return True
    except UnicodeDecodeError:
        return False


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A private redis-server: loopback, a free port, its own temporary directory."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="tg-conformance-")
        self.port = free_port()
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.client = redis.Redis(port=self.port, socket_timeout=5)
        deadline = time.monotonic() + 10
        while True:
            try:
                self.client.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    @property
    def url(self):
        return "redis://127.0.0.1:%d" % self.port

    def freeze(self):
        os.kill(self.process.pid, signal.SIGSTOP)

    def thaw(self):
        os.kill(self.process.pid, signal.SIGCONT)

    def stop(self):
        self.thaw()
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class Scripts:
    """The assembled scripts (build/lua), called by EVALSHA with one reload on NOSCRIPT."""

    def __init__(self, lua_dir):
        self.dir = pathlib.Path(lua_dir)

    def call(self, client, name, keys, args):
        source = (self.dir / (name + ".lua")).read_text()
        return client.eval(source, len(keys), *keys, *args)


class Case:
    def __init__(self, path):
        self.path = pathlib.Path(path)
        data = json.loads(self.path.read_text())
        unknown = set(data) - {"name", "prefix", "cluster", "policies", "steps", "skip"}
        if unknown:
            raise ValueError("%s: unknown keys %s" % (self.path.name, sorted(unknown)))
        self.name = data["name"]
        self.prefix = data.get("prefix", "tg")
        self.cluster = data.get("cluster", False)
        self.policies = data.get("policies", {})
        self.steps = data["steps"]
        self.skip = data.get("skip", {})
        for n, step in enumerate(self.steps, 1):
            allowed = STEP_FIELDS.get(step.get("op"))
            if allowed is None:
                raise ValueError("%s: step %d: unknown op %r" % (self.path.name, n, step.get("op")))
            extra = set(step) - allowed - {"op", "expect"}
            if extra:
                raise ValueError("%s: step %d: unknown fields %s" % (self.path.name, n, sorted(extra)))


class Mismatch(Exception):
    pass


def compare(expect, got):
    """Only the fields `expect` names; [lo, hi] is an inclusive range."""
    for field, want in expect.items():
        if field in ("error", "keys_without_ttl"):
            continue
        have = got.get(field)
        if isinstance(want, dict):
            ok = isinstance(have, int) and near_boundary(have, want)
        elif isinstance(want, list) and len(want) == 2 and not isinstance(have, bool):
            ok = isinstance(have, int) and want[0] <= have <= want[1]
        else:
            ok = have == want and type(have) is type(want)
        if not ok:
            raise Mismatch("%s expected %s got %s" % (field, json.dumps(want), json.dumps(have)))


BOUNDARY_TOLERANCE_MS = 2000


def near_boundary(have_ms, want):
    """{"until_boundary": P, "utc_offset_ms": O}: ms to the next t with (t + O) % P == 0."""
    period, offset = want["until_boundary"], want["utc_offset_ms"]
    now = int(time.time() * 1000)
    expected = period - (now + offset) % period
    distance = (have_ms - expected) % period
    return min(distance, period - distance) <= BOUNDARY_TOLERANCE_MS


class Policies:
    """policy_set.lua / policy_delete.lua with the case's fields as they are (actor conformance)."""

    def __init__(self, scripts, client, prefix, cluster):
        self.scripts, self.client, self.prefix = scripts, client, prefix.encode()
        self.tag = b":{:}" if cluster else b""

    def keys(self, action):
        p, escaped = self.prefix + self.tag, escape_id(action)
        return [p + b":policy:" + escaped, p + b":audit", p + b":policies",
                p + b":policy:" + escaped + b":history"]

    def revision(self, action):
        return int(self.client.hget(self.keys(action)[0], "revision") or 0)

    def set(self, action, fields):
        args = [self.revision(action), "conformance", self.prefix + b":events", ""]
        for name, value in fields.items():
            args += [name.encode(), value.encode()]
        self.scripts.call(self.client, "policy_set", self.keys(action), args)

    def delete(self, action):
        self.scripts.call(self.client, "policy_delete", self.keys(action),
                          [self.revision(action), "conformance", self.prefix + b":events", ""])


def keys_without_ttl(client, prefix):
    """Keys of ours that must expire and have no TTL (SCAN + PTTL from here, never from Lua)."""
    count = 0
    for key in client.scan_iter(match=prefix.encode() + b":*", count=1000):
        if client.pttl(key) != -1:
            continue
        parts = key.split(b":")
        if len(parts) >= 3 and parts[-2] in (b"fw", b"sl", b"sw", b"tb"):
            count += 1
        elif key.endswith(b":ban") and client.hget(key, "until_ms") not in (None, b"0"):
            count += 1
        elif key.endswith(b"}:overrides") and b"{:}" not in key:  # not a cluster's override index
            ends = [v.split(b" ")[1] for v in client.hvals(key) if len(v.split(b" ")) > 1]
            count += b"0" not in ends
    return count


class Run:
    """Runs cases through a client and prints the lines the README promises."""

    def __init__(self, runner_name, make_client, lua_dir, cluster_server=None):
        self.runner_name, self.make_client = runner_name, make_client
        self.scripts = Scripts(lua_dir)
        self.cluster_server = cluster_server
        self.passed = self.failed = self.skipped = 0

    def run_all(self, paths, server):
        for path in paths:
            try:
                case = Case(path)
                line = self.run_case(case, server)
            except (ValueError, KeyError) as error:
                line = "FAIL %s: bad case: %s" % (pathlib.Path(path).name, error)
            print(line, flush=True)
            kind = line.split(" ", 1)[0]
            self.passed += kind == "PASS"
            self.failed += kind == "FAIL"
            self.skipped += kind == "SKIP"
        summary = "%d passed, %d failed" % (self.passed, self.failed)
        if self.skipped:
            summary += ", %d skipped" % self.skipped
        print(summary, flush=True)
        return 1 if self.failed else 0

    def run_case(self, case, server):
        name = case.path.name
        if self.runner_name in case.skip:
            return "SKIP %s: %s" % (name, case.skip[self.runner_name])
        if case.cluster != (self.cluster_server is not None):
            return "SKIP %s: %s" % (name, "needs a Redis Cluster" if case.cluster
                                    else "runs on a single server")
        server.client.flushall()
        policies = Policies(self.scripts, server.client, case.prefix, case.cluster)
        client = self.make_client(server, case)
        try:
            for action, fields in case.policies.items():
                policies.set(action.encode("utf-8"), fields)
            for n, step in enumerate(case.steps, 1):
                try:
                    self.run_step(step, client, server, policies, case)
                except Mismatch as mismatch:
                    return "FAIL %s: step %d: %s" % (name, n, mismatch)
        except Skip as why:
            return "SKIP %s: %s" % (name, why)
        finally:
            server.thaw()
            client.close()
        return "PASS %s" % name

    def run_step(self, step, client, server, policies, case):
        op, expect = step["op"], step.get("expect", {})
        for _ in range(step.get("repeat", 1)):
            if op in CLIENT_OPS:
                started = time.monotonic()
                try:
                    got = getattr(client, op)(step)
                except StepError as error:
                    got = {"error": error.kind, "detail": error.detail}
                got["elapsed_ms"] = int((time.monotonic() - started) * 1000)
                if "error" in expect or "error" in got:
                    if got.get("error") != expect.get("error"):
                        raise Mismatch("error expected %s got %s%s" % (
                            json.dumps(expect.get("error")), json.dumps(got.get("error")),
                            " (%s)" % got["detail"] if got.get("detail") else ""))
                else:
                    compare(expect, got)
            elif op == "policy":
                action = id_bytes(step["action"])
                if step.get("delete"):
                    policies.delete(action)
                else:
                    policies.set(action, step["fields"])
                client.policy_changed(action)
            elif op == "sleep":
                time.sleep(step["ms"] / 1000)
            elif op == "redis":
                try:
                    server.client.execute_command(*step["command"])
                except redis.exceptions.ResponseError:
                    pass  # a command meant to fail (a corrupt value) is the case's business
            elif op == "freeze":
                server.freeze()
            elif op == "thaw":
                server.thaw()
        if "keys_without_ttl" in expect:
            have = keys_without_ttl(server.client, case.prefix)
            if have != expect["keys_without_ttl"]:
                raise Mismatch("keys_without_ttl expected %d got %d" % (expect["keys_without_ttl"], have))


def case_paths(arguments, cases_dir):
    """The files named on the command line, else every case in the folder, sorted."""
    files = [a for a in arguments if a.endswith(".json")]
    return files or sorted(str(p) for p in pathlib.Path(cases_dir).glob("*.json"))


def usage_exit(message):
    print(message, file=sys.stderr)
    sys.exit(2)
