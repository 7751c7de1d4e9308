"""A hit's direct round trip on a plain redis-py pool (tollgate/direct.py): the replies it reads
itself, and the connections it borrows: one the server closed, one with bytes nobody read, one
after a fork, a pool it does not know; and the deadline watchdog when a sooner deadline comes."""
import multiprocessing
import threading
import time

import pytest
import redis

import tollgate
from tollgate.direct import Incomplete, Lender, parse_reply


@pytest.mark.parametrize("data, value", [
    (b"*7\r\n:1\r\n$2\r\nok\r\n:1\r\n:10\r\n:9\r\n:60000\r\n:0\r\n", [1, b"ok", 1, 10, 9, 60000, 0]),
    (b"*9\r\n:0\r\n$6\r\nbanned\r\n:3\r\n:3\r\n:0\r\n:5\r\n:-1\r\n$5\r\nlimit\r\n:2\r\n",
     [0, b"banned", 3, 3, 0, 5, -1, b"limit", 2]),
    (b"*2\r\n$4\r\na\r\nb\r\n$0\r\n\r\n", [b"a\r\nb", b""]),  # CRLF inside a bulk string
    (b"*3\r\n$-1\r\n*1\r\n:7\r\n+OK\r\n", [None, [7], b"OK"]),
    (b"$-1\r\n", None),
    (b":-42\r\n", -42),
    (b"*0\r\n", []),
])
def test_replies_are_read_as_redis_py_reads_them(data, value):
    assert parse_reply(data) == value


def test_an_error_reply_keeps_its_text():
    assert parse_reply(b"-TG_OVERRIDE 60000:5\r\n") == "TG_OVERRIDE 60000:5"


@pytest.mark.parametrize("data", [b"*7\r\n:1\r\n$2\r\nok\r\n:1\r\n", b"$5\r\nab", b"*2\r\n:1", b":1"])
def test_a_partial_reply_asks_for_more(data):
    with pytest.raises(Incomplete):
        parse_reply(data)


def test_only_a_plain_pool_is_borrowed_from(server):
    assert Lender.suits(redis.Redis(port=server.port).connection_pool)
    assert not Lender.suits(redis.Redis(connection_pool=redis.BlockingConnectionPool(port=server.port))
                            .connection_pool)
    assert not Lender.suits(redis.Redis(port=server.port, health_check_interval=5).connection_pool)


def test_a_pool_it_does_not_borrow_from_still_decides(server, client):
    other = redis.Redis(connection_pool=redis.BlockingConnectionPool(port=server.port, max_connections=2))
    limiter = tollgate.Limiter(other)
    limiter.put_policy("comment", {"windows": "30000:3"}, actor="test")
    assert [limiter.hit("comment", "eve").count for _ in range(3)] == [1, 2, 3]
    limiter.close()


def test_a_connection_the_server_closed_is_opened_again(limiter, client):
    assert limiter.hit("comment", "alice").count == 1
    client.client_kill_filter(_type="normal", skipme=False)  # every connection, the pool's too
    decision = limiter.hit("comment", "alice")
    assert decision.source == tollgate.REDIS and decision.count == 2


def test_bytes_nobody_read_never_answer_a_hit(limiter, client):
    limiter.hit("comment", "bob")
    pool = client.connection_pool
    stray = pool.get_connection("PING")
    stray.send_command("PING")  # its +PONG left unread
    time.sleep(0.1)
    pool.release(stray)
    decision = limiter.hit("comment", "bob")
    assert decision.source == tollgate.REDIS and decision.count == 2


def _hit_in_child(limiter, answers):
    answers.put(limiter.hit("comment", "carol").count)


def test_a_forked_child_opens_connections_of_its_own(limiter):
    assert limiter.hit("comment", "carol").count == 1
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    child = context.Process(target=_hit_in_child, args=(limiter, answers))
    child.start()
    assert answers.get(timeout=30) == 2
    child.join(30)
    assert limiter.hit("comment", "carol").count == 3  # the parent's connections untouched


def test_a_sooner_deadline_wakes_the_watchdog(limiter, server):
    limiter.hit("comment", "dan")
    server.freeze()
    try:
        slow = threading.Thread(target=lambda: limiter.hit("comment", "dan", on_error="allow", timeout=30))
        slow.start()
        time.sleep(0.2)  # the watchdog now sleeps toward the 30 s deadline
        started = time.monotonic()
        decision = limiter.hit("comment", "dan", on_error="deny", timeout=0.1)
        assert decision.source == tollgate.FAILURE_POLICY
        assert time.monotonic() - started < 10
    finally:
        server.thaw()
    slow.join(40)
