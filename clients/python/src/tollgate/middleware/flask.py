"""Flask: a decorator.

    limiter = tollgate.Limiter(redis.Redis())

    @app.post("/comments")
    @limit(limiter, "comment", key=lambda: session["user_id"])
    def comment(): ...
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional, TypeVar

from flask import after_this_request, jsonify

from . import header_fields, refusal

F = TypeVar("F", bound=Callable[..., Any])


def limit(limiter: Any, action: str, *, key: Callable[[], Optional[str]],
          skip: Optional[Callable[[], bool]] = None, cost: Optional[int] = None) -> Callable[[F], F]:
    """Each call of the view is a hit of `action` keyed by `key()` (None: not limited); a denied
    one answers 429 with `{"detail": <message>}` and the header fields, an allowed one gets the
    header fields on its response. `skip()` true: the request is not counted."""

    def wrap(view: F) -> F:
        @functools.wraps(view)
        def limited(*args: Any, **kwargs: Any) -> Any:
            if skip is not None and skip():
                return view(*args, **kwargs)
            user = key()
            if not user:
                return view(*args, **kwargs)
            decision = limiter.hit(action, user, cost)
            fields = header_fields(decision)
            if not decision.allowed:
                response = jsonify(refusal(decision))
                response.status_code = 429
                response.headers.update(fields)
                return response

            @after_this_request
            def add_fields(response: Any) -> Any:
                response.headers.update(fields)
                return response

            return view(*args, **kwargs)

        return limited  # type: ignore[return-value]

    return wrap
