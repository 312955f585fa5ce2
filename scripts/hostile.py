"""Hostile clients against a live catalogd on loopback (driven by scripts/hostile).

Starts the fake upstream and `catalogd serve`, waits for both start-up imports, then
  1. runs schemathesis (every check, one worker, a bounded number of examples) against openapi.yaml;
  2. runs hand-written hostile requests, each asserting a concrete answer: oversized headers and
     bodies, deeply nested JSON, SQL metacharacters / NUL / invalid UTF-8 in every query parameter,
     path traversal, absurd page sizes and forged cursors, slow clients (slowloris) and many idle
     connections.
Every error answer must be application/problem+json with Cache-Control: no-store and must not leak
SQL, SQLite or Swift source text. Prints one table (check, result, detail); exits 1 on any FAIL. With --json FILE,
also writes the checks there as JSON, for a caller to read rather than scrape the table: {"checks": N, "failed": N,
"results": [{"check", "ok", "detail"}], "timings": {name: seconds}, "figures": {…}, "seconds": total}.

Every wait is bounded; every loop has a fixed count.
"""

import argparse
import base64
import json
import os
import random
import re
import resource
import selectors
import shutil
import socket
import statistics
import string
import subprocess
import sys
import tempfile
import time
import urllib.parse

from harness import Processes, free_port

TOKEN = "hostile-token"
# The server under test closes idle and slow connections after this many seconds (--idle-timeout);
# the slow-client window waits three times as long.
IDLE_TIMEOUT = 10
HOST = "127.0.0.1"
LEAK = re.compile(r"SELECT|INSERT|UPDATE |DELETE FROM|sqlite|SQLITE_|\.swift|Fatal error|backtrace|stack trace|"
                  r"syntax error|near \"", re.IGNORECASE)
MAX_BODY = 32 * 1024 * 1024  # catalogd's default --max-body

results = []  # (check, ok, detail)


def record(check, ok, detail=""):
    results.append((check, ok, detail))
    mark = "pass" if ok else "FAIL"
    print(f"  [{mark}] {check}: {detail}"[:2000], flush=True)


# ---------------------------------------------------------------------------------------------
# Raw HTTP/1.1 over a socket: any bytes in the request line, every wait bounded.

class Answer:
    def __init__(self, status, headers, body, closed_early=False, error=None):
        self.status = status        # int, or None when the server closed / reset without an answer
        self.headers = headers      # lower-case name -> value
        self.body = body
        self.closed_early = closed_early
        self.error = error

    def __repr__(self):
        if self.status is None:
            return f"no answer ({self.error or 'closed'})"
        return f"{self.status} {self.headers.get('content-type', '-')} {self.body[:160]!r}"


def parse_answer(data, head_only=False):
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    try:
        status = int(lines[0].split(b" ")[1])
    except (IndexError, ValueError):
        return Answer(None, {}, data, error=f"unparseable answer {data[:80]!r}")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    if head_only:
        return Answer(status, headers, b"")
    if "content-length" in headers:
        rest = rest[:int(headers["content-length"])]
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        body, pos = b"", 0
        for _ in range(100_000):
            end = rest.find(b"\r\n", pos)
            if end < 0:
                break
            size = int(rest[pos:end].split(b";")[0] or b"0", 16)
            if size == 0:
                break
            body += rest[end + 2:end + 2 + size]
            pos = end + 2 + size + 2
        rest = body
    return Answer(status, headers, rest)


def complete(data, head_only):
    if b"\r\n\r\n" not in data:
        return False
    answer = parse_answer(data, head_only=True)
    if head_only or answer.status is None or answer.status in (204, 304):
        return True
    head_len = data.index(b"\r\n\r\n") + 4
    if "content-length" in answer.headers:
        return len(data) - head_len >= int(answer.headers["content-length"])
    if answer.headers.get("transfer-encoding", "").lower() == "chunked":
        return data.endswith(b"0\r\n\r\n")
    return False


def exchange(port, request, timeout=10, head_only=False):
    """Sends request bytes (Connection: close is added by callers) and reads one answer."""
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((HOST, port), timeout=timeout)
    except OSError as e:
        return Answer(None, {}, b"", error=f"connect: {e}")
    data = b""
    error = None
    with sock:
        try:
            sock.sendall(request)
        except OSError as e:
            error = f"send: {e.__class__.__name__}"
        for _ in range(100_000):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                error = error or "timeout"
                break
            sock.settimeout(remaining)
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                error = error or "timeout"
                break
            except OSError as e:
                error = error or f"recv: {e.__class__.__name__}"
                break
            if not chunk:
                break
            data += chunk
            if complete(data, head_only):
                break
    if not data:
        return Answer(None, {}, b"", error=error or "closed")
    return parse_answer(data, head_only)


def http(port, method, target, headers=None, body=None, timeout=10):
    """target is sent as is (already percent-encoded by the caller)."""
    if isinstance(target, str):
        target = target.encode("latin-1")
    lines = [method.encode() + b" " + target + b" HTTP/1.1", b"Host: 127.0.0.1:%d" % port, b"Connection: close"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}".encode("latin-1"))
    if body is not None:
        lines.append(b"Content-Length: %d" % len(body))
    request = b"\r\n".join(lines) + b"\r\n\r\n" + (body or b"")
    return exchange(port, request, timeout=timeout, head_only=(method == "HEAD"))


def auth(extra=None):
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    headers.update(extra or {})
    return headers


def echoes(target):
    """The decoded parts of a request target: a detail may quote them back without leaking anything."""
    if isinstance(target, bytes):
        target = target.decode("latin-1")
    path, _, query = target.partition("?")
    parts = [urllib.parse.unquote(path, errors="replace")]
    for pair in query.split("&"):
        for piece in pair.split("=", 1):
            parts.append(urllib.parse.unquote(piece, errors="replace"))
    quoted = [json.dumps(p)[1:-1] for p in parts]
    return sorted({p for p in parts + quoted if p}, key=len, reverse=True)


def leaks(text, echo=()):
    for part in echo:
        text = text.replace(part, "")
    found = LEAK.search(text)
    return found.group(0) if found else None


