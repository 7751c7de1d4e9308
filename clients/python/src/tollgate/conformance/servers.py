"""Private redis-servers for tests and the conformance runner: a free loopback port (for a
cluster node its bus port, +10000, too), a temporary directory, killed and removed at the end."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from typing import List, Optional

REDIS_SERVER = os.environ.get("TOLLGATE_REDIS_SERVER", "redis-server")
REDIS_CLI = os.environ.get("TOLLGATE_REDIS_CLI", "redis-cli")


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(cluster: bool = False) -> int:
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + 10000 > 65535 and cluster:
            continue
        if not cluster or _port_free(port + 10000):
            return port
    raise RuntimeError("no free loopback port")


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """One redis-server on 127.0.0.1; `stop()` (or the context manager) kills it."""

    def __init__(self, cluster: bool = False, extra: Optional[List[str]] = None) -> None:
        self.dir = tempfile.mkdtemp(prefix="tollgate-redis-")
        self.port = free_port(cluster)
        args = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                "--save", "", "--appendonly", "no", "--daemonize", "no"]
        if cluster:
            args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                     "--cluster-node-timeout", "5000"]
        self.process = subprocess.Popen(args + (extra or []), stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not _ping(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def freeze(self) -> None:
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "RedisServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class RedisClusterServers:
    """Three primaries on free ports, joined with redis-cli --cluster create."""

    def __init__(self, nodes: int = 3) -> None:
        self.servers: List[RedisServer] = []
        try:
            for _ in range(nodes):
                self.servers.append(RedisServer(cluster=True))
            addresses = [f"127.0.0.1:{s.port}" for s in self.servers]
            subprocess.run([REDIS_CLI, "--cluster", "create", *addresses, "--cluster-yes"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
            self._wait_ok()
        except BaseException:
            self.stop()
            raise

    def _wait_ok(self) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            states = []
            for server in self.servers:
                out = subprocess.run([REDIS_CLI, "-p", str(server.port), "CLUSTER", "INFO"],
                                     capture_output=True, text=True).stdout
                states.append("cluster_state:ok" in out)
            if all(states):
                return
            time.sleep(0.1)
        raise RuntimeError("the cluster did not reach cluster_state:ok")

    @property
    def port(self) -> int:
        return self.servers[0].port

    def freeze(self) -> None:
        for server in self.servers:
            server.freeze()

    def thaw(self) -> None:
        for server in self.servers:
            server.thaw()

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def __enter__(self) -> "RedisClusterServers":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
