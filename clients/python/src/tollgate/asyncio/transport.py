"""Runs core's requests on redis-py's asyncio clients (redis.asyncio.Redis, its Sentinel's
master_for, redis.asyncio.RedisCluster) within a deadline. A read that runs out of time ends
with its connection, so a late reply never answers the next command. NOSCRIPT is answered with
EVAL, as in the synchronous transport."""
from __future__ import annotations

import asyncio
import time
from typing import Any, Optional, Sequence

from redis import exceptions as rx

from .. import errors
from ..core import Call, Eval, Hit, Op, Scan
from ..transport import classify

try:
    from redis.asyncio.cluster import RedisCluster
except ImportError:  # pragma: no cover
    RedisCluster = None  # type: ignore[assignment,misc]


def _abort(conn: Any, ended: list) -> None:
    ended.append(True)
    writer = getattr(conn, "_writer", None)
    if writer is not None:
        writer.transport.abort()


def _named(args: Sequence[Any]) -> Sequence[Any]:
    """redis-py's cluster routing looks command names up as text."""
    name = args[0].decode() if isinstance(args[0], bytes) else args[0]
    return (name, *args[1:])


def is_cluster(client: Any) -> bool:
    return RedisCluster is not None and isinstance(client, RedisCluster)


class AsyncTransport:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.cluster = is_cluster(client)
        self._initialized = False

    async def run(self, op: Op, timeout: Optional[float]) -> Any:
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            request = op.send(None)
            while True:
                try:
                    result = await self.execute(request, deadline, timeout)
                except errors.TollgateError as error:
                    request = op.throw(error)
                else:
                    request = op.send(result)
        except StopIteration as done:
            return done.value

    async def execute(self, request: Any, deadline: Optional[float], timeout: Optional[float]) -> Any:
        if type(request) is Hit:
            if self.cluster:  # a cluster may redirect: the command by its parts
                return await self.evaluate(request.unpacked(), deadline, timeout)
            try:
                return await self.command(request.packed, None, deadline, timeout)
            except errors.NoScript:
                return await self.evaluate(request.unpacked(), deadline, timeout, by_sha=False)
        if type(request) is Eval:
            return await self.evaluate(request, deadline, timeout)
        if type(request) is Call:
            return await self.command(request.args, request.key, deadline, timeout)
        if type(request) is Scan:
            return await self.scan(request)
        raise TypeError(f"unknown request {request!r}")

    async def evaluate(self, request: Eval, deadline: Optional[float], timeout: Optional[float],
                       by_sha: bool = True) -> Any:
        key = request.keys[0] if request.keys else None
        if by_sha:
            try:
                return await self.command((b"EVALSHA_RO" if request.readonly else b"EVALSHA", request.script.sha,
                                           len(request.keys), *request.keys, *request.args), key, deadline, timeout)
            except errors.NoScript:
                pass
        again = (b"EVAL_RO" if request.readonly else b"EVAL", request.script.source,
                 len(request.keys), *request.keys, *request.args)
        return await self.command(again, key, deadline, timeout)

    async def command(self, args: Sequence[Any], key: Optional[bytes], deadline: Optional[float],
                      timeout: Optional[float]) -> Any:
        if self.cluster:
            return await self._on_node(args, key, deadline, timeout)
        pool = self.client.connection_pool
        try:
            conn = await pool.get_connection("EVALSHA" if isinstance(args, bytes) else args[0])
        except (rx.ConnectionError, rx.TimeoutError, OSError) as error:
            raise errors.unavailable(error) from None
        try:
            if isinstance(args, bytes):
                await conn.send_packed_command([args])
            else:
                await conn.send_command(*args)
            return await self._read(conn, conn.read_response(), deadline, timeout)
        except rx.ResponseError as error:
            raise classify(error) from None
        except (rx.ConnectionError, rx.TimeoutError, OSError) as error:
            raise errors.unavailable(error) from None
        finally:
            await pool.release(conn)

    async def _read(self, conn: Any, reading: Any, deadline: Optional[float],
                    timeout: Optional[float]) -> Any:
        """The reply, or Unavailable once the deadline passes: a timer of the loop aborts the
        connection's transport, which ends the read at once (no task per call, as wait_for
        would make, and no cancellation inside redis-py)."""
        if deadline is None:
            return await reading
        ended: list = []
        handle = asyncio.get_running_loop().call_later(max(deadline - time.monotonic(), 0), _abort,
                                                       conn, ended)
        try:
            response = await reading
        except (rx.ConnectionError, rx.TimeoutError, OSError):
            if ended:
                await conn.disconnect()
                raise errors.unavailable(None, timeout) from None
            raise
        finally:
            handle.cancel()
        if ended:  # aborted just as the reply came: the reply stands, the connection goes
            await conn.disconnect()
        return response

    async def _on_node(self, args: Sequence[Any], key: Optional[bytes], deadline: Optional[float],
                       timeout: Optional[float]) -> Any:
        client = self.client
        if not self._initialized:  # the slot map, read once by redis-py
            await client.initialize()
            self._initialized = True
        node = client.get_node_from_key(key) if key is not None else client.get_default_node()
        if node is None:
            return await self._through_cluster(args)
        try:
            conn = node.acquire_connection()
        except rx.ConnectionError as error:
            raise errors.unavailable(error) from None
        try:
            await conn.send_command(*args)
            return await self._read(conn, conn.read_response_without_lock(), deadline, timeout)
        except (rx.MovedError, rx.AskError, rx.TryAgainError):
            return await self._through_cluster(args)
        except rx.ResponseError as error:
            raise classify(error) from None
        except (rx.ConnectionError, rx.TimeoutError, OSError) as error:
            raise errors.unavailable(error) from None
        finally:
            node._free.append(conn)

    async def _through_cluster(self, args: Sequence[Any]) -> Any:
        try:
            return await self.client.execute_command(*_named(args))
        except rx.ResponseError as error:
            raise classify(error) from None
        except (rx.ConnectionError, rx.TimeoutError, OSError) as error:
            raise errors.unavailable(error) from None

    async def scan(self, request: Scan) -> list:
        try:
            if self.cluster:
                node = self.client.get_node_from_key(request.key)
                found, cursor = [], 0
                while True:
                    cursor, keys = await node.execute_command(
                        "SCAN", cursor, "MATCH", request.pattern, "COUNT", 1000)
                    found += keys
                    if int(cursor) == 0:
                        return found
            return [key async for key in self.client.scan_iter(match=request.pattern, count=1000)]
        except (rx.ConnectionError, rx.TimeoutError, OSError) as error:
            raise errors.unavailable(error) from None
        except rx.ResponseError as error:
            raise classify(error) from None