def problem_issues(answer, expected_parameter=None, echo=()):
    """Why an error answer is not a proper, non-leaking problem (empty when it is)."""
    issues = []
    content_type = answer.headers.get("content-type", "")
    if not content_type.startswith("application/problem+json"):
        issues.append(f"Content-Type {content_type or 'missing'!r}")
    if "no-store" not in answer.headers.get("cache-control", ""):
        issues.append("no Cache-Control: no-store")
    text = answer.body.decode("utf-8", "replace")
    try:
        problem = json.loads(text)
        missing = [k for k in ("type", "title", "status", "detail") if k not in problem]
        if missing:
            issues.append(f"problem lacks {missing}")
        elif problem["status"] != answer.status:
            issues.append(f"problem status {problem['status']} != {answer.status}")
        if expected_parameter and problem.get("type", "").endswith("/invalid-parameter") \
                and problem.get("parameter") != expected_parameter:
            issues.append(f"parameter {problem.get('parameter')!r}, expected {expected_parameter!r}")
    except ValueError:
        issues.append("body is not JSON")
    leak = leaks(text, echo)
    if leak:
        issues.append(f"body leaks {leak!r}")
    return issues


def judge(answer, allowed, parameter=None, echo=()):
    """None when the answer is acceptable, else why not. allowed: statuses; 'closed' allows no answer;
    'parser' allows the HTTP parser's own bare 400 (no body, connection closed) for bytes that are not HTTP."""
    if answer.status is None:
        return None if "closed" in allowed else f"no answer ({answer.error})"
    if "parser" in allowed and answer.status == 400 and not answer.body:
        return None
    if answer.status not in allowed:
        return f"status {answer.status}, expected {sorted(s for s in allowed if s != 'closed')}: {answer.body[:200]!r}"
    if answer.status >= 400:
        issues = problem_issues(answer, parameter, echo)
        if issues:
            return f"{answer.status} {'; '.join(issues)}: {answer.body[:200]!r}"
    elif answer.status != 200 and leaks(answer.body.decode("utf-8", "replace"), echo):
        return f"{answer.status} body leaks: {answer.body[:200]!r}"
    return None


def alive(port, timeout=5):
    answer = http(port, "GET", "/healthz", timeout=timeout)
    return answer.status == 200


def batch(name, cases, port):
    """cases: (label, method, target, headers, body, allowed, parameter). One row per batch, naming every miss."""
    misses = []
    for label, method, target, headers, body, allowed, parameter in cases:
        answer = http(port, method, target, headers, body)
        why = judge(answer, allowed, parameter, echoes(target))
        if why:
            misses.append(f"{label} -> {why}")
    detail = f"{len(cases)} requests" + (f", {len(misses)} bad: " + " | ".join(misses[:12]) if misses else "")
    if len(misses) > 12:
        detail += f" | ... {len(misses) - 12} more"
    record(name, not misses, detail)
    for miss in misses:
        print(f"      {miss}"[:600])
    return misses


# ---------------------------------------------------------------------------------------------
# The checks.

def oversized_headers(port):
    """A request head is read up to SwiftNIO's limit (80 KiB); a larger one is refused by the HTTP parser
    with a bare 400 and the connection closed (docs/guarantees.md). Either way the server serves on."""
    for label, size, allowed in (("64 KiB", 64 * 1024, {200}), ("1 MiB", 1024 * 1024, {"parser", "closed"})):
        request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * size + b"\r\nConnection: close\r\n\r\n"
        answer = exchange(port, request)
        why = judge(answer, allowed)
        still = alive(port)
        record(f"one {label} header -> {'200' if 200 in allowed else 'bare 400 or closed'}, then still serving",
               why is None and still, (why or repr(answer)) + ("" if still else "; /healthz then failed"))
    request = (b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(10_000))
               + b"Connection: close\r\n\r\n")
    answer = exchange(port, request)
    why = judge(answer, {"parser", "closed"})
    still = alive(port)
    record("10,000 headers -> bare 400 or closed, then still serving", why is None and still,
           (why or repr(answer)) + ("" if still else "; /healthz then failed"))
    # A long Authorization header on a write: 401 (or 431 / closed), never a 5xx.
    answer = http(port, "PUT", "/products/HOSTILE-AUTH", {"Authorization": "Bearer " + "x" * 60_000,
                                                          "Content-Type": "application/json"},
                  b'{"name":"x","category":"c","price":"1"}')
    why = judge(answer, {401, 431, "closed"})
    record("60 KB bearer token -> 401", why is None, why or repr(answer))


def webhook_bodies(port):
    """POST /webhooks with what a subscription must not be: each a 400 problem naming the field, and nothing kept. Only
    addresses are given, never names: the check resolves a URL's host, and this run makes no lookup off this host
    (which is also why schemathesis leaves POST /webhooks out, below)."""
    cases = [
        (b'not json', None),
        (b'{"url": 5}', "url"),
        (b'{"url": "gopher://127.0.0.1/"}', "url"),
        (b'{"url": "http://"}', "url"),
        (b'{"url": "http://127.0.0.1:9/hook"}', "url"),
        (b'{"url": "http://[::1]/"}', "url"),
        (b'{"url": "http://169.254.169.254/latest/meta-data/"}', "url"),
        (b'{"url": "http://[::ffff:10.0.0.1]/"}', "url"),
        (b'{"url": "http://10.0.0.1/", "entities": ["planets"]}', "url"),
        (b'{"url": "http://10.0.0.1/", "since": "0"}', "since"),
        (b'{"url": "http://10.0.0.1/", "entities": "product"}', "entities"),
        (b'{"url": "http://10.0.0.1/", "since": -3}', "since"),
    ]
    wrong = []
    for body, field in cases:
        answer = http(port, "POST", "/webhooks", auth(), body)
        problem = json.loads(answer.body) if answer.status == 400 and answer.body else {}
        if answer.status != 400 or (field and problem.get("parameter") != field):
            wrong.append(f"{body!r} -> {answer.status} {problem.get('parameter')}")
    kept = http(port, "GET", "/webhooks", auth())
    count = json.loads(kept.body)["count"] if kept.status == 200 else None
    record(f"POST /webhooks: {len(cases)} bad subscriptions -> 400 naming the field, none kept", not wrong and count == 0,
           "; ".join(wrong) or f"{count} kept")


