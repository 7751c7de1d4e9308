#!/usr/bin/python3
"""The Python client against a bare EVALSHA loop of the same script and against `limits` 2.8
(FixedWindowRateLimiter and MovingWindowRateLimiter over its Redis storage), in one run on one
private redis-server, the same number of threads for each, 1,000 random users, every hit
allowed. Prints decisions per second, the ratios, and the server's µs per decision of each
(INFO commandstats: the usec of EVALSHA/EVAL, the one command each of them sends per hit).

    /usr/bin/python3 bench/clients/python_bench.py [--seconds 3] [--rounds 3] [--threads 4]

Rounds alternate the contenders; the best round of each is kept.
"""
import argparse
import random
import subprocess
import sys
import threading
import time
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
KEEP = []


def run_threads(threads, seconds, work):
    """`work(stop)` in each thread; the decisions they made in total."""
    stop = threading.Event()
    counts = []

    def body():
        counts.append(work(stop))

    pool = [threading.Thread(target=body) for _ in range(threads)]
    for t in pool:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in pool:
        t.join()
    return sum(counts)


def loop(decide):
    def work(stop):
        done, choice = 0, random.choice
        while not stop.is_set():
            for _ in range(50):
                decide(choice(USERS))
            done += 50
        return done
    return work


def contenders(client):
    fixed = tollgate.Limiter(client, prefix="bench")
    fixed.put_policy("fw", {"algorithm": "fixed_window", "windows": "60000:1000000000"}, actor="bench")
    fixed.put_policy("sl", {"algorithm": "sliding_log", "windows": "60000:100000"}, actor="bench")
    hit = fixed.core.hit_script
    client.script_load(hit.source)
    # The bare loop: the same short-form call hit.lua gets from the client, keys prebuilt.
    bare_keys = {u: [f"bench:{{{u}}}:ban", f"bench:{{{u}}}:fw:ban", f"bench:{{{u}}}:overrides",
                     f"bench:{{{u}}}:fw:fw:60000"] for u in USERS}
    bare_args = ["hit", "fixed_window", 1, 1000000000, 60000]

    def bare(user):
        client.evalsha(hit.sha, 4, *bare_keys[user], *bare_args)

    storage = RedisStorage(f"redis://127.0.0.1:{client.connection_pool.connection_kwargs['port']}")
    per_minute = RateLimitItemPerMinute(1000000000)
    moving_item = RateLimitItemPerMinute(100000)
    limits_fixed = FixedWindowRateLimiter(storage)
    limits_moving = MovingWindowRateLimiter(storage)
    KEEP.append(storage)  # limits' strategies hold their storage by a weak reference only
    return {
        "tollgate fixed_window": lambda u: fixed.hit("fw", u),
        "bare EVALSHA (hit.lua)": bare,
        "limits FixedWindow": lambda u: limits_fixed.hit(per_minute, "fw", u),
        "tollgate sliding_log": lambda u: fixed.hit("sl", u),
        "limits MovingWindow": lambda u: limits_moving.hit(moving_item, "mw", u),
    }


def server_usec(client):
    stats = client.info("commandstats")
    return sum(stats.get(f"cmdstat_{c}", {}).get("usec", 0) for c in ("evalsha", "eval", "evalsha_ro"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4)
    options = parser.parse_args()
    best = {}
    with RedisServer() as server:
        client = redis.Redis(port=server.port, max_connections=64)
        table = contenders(client)
        names = list(table)
        for round_ in range(options.rounds):
            order = names if round_ % 2 == 0 else names[::-1]
            for name in order:
                client.config_resetstat()
                made = run_threads(options.threads, options.seconds, loop(table[name]))
                rate = made / options.seconds
                usec = server_usec(client) / made
                if rate > best.get(name, (0, 0))[0]:
                    best[name] = (rate, usec)
    print(f"{options.threads} threads, {options.seconds:g} s x {options.rounds} rounds, "
          f"redis-py {redis.__version__}, Python {sys.version.split()[0]}")
    print(f"{'':26} {'decisions/s':>12} {'server µs/decision':>19}")
    for name in names:
        rate, usec = best[name]
        print(f"{name:26} {rate:12,.0f} {usec:19.2f}")
    t, b = best["tollgate fixed_window"][0], best["bare EVALSHA (hit.lua)"][0]
    print(f"tollgate / bare EVALSHA: {t / b:.2f}")
    print(f"tollgate fixed_window / limits FixedWindow: {t / best['limits FixedWindow'][0]:.2f}")
    s, m = best["tollgate sliding_log"][0], best["limits MovingWindow"][0]
    print(f"tollgate sliding_log / limits MovingWindow: {s / m:.2f}")


if __name__ == "__main__":
    main()
