#!/usr/bin/python3
"""The Python client against a bare EVALSHA loop of the same script and against `limits` 2.8
(FixedWindowRateLimiter and MovingWindowRateLimiter over its Redis storage), in one run on one
private redis-server: the same threads for each, 1,000 random users, every hit allowed.

    /usr/bin/python3 bench/clients/python_bench.py [--rounds 15] [--slice 1] [--turn 0.1] [--threads 4]

After a warm-up (every user hit once by each, then a second each unmeasured), each round gives
every contender `--slice` seconds in turns of `--turn` seconds (A B C D E A B C D E ..., the
order turning from round to round), so the contenders of a round share the same moments of a
machine whose speed moves; a ratio is taken within each round and the median of the rounds'
ratios is printed with their range. For each contender: decisions/s, the client's CPU per
decision (the process' CPU time over the decisions, all threads) and the Redis server's µs per
decision in scripts (INFO commandstats: the usec of EVALSHA/EVAL, the one command each sends per
hit) and in all (INFO cpu: reading, parsing and answering commands too), each the median over
the rounds. First, the client's own work per decision without any I/O (a canned reply).
"""
import argparse
import random
import statistics
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
TOLLGATE, BARE = "tollgate fixed_window", "bare EVALSHA (hit.lua)"
LIMITS_FIXED, SLIDING, LIMITS_MOVING = "limits FixedWindow", "tollgate sliding_log", "limits MovingWindow"
RATIOS = ((TOLLGATE, BARE, 0.9), (TOLLGATE, LIMITS_FIXED, 1.1), (SLIDING, LIMITS_MOVING, 1.1))


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
    limiter = tollgate.Limiter(client, prefix="bench")
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
        TOLLGATE: lambda u: limiter.hit("fw", u),
        BARE: lambda u: client.evalsha(hit.sha, 4, *bare_keys[u], *bare_args),
        LIMITS_FIXED: lambda u: fixed.hit(per_minute, "fw", u),
        SLIDING: lambda u: limiter.hit("sl", u),
        LIMITS_MOVING: lambda u: moving.hit(moving_item, "mw", u),
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


def server_cpu_us(client):
    """The server process' CPU so far: reading, parsing and answering commands too."""
    cpu = client.info("cpu")
    return (cpu["used_cpu_sys"] + cpu["used_cpu_user"]) * 1e6


def play(client, threads, seconds, decide, tally):
    """One turn, added to `tally`: [decisions, wall s, client CPU s, script µs, server CPU µs]."""
    client.config_resetstat()
    server_cpu = server_cpu_us(client)
    cpu, wall = time.process_time(), time.perf_counter()
    made = run_slice(threads, seconds, decide)
    tally[1] += time.perf_counter() - wall
    tally[2] += time.process_time() - cpu
    tally[0] += made
    tally[3] += server_usec(client)
    tally[4] += server_cpu_us(client) - server_cpu


def figures(tally):
    """decisions/s, client CPU µs, script µs and server CPU µs per decision."""
    made, wall, cpu, usec, server_cpu = tally
    return made / wall, cpu / made * 1e6, usec / made, server_cpu / made


def spread(values, digits=2):
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--slice", type=float, default=1)
    parser.add_argument("--turn", type=float, default=0.1)
    parser.add_argument("--threads", type=int, default=4)
    options = parser.parse_args()
    with RedisServer() as server:
        client = redis.Redis(port=server.port, max_connections=64)
        limiter, table = contenders(client, server.port)
        own = own_work_us(limiter)
        names = list(table)
        for name in names:  # warm-up: every key made, every connection open, nothing measured
            for user in USERS:
                table[name](user)
            run_slice(options.threads, 1, table[name])
        rounds = []
        for round_ in range(options.rounds):
            order = names[round_ % len(names):] + names[:round_ % len(names)]
            tallies = {name: [0, 0.0, 0.0, 0, 0.0] for name in names}
            for _ in range(max(1, round(options.slice / options.turn))):
                for name in order:
                    play(client, options.threads, options.turn, table[name], tallies[name])
            rounds.append({name: figures(tally) for name, tally in tallies.items()})
    print(f"{options.threads} threads, {options.rounds} rounds of {options.slice:g} s each in turns of "
          f"{options.turn:g} s, "
          f"redis-py {redis.__version__}, limits 2.8, Python {sys.version.split()[0]}")
    print(f"tollgate's own work per decision, no I/O: {own:.1f} µs")
    print("medians over the rounds (the range in parentheses):")
    print(f"{'':24} {'decisions/s':>12} {'client CPU µs':>14} {'script µs':>10} {'server CPU µs':>14}")
    for name in names:
        rate, cpu, usec, server_cpu = (statistics.median(r[name][i] for r in rounds) for i in range(4))
        print(f"{name:24} {rate:12,.0f} {cpu:14.1f} {usec:10.2f} {server_cpu:14.1f}")
    print("(per decision: script µs from INFO commandstats, server CPU from INFO cpu)")
    for mine, theirs, goal in RATIOS:
        ratios = [r[mine][0] / r[theirs][0] for r in rounds]
        print(f"{mine} / {theirs}: {spread(ratios)} (goal >= {goal})")


if __name__ == "__main__":
    main()
