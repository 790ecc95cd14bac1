#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""hostile_http.py: a hostile HTTP client for fpusoakd's web server (loopback only).

    hostile_http.py --port P [--name NAME] [--seed S] [--requests N] [--idle 500] [--hold 3]

Phase 1 sends at least N requests (default 1200) over raw sockets: malformed
request lines, huge headers, overlong URLs, bad percent-encoding, invalid
UTF-8, negative and overflowing numbers, SQL-looking strings, path traversal
and wrong methods, each with the status HTTP and fpusoakd's URL contract
(web/url.h) call for.  A monitor thread fetches / every 0.2 s meanwhile.
Phase 2 holds IDLE connections open (half silent, half a request that never
ends, "slowloris"; any the server closes is reopened), first from other
loopback addresses (127.0.0.2-9), then from the client's own address, while
a normal client fetches / about once a second.

Expected statuses come from RFC 9110/9112 and web/url.h, not from the
server's answers.  Where RFC 9112 allows a server to be lenient (bare LF,
absolute-form targets) the lenient answer is accepted; where the RFC says
MUST reject but the server accepts harmlessly (no Host, two Host headers),
the case is reported as a note, not a failure.  Prints PASS:/FAIL:/SKIP:
lines and a summary; exits 1 on any FAIL.
"""
import argparse
import random
import socket
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HOST = "127.0.0.1"
H = b"Host: 127.0.0.1\r\nConnection: close\r\n"


class Result:
    def __init__(self):
        self.lock = threading.Lock()
        self.fails = []
        self.notes = []
        self.closed = []      # malformed requests answered by closing
        self.n = 0
        self.statuses = {}


def exchange(port, data, timeout=5.0, src=HOST):
    """Send data, half-close, read to EOF: (status or None, headers bytes, body bytes, error)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.bind((src, 0))
        s.connect((HOST, port))
        s.sendall(data)
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        buf = b""
        while len(buf) < (64 << 20):
            x = s.recv(65536)
            if not x:
                break
            buf += x
    except (ConnectionResetError, BrokenPipeError) as e:
        return None, b"", b"", "reset"
    except socket.timeout:
        return None, b"", b"", "timeout"
    except OSError as e:
        return None, b"", b"", repr(e)
    finally:
        s.close()
    if not buf:
        return None, b"", b"", "closed"
    head, _, body = buf.partition(b"\r\n\r\n")
    line = head.split(b"\r\n", 1)[0].split(b" ")
    try:
        return int(line[1]), head, body, None
    except (IndexError, ValueError):
        return None, head, body, "unparsable status line %r" % head[:60]


def req(method, target, extra=b"", version=b"HTTP/1.1", body=b""):
    return method + b" " + target + b" " + version + b"\r\n" + H + extra + b"\r\n" + body


# ---------------------------------------------------------------- cases
# (category, bytes, allowed statuses, may_close, check)  may_close: the server may
# answer a request line it cannot parse by closing (RFC 9112 2.2: SHOULD 400).