def token_timing(port, pairs=300):
    """A wrong secret that shares all but its last character with a real one takes as long to refuse as an unrelated
    one: secrets are looked up by their hash, never compared byte by byte. Measured in alternating pairs, medians
    compared; the bootstrap secret and a named token alike."""
    answer = http(port, "POST", "/tokens", auth(), b'{"name": "hostile-timing", "scopes": ["products:write"]}')
    record("POST /tokens with the bootstrap secret -> 201 with a catd_ secret", answer.status == 201, repr(answer))
    if answer.status != 201:
        return
    named = json.loads(answer.body)["secret"]
    for label, real in (("named token", named), ("bootstrap secret", TOKEN)):
        near = real[:-1] + ("A" if real[-1] != "A" else "B")
        unrelated = "catd_" + "".join(random.choice(string.ascii_letters) for _ in range(len(real) - 5))
        times = {near: [], unrelated: []}
        statuses = set()
        for index in range(pairs):
            for secret in ((near, unrelated) if index % 2 == 0 else (unrelated, near)):
                started = time.perf_counter()
                answer = http(port, "DELETE", "/products/HOSTILE-TIMING", {"Authorization": f"Bearer {secret}"})
                times[secret].append(time.perf_counter() - started)
                statuses.add(answer.status)
        near_ms, unrelated_ms = (statistics.median(times[secret]) * 1000 for secret in (near, unrelated))
        close = abs(near_ms - unrelated_ms) <= max(0.25 * unrelated_ms, 0.05)
        record(f"{label}: a wrong secret sharing all but its last character is refused as fast as an unrelated one",
               close and statuses == {401},
               f"median {near_ms:.3f} ms against {unrelated_ms:.3f} ms over {pairs} pairs; statuses {sorted(statuses)}")


def long_urls(port):
    """Long query values: 200, 400, 414 or 431 (or closed), never 5xx."""
    cases = []
    for path in ("/films", "/products", "/categories"):
        for label, value in (("search of 60,000 'a'", "a" * 60_000), ("search of 49,999 'a'", "a" * 49_999),
                             ("search of 25,000 '%'", "%25" * 25_000), ("search of 30,000 '_'", "_" * 30_000)):
            cases.append((f"GET {path}?{label}", "GET", f"{path}?search={value}", None, None,
                          {200, 400, 414, 431, "closed"}, "search"))
    for path, param in (("/products", "category"), ("/products", "brand"), ("/films", "director")):
        cases.append((f"GET {path}?{param}=<60,000 chars>", "GET", f"{path}?{param}={'b' * 60_000}", None, None,
                      {200, 400, 414, 431, "closed"}, param))
    batch("long query values (search, filters) -> 200/400/414/431, never 5xx", cases, port)


