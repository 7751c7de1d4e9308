#!/usr/bin/env python3
"""A second-language client written from lua/README.md alone (standard library
only): it reads a stored policy, builds the keys with the documented escaping, and calls hit.lua
over a raw socket. tests/integration/tst_SecondLanguage.cpp runs it against a private
redis-server, next to tollgatectl, and checks that both land on the same keys.

usage: second_client.py PORT TOLLGATECTL LUA_DIR   -> prints one JSON object, exit 0
(LUA_DIR: the assembled scripts, build/lua or /usr/share/tollgate/lua, as lua/README.md says)
"""
import json
import socket
import subprocess
import sys

PLAIN = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.@+=!~,;#&$()'/<>|^`\"")


def escape(raw: bytes) -> bytes:
    """lua/README.md "Conventions": plain ASCII and well-formed UTF-8 stay, every other byte is %XX."""
    out, i = bytearray(), 0
    while i < len(raw):
        c, length = raw[i], 0
        if c < 0x80:
            length = 1 if c in PLAIN else 0
        else:
            for n in (2, 3, 4):  # the shortest well-formed sequence starting here, if any
                try:
                    raw[i:i + n].decode("utf-8", errors="strict")
                    length = n
                    break
                except UnicodeDecodeError:
                    continue
        if length == 0:
            out += b"%%%02X" % c
            i += 1
        else:
            out += raw[i:i + length]
            i += length
    return bytes(out)


class Redis:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            self.buf += self.sock.recv(65536)
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b"-"):
            return RuntimeError(rest.decode()) if kind == b"-" else rest
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.sock.recv(65536)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if kind == b"*":
            return [self._reply() for _ in range(int(rest))]
        raise RuntimeError("bad reply %r" % line)

    def call(self, *args):
        parts = [a if isinstance(a, bytes) else str(a).encode() for a in args]
        self.sock.sendall(b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts))
        return self._reply()


def hit(redis, sha, source, policy, action: bytes, user: bytes, prefix=b"tg", mode=b"hit", extra=(),
        windows=None, redirects=0):
    """hit.lua as lua/README.md documents it, the arguments taken from the policy hash; with
    mode b"refund" or b"penalize" and extra = (actor, reason), refund.lua (the same layout).
    A TG_OVERRIDE reply (the user's override has other windows) is followed as the README says:
    the same call with the windows it names and the marker "override", at most twice."""
    base = prefix + b":{" + escape(user) + b"}"
    code = {b"fixed_window": b"fw", b"sliding_log": b"sl", b"sliding_window": b"sw", b"token_bucket": b"tb"}
    marked = windows is not None
    windows = windows or policy[b"windows"]  # "<window_ms>:<limit>,..."
    windows = [w.split(b":") for w in windows.split(b",")]
    keys = [base + b":ban", base + b":" + escape(action) + b":ban", base + b":overrides", base + b":audit",
            prefix + b":audit"]
    keys += [base + b":" + escape(action) + b":" + code[policy[b"algorithm"]] + b":" + w for w, _ in windows]
    args = [mode, policy[b"algorithm"], policy[b"cost"], policy[b"count_denied"], policy[b"warn"],
            policy[b"ban_ms"], policy.get(b"ban_until", b""), policy.get(b"tz_offsets", b"0"), user, action,
            prefix + b":events", policy.get(b"align", b"first_hit"), *extra]
    for window_ms, limit in windows:
        args += [limit, window_ms]
    if marked:
        args.append(b"override")
    reply = redis.call(b"EVALSHA", sha, len(keys), *keys, *args)
    if isinstance(reply, RuntimeError) and str(reply).startswith("NOSCRIPT"):
        sha = redis.call(b"SCRIPT", b"LOAD", source)
        reply = redis.call(b"EVALSHA", sha, len(keys), *keys, *args)
    if isinstance(reply, RuntimeError) and str(reply).startswith("TG_OVERRIDE ") and redirects < 2:
        target = str(reply).split(" ", 1)[1].encode()
        return hit(redis, sha, source, policy, action, user, prefix, mode, extra,
                   None if target == b"policy" else target, redirects + 1)
    return reply


def main():
    port, ctl, lua_dir = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    redis = Redis(port)
    source = open(lua_dir + "/hit.lua", "rb").read()
    sha = redis.call(b"SCRIPT", b"LOAD", source)
    refund_source = open(lua_dir + "/refund.lua", "rb").read()
    refund_sha = redis.call(b"SCRIPT", b"LOAD", refund_source)
    flat = redis.call(b"HGETALL", b"tg:policy:like")
    policy = dict(zip(flat[::2], flat[1::2]))
    ids = [b"\xff", b"\xfe", "\ufffd".encode(), b"\xc0\xaf", b"a:b{c}*", "Zoë 東京".encode(), b"x\xe6\x9d"]
    result = {"counts": [], "keys": [], "invalid": [], "refunds": []}
    for user in ids:
        mine = hit(redis, sha, source, policy, b"like", user)
        # tollgatectl gets the very bytes in argv, as a shell would pass them
        run = subprocess.run([ctl.encode(), b"--url", b"redis://127.0.0.1:%d" % port, b"--json", b"hit", b"like", user],
                             capture_output=True)
        theirs = json.loads(run.stdout or b"{}")
        result["counts"].append([mine[2], theirs.get("count"), run.returncode])
        result["keys"].append(escape(user).decode("utf-8", "backslashreplace"))
        # refund.lua gives one unit back, then tollgatectl the policy's cost: 2, 1, 0 on one key
        mine = hit(redis, refund_sha, refund_source, policy, b"like", user, mode=b"refund", extra=(b"", b""))
        run = subprocess.run([ctl.encode(), b"--url", b"redis://127.0.0.1:%d" % port, b"--json", b"refund", b"like", user],
                             capture_output=True)
        theirs = json.loads(run.stdout or b"{}")
        result["refunds"].append([mine[0], mine[2], theirs.get("count"), run.returncode])
    for user in (b"", b"u" * 1025):
        reply = hit(redis, sha, source, policy, b"like", user)
        result["invalid"].append(str(reply) if isinstance(reply, RuntimeError) else "accepted")
    # An override with other windows than the policy's, set by tollgatectl: the Python hits
    # follow the redirect and count in the same keys as tollgatectl's.
    ctl_args = [ctl.encode(), b"--url", b"redis://127.0.0.1:%d" % port, b"--json"]
    subprocess.run(ctl_args + [b"override", b"set", b"like", b"a:b{c}*", b"--windows", b"2m:3", b"--for", b"1h",
                               b"--reason", b"trial"], check=True, capture_output=True)
    result["override"] = []
    for turn in range(4):
        if turn == 2:
            run = subprocess.run(ctl_args + [b"hit", b"like", b"a:b{c}*"], capture_output=True)
            theirs = json.loads(run.stdout or b"{}")
            result["override"].append([theirs.get("allowed"), theirs.get("count"), theirs.get("limit"),
                                       theirs.get("override")])
        else:
            mine = hit(redis, sha, source, policy, b"like", b"a:b{c}*")
            mine = [str(mine)] if isinstance(mine, RuntimeError) else mine
            result["override"].append([mine[0] == 1, mine[2], mine[3], mine[7].decode() if len(mine) > 7 else None])
    print(json.dumps(result))


if __name__ == "__main__":
    main()
