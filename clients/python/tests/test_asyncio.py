"""tollgate.asyncio.Limiter on redis.asyncio: the same answers, the deadline, the watch."""
import asyncio
import time

import pytest

import tollgate
import tollgate.asyncio
from conftest import COMMENT


def run(coroutine):
    return asyncio.run(coroutine)


async def limiter_for(server):
    import redis.asyncio

    client = redis.asyncio.Redis(port=server.port)
    limiter = tollgate.asyncio.Limiter(client)
    await limiter.put_policy("comment", COMMENT, actor="test")
    return client, limiter


def test_hits_peeks_refunds_and_moderation(server):
    async def scenario():
        client, limiter = await limiter_for(server)
        answers = [await limiter.hit("comment", "alice") for _ in range(4)]
        assert [a.allowed for a in answers] == [True, True, True, False]
        assert answers[-1].message == "Slow down" and answers[-1].headers()["Retry-After"] == "30"
        assert (await limiter.peek("comment", "alice")).count_now == 3
        assert (await limiter.refund("comment", "alice")).count == 2
        await limiter.ban("alice", reason="spam", actor="ops", duration=5000)
        assert (await limiter.hit("comment", "alice")).tier == "banned"
        assert await limiter.unban("alice", reason="appeal", actor="ops") == 1
        assert await limiter.reset("alice", reason="fresh", actor="ops") == 1
        with pytest.raises(tollgate.NoPolicy):
            await limiter.hit("none", "alice")
        await client.script_flush()
        assert (await limiter.hit("comment", "alice")).count == 1
        await limiter.close()
        await client.close()

    run(scenario())


def test_a_frozen_server_is_answered_by_the_failure_policy_within_the_deadline(server):
    async def scenario():
        client, limiter = await limiter_for(server)
        await limiter.hit("comment", "bob")
        server.freeze()
        try:
            started = time.monotonic()
            decision = await limiter.hit("comment", "bob", on_error="allow", timeout=0.1)
            assert time.monotonic() - started < 5  # answered, not hung
            assert decision.allowed and decision.source == tollgate.FAILURE_POLICY
            with pytest.raises(tollgate.Unavailable):
                await limiter.hit("comment", "bob", timeout=0.05)
        finally:
            server.thaw()
        # the hits sent before the freeze still count when it thaws; the reply is this hit's own
        assert (await limiter.peek("comment", "bob")).count_now in (1, 2, 3)
        await limiter.close()
        await client.close()

    run(scenario())


def test_policy_changes_arrive_through_the_events_channel(server):
    async def scenario():
        client, limiter = await limiter_for(server)
        assert (await limiter.hit("comment", "carol")).limit == 3
        await asyncio.sleep(0.2)  # the watch task subscribes
        other = tollgate.asyncio.Limiter(client, watch_policies=False)
        await other.put_policy("comment", {"windows": "30000:40"}, actor="elsewhere")
        deadline = time.monotonic() + 5
        while (await limiter.hit("comment", "carol")).limit != 40:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        await limiter.close()
        await client.close()

    run(scenario())


def test_concurrent_hits_share_the_limiter(server):
    async def scenario():
        client, limiter = await limiter_for(server)
        answers = await asyncio.gather(*(limiter.hit("comment", "dave") for _ in range(50)))
        assert sum(a.allowed for a in answers) == 3
        await limiter.close()
        await client.close()

    run(scenario())
