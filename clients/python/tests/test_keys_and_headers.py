"""Id escaping and the RateLimit header fields, against what lua/README.md and the C++
library (KeySchema::escape, rateLimitHeaders) produce."""
import pytest

import tollgate
from tollgate.decision import Decision
from tollgate.headers import duration_text, policy_name
from tollgate.keys import check_id, check_prefix, escape
from tollgate.policy import Window


@pytest.mark.parametrize("raw, escaped", [
    (b"alice", b"alice"),
    (b"a:b", b"a%3Ab"),
    ("Zoë 東京".encode(), "Zoë%20東京".encode()),
    (b"\xff", b"%FF"),
    (b"\xfe", b"%FE"),
    ("\ufffd".encode(), "\ufffd".encode()),
    (b"\xc0\xaf", b"%C0%AF"),  # overlong '/'
    (b"\xed\xa0\x80", b"%ED%A0%80"),  # a surrogate
    (b"\xf4\x90\x80\x80", b"%F4%90%80%80"),  # past U+10FFFF
    (b"x\xe6\x9d", b"x%E6%9D"),  # a sequence cut short
    (b"{}*?[]\\%\n \t", b"%7B%7D%2A%3F%5B%5D%5C%25%0A%20%09"),
    ("\ufeffbom".encode(), "\ufeffbom".encode()),
    (b"-_.@+=!~,;#&$()'/<>|^`\"", b"-_.@+=!~,;#&$()'/<>|^`\""),
])
def test_escape(raw, escaped):
    assert escape(raw) == escaped


def test_ids_and_prefixes_are_checked():
    with pytest.raises(tollgate.InvalidArgument):
        check_id("", "user id")
    with pytest.raises(tollgate.InvalidArgument):
        check_id(b"u" * 1025, "user id")
    assert check_id(b"u" * 1024, "user id") == b"u" * 1024
    for bad in ("", "a:b", "a*", "x" * 65, "a b", "{a}", "p%"):
        with pytest.raises(tollgate.InvalidArgument):
            check_prefix(bad)
    assert check_prefix("shop_eu.v2") == b"shop_eu.v2"


@pytest.mark.parametrize("ms, text", [(60000, "1m"), (5400000, "1h30m"), (500, "500ms"), (1500, "1500ms"),
                                      (30000, "30s"), (86400000, "1d"), (691200000, "1w1d"), (0, "0s")])
def test_duration_text(ms, text):
    assert duration_text(ms) == text


def test_policy_names_escape_what_an_sf_string_cannot_hold():
    assert policy_name("like", 60000) == '"like-1m"'
    assert policy_name('a"b\\c%d é', 1000) == '"a\\"b\\\\c%25d%20%C3%A9-1s"'.replace("%20", " ")


def decision(allowed, tier, count, limit, remaining, reset_ms, retry_ms, windows):
    return Decision(allowed, tier, count, limit, remaining, reset_ms, retry_ms, action="like",
                    windows=[Window(*w) for w in windows])


def test_headers_of_an_allowed_hit():
    d = decision(True, "ok", 3, 10, 7, 42001, 0, [(60000, 10), (3600000, 100)])
    assert d.headers() == {"RateLimit-Policy": '"like-1m";q=10;w=60, "like-1h";q=100;w=3600',
                           "RateLimit": '"like-1m";r=7;t=43'}


def test_headers_of_a_denial_name_the_binding_window_and_the_retry():
    d = decision(False, "deny", 100, 100, 0, 1000, 1800000, [(60000, 10), (3600000, 100)])
    assert d.headers() == {"RateLimit-Policy": '"like-1m";q=10;w=60, "like-1h";q=100;w=3600',
                           "RateLimit": '"like-1h";r=0;t=1800', "Retry-After": "1800"}


def test_headers_of_a_ban_and_of_a_permanent_one():
    d = decision(False, "banned", 2, 10, 8, 500, 9001, [(60000, 10)])
    assert d.headers()["RateLimit"] == '"like-1m";r=0;t=10'
    assert d.headers()["Retry-After"] == "10"
    forever = decision(False, "banned", 2, 10, 8, 500, -1, [(60000, 10)])
    assert "Retry-After" not in forever.headers()
    assert forever.headers()["RateLimit"] == '"like-1m";r=0;t=1'


def test_partition_key_and_windows_under_a_second():
    d = decision(True, "ok", 1, 5, 4, 300, 0, [(500, 5)])
    assert d.headers(b"tenant-7") == {"RateLimit-Policy": '"like-500ms";q=5;w=1;pk=:dGVuYW50LTc=:',
                                      "RateLimit": '"like-500ms";r=4;t=1;pk=:dGVuYW50LTc=:'}
