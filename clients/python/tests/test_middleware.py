"""The middleware in process: Starlette's ASGI middleware over a synchronous Limiter (run in
the thread pool), skipping, requests without a key, and an allowed request's fields."""
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

import tollgate
from tollgate.middleware.starlette import RateLimitMiddleware


def test_asgi_middleware_with_a_synchronous_limiter(limiter):
    async def page(request):
        return PlainTextResponse("hello")

    app = Starlette(routes=[Route("/", page), Route("/health", page)])
    app.add_middleware(RateLimitMiddleware, limiter=limiter, action="comment",
                       key=lambda r: r.headers.get("x-user"), skip=lambda r: r.url.path == "/health")
    http = TestClient(app)
    answers = [http.get("/", headers={"x-user": "ann"}) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[0].headers["ratelimit"] == '"comment-30s";r=2;t=30'
    assert answers[3].json() == {"detail": "Slow down"} and answers[3].headers["retry-after"] == "30"
    assert http.get("/health", headers={"x-user": "ann"}).status_code == 200  # skipped
    assert http.get("/").status_code == 200  # no key: not limited
    assert limiter.peek("comment", "ann").count_now == 3
    assert isinstance(limiter, tollgate.Limiter)
