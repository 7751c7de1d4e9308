#!/usr/bin/python3
"""The Python client against a bare EVALSHA loop of the same script and against `limits` 2.8
(FixedWindowRateLimiter and MovingWindowRateLimiter over its Redis storage), in one run on one
private redis-server: the same threads for each, 1,000 random users, every hit allowed.

    /usr/bin/python3 bench/clients/python_bench.py [--seconds 6] [--threads 4] [--slice 0.25]

The contenders take turns in slices of `--slice` seconds until each has run `--seconds`, so a
change in the machine's speed slows them alike. For each: decisions/s, the client's CPU per
decision (the process' CPU time over the decisions, all threads), and the Redis server's µs per
decision (INFO commandstats: the usec of EVALSHA/EVAL, the one command each sends per hit).
First, the client's own work per decision without any I/O (a canned reply).
"""
import argparse
import random
import subprocess
import sys
import threading
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clients" / "python"
sys.path.insert(0, str(PACKAGE / "src"))
if not (PACKAGE / "src" / "tollgate" / "lua" / "hit.lua").exists():
    subprocess.run(["bash", str(PACKAGE / "package.sh")], check=True, stdout=subprocess.DEVNULL)

import redis  # noqa: E402
from limits import RateLimitItemPerMinute  # noqa: E402
from limits.storage import RedisStorage  # noqa: E402
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter  # noqa: E402

import tollgate  # noqa: E402
from tollgate.conformance.servers import RedisServer  # noqa: E402

USERS = [f"user-{n}" for n in range(1000)]
KEEP = []  # limits' strategies hold their storage by a weak reference only


def own_work_us(limiter):
    """core.decide for a cached policy, driven with a canned hit.lua reply: no I/O."""
    reply = [1, b"ok", 1, 1000000000, 999999999, 60000, 0]
    core = limiter.core
    limiter.hit("fw", "user-1")
    limiter._watch.subscribed.wait(5)  # its subscription drops the cache once
    limiter.hit("fw", "user-1")  # the policy cached, as in a running application

    def one():
        op = core.decide("fw", "user-1", None, False, None, None)
        op.send(None)
        try:
            op.send(reply)
        except StopIteration:
            pass

    one()
    return min(timeit.repeat(one, number=20000, repeat=5)) / 20000 * 1e6


def contenders(client, port):
    limiter = tollgate.Limiter(client, prefix="bench", record_stats=False)
    limiter.put_policy("fw", {"algorithm": "fixed_window", "windows": "60000:1000000000"}, actor="bench")
    limiter.put_policy("sl", {"algorithm": "sliding_log", "windows": "60000:100000"}, actor="bench")
    hit = limiter.core.hit_script
    client.script_load(hit.source)
    # The bare loop: the very call the client sends (hit.lua's short form), keys built beforehand.
    bare_keys = {u: [f"bench:{{{u}}}:ban", f"bench:{{{u}}}:fw:ban", f"bench:{{{u}}}:overrides",
                     f"bench:{{{u}}}:fw:fw:60000"] for u in USERS}
    bare_args = ["hit", "fixed_window", 1, 1000000000, 60000]
    storage = RedisStorage(f"redis://127.0.0.1:{port}")
    KEEP.append(storage)
    fixed, moving = FixedWindowRateLimiter(storage), MovingWindowRateLimiter(storage)
    per_minute, moving_item = RateLimitItemPerMinute(1000000000), RateLimitItemPerMinute(100000)
    return limiter, {
        "tollgate fixed_window": lambda u: limiter.hit("fw", u),
        "bare EVALSHA (hit.lua)": lambda u: client.evalsha(hit.sha, 4, *bare_keys[u], *bare_args),
        "limits FixedWindow": lambda u: fixed.hit(per_minute, "fw", u),
        "tollgate sliding_log": lambda u: limiter.hit("sl", u),
        "limits MovingWindow": lambda u: moving.hit(moving_item, "mw", u),
    }


def run_slice(threads, seconds, decide):
    stop, counts = threading.Event(), []

    def body():
        done, choice = 0, random.choice
        while not stop.is_set():
            for _ in range(20):
                decide(choice(USERS))
            done += 20
        counts.append(done)

    pool = [threading.Thread(target=body) for _ in range(threads)]
    for t in pool:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in pool:
        t.join()
    return sum(counts)


def server_usec(client):
    stats = client.info("commandstats")
    return sum(stats.get(f"cmdstat_{c}", {}).get("usec", 0) for c in ("evalsha", "eval", "evalsha_ro"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--slice", type=float, default=0.25)
    options = parser.parse_args()
    with RedisServer() as server:
        client = redis.Redis(port=server.port, max_connections=64)
        limiter, table = contenders(client, server.port)
        own = own_work_us(limiter)
        totals = {name: [0, 0.0, 0.0, 0] for name in table}  # decisions, wall, cpu, server usec
        for turn in range(max(1, round(options.seconds / options.slice))):
            names = list(table) if turn % 2 == 0 else list(table)[::-1]
            for name in names:
                client.config_resetstat()
                cpu, wall = time.process_time(), time.perf_counter()
                made = run_slice(options.threads, options.slice, table[name])
                t = totals[name]
                t[0] += made
                t[1] += time.perf_counter() - wall
                t[2] += time.process_time() - cpu
                t[3] += server_usec(client)
    print(f"{options.threads} threads, {options.seconds:g} s each in slices of {options.slice:g} s, "
          f"redis-py {redis.__version__}, limits 2.8, Python {sys.version.split()[0]}")
    print(f"tollgate's own work per decision, no I/O: {own:.1f} µs")
    print(f"{'':24} {'decisions/s':>12} {'client CPU µs':>14} {'server µs':>10}")
    rate = {}
    for name, (made, wall, cpu, usec) in totals.items():
        rate[name] = made / wall
        print(f"{name:24} {rate[name]:12,.0f} {cpu / made * 1e6:14.1f} {usec / made:10.2f}")
    print(f"tollgate / bare EVALSHA: {rate['tollgate fixed_window'] / rate['bare EVALSHA (hit.lua)']:.2f}")
    print(f"tollgate fixed_window / limits FixedWindow: "
          f"{rate['tollgate fixed_window'] / rate['limits FixedWindow']:.2f}")
    print(f"tollgate sliding_log / limits MovingWindow: "
          f"{rate['tollgate sliding_log'] / rate['limits MovingWindow']:.2f}")


if __name__ == "__main__":
    main()
