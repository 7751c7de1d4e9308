"""A private three-primary Redis Cluster: the `{:}` policy layout, users' keys in their own
slot, moderation and the override index (written by the client there), sync and asyncio."""
import asyncio

import pytest

import tollgate
import tollgate.asyncio
from conftest import COMMENT


@pytest.fixture(scope="module")
def cluster():
    from tollgate.conformance.servers import RedisClusterServers

    with RedisClusterServers() as servers:
        yield servers


def test_sync_limiter_on_a_cluster(cluster):
    from redis.cluster import RedisCluster

    client = RedisCluster(host="127.0.0.1", port=cluster.port)
    client.flushall(target_nodes=client.PRIMARIES)
    limiter = tollgate.Limiter(client)
    limiter.put_policy("comment", COMMENT, actor="test")
    assert client.exists("tg:{:}:policy:comment") == 1
    users = [f"user-{n}" for n in range(20)]  # spread over the three primaries
    for user in users:
        assert [limiter.hit("comment", user).allowed for _ in range(4)] == [True, True, True, False]
    assert limiter.ban("user-3", reason="spam", actor="ops", duration=60000).until_ms > 0
    assert limiter.hit("comment", "user-3").tier == "banned"
    assert limiter.unban("user-3", reason="appeal", actor="ops") == 1
    assert limiter.reset("user-3", reason="fresh", actor="ops") == 1
    limiter.set_override("user-4", "comment", windows="60000:1", reason="trial", actor="ops")
    assert client.zscore("tg:{:}:overrides", "user-4") == float("inf")
    assert limiter.hit("comment", "user-4").override == "limit"
    assert limiter.delete_override("user-4", "comment", reason="done", actor="ops")
    assert client.zscore("tg:{:}:overrides", "user-4") is None
    assert limiter.refund("comment", "user-5").changed
    client.execute_command("SCRIPT", "FLUSH", target_nodes=client.ALL_NODES)
    assert limiter.hit("comment", "user-6").tier == "deny"
    limiter.close()
    client.close()


def test_asyncio_limiter_on_a_cluster(cluster):
    from redis.asyncio.cluster import RedisCluster

    async def scenario():
        client = RedisCluster(host="127.0.0.1", port=cluster.port)
        limiter = tollgate.asyncio.Limiter(client, prefix="async")
        await limiter.put_policy("comment", COMMENT, actor="test")
        for n in range(10):
            answers = [await limiter.hit("comment", f"u{n}") for _ in range(4)]
            assert [a.allowed for a in answers] == [True, True, True, False]
        assert await limiter.reset("u1", "comment", reason="fresh", actor="ops") == 1
        assert (await limiter.hit("comment", "u1")).count == 1
        await client.close()

    asyncio.run(scenario())
