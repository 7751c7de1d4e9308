"""When Redis does not answer: the failure policy decides within the call's deadline (the server
is frozen with SIGSTOP, so connections are accepted and never answered)."""
import time

import pytest

import tollgate


@pytest.fixture
def frozen(limiter, server):
    limiter.hit("comment", "warm")  # the policy is cached, as in a running application
    server.freeze()
    yield limiter
    server.thaw()


@pytest.mark.parametrize("mode, allowed", [("allow", True), ("deny", False)])
def test_allow_and_deny_answer_within_the_deadline(frozen, mode, allowed):
    started = time.monotonic()
    decision = frozen.hit("comment", "alice", on_error=mode, timeout=0.1)
    assert time.monotonic() - started < 5  # answered, not hung (the socket would wait forever)
    assert decision.allowed is allowed and decision.source == tollgate.FAILURE_POLICY
    assert "100 ms" in decision.error


def test_report_raises_unavailable(frozen):
    with pytest.raises(tollgate.Unavailable):
        frozen.hit("comment", "alice", timeout=0.1)


def test_the_insurance_limiter_counts_in_process(frozen):
    answers = [frozen.hit("comment", "bob", on_error="insurance", timeout=0.05) for _ in range(4)]
    assert [a.allowed for a in answers] == [True, True, True, False]
    assert answers[-1].retry_after_ms > 0 and answers[-1].message == "Slow down"


def test_the_connection_that_timed_out_is_not_reused_after_the_thaw(limiter, server):
    limiter.hit("comment", "carol")
    server.freeze()
    with pytest.raises(tollgate.Unavailable):
        limiter.hit("comment", "carol", timeout=0.05)
    server.thaw()
    # the late reply of the timed-out hit must not answer this one
    assert limiter.peek("comment", "carol").count_now in (1, 2)
    assert limiter.hit("comment", "carol").tier in ("ok", "deny")


def test_a_policy_on_error_field_is_followed(limiter, server):
    limiter.put_policy("open", {"windows": "60000:1", "on_error": "allow"}, actor="test")
    limiter.hit("open", "dan")
    server.freeze()
    try:
        assert limiter.hit("open", "dan", timeout=0.05).allowed
    finally:
        server.thaw()


def test_insurance_scales_and_bounds_its_windows():
    insurance = tollgate.InsuranceLimiter(factor=0.5, max_windows=2)
    policy = tollgate.Policy("a", (tollgate.Window(60000, 4),))
    assert [insurance.hit(policy, b"u", 1).allowed for _ in range(3)] == [True, True, False]
    insurance.hit(policy, b"v", 1)
    insurance.hit(policy, b"w", 1)
    assert len(insurance) <= 2
