"""Tollgate for Python: rate limits on Redis through Tollgate's atomic Lua scripts.

    import redis, tollgate
    limiter = tollgate.Limiter(redis.Redis(), prefix="tg")
    decision = limiter.hit("comment", "42")
    if not decision.allowed: ...  # decision.retry_after, decision.headers()
"""
from .decision import FAILURE_POLICY, REDIS, Adjustment, Decision
from .errors import (BadPolicy, Conflict, ContractMismatch, CorruptData, InvalidArgument, NoPermission,
                     NoPolicy, NotFound, ServerError, TollgateError, Unavailable)
from .failure import InsuranceLimiter
from .headers import ratelimit_headers
from .keys import escape
from .limiter import Limiter
from .moderation import Ban, OverrideSet
from .policy import CONTRACT, Policy, Window

__version__ = "0.9.0"

__all__ = [
    "Limiter", "Decision", "Adjustment", "Policy", "Window", "InsuranceLimiter", "Ban", "OverrideSet",
    "ratelimit_headers", "escape", "CONTRACT", "REDIS", "FAILURE_POLICY",
    "TollgateError", "InvalidArgument", "CorruptData", "NoPolicy", "BadPolicy", "ContractMismatch",
    "NoPermission", "Conflict", "NotFound", "Unavailable", "ServerError",
]
