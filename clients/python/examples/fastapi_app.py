"""A FastAPI app limited by Tollgate: a dependency on one route, the ASGI middleware on all.

    TOLLGATE_URL=redis://localhost:6379 uvicorn fastapi_app:app
"""
import os

import redis.asyncio
from fastapi import Depends, FastAPI, Request

import tollgate.asyncio
from tollgate.middleware.starlette import RateLimit, RateLimitMiddleware

limiter = tollgate.asyncio.Limiter(redis.asyncio.Redis.from_url(os.environ.get("TOLLGATE_URL", "redis://localhost")))


def user_id(request: Request) -> str:
    return request.headers.get("x-user", "anonymous")


app = FastAPI()
app.add_middleware(RateLimitMiddleware, limiter=limiter, action="api", key=lambda r: r.client.host,
                   skip=lambda r: r.url.path == "/health")


@app.post("/comments", dependencies=[Depends(RateLimit(limiter, "comment", key=user_id))])
async def comment() -> dict:
    return {"ok": True}


@app.get("/health")
async def health() -> dict:
    return {"ok": True}
