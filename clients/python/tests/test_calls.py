"""The RESP a hit sends, with its constant parts encoded once, is byte for byte what redis-py
would pack for the same EVALSHA (short and full form, peek, odd ids and actions, a cost of its
own, local time)."""
import pytest
import redis

from tollgate.calls import PreparedHit
from tollgate.keys import Layout
from tollgate.policy import Policy, Window

SHA = "7bd1c3eea8c42ea1fa40df43fa2ddb1b2040b872"
POLICIES = [
    Policy("fw", (Window(60000, 10**9),)),
    Policy("a:b%", (Window(60000, 10), Window(3600000, 100)), ban_ms=1000, warn=3),
    Policy("x", (Window(86400000, 5),), ban_until_midnight=True, tz="Europe/Berlin"),
    Policy("s", (Window(1000, 5),), shadow=True, algorithm="sliding_log"),
]


@pytest.mark.parametrize("policy", POLICIES, ids=[p.action for p in POLICIES])
def test_packed_is_what_redis_py_packs(policy):
    prepared = PreparedHit(policy, Layout(b"tg", False), sha=SHA)
    connection = redis.Connection()
    for peek in (False, True):
        for user, cost in ((b"alice", policy.cost), ("Zoë:1 {*}".encode(), 7), (b"\xff%41", 1)):
            keys, args = prepared.command(peek, user, cost)
            packed = connection.pack_command("EVALSHA_RO" if peek else "EVALSHA", SHA, len(keys), *keys, *args)
            assert prepared.packed(peek, user, cost) == b"".join(packed)


def test_a_cluster_sends_no_prepacked_command():
    assert PreparedHit(POLICIES[0], Layout(b"tg", True), sha=SHA).packed(False, b"a", 1) is None
