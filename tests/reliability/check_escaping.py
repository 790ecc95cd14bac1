#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""check_escaping.py SPEC.json PORT NAME

Fetch every output of a running fpusoakd whose kernel log and /proc tree
were fed hostile strings (tests/integration/68_escaping.sh writes them and
SPEC.json, hex-encoded) and check each output format treats them as inert
data, and shows them:

  HTML    valid UTF-8; no <script>, no on* attribute, no <img>/<iframe>/
          <object>/<embed> anywhere; each hostile COMM appears as the text
          of its failure-table cell (after entity decoding); the run's label,
          command line and kernel release appear as text
  SVG     every inline <svg> fragment is well-formed XML
  JSON    strict parse; each COMM round-trips exactly (invalid UTF-8 as
          U+FFFD per byte, NUL as U+FFFD); the label round-trips
  CSV     strict parse (python csv), constant column count; no field begins
          with = + - @ TAB CR (formula injection); each COMM round-trips
          (after the "'" guard, control bytes as U+FFFD)
  /metrics  promtool check metrics when available, and a strict parse of
          the text format (names, label syntax, escapes, values, one TYPE
          per family); every label value is valid UTF-8; fpusoakd_run_info's
          label and kernel round-trip exactly (the run's own text, escaped),
          and no other label holds a hostile string

Expected strings are computed here from the bytes written and the Unicode
rules, not read back from the daemon.  Prints PASS:/FAIL: lines.
"""
import csv
import html.parser
import io
import json
import re
import shutil
import subprocess
import sys
import urllib.request
import xml.etree.ElementTree as ET

FFFD = "\ufffd"


def utf8_per_byte(b):
    """Decode b; every byte that does not start a valid, shortest-form, non-surrogate sequence is U+FFFD."""
    out, i = [], 0
    while i < len(b):
        c = b[i]
        if c < 0x80:
            out.append(FFFD if c == 0 else chr(c))
            i += 1
            continue
        if 0xC2 <= c <= 0xDF:
            n, cp, lo = 2, c & 0x1F, 0x80
        elif 0xE0 <= c <= 0xEF:
            n, cp, lo = 3, c & 0x0F, 0x800
        elif 0xF0 <= c <= 0xF4:
            n, cp, lo = 4, c & 0x07, 0x10000
        else:
            out.append(FFFD)
            i += 1
            continue
        ok = i + n <= len(b)
        for k in range(1, n):
            if not ok or not 0x80 <= b[i + k] <= 0xBF:
                ok = False
                break
            cp = cp << 6 | (b[i + k] & 0x3F)
        if ok and cp >= lo and not 0xD800 <= cp <= 0xDFFF and cp <= 0x10FFFF:
            out.append(chr(cp))
            i += n
        else:
            out.append(FFFD)
            i += 1
    return "".join(out)


def no_controls(s):
    """Controls a text output may not carry raw (all but tab, LF, CR), DEL, U+FFFE/U+FFFF as U+FFFD."""
    return "".join(FFFD if (ord(ch) < 0x20 and ch not in "\t\n\r") or ch in "\x7f\ufffe\uffff" else ch for ch in s)


def fetch(port, path):
    with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=10) as r:
        return r.status, r.read()


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bad = []
        self.rows = []
        self.row = None
        self.cell = None
        self.text = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "img", "iframe", "object", "embed", "base", "meta") and not (
                tag == "meta" and all(k in ("charset", "name", "content") for k, _ in attrs)):
            self.bad.append("<%s %s>" % (tag, attrs))
        for k, v in attrs:
            if k.lower().startswith("on") or (v and re.match(r"\s*javascript:", v, re.I)):
                self.bad.append("<%s %s=%r>" % (tag, k, v))
        if tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.row is not None and self.cell is not None:
            self.row.append("".join(self.cell))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell.append(data)


PROM_LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?[0-9]+)?$')
PROM_LABELS = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')


def prom_parse(text):
    """Strict text-format 0.0.4 parse: [(name, {label: value})] or raises ValueError."""
    out, typed = [], set()
    for no, line in enumerate(text.split("\n"), 1):
        if line == "":
            continue
        if line.startswith("#"):
            m = re.match(r"^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$", line)
            if not m:
                raise ValueError("line %d: bad comment %r" % (no, line[:80]))
            if m.group(1) == "TYPE":
                if m.group(3) not in ("counter", "gauge", "histogram", "summary", "untyped") or m.group(2) in typed:
                    raise ValueError("line %d: bad TYPE %r" % (no, line[:80]))
                typed.add(m.group(2))
            continue
        m = PROM_LINE.match(line)
        if not m:
            raise ValueError("line %d: not a sample %r" % (no, line[:80]))
        labels, body = {}, m.group(3) or ""
        pos = 0
        while pos < len(body):
            lm = PROM_LABELS.match(body, pos)
            if not lm:
                raise ValueError("line %d: bad labels %r" % (no, body[pos:pos + 60]))
            v = re.sub(r'\\(.)', lambda x: {"\\": "\\", '"': '"', "n": "\n"}[x.group(1)], lm.group(2))
            if lm.group(1) in labels:
                raise ValueError("line %d: duplicate label %s" % (no, lm.group(1)))
            labels[lm.group(1)] = v
            pos = lm.end()
        float(m.group(4))
        out.append((m.group(1), labels))
    return out


def main():
    spec = json.load(open(sys.argv[1]))
    port, name = int(sys.argv[2]), sys.argv[3]
    run = spec["run"]
    fails = 0

    def report(ok, msg, detail=None):
        nonlocal fails
        print("%s: %s: %s" % ("PASS" if ok else "FAIL", name, msg))
        if not ok:
            fails += 1
            for d in (detail or [])[:12]:
                print("    " + d)

    comms = [(c["marker"], bytes.fromhex(c["hex"])) for c in spec["comms"]]
    want = {m: utf8_per_byte(b) for m, b in comms}

    # ---- HTML (and the SVG inside it)
    pages = ["/", "/runs", "/runs/%d" % run]
    problems, svg_bad, nsvg = [], [], 0
    run_page = None
    for p in pages:
        st, body = fetch(port, p)
        try:
            text = body.decode("utf-8", errors="strict")
        except UnicodeDecodeError as e:
            problems.append("%s: not valid UTF-8: %s" % (p, e))
            continue
        if re.search(r"<\s*script", text, re.I):
            problems.append("%s: contains a '<script' sequence" % p)
        pg = Page()
        pg.feed(text)
        pg.close()
        problems += ["%s: %s" % (p, b) for b in pg.bad]
        for frag in re.findall(r"<svg\b.*?</svg>", text, re.S):
            nsvg += 1
            try:
                ET.fromstring(frag)
            except ET.ParseError as e:
                svg_bad.append("%s: %s in %r" % (p, e, frag[:120]))
        if p == "/runs/%d" % run:
            run_page = pg
        if p != "/runs/%d" % run:
            continue
    report(not problems, "HTML pages %s: valid UTF-8, no script, no event handler, no img/iframe/object/embed" % pages, problems)
    report(nsvg > 0 and not svg_bad, "%d inline SVG charts are well-formed XML" % nsvg, svg_bad)
    missing = []
    if run_page:
        cells = {r[4]: r[1] for r in run_page.rows if len(r) >= 6}
        for m, b in comms:
            exp = no_controls(want[m])
            if cells.get(m) != exp:
                missing.append("%s: want %r, table shows %r" % (m, exp, cells.get(m)))
    report(run_page is not None and not missing, "all %d hostile COMMs shown as text in the run page's failure table" % len(comms),
           missing)
    alltext = "".join(run_page.text) if run_page else ""
    shown = []
    for key in ("label", "cmdline", "release"):
        exp = no_controls(utf8_per_byte(bytes.fromhex(spec[key])))
        if exp not in alltext:
            shown.append("%s: %r not in the page text" % (key, exp))
    report(not shown, "hostile run label, kernel command line and release shown as text on /runs/%d" % run, shown)

    # ---- JSON
    st, body = fetch(port, "/api/v1/runs/%d/failures?max_points=10000" % run)
    bad = []
    try:
        doc = json.loads(body.decode("utf-8", errors="strict"))
        got = {f.get("gfp_flags"): f.get("comm") for f in doc["failures"]}
        for m, b in comms:
            if got.get(m) != want[m]:
                bad.append("%s: want %r, got %r" % (m, want[m], got.get(m)))
    except (ValueError, KeyError, TypeError) as e:
        bad.append("failures JSON does not parse: %s" % e)
    report(not bad, "failures JSON parses strictly and all %d COMMs round-trip exactly" % len(comms), bad)
    bad = []
    for p in ["/api/v1/status", "/api/v1/runs", "/api/v1/runs/%d" % run]:
        try:
            doc = json.loads(fetch(port, p)[1].decode("utf-8", errors="strict"))
            if p.endswith("/%d" % run):
                lbl = doc.get("label") if isinstance(doc, dict) else None
                exp = utf8_per_byte(bytes.fromhex(spec["label"]))
                if lbl != exp:
                    bad.append("%s: label %r, want %r" % (p, lbl, exp))
        except ValueError as e:
            bad.append("%s: %s" % (p, e))
    report(not bad, "status, runs and run JSON parse strictly; the hostile label round-trips", bad)

    # ---- CSV
    bad = []
    formula = tuple("=+-@\t\r")
    for p, key_col, val_col, expect in [
            ("/api/v1/runs/%d/failures?format=csv&max_points=10000" % run, "gfp_flags", "comm", {m: want[m] for m, _ in comms}),
            ("/api/v1/runs.csv", "run_id", "label", {str(run): utf8_per_byte(bytes.fromhex(spec["label"]))})]:
        st, body = fetch(port, p)
        try:
            rows = list(csv.reader(io.StringIO(body.decode("utf-8", errors="strict"), newline=""), strict=True))
        except (csv.Error, UnicodeDecodeError) as e:
            bad.append("%s: does not parse: %s" % (p, e))
            continue
        hdr = rows[0]
        if any(len(r) != len(hdr) for r in rows):
            bad.append("%s: rows with %s fields, header has %d" % (p, sorted({len(r) for r in rows}), len(hdr)))
            continue
        ki, vi = hdr.index(key_col), hdr.index(val_col)
        for r in rows[1:]:
            for f in r:
                if f.startswith(formula):
                    bad.append("%s: field starts a formula: %r" % (p, f))
        got = {r[ki]: r[vi] for r in rows[1:]}
        for k, v in expect.items():
            g = got.get(k)
            exp = no_controls(v)
            if g is not None and exp.startswith(formula) and g.startswith("'"):
                g = g[1:]
            if g is None or no_controls(g) != exp:
                bad.append("%s: %s: want %r, got %r" % (p, k, exp, got.get(k)))
    report(not bad, "CSV (failures, runs) parses strictly, no formula-leading field, COMMs and label round-trip", bad)

    # ---- Prometheus
    st, body = fetch(port, "/metrics")
    text = body.decode("utf-8", errors="replace")
    bad, samples = [], []
    hostile = [utf8_per_byte(b) for _, b in comms] + [utf8_per_byte(bytes.fromhex(spec[k])) for k in ("label", "cmdline", "release")]
    try:
        body.decode("utf-8", errors="strict")
        samples = prom_parse(text)
        # The run's label and kernel release are labels of fpusoakd_run_info by design.
        expect = {("fpusoakd_run_info", "label"): utf8_per_byte(bytes.fromhex(spec["label"])),
                  ("fpusoakd_run_info", "kernel"): utf8_per_byte(bytes.fromhex(spec["release"]))}
        seen = set()
        for n, labels in samples:
            for k, v in labels.items():
                if (n, k) in expect:
                    seen.add((n, k))
                    if v != expect[(n, k)]:
                        bad.append("%s{%s=%r}: want %r" % (n, k, v, expect[(n, k)]))
                elif any(h and h in v for h in hostile):
                    bad.append("%s{%s=%r}: a hostile string in a label" % (n, k, v))
        bad += ["%s{%s}: missing" % nk for nk in sorted(set(expect) - seen)]
        if len(samples) < 10:
            bad.append("only %d samples" % len(samples))
    except (ValueError, UnicodeDecodeError) as e:
        bad.append("strict parse: %s" % e)
    report(not bad, "/metrics: strict text-format parse (%d samples), valid UTF-8, run_info's hostile label and kernel round-trip, no hostile string in any other label" % len(samples), bad)
    if shutil.which("promtool"):
        r = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True)
        report(r.returncode == 0, "/metrics passes promtool check metrics",
               (r.stdout + r.stderr).decode(errors="replace").splitlines())
    else:
        print("SKIP: %s: promtool not installed (the strict parse above still ran)" % name)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
