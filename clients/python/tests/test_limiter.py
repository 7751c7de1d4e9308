"""tollgate.Limiter against a private redis-server: decisions, policies, refunds, moderation,
NOSCRIPT, the contract check."""
import threading
import time

import pytest

import tollgate
from tollgate.scripts import Script


def test_a_fixed_window_allows_its_limit_then_denies_with_the_policy_message(limiter):
    for count in (1, 2, 3):
        decision = limiter.hit("comment", "alice")
        assert (decision.allowed, decision.tier, decision.count, decision.remaining) == (True, "ok", count, 3 - count)
        assert decision.source == tollgate.REDIS and decision.message is None
    denied = limiter.hit("comment", "alice")
    assert not denied.allowed and denied.tier == "deny" and denied.message == "Slow down"
    assert 29000 <= denied.retry_after.total_seconds() * 1000 <= 30000
    assert denied.headers()["Retry-After"] == "30"


def test_peek_counts_nothing_and_reports_the_window_as_it_is(limiter):
    limiter.hit("comment", "bob", 2)
    peeked = limiter.peek("comment", "bob")
    assert (peeked.count, peeked.count_now, peeked.allowed) == (3, 2, True)
    assert limiter.peek("comment", "bob").count_now == 2


def test_a_shadow_policy_counts_and_never_denies(limiter):
    limiter.put_policy("try", {"windows": "60000:1", "shadow": "1", "ban_ms": "1000"}, actor="test")
    assert limiter.hit("try", "carol").shadow == 1
    second = limiter.hit("try", "carol")
    assert second.allowed and second.tier == "deny" and second.shadow == 2 and second.would_deny


def test_refund_and_penalize(limiter):
    limiter.hit("comment", "dave", 2)
    back = limiter.refund("comment", "dave")
    assert back.changed and back.count == 1
    with pytest.raises(tollgate.InvalidArgument):
        limiter.penalize("comment", "dave", 5, actor="", reason="spam")
    charged = limiter.penalize("comment", "dave", 5, actor="ops", reason="spam")
    assert charged.count == 6 and not charged.ban_created


def test_bad_arguments_are_refused_before_any_call(limiter):
    for user, cost in (("", 1), ("u" * 1025, 1), ("ok", 0), ("ok", 10**10), ("ok", True)):
        with pytest.raises(tollgate.InvalidArgument):
            limiter.hit("comment", user, cost)


def test_missing_malformed_and_foreign_policies_are_typed_errors(limiter, client):
    with pytest.raises(tollgate.NoPolicy):
        limiter.hit("nothing", "alice")
    client.hset("tg:policy:broken", mapping={"windows": "60000:x"})
    with pytest.raises(tollgate.BadPolicy):
        limiter.hit("broken", "alice")
    client.hset("tg:policy:future", mapping={"windows": "60000:10", "contract": "4"})
    with pytest.raises(tollgate.ContractMismatch):
        limiter.hit("future", "alice")


def test_inline_policies_need_nothing_stored(client):
    policy = tollgate.Policy("upload", (tollgate.Window(60000, 1),), message="One a minute")
    limiter = tollgate.Limiter(client, policies=[policy])
    assert limiter.hit("upload", "erin").allowed
    assert limiter.hit("upload", "erin").message == "One a minute"
    assert limiter.hit("upload", "finn", policy=policy).allowed
    with pytest.raises(tollgate.InvalidArgument):
        limiter.hit("other", "erin", policy=policy)


def test_a_policy_change_is_seen_through_the_events_channel(limiter, client):
    assert limiter.hit("comment", "frank").limit == 3
    assert limiter._watch is not None and limiter._watch.subscribed.wait(5)
    other = tollgate.Limiter(client, watch_policies=False)
    other.put_policy("comment", {**{"windows": "30000:50"}}, actor="elsewhere")
    deadline = time.monotonic() + 5
    while limiter.hit("comment", "frank").limit != 50:
        assert time.monotonic() < deadline, "the change never arrived"
        time.sleep(0.02)


def test_noscript_is_answered_with_eval_never_a_hang(limiter, client):
    limiter.hit("comment", "gina")
    client.script_flush()
    assert limiter.hit("comment", "gina").count == 2
    assert client.script_exists(limiter.core.hit_script.sha) == [True]


def test_the_contract_check_refuses_scripts_of_another_contract(client):
    limiter = tollgate.Limiter(client)
    limiter.core.scripts = {**limiter.core.scripts, "ban": Script("ban", b"return 4")}
    with pytest.raises(tollgate.ContractMismatch, match="contract 4"):
        limiter.check_contract()


def test_ban_unban_reset_write_their_audit_entries(limiter, client):
    limiter.hit("comment", "hank")
    ban = limiter.ban("hank", reason="spam wave", actor="ops@desk", duration=60000)
    assert ban.until is not None
    banned = limiter.hit("comment", "hank")
    assert banned.tier == "banned" and 59000 <= banned.retry_after_ms <= 60000
    assert limiter.unban("hank", reason="appeal", actor="ops@desk") == 1
    assert limiter.reset("hank", "comment", reason="fresh start", actor="ops@desk") == 1
    assert limiter.hit("comment", "hank").count == 1
    events = [fields[b"event"] for _, fields in client.xrange("tg:audit")]
    assert events[-3:] == [b"ban", b"unban", b"reset"]
    with pytest.raises(tollgate.InvalidArgument):
        limiter.ban("hank", reason="", actor="ops")


def test_overrides_redirect_hits_to_their_windows(limiter, client):
    limiter.set_override("ivy", "comment", windows=[(60000, 1)], duration=60000, reason="trial", actor="ops")
    first, second = limiter.hit("comment", "ivy"), limiter.hit("comment", "ivy")
    assert (first.override, first.limit, second.allowed) == ("limit", 1, False)
    assert client.zscore("tg:overrides", "ivy") is not None
    limiter.set_override("ivy", "*", unlimited=True, reason="partner", actor="ops")
    assert limiter.delete_override("ivy", "comment", reason="done", actor="ops")
    assert all(limiter.hit("comment", "ivy").override == "unlimited" for _ in range(5))


def test_limiter_is_shared_by_threads(limiter):
    results = []

    def worker():
        for _ in range(50):
            results.append(limiter.hit("comment", "many").allowed)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 3 and len(results) == 200


def test_outcomes_feed_the_consoles_statistics(limiter, client):
    for _ in range(4):
        limiter.hit("comment", "kim")
    limiter.peek("comment", "kim")  # a peek is no outcome
    limiter.flush_stats()
    totals = client.hmget("tg:stats:comment", "total:h", "total:c", "total:d")
    assert totals == [b"4", b"4", b"1"]
    assert client.pttl("tg:stats:comment") > 0
