"""Every test imports tollgate from the wheel clients/python/package.sh builds (unpacked into a
temporary folder put first on sys.path), and starts its own redis-server."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent
ROOT = PACKAGE.parent.parent
_built = {}


def build_wheel() -> Path:
    """package.sh once per session; the unpacked wheel's folder."""
    if "site" not in _built:
        out = Path(tempfile.mkdtemp(prefix="tollgate-wheel-"))
        built = subprocess.run(["bash", str(PACKAGE / "package.sh"), str(out / "dist")],
                               capture_output=True, text=True)
        if built.returncode != 0:
            raise RuntimeError("package.sh failed:\n" + built.stdout + built.stderr)
        wheel = next((out / "dist").glob("tollgate-*.whl"))
        site = out / "site"
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(site)
        _built.update(site=site, wheel=wheel, root=out)
    return _built["site"]


def pytest_configure(config: pytest.Config) -> None:
    site = build_wheel()
    sys.path.insert(0, str(site))
    os.environ["TOLLGATE_TEST_SITE"] = str(site)
    for name in [m for m in sys.modules if m == "tollgate" or m.startswith("tollgate.")]:
        del sys.modules[name]


def pytest_unconfigure(config: pytest.Config) -> None:
    if "root" in _built:
        shutil.rmtree(_built["root"], ignore_errors=True)


@pytest.fixture
def wheel_site() -> Path:
    return _built["site"]


@pytest.fixture
def wheel_file() -> Path:
    return _built["wheel"]


@pytest.fixture
def server():
    from tollgate.conformance.servers import RedisServer

    with RedisServer() as running:
        yield running


@pytest.fixture
def client(server):
    import redis

    connection = redis.Redis(port=server.port)
    yield connection
    connection.close()


COMMENT = {"algorithm": "fixed_window", "windows": "30000:3", "message": "Slow down"}


@pytest.fixture
def limiter(client):
    import tollgate

    lim = tollgate.Limiter(client)
    lim.put_policy("comment", COMMENT, actor="test")
    yield lim
    lim.close()
