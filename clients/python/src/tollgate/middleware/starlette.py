"""FastAPI / Starlette: `RateLimit`, a dependency, and `RateLimitMiddleware`, an ASGI middleware.

    limiter = tollgate.asyncio.Limiter(redis.asyncio.Redis())
    app = FastAPI()

    @app.post("/comments", dependencies=[Depends(RateLimit(limiter, "comment", key=user_id))])
    async def comment(): ...

    app.add_middleware(RateLimitMiddleware, limiter=limiter, action="api", key=client_address)
"""
# No `from __future__ import annotations`: FastAPI reads the dependency's annotations as
# objects (a callable instance has no module globals to resolve strings in).
import inspect
import json
from typing import Any, Awaitable, Callable, Optional, Union

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from ..decision import Decision
from . import DEFAULT_MESSAGE, header_fields, refusal

KeyFunction = Callable[[Request], Union[Optional[str], Awaitable[Optional[str]]]]
Predicate = Callable[[Request], Union[bool, Awaitable[bool]]]


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def decide(limiter: Any, action: str, request: Request, key: KeyFunction,
                 skip: Optional[Predicate], cost: Optional[int]) -> Optional[Decision]:
    """The decision for a request, or None when it is skipped or has no key. A synchronous
    tollgate.Limiter runs in the thread pool, so it never blocks the event loop."""
    if skip is not None and await _maybe_await(skip(request)):
        return None
    user = await _maybe_await(key(request))
    if not user:
        return None
    if inspect.iscoroutinefunction(limiter.hit):
        return await limiter.hit(action, user, cost)
    return await run_in_threadpool(limiter.hit, action, user, cost)


class RateLimit:
    """A FastAPI dependency: raises HTTPException 429 (body `{"detail": <message>}`, the header
    fields) when the hit is denied; an allowed one's header fields go on the response."""

    def __init__(self, limiter: Any, action: str, *, key: KeyFunction,
                 skip: Optional[Predicate] = None, cost: Optional[int] = None) -> None:
        self.limiter, self.action, self.key, self.skip, self.cost = limiter, action, key, skip, cost

    async def __call__(self, request: Request, response: Response) -> Optional[Decision]:
        decision = await decide(self.limiter, self.action, request, self.key, self.skip, self.cost)
        if decision is None:
            return None
        if not decision.allowed:
            raise HTTPException(429, detail=decision.message or DEFAULT_MESSAGE,
                                headers=header_fields(decision))
        response.headers.update(header_fields(decision))
        return decision


class RateLimitMiddleware:
    """Pure ASGI middleware: every HTTP request is a hit of `action` keyed by `key(request)`."""

    def __init__(self, app: Any, limiter: Any, action: str, key: KeyFunction,
                 skip: Optional[Predicate] = None, cost: Optional[int] = None) -> None:
        self.app, self.limiter, self.action, self.key, self.skip, self.cost = app, limiter, action, key, skip, cost

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        decision = await decide(self.limiter, self.action, Request(scope, receive), self.key,
                                self.skip, self.cost)
        if decision is not None and not decision.allowed:
            body = json.dumps(refusal(decision)).encode()
            response = Response(body, status_code=429, media_type="application/json",
                                headers=header_fields(decision))
            await response(scope, receive, send)
            return
        fields = [(k.lower().encode(), v.encode()) for k, v in header_fields(decision).items()]

        async def send_with_fields(message: dict) -> None:
            if message["type"] == "http.response.start" and fields:
                message = {**message, "headers": [*message.get("headers", []), *fields]}
            await send(message)

        await self.app(scope, receive, send_with_fields)