def oversized_bodies(port):
    # PUT with a declared Content-Length over --max-body: the body streams until the server answers.
    for label, chunked in (("Content-Length", False), ("chunked", True)):
        size = MAX_BODY + 1024
        head = (f"PUT /products/HOSTILE-BIG HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
                f"Content-Type: application/json\r\nConnection: close\r\n"
                + ("Transfer-Encoding: chunked\r\n" if chunked else f"Content-Length: {size}\r\n") + "\r\n").encode()
        started = time.monotonic()
        data, sent, error = b"", 0, None
        try:
            sock = socket.create_connection((HOST, port), timeout=10)
        except OSError as e:
            record(f"oversized body ({label}) -> 413", False, f"connect: {e}")
            continue
        with sock:
            sock.sendall(head)
            piece = b"[" + b" " * (256 * 1024 - 1)
            sock.setblocking(False)
            for _ in range(size // len(piece) + 2):
                if time.monotonic() - started > 60:
                    error = "gave up after 60 s"
                    break
                try:
                    got = sock.recv(65536)
                    if not got:
                        break
                    data += got
                    break  # the server answered before the body was complete
                except BlockingIOError:
                    pass
                except OSError as e:
                    error = f"recv: {e.__class__.__name__}"
                    break
                if sent >= size:
                    break
                chunk = piece[:size - sent]
                frame = (b"%x\r\n" % len(chunk) + chunk + b"\r\n") if chunked else chunk
                try:
                    sock.setblocking(True)
                    sock.settimeout(10)
                    sock.sendall(frame)
                    sock.setblocking(False)
                    sent += len(chunk)
                except OSError as e:
                    error = f"send after {sent} bytes: {e.__class__.__name__}"
                    break
            if chunked and sent >= size and not data:
                try:
                    sock.setblocking(True)
                    sock.sendall(b"0\r\n\r\n")
                except OSError:
                    pass
            sock.setblocking(True)
            sock.settimeout(10)
            for _ in range(1000):
                if complete(data, False):
                    break
                try:
                    got = sock.recv(65536)
                except OSError as e:
                    error = error or f"recv: {e.__class__.__name__}"
                    break
                if not got:
                    break
                data += got
        answer = parse_answer(data) if data else Answer(None, {}, b"", error=error or "closed")
        why = judge(answer, {413})
        record(f"oversized body ({label}, {size} bytes) on PUT /products/X -> 413 problem+json", why is None,
               (why or repr(answer)) + f"; server read {sent} bytes before answering in {time.monotonic() - started:.1f} s")
    # POST /imports takes at most 64 KiB.
    body = b'{"source":"films","pad":"' + b"x" * (70 * 1024) + b'"}'
    answer = http(port, "POST", "/imports", auth(), body)
    why = judge(answer, {413})
    record("POST /imports with a 70 KiB body -> 413 problem+json", why is None, why or repr(answer))


def hostile_bodies(port):
    cases = []
    for label, body in (("100,000 nested arrays", b"[" * 100_000),
                        ("100,000 nested objects", b'{"a":' * 100_000),
                        ("1,000,000 nested arrays", b"[" * 1_000_000),
                        ("NUL bytes", b'{"name":"a\x00b","category":"c","price":"1"}'),
                        ("invalid UTF-8", b'{"name":"\xff\xfe","category":"c","price":"1"}'),
                        ("lone surrogate escape", b'{"name":"\\ud800","category":"c","price":"1"}'),
                        ("number 1e999999", b'{"name":"a","category":"c","price":1e999999}'),
                        ("price of 10,000 digits", b'{"name":"a","category":"c","price":"' + b"9" * 10_000 + b'"}'),
                        ("stock 2^64", b'{"name":"a","category":"c","price":"1","stock":18446744073709551616}'),
                        ("truncated", b'{"name":"a","categ'),
                        ("empty", b"")):
        cases.append((f"PUT /products/HOSTILE-BODY ({label})", "PUT", "/products/HOSTILE-BODY", auth(), body,
                      {200, 201, 400, 422}, None))
        cases.append((f"POST /products ({label})", "POST", "/products", auth(), body, {200, 400, 422}, None))
    cases.append(("PUT /films/99 (100,000 nested arrays)", "PUT", "/films/99", auth(), b"[" * 100_000, {400, 422}, None))
    cases.append(("POST /imports (100,000 nested arrays)", "POST", "/imports", auth(), b"[" * 60_000, {400}, None))
    batch("hostile JSON bodies (deep nesting, NUL, bad UTF-8, huge numbers) -> 4xx problem, never 5xx", cases, port)
    still = alive(port)
    record("server alive after hostile bodies", still, "/healthz 200" if still else "/healthz failed")


def exports(port):
    """The lists' exports: each format of each list answers 200 with its media type, and paging one, or exporting
    anything but a list, is a 400 problem naming the parameter (what the schemathesis run leaves to this check)."""
    misses = []
    for target, media in (("/products?format=ndjson&ordering=-price", "application/x-ndjson"),
                          ("/products?format=csv&search=hostile", "text/csv"), ("/films?format=csv", "text/csv"),
                          ("/categories?format=ndjson&ordering=-product_count", "application/x-ndjson")):
        answer = http(port, "GET", target)
        if answer.status != 200 or not answer.headers.get("content-type", "").startswith(media):
            misses.append(f"GET {target} -> {answer.status} {answer.headers.get('content-type')}: {answer.body[:120]!r}")
    if misses:
        record("exports: each list in each format -> 200 with its media type", False, " | ".join(misses))
    else:
        record("exports: each list in each format -> 200 with its media type", True, "4 exports")
    cases = [(f"GET {target}", "GET", target, None, None, {400}, parameter) for target, parameter in (
        ("/products?format=csv&page_size=5", "page_size"), ("/films?format=ndjson&cursor=abc", "cursor"),
        ("/categories?format=csv&page_size=1&cursor=x", "cursor"), ("/products/HOSTILE%20SPACE?format=csv", "format"),
        ("/changes?format=ndjson", "format"), ("/products?format=xml", "format"))]
    batch("exports: paging one, or exporting what is no list -> 400 problem+json naming the parameter", cases, port)


def bad_ids(port):
    cases = []
    for target in ("/products/..%2F..%2Fetc%2Fpasswd", "/products/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
                   "/products/../../etc/passwd", "/films/../../x", "/films/..%2F..%2Fx", "/films/%2e%2e",
                   "/categories/..%2F..%2Fetc%2Fpasswd", "/categories/../../etc/passwd", "/imports/..%2F1",
                   "/imports/../../etc/passwd", "/openapi.yaml/../../../etc/passwd", "//etc/passwd",
                   "/products/%5C..%5C..%5Cwindows", "/films/1%2F..%2F..%2F", "/products/%00", "/products/a%00b",
                   "/films/%00", "/imports/%00", "/categories/%00", "/products/%FF%FE", "/categories/%FF%FE",
                   "/films/%FF", "/imports/%C0%AF", "/products/" + "A" * 5000, "/categories/" + "%25" * 3000):
        cases.append((f"GET {target[:60]}", "GET", target, None, None, {400, 404}, None))
    cases.append(("GET /films/99999999999999999999", "GET", "/films/99999999999999999999", None, None, {400, 404}, None))
    cases.append(("GET /films/-1", "GET", "/films/-1", None, None, {400, 404}, None))
    cases.append(("GET /imports/0x10", "GET", "/imports/0x10", None, None, {400, 404}, None))
    misses = batch("path traversal / NUL / bad UTF-8 in ids -> 404 or 400 problem+json", cases, port)
    answer = http(port, "GET", "/products/..%2F..%2Fetc%2Fpasswd")
    leaked = b"root:" in answer.body
    record("path traversal reads no file", not leaked, "no 'root:' in any answer" if not leaked else repr(answer))
    # Path ids are percent-decoded: what a PUT stores, and every url the service hands out, round-trips.
    misses = []
    body = b'{"name":"Round trip","category":"Hostile Decor \xc3\xa9","price":"1"}'
    answer = http(port, "PUT", "/products/HOSTILE%20SPACE", auth(), body)
    stored = json.loads(answer.body) if answer.status in (200, 201) else {}
    if stored.get("serial_code") != "HOSTILE SPACE":
        misses.append(f"PUT /products/HOSTILE%20SPACE stored serial_code {stored.get('serial_code')!r} "
                      f"(status {answer.status}), expected 'HOSTILE SPACE'")
    answer = http(port, "POST", "/products", auth(),
                  b'[{"serial_code":"HOSTILE \xc3\xa9 BATCH","name":"Round trip","category":"Hostile Decor \xc3\xa9","price":"1"}]')
    listed = http(port, "GET", "/products?page_size=10&category=" + urllib.parse.quote("Hostile Decor \u00e9"))
    for product in (json.loads(listed.body)["results"] if listed.status == 200 else []):
        got = http(port, "GET", urllib.parse.urlsplit(product["url"]).path)
        if got.status != 200:
            misses.append(f"product {product['serial_code']!r}: GET of its own url {product['url']} -> {got.status} {got.body[:120]!r}")
    categories = http(port, "GET", "/categories?search=" + urllib.parse.quote("hostile decor"))
    for category in (json.loads(categories.body)["results"] if categories.status == 200 else []):
        got = http(port, "GET", urllib.parse.urlsplit(category["url"]).path)
        if got.status != 200:
            misses.append(f"category {category['name']!r}: GET of its own url {category['url']} -> {got.status} {got.body[:120]!r}")
    if listed.status != 200 or categories.status != 200:
        misses.append(f"could not list: products {listed.status}, categories {categories.status}")
    record("percent-encoded ids round-trip (PUT /products/a%20b stores 'a b'; every url answers 200)", not misses,
           " | ".join(misses) or "ok")
    # Writes with control characters, a '/', or over 200 bytes in the key are refused.
    cases = []
    for target in ("/products/a%00b", "/products/a%0Ab", "/products/a%2Fb", "/products/%7F", "/products/" + "K" * 201,
                   "/products/..%2F..%2Fetc%2Fpasswd"):
        cases.append((f"PUT {target[:50]}", "PUT", target, auth(), b'{"name":"x","category":"c","price":"1"}',
                      {400, 404, 422}, None))
    batch("PUT /products/<%00, %0A, %2F, %7F, 201 bytes, ..%2F> -> 400/404/422 (not stored)", cases, port)


QUERY_PARAMS = {
    "/films": ["search", "director", "ordering", "page_size", "cursor"],
    "/products": ["search", "category", "brand", "min_price", "max_price", "in_stock", "ordering", "page_size", "cursor"],
    "/categories": ["search", "ordering", "page_size", "cursor"],
    "/changes": ["since", "limit", "entity", "feed", "timeout"],
    "/imports": ["ordering", "page_size", "cursor"],
}
PAYLOADS = ["'", "%27%20OR%201%3D1%20--", "%22%3B%20DROP%20TABLE%20products%3B%20--", "1%27%20UNION%20SELECT%20sqlite_version()--",
            "%25", "_", "%5C", "%5B", "*", "%00", "a%00b", "%00%27--", "%FF%FE", "%C0%AF", "%ED%A0%80", "%F4%90%80%80",
            "1e999", "-1", "NaN", "0x10", "%20", "", "a" * 1000, "%0D%0AX-Injected:%201"]


def query_params(port):
    """SQL metacharacters, NUL and bad UTF-8 in every query parameter: answered, never a 5xx."""
    cases = []
    for path, params in QUERY_PARAMS.items():
        for param in params:
            # A cursor that names no page is a 404 (unknown-cursor); any other bad value a 400.
            answers = {200, 404} if param == "cursor" else {200, 400}
            for payload in PAYLOADS:
                target = f"{path}?{param}={payload}"
                if param == "feed":  # a valid feed stays open; timeout bounds the long poll if one is accepted
                    target += "&timeout=0"
                cases.append((f"GET {target[:80]}", "GET", target, None, None, answers, param))
            cases.append((f"GET {path}?{param}=1&{param}=2", "GET", f"{path}?{param}=1&{param}=2", None, None, answers, param))
        cases.append((f"GET {path}?%FF%FE=1", "GET", f"{path}?%FF%FE=1", None, None, {200, 400}, None))
        cases.append((f"GET {path}?%00=1", "GET", f"{path}?%00=1", None, None, {200, 400}, None))
        cases.append((f"GET {path}?&&&==&", "GET", f"{path}?&&&==&", None, None, {200, 400}, None))
        cases.append((f"GET {path}?a=%", "GET", f"{path}?a=%", None, None, {200, 400}, None))
        cases.append((f"GET {path}?search=%G0", "GET", f"{path}?search=%G0", None, None, {200, 400}, None))
    batch("SQL metacharacters / NUL / bad UTF-8 in every query parameter -> 200, 400 or 404 (cursor) problem+json", cases, port)
    # Raw (not percent-encoded) bytes in the request line.
    cases = []
    for path in QUERY_PARAMS:
        for raw in (b"?search=\xff\xfe", b"?search=\x80", b"?search='\x00", b"?search=a\tb"):
            cases.append((f"GET {path}{raw!r}", "GET", path.encode() + raw, None, None, {200, 400, "parser", "closed"}, "search"))
    batch("raw bytes (0xFF, 0x80, NUL, tab) in the request line -> 200, 400 or the parser's bare 400", cases, port)


def injection_semantics(port):
    """SQL and LIKE metacharacters in filters are data: the counts match a client-side substring match."""
    answer = http(port, "GET", "/products?page_size=1000")
    if answer.status != 200:
        record("LIKE/SQL metacharacters match literally", False, f"could not list products: {answer!r}")
        return
    products = json.loads(answer.body)["results"]
    misses = []
    for needle in ("%", "_", "\\", "'", "' OR 1=1 --", "a%e", "S_U", "[a-z]", "*"):
        expected = sum(1 for p in products if any(needle.lower() in (p.get(k) or "").lower()
                                                   for k in ("name", "description", "brand")))
        got = http(port, "GET", "/products?page_size=1&search=" + urllib.parse.quote(needle, safe=""))
        count = json.loads(got.body)["count"] if got.status == 200 else None
        if count != expected:
            misses.append(f"search={needle!r}: count {count} (status {got.status}), expected {expected}")
    for param in ("category", "brand"):
        got = http(port, "GET", f"/products?page_size=1&{param}=" + urllib.parse.quote("x' OR '1'='1", safe=""))
        count = json.loads(got.body)["count"] if got.status == 200 else None
        if count != 0:
            misses.append(f"{param}=x' OR '1'='1: count {count} (status {got.status}), expected 0")
    got = http(port, "GET", "/films?director=" + urllib.parse.quote("x' OR '1'='1", safe=""))
    count = json.loads(got.body)["count"] if got.status == 200 else None
    if count != 0:
        misses.append(f"films director=x' OR '1'='1: count {count}, expected 0")
    record("LIKE/SQL metacharacters in filters match literally (counts checked)", not misses,
           "; ".join(misses) or "12 filters, counts as expected")


def b64(value):
    raw = value if isinstance(value, bytes) else json.dumps(value, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def paging(port):
    cases = []
    for path in ("/films", "/products", "/categories", "/imports"):
        for size in ("-1", "0", "1001", "99999999999999999999", "1.5", "abc", "1e3", "0x10", "%00", "%FF"):
            cases.append((f"GET {path}?page_size={size}", "GET", f"{path}?page_size={size}", None, None, {400}, "page_size"))
        garbage = [("garbage", "!!!not-a-cursor!!!"), ("plain word", "abc"), ("huge base64", b64(os.urandom(45_000))),
                   ("base64 of non-JSON", b64(b"\x00\xff\xfe hello")), ("base64 of []", b64([])),
                   ("base64 of null", b64(None)), ("base64 of 42", b64(42)), ("base64 of {}", b64({})),
                   ("base64 of {\"a\":1}", b64({"a": 1})),
                   ("cursor with SQL ordering", b64({"o": "name; DROP TABLE products; --", "d": "n", "v": "a", "k": "a"})),
                   ("cursor with unknown direction", b64({"o": "serial_code", "d": "x", "v": "a", "k": "a"})),
                   ("cursor with array value", b64({"o": "serial_code", "d": "n", "v": [1, 2], "k": {"x": 1}})),
                   ("cursor with 1e999", b64({"o": "price", "d": "n", "v": 1e308, "k": 1e308}).replace("MWUzMDg", "MWU5OTk")),
                   ("base64 with padding junk", "eyJvIjoi===="), ("NUL", "%00"), ("bad UTF-8", "%FF%FE")]
        for label, cursor in garbage:
            cases.append((f"GET {path}?cursor=<{label}>", "GET", f"{path}?cursor={cursor}", None, None, {404}, "cursor"))
        # A cursor of another list or another ordering names no page (404), never a 5xx.
        cases.append((f"GET {path}?cursor=<products cursor>", "GET",
                      f"{path}?cursor=" + b64({"o": "serial_code", "d": "n", "v": "SKU-000001", "k": "SKU-000001"}),
                      None, None, {200, 404} if path == "/products" else {404}, "cursor"))
    cases.append(("GET /products?ordering=price&cursor=<serial_code cursor>", "GET",
                  "/products?ordering=price&cursor=" + b64({"o": "serial_code", "d": "n", "v": "SKU-000001", "k": "SKU-000001"}),
                  None, None, {404}, "cursor"))
    cases.append(("GET /products?cursor=<price cursor with text value>", "GET",
                  "/products?ordering=price&cursor=" + b64({"o": "price", "d": "n", "v": "abc", "k": "x"}),
                  None, None, {200, 404}, "cursor"))
    for limit in ("-1", "0", "10001", "99999999999999999999"):
        cases.append((f"GET /changes?limit={limit}", "GET", f"/changes?limit={limit}", None, None, {400}, "limit"))
    for since in ("-1", "99999999999999999999", "abc"):
        cases.append((f"GET /changes?since={since}", "GET", f"/changes?since={since}", None, None, {400}, "since"))
    for timeout in ("-1", "120001", "99999999999999999999"):
        cases.append((f"GET /changes?feed=longpoll&timeout={timeout}", "GET", f"/changes?feed=longpoll&timeout={timeout}",
                      None, None, {400}, "timeout"))
    batch("absurd page_size / limit -> 400, forged cursors -> 404, problem+json naming the parameter", cases, port)
    # Parameters are validated before the conditional GET: a bad parameter is a 400 even with If-None-Match: *.
    cases = []
    for target, parameter in (("/products?ordering=bogus", "ordering"), ("/products?max_price=abc", "max_price"),
                              ("/films?page_size=0", "page_size"), ("/imports?ordering=bogus", "ordering")):
        cases.append((f"GET {target} with If-None-Match: *", "GET", target, {"If-None-Match": "*"}, None, {400}, parameter))
    cases.append(("GET /categories?cursor=garbage with If-None-Match: *", "GET", "/categories?cursor=garbage", {"If-None-Match": "*"},
                  None, {404}, "cursor"))
    batch("bad parameters with If-None-Match: * -> 400 or 404 (not 304)", cases, port)


def slow_and_idle(port, idle_target):
    """Slowloris and many idle connections in one bounded 60 s window; returns figures for the summary."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    count = max(0, min(idle_target, soft - 200))
    selector = selectors.DefaultSelector()
    opened_at = time.monotonic()
    idle = []
    refused = 0
    for _ in range(count):
        try:
            s = socket.create_connection((HOST, port), timeout=5)
        except OSError:
            refused += 1
            continue
        s.setblocking(False)
        idle.append(s)
    open_seconds = time.monotonic() - opened_at

    started = time.monotonic()
    answer = http(port, "GET", "/healthz", timeout=10)
    first_latency = time.monotonic() - started
    record(f"{len(idle)} idle connections, then a new request -> 200", answer.status == 200,
           f"{len(idle)} opened in {open_seconds:.1f} s ({refused} refused, ulimit -n {soft}); /healthz {answer!r} in {first_latency * 1000:.0f} ms")

    # Slow clients: a request line then one header byte every 2 s; a body byte every 2 s; keep-alive after a request.
    slow = {}

    def open_slow(kind, first):
        try:
            s = socket.create_connection((HOST, port), timeout=5)
            s.sendall(first)
            s.setblocking(False)
            slow[kind] = s
        except OSError as e:
            record(f"slow client ({kind})", False, f"could not start: {e}")

    open_slow("slow headers (slowloris)", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    open_slow("slow body", (f"PUT /products/HOSTILE-SLOW HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
                            f"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{").encode())
    open_slow("silent after connect", b"")
    open_slow("idle keep-alive after a request", b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    t0 = time.monotonic()
    for kind, s in slow.items():
        selector.register(s, selectors.EVENT_READ, ("slow", kind))
    for i, s in enumerate(idle):
        selector.register(s, selectors.EVENT_READ, ("idle", i))
    closed_at = {}       # key -> seconds after t0
    slow_answers = {}    # kind -> first bytes the server sent
    probe_latencies = []
    window = 3.0 * IDLE_TIMEOUT
    next_drip = t0 + 2
    next_probe = t0 + 10
    for _ in range(10_000):
        now = time.monotonic()
        if now - t0 >= window or (len(closed_at) == len(idle) + len(slow)):
            break
        for key, _ in selector.select(timeout=min(0.5, max(0.0, t0 + window - now))):
            kind, name = key.data
            try:
                data = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data and kind == "slow":
                slow_answers.setdefault(name, data[:120])
                continue
            if data:
                continue
            closed_at[(kind, name)] = time.monotonic() - t0
            selector.unregister(key.fileobj)
        now = time.monotonic()
        if now >= next_drip:
            next_drip += 2
            for kind, s in slow.items():
                if ("slow", kind) in closed_at or kind not in ("slow headers (slowloris)", "slow body"):
                    continue
                try:
                    s.send(b"a")
                except OSError:
                    closed_at[("slow", kind)] = now - t0
                    try:
                        selector.unregister(s)
                    except (KeyError, ValueError):
                        pass
        if now >= next_probe:
            next_probe += 10
            began = time.monotonic()
            ok = alive(port, timeout=5)
            probe_latencies.append((time.monotonic() - began) * 1000 if ok else None)
    elapsed = time.monotonic() - t0
    figures = {}
    for kind in slow:
        seconds = closed_at.get(("slow", kind))
        answer = slow_answers.get(kind, b"").split(b"\r\n")[0].decode("latin-1")
        figures[kind] = (f"closed by the server after {seconds:.1f} s" if seconds is not None
                         else f"still open after {elapsed:.0f} s") + (f" (answered {answer!r})" if answer else "")
        record(f"{kind}: the server drops it within {window:.0f} s", seconds is not None, figures[kind])
    idle_closed = sorted(v for (kind, _), v in closed_at.items() if kind == "idle")
    if idle_closed:
        figures["idle"] = (f"{len(idle_closed)} of {len(idle)} closed by the server within {elapsed:.0f} s "
                           f"(first after {idle_closed[0]:.1f} s, last after {idle_closed[-1]:.1f} s)")
    else:
        figures["idle"] = f"0 of {len(idle)} closed by the server within {elapsed:.0f} s"
    record(f"{len(idle)} idle connections: the server drops them within {window:.0f} s",
           len(idle_closed) == len(idle), figures["idle"])
    served = [p for p in probe_latencies if p is not None]
    record("other clients served while slow and idle clients hold connections",
           len(served) == len(probe_latencies) and probe_latencies,
           f"/healthz every 10 s: {', '.join('%.0f ms' % p if p is not None else 'FAILED' for p in probe_latencies)}")
    for s in list(slow.values()) + idle:
        s.close()
    selector.close()
    time.sleep(0.5)
    still = alive(port)
    record("server alive after the slow/idle clients leave", still, "/healthz 200" if still else "/healthz failed")
    return figures


# A long poll without `timeout` waits its documented 30 s for a change, longer than a case may take (--request-timeout):
# every generated long poll asks for 200 ms instead, so that each one is answered and checked, not timed out.
# A list's `cursor` and `page_size` do not apply to its exports (`format=ndjson` or `csv`), which are a 400 naming
# them, and OpenAPI has no way to say that two parameters do not go together: the generated lists are pages (`format`
# empty, JSON), and `exports` checks the export formats and those 400s by hand.
SCHEMATHESIS_CONFIG = """
[[operations]]
include-name = "GET /changes"
parameters = { "query.timeout" = 200 }

[[operations]]
include-name = "GET /products"
parameters = { "query.format" = "" }

[[operations]]
include-name = "GET /films"
parameters = { "query.format" = "" }

[[operations]]
include-name = "GET /categories"
parameters = { "query.format" = "" }

# A subscription's URL is resolved when it is made: generated URLs name hosts anywhere, and this run makes no lookup
# off this host. webhook_bodies checks the operation with addresses instead.
[[operations]]
include-name = "POST /webhooks"
enabled = false
"""


def run_schemathesis(schemathesis, base, spec, examples, seed, report_dir, log_path):
    config = os.path.join(os.path.abspath(os.path.dirname(report_dir)), "schemathesis.toml")
    with open(config, "w") as f:
        f.write(SCHEMATHESIS_CONFIG)
    command = [os.path.abspath(schemathesis), "--config-file", config, "run", os.path.abspath(spec), "--url", base, "--checks", "all", "--workers", "1",
               "--seed", str(seed), "--max-examples", str(examples), "--header", f"Authorization: Bearer {TOKEN}",
               "--request-timeout", "10", "--generation-database", "none", "--no-color",
               "--report", "junit", "--report-dir", os.path.abspath(report_dir)]
    print("$ " + " ".join(repr(c) if " " in c else c for c in command), flush=True)
    started = time.monotonic()
    with open(log_path, "w") as log:
        try:
            # schemathesis keeps a crash cache in .schemathesis/ of its working directory: keep it out of
            # the repository, and start each run without it so that --seed alone decides the cases.
            cache_home = os.path.dirname(report_dir)
            shutil.rmtree(os.path.join(cache_home, ".schemathesis"), ignore_errors=True)
            process = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, timeout=1800, cwd=cache_home)
            code = process.returncode
        except subprocess.TimeoutExpired:
            code = None
    seconds = time.monotonic() - started
    with open(log_path) as f:
        output = f.read()
    # One row per failing operation: check code, status and the curl line of every failing case.
    failures = {}
    current, case = None, None
    for line in output.splitlines():
        stripped = line.strip()
        m = re.match(r"^_+ (.+?) _+$", stripped)
        if m and m.group(1) not in ("FAILURES", "SUMMARY"):
            current = m.group(1)
            failures.setdefault(current, [])
            continue
        if stripped.startswith("=") and "SUMMARY" in stripped:
            current = None
        if current is None:
            continue
        if re.match(r"^\d+\. Test Case ID", stripped):
            case = {"checks": [], "status": "", "curl": ""}
            failures[current].append(case)
        elif case is not None and re.match(r"^- ST\d+", stripped):
            case["checks"].append(stripped[2:].split(" ")[0])
        elif case is not None and re.match(r"^\[\d{3}\]", stripped) and not case["status"]:
            case["status"] = stripped.split(" ")[0]
        elif case is not None and stripped.startswith("curl ") and not case["curl"]:
            case["curl"] = stripped
    summary = [l.strip(" =") for l in output.splitlines() if re.search(r"\d+ generated|^=+ .*(passed|failed|error).* in [\d.]+s", l)]

    unexpected = {operation: cases for operation, cases in failures.items() if cases}
    record(f"schemathesis ({examples} examples/operation, seed {seed}, --checks all)", code == 0 and not unexpected,
           f"exit {code} in {seconds:.0f} s; " + "; ".join(summary) + f"; log {log_path}")
    for operation, cases in unexpected.items():
        detail = " | ".join(f"{'+'.join(c['checks'])} {c['status']} {c['curl']}" for c in cases)
        record(f"schemathesis: {operation}", False, detail)
    return seconds


def main():
    # Room for the idle connections on both ends: catalogd, started from here, inherits the limit.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--examples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--schemathesis", required=True)
    parser.add_argument("--spec", required=True)
    parser.add_argument("--out", required=True, help="directory for logs and reports (kept)")
    parser.add_argument("--idle", type=int, default=2000)
    parser.add_argument("--skip-schemathesis", action="store_true")
    parser.add_argument("--json", help="also write the results to this file as JSON")
    args = parser.parse_args()
    begun = time.monotonic()
    args.out = os.path.abspath(args.out)
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="catalogd-hostile-")
    processes = Processes(args.out, timeout=10)
    timings = {}
    try:
        upstream_port, port = free_port(), free_port()
        processes.start("upstream", [os.path.join(args.bin, "catalog-fixtures"), "serve", "--port", str(upstream_port), "--films", "6",
                                     "--products", "1000", "--seed", "1"])
        env = dict(CATALOG_FILMS_URL=f"http://{HOST}:{upstream_port}/api/films/",
                   CATALOG_PRODUCTS_URL=f"http://{HOST}:{upstream_port}/products", CATALOG_API_TOKEN=TOKEN)
        server_log = os.path.join(args.out, "catalogd.log")
        server = processes.start("catalogd", [
            os.path.join(args.bin, "catalogd"), "serve", "--port", str(port), "--database",
            os.path.join(work, "catalog.sqlite"), "--import-interval", "1h", "--idle-timeout", f"{IDLE_TIMEOUT}s"], env=env)
        base = f"http://{HOST}:{port}"
        succeeded = 0
        for _ in range(600):  # 60 s
            answer = http(port, "GET", "/imports", timeout=2)
            if answer.status == 200:
                succeeded = sum(1 for r in json.loads(answer.body)["results"] if r["status"] == "succeeded")
                if succeeded == 2:
                    break
            time.sleep(0.1)
        record("start-up: both imports succeeded", succeeded == 2, f"{succeeded} of 2 succeeded; catalogd at {base}")
        if succeeded != 2:
            return finish(begun, timings, {}, args.json)

        started = time.monotonic()
        print("hand-written hostile requests", flush=True)
        oversized_headers(port)
        long_urls(port)
        bad_ids(port)
        exports(port)
        query_params(port)
        injection_semantics(port)
        paging(port)
        hostile_bodies(port)
        oversized_bodies(port)
        token_timing(port)
        webhook_bodies(port)
        timings["hand-written requests"] = time.monotonic() - started
        started = time.monotonic()
        print("slow and idle clients (60 s)", flush=True)
        figures = slow_and_idle(port, args.idle)
        timings["slow/idle clients"] = time.monotonic() - started
        if not args.skip_schemathesis:
            print("schemathesis", flush=True)
            timings["schemathesis"] = run_schemathesis(args.schemathesis, base, args.spec, args.examples, args.seed,
                                                       os.path.join(args.out, "schemathesis-report"),
                                                       os.path.join(args.out, "schemathesis.log"))
        record("catalogd still running at the end", server.poll() is None and alive(port),
               f"exit code {server.poll()}" if server.poll() is not None else "alive")
        with open(server_log, errors="replace") as f:
            log_text = f.read()
        crashes = [l for l in log_text.splitlines() if re.search(r"Fatal error|Segmentation|stack overflow|SIGSEGV|SIGILL", l)]
        record("no crash in catalogd's log", not crashes, "; ".join(crashes[:3]) or f"log {server_log}")
        # Every write of the run sent the token, right or wrong: none of it may reach the log.
        record("the bearer token never appears in catalogd's log", TOKEN not in log_text,
               f"{len(log_text.splitlines())} log lines checked")
        with open(server_log, errors="replace") as f:
            errors = [l.strip() for l in f if " error " in l or " critical " in l]
        if errors:
            print(f"  note: {len(errors)} error lines in {server_log}; first: {errors[0][:300]}")
        return finish(begun, timings, figures, args.json)
    finally:
        processes.stop_all()
        shutil.rmtree(work, ignore_errors=True)


def finish(begun, timings, figures, json_path=None):
    width = max(len(c) for c, _, _ in results)
    width = min(width, 90)
    print()
    print(f"{'check':<{width}}  result  detail")
    print(f"{'-' * width}  ------  ------")
    for check, ok, detail in results:
        print(f"{check[:width]:<{width}}  {'pass' if ok else 'FAIL':<6}  {detail[:600]}")
    failed = sum(1 for _, ok, _ in results if not ok)
    print()
    for name, seconds in timings.items():
        print(f"time: {name}: {seconds:.0f} s")
    print(f"time: total {time.monotonic() - begun:.0f} s; {len(results)} checks, {failed} FAIL")
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"checks": len(results), "failed": failed,
                       "results": [{"check": check, "ok": bool(ok), "detail": detail} for check, ok, detail in results],
                       "timings": timings, "figures": figures, "seconds": time.monotonic() - begun}, f, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
