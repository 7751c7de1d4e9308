"""tollgate for asyncio: `tollgate.asyncio.Limiter(redis.asyncio.Redis(), prefix="tg")`."""
from .limiter import Limiter

__all__ = ["Limiter"]