def cases(rng, target_n):
    c = []
    FOURXX = set(range(400, 500))
    # Wrong methods: 405 with Allow (RFC 9110 15.5.6), body or not.
    for m in [b"POST", b"PUT", b"DELETE", b"PATCH", b"OPTIONS", b"TRACE", b"CONNECT", b"PROPFIND", b"FOO", b"get", b"Get"]:
        for path in [b"/", b"/runs/1", b"/api/v1/status", b"/metrics", b"/healthz"]:
            extra = b"Content-Length: 5\r\n" if m in (b"POST", b"PUT", b"PATCH") else b""
            c.append(("method", req(m, path, extra, body=b"x=1&y" if extra else b""), {405}, False, "allow"))
    # Malformed request lines.
    for raw in [b"GARBAGE\r\n\r\n", b"GET\r\n\r\n", b"GET /\r\n\r\n", b" / HTTP/1.1\r\n\r\n", b"GET / HTTP/1.1 extra\r\n" + H + b"\r\n",
                b"GET / HTTP\r\n" + H + b"\r\n", b"GET / HTTPS/1.1\r\n" + H + b"\r\n", b"GET / HTTP/1.\r\n" + H + b"\r\n",
                b"GET / HTTP/x.y\r\n" + H + b"\r\n", b"\r\n\r\n\r\n", b"GET / HTTP/1.1\r\n" + H + b"Bad Header\r\n\r\n",
                b"GET / HTTP/1.1\r\n" + H + b"Content-Length: -1\r\n\r\n",
                b"GET / HTTP/1.1\r\n" + H + b"Content-Length: 99999999999999999999999\r\n\r\n",
                b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(rng.randrange(256) for _ in range(64)),   # a TLS ClientHello
                ]:
        c.append(("malformed", raw, FOURXX, True, None))
    for v in [b"HTTP/9.9", b"HTTP/2.0", b"HTTP/3.0"]:
        c.append(("malformed", req(b"GET", b"/", version=v), FOURXX | {505}, True, None))
    for _ in range(40):   # random binary noise ending in an empty line
        c.append(("malformed", bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))) + b"\r\n\r\n", FOURXX, True, None))
    # Huge headers: 431 (RFC 6585), or 413/400.
    big = {400, 413, 431}
    c.append(("headers", req(b"GET", b"/", b"X-Big: " + b"a" * 100000 + b"\r\n"), big, True, None))
    c.append(("headers", req(b"GET", b"/", b"Cookie: " + b"b=" * 20000 + b"\r\n"), big, True, None))
    c.append(("headers", req(b"GET", b"/", b"".join(b"X-%d: y\r\n" % i for i in range(5000))), big, True, None))
    c.append(("headers", req(b"GET", b"/", b"X-" + b"n" * 40000 + b": v\r\n"), big, True, None))
    for n in (33000, 65536, 200000):
        c.append(("headers", req(b"GET", b"/", b"Referer: " + b"r" * n + b"\r\n"), big, True, None))
    # Overlong request-targets: 414 (web/url.h URL_MAX = 2048 bytes; MHD's own buffer for larger).
    for n in (2049, 2100, 4096, 8000, 40000, 100000):
        c.append(("longurl", req(b"GET", b"/" + b"a" * (n - 1)), {414, 431}, True, None))
        c.append(("longurl", req(b"GET", b"/runs/1?from=" + b"1" * n), {414, 431}, True, None))
    c.append(("longurl", req(b"GET", b"/" + b"%41" * 700), {414}, False, None))
    c.append(("longurl", req(b"GET", b"/" + b"seg/" * 100), {404, 414}, False, None))   # 400 bytes of path: well-formed, no route
    # Bad percent-encoding: 400.
    for t in [b"/%", b"/%2", b"/%zz", b"/%G0", b"/runs/%", b"/runs/1%", b"/?from=%", b"/?from=%4", b"/?max_points=%zz",
              b"/api/v1/runs/1/buddyinfo?from=%%", b"/%00", b"/runs/1%00", b"/?name=%00", b"/?from=1%0a2", b"/%0d%0a",
              b"/?a=%u0041", b"/%%32%30", b"/api/v1/runs?format=%"]:
        c.append(("percent", req(b"GET", t), {400}, False, None))
    # Invalid UTF-8 and raw control bytes in the target: 400 (url.h: non-ASCII raw bytes are bad).
    for t in [b"/\xff", b"/\xc3\x28", b"/runs/\xe2\x82", b"/?name=\xff\xfe", b"/api/v1/runs/1/meminfo?name=\xc0\xaf",
              b"/\xed\xa0\x80", b"/\xf8\x88\x80\x80\x80", b"/?from=\x80", b"/r\x01uns", b"/\x7f", b"/\x1b[31m"]:
        c.append(("utf8", req(b"GET", t), {400}, False, None))
    for t in [b"/api/v1/runs/1/meminfo?name=%ff%fe", b"/api/v1/runs/1/meminfo?name=%c3%28", b"/api/v1/runs/1/vmstat?name=%e2%82"]:
        c.append(("utf8", req(b"GET", t), {400}, False, None))
    # Numbers: query values are strict (400); ids that cannot exist are 400 or 404.
    bad_nums = [b"-1", b"-0", b"+1", b"01", b"1.5", b"1e3", b"0x10", b"99999999999999999999", b"18446744073709551616",
                b"9223372036854775808", b"-9223372036854775809", b" 1", b"1 ", b"%2d1", b"NaN", b"Infinity", b"1,2", b"\xd9\xa1"]
    for v in bad_nums:
        for t in [b"/api/v1/runs/1/buddyinfo?max_points=", b"/api/v1/runs/1/buddyinfo?from=", b"/runs/1?to=", b"/compare?a="]:
            c.append(("numbers", req(b"GET", t + v.replace(b" ", b"%20")), {400}, False, None))
        for t in [b"/runs/", b"/api/v1/runs/", b"/api/v1/runs/%s/buddyinfo"]:
            tt = t.replace(b"%s", v.replace(b" ", b"%20")) if b"%s" in t else t + v.replace(b" ", b"%20")
            c.append(("numbers", req(b"GET", tt), {400, 404}, False, None))
    for v in [b"0", b"10001", b"100000"]:
        c.append(("numbers", req(b"GET", b"/api/v1/runs/1/buddyinfo?max_points=" + v), {400}, False, None))
    for v in [b"0", b"9223372036854775807", b"4294967297"]:
        c.append(("numbers", req(b"GET", b"/runs/" + v), {400, 404}, False, None))
    c.append(("numbers", req(b"GET", b"/runs/1?from=2024-13-45"), {400}, False, None))
    c.append(("numbers", req(b"GET", b"/runs/1?from=9999-12-31T23:59:60"), {400}, False, None))
    c.append(("numbers", req(b"GET", b"/runs/1?from=1&from=2"), {400}, False, None))
    # SQL-looking strings: never more than a 4xx, and the DB is checked afterwards.
    sqls = [b"1;DROP TABLE runs", b"1' OR '1'='1", b"1 UNION SELECT * FROM runs", b"'); DELETE FROM samples; --",
            b"1/**/OR/**/1=1", b"\" OR \"\"=\"", b"1; ATTACH DATABASE '/tmp/x' AS x", b"load_extension('x')"]
    for s in sqls:
        enc = s.replace(b" ", b"%20").replace(b"'", b"%27").replace(b'"', b"%22").replace(b";", b"%3B")
        c.append(("sql", req(b"GET", b"/runs/" + enc), {400, 404}, False, None))
        c.append(("sql", req(b"GET", b"/api/v1/runs/" + enc), {400, 404}, False, None))
        c.append(("sql", req(b"GET", b"/api/v1/runs/1/meminfo?name=" + enc), {400}, False, None))
        c.append(("sql", req(b"GET", b"/api/v1/runs/1/buddyinfo?from=" + enc), {400}, False, None))
        c.append(("sql", req(b"GET", b"/api/v1/runs/1/vmstat?name=" + enc), {400}, False, None))
    # Path traversal: nothing outside the routes is ever served.
    for t in [b"/../../../../etc/passwd", b"/%2e%2e/%2e%2e/etc/passwd", b"/..%2f..%2fetc%2fpasswd", b"/runs/../../etc/passwd",
              b"//etc/passwd", b"/./././etc/passwd", b"/%2e%2e%2f%2e%2e%2fetc%2fpasswd", b"/..\\..\\etc\\passwd",
              b"/api/v1/../../../etc/passwd", b"/static/../../../../etc/shadow", b"/proc/self/environ", b"/etc/passwd",
              b"/..%c0%af../etc/passwd", b"/%252e%252e/etc/passwd", b"/runs/1/../../../../etc/passwd", b"/api/v1/runs/..%2f..%2f"]:
        c.append(("traversal", req(b"GET", t), {400, 404}, False, "noleak"))
    # Fill up to target_n with seeded random targets from the pieces above: always 4xx.
    alphabet = [b"/", b"runs", b"api", b"v1", b"%", b"%2", b"%zz", b"%00", b"..", b"?", b"&", b"=", b"from", b"to",
                b"max_points", b"name", b"format", b"-1", b"99999999999999999999", b"\xff", b"'", b";", b"\x01", b"a" * 300]
    while len(c) < target_n:
        t = b"/" + b"".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 12)))
        if len(t) > 2048:
            allowed = {414, 431}
        else:
            allowed = set(range(200, 500))   # random targets may even be valid; never 5xx, never a crash
        c.append(("random", req(b"GET", t.replace(b" ", b"")), allowed, False, None))
    return c


