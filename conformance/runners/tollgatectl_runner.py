#!/usr/bin/python3
"""Runs the conformance cases through tollgatectl and its --json output (conformance/README.md).

usage: tollgatectl_runner.py TOLLGATECTL LUA_DIR CASES_DIR [case.json ...]

One tollgatectl process per call, as a shell script would run it. Ids travel as argv bytes, so
an id longer than a command line may hold (128 KiB on Linux) cannot be expressed: such cases say
so with "skip".
"""
import json
import subprocess
import sys

from conformance import Run, RedisServer, Skip, StepError, case_paths, id_bytes, usage_exit

DEFAULT_DEADLINE_MS = 1000
MAX_ARGUMENT = 128 * 1024 - 1


class TollgatectlClient:
    def __init__(self, binary, server, case):
        self.binary, self.server, self.prefix = binary, server, case.prefix

    def close(self):
        pass

    def policy_changed(self, action):
        pass  # every call is a new process that reads the policy afresh

    def _run(self, args, client=None):
        client = client or {}
        deadline = client.get("timeout_ms", DEFAULT_DEADLINE_MS)
        url = "%s?timeout=%d&connect_timeout=%d" % (self.server.url, deadline, deadline)
        argv = [self.binary.encode(), b"--url", url.encode(), b"--prefix", self.prefix.encode(),
                b"--actor", b"conformance", b"--json"]
        argv += args
        if any(len(a) > MAX_ARGUMENT for a in argv):
            raise Skip("an id over 128 KiB cannot be passed on a command line")
        done = subprocess.run(argv, capture_output=True, timeout=30)
        if done.returncode in (0, 1) and done.stdout.strip():
            return json.loads(done.stdout)
        raise StepError(error_kind(done.returncode, done.stderr.decode("utf-8", "replace")),
                        done.stderr.decode("utf-8", "replace").strip())

    def _hit(self, mode, step):
        args = [mode.encode()]
        on_error = step.get("client", {}).get("on_error")
        if on_error in ("allow", "deny"):
            args += [b"--on-error", on_error.encode()]
        if "cost" in step:
            args += [b"--cost", str(step["cost"]).encode()]
        # Options first: after "--" everything is an id, even one that starts with a dash.
        args += [b"--", id_bytes(step["action"]), id_bytes(step["user"])]
        reply = self._run(args, step.get("client"))
        reply["source"] = "redis" if reply.get("decided_by") in ("redis", "cache") else "failure_policy"
        reply["shadow"] = (2 if reply.get("would_ban") else 1) if reply.get("shadow") else 0
        reply.setdefault("message", None)
        reply.setdefault("override", "")
        return reply

    def hit(self, step):
        return self._hit("hit", step)

    def peek(self, step):
        return self._hit("peek", step)

    def _refund(self, mode, step):
        args = [mode.encode(), b"--cost", str(step["cost"]).encode()]
        if mode == "penalize":
            args += [b"--reason", step.get("reason", "conformance").encode()]
        return self._run(args + [b"--", id_bytes(step["action"]), id_bytes(step["user"])],
                         step.get("client"))

    def refund(self, step):
        return self._refund("refund", step)

    def penalize(self, step):
        return self._refund("penalize", step)

    def _moderate(self, op, step, extra):
        args = [op.encode()] + extra
        if "action" in step:
            args += [b"--action", id_bytes(step["action"])]
        if op != "reset" or "reason" in step:
            args += [b"--reason", step.get("reason", "conformance").encode()]
        return self._run(args + [b"--", id_bytes(step["user"])])

    def ban(self, step):
        ms = step.get("ms", 0)
        return self._moderate("ban", step, [b"--for", b"%dms" % ms] if ms else [b"--permanent"])

    def unban(self, step):
        return self._moderate("unban", step, [])

    def reset(self, step):
        return self._moderate("reset", step, [])

    def override(self, step):
        args = [b"override", b"set"]
        if step.get("unlimited"):
            args.append(b"--unlimited")
        else:
            pairs = [p.split(":") for p in step["windows"].split(",")]
            args += [b"--windows", ",".join("%sms:%s" % (w, l) for w, l in pairs).encode()]
        ms = step.get("ms", 0)
        args += [b"--for", b"%dms" % ms] if ms else [b"--permanent"]
        args += [b"--reason", step.get("reason", "conformance").encode()]
        return self._run(args + [b"--", id_bytes(step["action"]), id_bytes(step["user"])])


def error_kind(code, stderr):
    """tollgatectl's exit code and its one error line (`tollgatectl: <kind> error: ...`, the
    kinds of tollgate/Result.h) as the README's error kinds."""
    if code == 2:
        return "invalid"
    if "no policy for action" in stderr:
        return "no_policy"
    kind = stderr.split(": ", 2)[1].split(" ")[0] if stderr.count(": ") >= 2 else ""
    if kind == "wrongtype":
        # The policy store names the policy it could not read; a state key is a corrupt key.
        return "bad_policy" if "policy" in stderr.split(": ", 2)[2][:60] else "corrupt"
    return {"invalid": "invalid", "notfound": "no_policy", "contract": "contract",
            "noperm": "noperm", "timeout": "unavailable", "io": "unavailable",
            "closed": "unavailable"}.get(kind, "unexpected " + kind)


def main(argv):
    if len(argv) < 4:
        usage_exit(__doc__)
    binary, lua_dir, cases_dir = argv[1:4]
    server = RedisServer()
    try:
        run = Run("tollgatectl", lambda srv, case: TollgatectlClient(binary, srv, case), lua_dir)
        return run.run_all(case_paths(argv[4:], cases_dir), server)
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
