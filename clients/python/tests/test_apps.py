"""A FastAPI app and a Flask app (examples/) limiting requests with Tollgate installed from the
built wheel into a fresh virtual environment (with the system's packages), each run in its own
interpreter: 429, the header fields and the policy's message."""
import os
import subprocess
import textwrap

import pytest

from conftest import PACKAGE


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory):
    import conftest

    folder = tmp_path_factory.mktemp("venv")
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", "--without-pip", str(folder)],
                   check=True)
    python = str(folder / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    str(conftest._built["wheel"])], check=True)
    return python


def run_in_venv(python, server, code):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TOLLGATE_URL"] = server.url
    done = subprocess.run([python, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, cwd=PACKAGE / "examples", timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def store_policies(client):
    import tollgate

    admin = tollgate.Limiter(client)
    admin.put_policy("comment", {"windows": "60000:2", "message": "Two comments a minute"}, actor="test")
    admin.put_policy("api", {"windows": "60000:100"}, actor="test")


def test_fastapi_app_answers_429_with_the_fields(venv_python, server, client):
    store_policies(client)
    out = run_in_venv(venv_python, server, """
        import tollgate
        assert "site-packages" in tollgate.__file__, tollgate.__file__
        from starlette.testclient import TestClient
        from fastapi_app import app
        with TestClient(app) as http:
            codes = [http.post("/comments", headers={"x-user": "42"}) for _ in range(3)]
            print([r.status_code for r in codes])
            print(codes[0].headers["ratelimit"], codes[0].headers["ratelimit-policy"])
            print(codes[2].json()["detail"], codes[2].headers["retry-after"], codes[2].headers["ratelimit"])
            print(http.post("/comments", headers={"x-user": "43"}).status_code)
            print("ratelimit" in http.get("/health").headers)
    """).splitlines()
    assert out[0] == "[200, 200, 429]"
    # the route's dependency and the app's middleware each add their item (the fields are lists)
    assert out[1] == '"comment-1m";r=1;t=60, "api-1m";r=99;t=60 "comment-1m";q=2;w=60, "api-1m";q=100;w=60'
    assert out[2].startswith("Two comments a minute 60 \"comment-1m\";r=0;t=")
    assert out[3:] == ["200", "False"]
    assert client.get("tg:{testclient}:api:fw:60000") == b"4"  # the middleware counted by address


def test_flask_app_answers_429_with_the_fields(venv_python, server, client):
    store_policies(client)
    out = run_in_venv(venv_python, server, """
        import tollgate
        assert "site-packages" in tollgate.__file__, tollgate.__file__
        from flask_app import app
        http = app.test_client()
        codes = [http.post("/comments", headers={"X-User": "7"}) for _ in range(3)]
        print([r.status_code for r in codes])
        print(codes[1].headers["RateLimit"])
        print(codes[2].get_json()["detail"], codes[2].headers["Retry-After"])
        print(http.post("/comments", headers={"X-User": "7", "X-Staff": "1"}).status_code)
        print(http.post("/comments").status_code)
    """).splitlines()
    assert out[0] == "[200, 200, 429]"
    assert out[1] == '"comment-1m";r=0;t=60'
    assert out[2] == "Two comments a minute 60"
    assert out[3:] == ["200", "200"]