def run_case(port, case, res):
    cat, data, allowed, may_close, check = case
    st, head, body, err = exchange(port, data)
    with res.lock:
        res.n += 1
        res.statuses[st] = res.statuses.get(st, 0) + 1
        if st is None:
            if may_close and err in ("closed", "reset", "timeout"):
                res.closed.append((cat, data[:40], err))
            else:
                res.fails.append("%s: %r -> no answer (%s)" % (cat, data[:80], err))
            return
        if st not in allowed:
            res.fails.append("%s: %r -> %d, want %s" % (cat, data[:80], st, sorted(allowed)[:6]))
        if st >= 500 and st != 505:
            res.fails.append("%s: %r -> server error %d" % (cat, data[:80], st))
        if check == "allow" and st == 405:
            allow = [l for l in head.split(b"\r\n") if l.lower().startswith(b"allow:")]
            if not allow or b"GET" not in allow[0] or b"HEAD" not in allow[0]:
                res.fails.append("%s: %r -> 405 without 'Allow: GET, HEAD'" % (cat, data[:60]))
        if check == "noleak" and (b"root:" in body or b"PATH=" in body):
            res.fails.append("%s: %r -> leaked file content" % (cat, data[:60]))


class Monitor(threading.Thread):
    """A normal client: GET / every period from HOST; records (latency, ok)."""

    def __init__(self, port, period=0.2):
        super().__init__(daemon=True)
        self.port, self.period = port, period
        self.stop = threading.Event()
        self.samples = []

    def run(self):
        while not self.stop.is_set():
            t = time.monotonic()
            st, _, body, err = exchange(self.port, req(b"GET", b"/"), timeout=3.0)
            dt = time.monotonic() - t
            self.samples.append((dt, st == 200 and b"</html>" in body, st, err))
            self.stop.wait(max(0.0, self.period - dt))

    def window(self, t0):
        return [s for s in self.samples[t0:]]


