"""A subject hit from Python is one like any other for Tollgate's own tools: `tollgatectl
subjects` lists it with the count Python left, and `tollgatectl hit` counts in the same keys
(odd ids included). Runs where the build has tollgatectl (ctest passes its path)."""
import json
import os
import subprocess

import pytest

import tollgate
from conftest import COMMENT, ROOT

CTL = os.environ.get("TOLLGATE_CTL") or str(ROOT / "build" / "app" / "tollgatectl")
pytestmark = pytest.mark.skipif(not os.access(CTL, os.X_OK), reason=f"no tollgatectl at {CTL}")


def ctl(server, *arguments):
    done = subprocess.run([CTL, "--url", server.url, "--json", *arguments], capture_output=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


def test_tollgatectl_sees_what_python_wrote(server, client):
    limiter = tollgate.Limiter(client)
    limiter.put_policy("comment", COMMENT, actor="test")
    for user in ("alice", "a:b{c}* Zoë"):
        limiter.hit("comment", user)
        limiter.hit("comment", user)
    rows = [json.loads(line) for line in ctl(server, "subjects", "--action", "comment").splitlines()]
    assert sorted((row["user"], row["count"]) for row in rows) == [("a:b{c}* Zoë", 2), ("alice", 2)]
    theirs = json.loads(ctl(server, "hit", "comment", "a:b{c}* Zoë"))
    assert theirs["count"] == 3
    assert limiter.peek("comment", "a:b{c}* Zoë").count_now == 3
