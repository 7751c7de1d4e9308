"""Framework glue: `tollgate.middleware.starlette` (FastAPI / Starlette dependency and ASGI
middleware) and `tollgate.middleware.flask` (a decorator). Each answers 429 with the RateLimit
header fields and the policy's message, keys requests by a function the application gives
(returning None leaves a request unlimited) and skips those a predicate picks."""
from typing import Dict, Optional

from ..decision import Decision

DEFAULT_MESSAGE = "Too Many Requests"


def refusal(decision: Decision) -> Dict[str, object]:
    """The JSON body of a 429: the policy's message."""
    return {"detail": decision.message or DEFAULT_MESSAGE}


def header_fields(decision: Optional[Decision]) -> Dict[str, str]:
    return decision.headers() if decision is not None else {}