def idle_conn(port, src, slow):
    """One idle connection: silent, or a request that never ends ("slowloris"); None if refused."""
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.settimeout(2.0)
    try:
        c.bind((src, 0))
        c.connect((HOST, port))
        if slow:
            c.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        c.setblocking(False)
        return c
    except OSError:
        c.close()
        return None


def still_open(c):
    try:
        return c.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def hold_idle(port, n, sources, hold):
    """Hold n idle connections for hold seconds, reopening any the server closes (an attacker
    would), while a normal client fetches / about once a second (3 s timeout).  Returns
    (fetches as (seconds, ok, status, err), most connections seen open at a check, reopened)."""
    conns = [idle_conn(port, sources[i % len(sources)], i % 2) for i in range(n)]
    fetches, most, reopened = [], 0, 0
    end = time.monotonic() + hold
    while True:
        open_ = 0
        for i, c in enumerate(conns):
            if c is not None and still_open(c):
                open_ += 1
                continue
            if c is not None:
                c.close()
            conns[i] = idle_conn(port, sources[i % len(sources)], i % 2)
            reopened += 1
        most = max(most, open_)
        t = time.monotonic()
        st, _, body, err = exchange(port, req(b"GET", b"/"), timeout=3.0)
        fetches.append((time.monotonic() - t, st == 200 and b"</html>" in body, st, err))
        if time.monotonic() >= end and len(fetches) >= 5:
            break
        time.sleep(max(0.0, min(1.0, end - time.monotonic())))
    for c in conns:
        if c is not None:
            c.close()
    return fetches, most, reopened


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--name", default="hostile_http.py")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--requests", type=int, default=1200)
    ap.add_argument("--idle", type=int, default=500)
    ap.add_argument("--hold", type=float, default=3.0)
    a = ap.parse_args()
    name = a.name
    fails = 0

    def report(ok, msg):
        nonlocal fails
        print("%s: %s: %s" % ("PASS" if ok else "FAIL", name, msg), flush=True)
        fails += 0 if ok else 1

    rng = random.Random(a.seed)
    print("seed %d" % a.seed, flush=True)
    st, _, body, err = exchange(a.port, req(b"GET", b"/"))
    if st != 200:
        report(False, "server not answering / before the attack (%s %s)" % (st, err))
        return 1

    # The normal client alone first: what / costs on this machine now, without an attack (a loaded
    # make test made it 0.3 s and more), so the attack is judged by what it adds, not by the host.
    base = Monitor(a.port)
    base.start()
    time.sleep(3)
    base.stop.set()
    base.join()
    base_worst = max(s[0] for s in base.samples) if base.samples else 0.0
    allow = max(1.0, 3 * base_worst)
    print("normal client alone: %d fetches of /, worst %.3f s; allowed during the attack: %.3f s"
          % (len(base.samples), base_worst, allow), flush=True)

    # Phase 1: hostile requests, 8 at a time, with the monitor running.
    mon = Monitor(a.port)
    mon.start()
    res = Result()
    cs = cases(rng, a.requests)
    rng.shuffle(cs)
    t = time.monotonic()
    with ThreadPoolExecutor(max_workers=8) as ex:
        list(ex.map(lambda c: run_case(a.port, c, res), cs))
    dt = time.monotonic() - t
    by_cat = {}
    for c in cs:
        by_cat[c[0]] = by_cat.get(c[0], 0) + 1
    print("phase 1: %d requests in %.1f s; by category %s; statuses %s" % (
        res.n, dt, dict(sorted(by_cat.items())), dict(sorted(res.statuses.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)))),
        flush=True)
    for f in res.fails[:40]:
        print("    " + f)
    if res.closed:
        print("    %d malformed requests were answered by closing the connection (allowed: RFC 9112 2.2 says SHOULD 400), e.g. %r"
              % (len(res.closed), res.closed[:3]))
    report(res.n >= 1000, "%d hostile requests sent (>= 1000)" % res.n)
    report(not res.fails, "every hostile request got its 4xx (405 with Allow; 400/404/414/431/505), none a 5xx: %d problems"
           % len(res.fails))
    p1 = mon.samples[:]
    worst = max(s[0] for s in p1) if p1 else 99
    bad = [s for s in p1 if not s[1] or s[0] > allow]
    report(p1 and not bad, "normal client during phase 1: %d fetches of /, worst %.3f s, %d failed or > %.3f s (alone: %.3f s)"
           % (len(p1), worst, len(bad), allow, base_worst))

    # RFC MUSTs the server does not enforce, reported (harmless for a read-only loopback server).
    notes = []
    c12 = exchange(a.port, req(b"GET", b"/", version=b"HTTP/1.2"))[0]
    report(c12 == 200, "HTTP/1.2 is served as 1.1 (RFC 9112 2.3): %s" % c12)
    for what, data in [("no Host in HTTP/1.1", b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n"),
                       ("two Host headers", b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n"),
                       ("raw NUL inside the target", b"GET /runs/1\x00<script> HTTP/1.1\r\n" + H + b"\r\n"),
                       ("a header with an empty name", req(b"GET", b"/", b": novalue\r\n")),
                       ("two different Content-Lengths", req(b"GET", b"/", b"Content-Length: 1\r\nContent-Length: 2\r\n", body=b"xx")),
                       ("Transfer-Encoding without chunked last", req(b"GET", b"/", b"Transfer-Encoding: gzip\r\n"))]:
        st, _, _, err = exchange(a.port, data)
        if st != 400:
            notes.append("%s -> %s" % (what, st or err))
    if notes:
        print("note: RFC 9112 says 400 for these, the server answers otherwise: " + "; ".join(notes))

    # Phase 2: idle connections, from other loopback addresses, then from the client's own;
    # while they are held, the normal client fetches / five times (3 s timeout each).
    mon.stop.set()
    mon.join()
    for label, sources in [("from 127.0.0.2-9", ["127.0.0.%d" % i for i in range(2, 10)]), ("from 127.0.0.1", [HOST])]:
        w, most, reopened = hold_idle(a.port, a.idle, sources, a.hold)
        worst = max(x[0] for x in w)
        bad = [x for x in w if not x[1] or x[0] > allow]
        print("phase 2 %s: %d idle connections held %.0f s (up to %d open at a check; %d reopened after the server closed them); normal client: %s"
              % (label, a.idle, a.hold, most, reopened, [(round(x[0], 3), x[2] or x[3]) for x in w][:12]), flush=True)
        report(not bad, "%d idle connections %s: a normal client got / within %.3f s (%d of %d; worst %.3f s)"
               % (a.idle, label, allow, len(w) - len(bad), len(w), worst))
        time.sleep(0.5)
    st, _, body, err = exchange(a.port, req(b"GET", b"/"))
    report(st == 200, "server answers / after the attack (%s)" % (st or err))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
