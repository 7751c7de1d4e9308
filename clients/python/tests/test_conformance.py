"""The conformance suite (conformance/cases), one pytest test per case, through the package's
own runner; and that runner as a program (`python3 -m tollgate.conformance`)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

CASES = sorted((ROOT / "conformance" / "cases").glob("*.json"))


def _cluster_case(path):
    return bool(json.loads(path.read_text(encoding="utf-8")).get("cluster"))


@pytest.fixture(scope="module")
def single():
    import redis
    from tollgate.conformance.servers import RedisServer

    with RedisServer() as server:
        yield server, redis.Redis(port=server.port)


@pytest.fixture(scope="module")
def cluster():
    from redis.cluster import RedisCluster
    from tollgate.conformance.servers import RedisClusterServers

    with RedisClusterServers() as servers:
        yield servers, RedisCluster(host="127.0.0.1", port=servers.port)


@pytest.mark.skipif(not CASES, reason="no cases in conformance/cases")
@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path, request):
    from tollgate.conformance.cases import load, skip_reason
    from tollgate.conformance.runner import run_case

    reason = skip_reason(load(path))
    if reason:
        pytest.skip(reason)
    server, client = request.getfixturevalue("cluster" if _cluster_case(path) else "single")
    run_case(path, client, server)


def run_program(*arguments, cwd=None):
    env = dict(os.environ, PYTHONPATH=os.environ["TOLLGATE_TEST_SITE"])
    return subprocess.run([sys.executable, "-m", "tollgate.conformance", *map(str, arguments)],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def test_the_program_prints_a_line_per_case_and_the_count(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"name": "two of two", "policies": {"a": {"windows": "60000:2"}},
                                "steps": [{"op": "hit", "action": "a", "user": "u", "repeat": 2,
                                           "expect": {"allowed": True}}]}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "wrong on purpose", "policies": {"a": {"windows": "60000:2"}},
                               "steps": [{"op": "hit", "action": "a", "user": "u",
                                          "expect": {"remaining": 7}}]}))
    typo = tmp_path / "typo.json"
    typo.write_text(json.dumps({"name": "a typo", "steps": [{"op": "hit", "acton": "a", "user": "u"}]}))
    skipped = tmp_path / "skipped.json"
    skipped.write_text(json.dumps({"name": "n/a", "skip": {"python": "not here"}, "steps": []}))
    done = run_program(tmp_path, cwd=tmp_path)
    lines = done.stdout.splitlines()
    assert "FAIL bad.json: step 1: remaining expected 7 got 1" in lines
    assert "PASS good.json" in lines
    assert "SKIP skipped.json: not here" in lines
    assert any(line.startswith("FAIL typo.json: step 1: unknown keys ['acton']") for line in lines)
    assert lines[-1] == "1 passed, 2 failed, 1 skipped" and done.returncode == 1
