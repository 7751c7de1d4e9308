"""Sentinel through redis-py's own Sentinel client: the limiter takes `master_for(...)`."""
import os
import subprocess
import time

import pytest

import tollgate
from conftest import COMMENT


@pytest.fixture
def sentinel(server, tmp_path):
    from tollgate.conformance.servers import _ping, free_port

    port = free_port()
    config = tmp_path / "sentinel.conf"
    config.write_text(f"port {port}\nbind 127.0.0.1\ndir {tmp_path}\n"
                      f"sentinel monitor main 127.0.0.1 {server.port} 1\n")
    process = subprocess.Popen([os.environ.get("TOLLGATE_REDIS_SERVER", "redis-server"), str(config),
                                "--sentinel"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not _ping(port):
        assert time.monotonic() < deadline and process.poll() is None, "sentinel did not start"
        time.sleep(0.05)
    yield port
    process.kill()
    process.wait()


def test_a_limiter_on_the_master_sentinel_names(sentinel):
    from redis.sentinel import Sentinel

    master = Sentinel([("127.0.0.1", sentinel)], socket_timeout=2).master_for("main")
    limiter = tollgate.Limiter(master)
    limiter.put_policy("comment", COMMENT, actor="test")
    assert [limiter.hit("comment", "alice").allowed for _ in range(4)] == [True, True, True, False]
    assert limiter.ban("alice", reason="spam", actor="ops").until_ms == 0
    limiter.close()
