#!/usr/bin/env python3
"""Profile a CSV file before cleaning or loading it (Python 3.8+, stdlib only).

Reports encoding, line endings, delimiter, header problems, ragged rows,
duplicate rows and, per column: null tokens, inferred type with exceptions,
min/max, lengths, whitespace, leading zeros and top values.

Examples:
    profile_csv.py data.csv
    profile_csv.py --delimiter ';' --encoding cp1252 export.csv
    profile_csv.py --json --max-rows 100000 big.csv > profile.json
    profile_csv.py --strict data.csv || echo "needs cleaning"

Exit status: 0 on success, 1 if --strict and problems were found,
2 on usage or read errors.
"""

import argparse
import codecs
import csv
import io
import json
import re
import sys
from collections import Counter

NULL_TOKENS = {"", "na", "n/a", "nan", "null", "none", "nil", "-", "--", "?", "#n/a"}
DISTINCT_CAP = 10000

# Order matters: the first full match wins.
KINDS = [
    ("int", re.compile(r"[+-]?\d+")),
    ("float", re.compile(r"[+-]?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?\d+[eE][+-]?\d+")),
    ("datetime", re.compile(
        r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")),
    ("date", re.compile(r"\d{4}-\d{2}-\d{2}")),
    ("date_slashed", re.compile(r"\d{1,2}[/.]\d{1,2}[/.]\d{2,4}")),
    ("bool", re.compile(r"(?i)true|false|yes|no")),
    ("num_thousands", re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")),
    ("num_decimal_comma", re.compile(r"[+-]?(?:\d{1,3}(?:\.\d{3})+|\d+),\d+")),
]
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b\ufeff]")


def classify(value):
    for kind, pattern in KINDS:
        if pattern.fullmatch(value):
            return kind
    return "text"


def scan_bytes(path, chunk_size=1 << 20):
    """One binary pass: BOM, UTF-8 validity, line endings, NUL bytes."""
    info = {"bom": None, "utf8_error": None, "crlf": 0, "lf": 0, "cr": 0, "nul": 0, "bytes": 0}
    decoder = codecs.getincrementaldecoder("utf-8")()
    prev_cr = False
    offset = 0
    with open(path, "rb") as fh:
        first = True
        while True:
            chunk = fh.read(chunk_size)
            if not chunk:
                break
            if first:
                if chunk.startswith(codecs.BOM_UTF8):
                    info["bom"] = "utf-8"
                elif chunk.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
                    info["bom"] = "utf-16"
                first = False
            if info["utf8_error"] is None:
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError as exc:
                    info["utf8_error"] = {"offset": offset + exc.start,
                                          "byte": "0x%02x" % chunk[exc.start]}
            crlf = chunk.count(b"\r\n")
            if prev_cr and chunk.startswith(b"\n"):
                crlf += 1
            info["crlf"] += crlf
            info["lf"] += chunk.count(b"\n") - crlf
            info["cr"] += chunk.count(b"\r") - crlf
            info["nul"] += chunk.count(b"\x00")
            prev_cr = chunk.endswith(b"\r")
            offset += len(chunk)
    info["bytes"] = offset
    return info


def choose_encoding(info, forced):
    if forced:
        return forced, "given on the command line"
    if info["bom"] == "utf-16":
        return "utf-16", "UTF-16 byte order mark"
    if info["bom"] == "utf-8":
        return "utf-8-sig", "UTF-8 with byte order mark"
    if info["utf8_error"] is None:
        return "utf-8", "valid UTF-8"
    err = info["utf8_error"]
    return "cp1252", "not UTF-8 (byte %s at offset %d); guessed Windows-1252" % (
        err["byte"], err["offset"])


def sniff_dialect(path, encoding, forced_delimiter):
    """Pick the delimiter that splits the sample into the most consistent rows.

    csv.Sniffer is easily fooled by decimal commas inside ';'-separated
    files, so every candidate is parsed and scored instead.
    """
    if forced_delimiter:
        class Forced(csv.excel):
            delimiter = forced_delimiter
        return Forced, False
    with open(path, newline="", encoding=encoding, errors="replace") as fh:
        sample = fh.read(64 * 1024)
    if len(sample) == 64 * 1024 and "\n" in sample:
        sample = sample[: sample.rindex("\n") + 1]
    best = None
    for delim in (",", ";", "\t", "|"):
        rows = [r for r in csv.reader(io.StringIO(sample), delimiter=delim)
                if any(cell.strip() for cell in r)][:200]
        if not rows:
            continue
        width, freq = Counter(len(r) for r in rows).most_common(1)[0]
        if width < 2:
            continue
        score = (freq / len(rows), width)
        if best is None or score > best[0]:
            best = (score, delim)
    if best is None:
        return csv.excel, False

    class Detected(csv.excel):
        delimiter = best[1]
    return Detected, True


class Column:
    def __init__(self, name):
        self.name = name
        self.count = 0
        self.nulls = Counter()
        self.kinds = Counter()
        self.kind_examples = {}
        self.values = Counter()
        self.capped = False
        self.min_len = None
        self.max_len = 0
        self.num_min = None
        self.num_max = None
        self.text_min = None
        self.text_max = None
        self.whitespace = 0
        self.leading_zeros = 0
        self.control = 0

    def add(self, raw):
        self.count += 1
        if raw.strip().lower() in NULL_TOKENS:
            self.nulls[raw] += 1
            return
        if raw != raw.strip():
            self.whitespace += 1
        if CONTROL_CHARS.search(raw):
            self.control += 1
        value = raw.strip()
        length = len(value)
        self.min_len = length if self.min_len is None else min(self.min_len, length)
        self.max_len = max(self.max_len, length)
        kind = classify(value)
        self.kinds[kind] += 1
        self.kind_examples.setdefault(kind, value)
        if kind == "int" and len(value.lstrip("+-")) > 1 and value.lstrip("+-").startswith("0"):
            self.leading_zeros += 1
        if kind in ("int", "float"):
            number = int(value) if kind == "int" else float(value)
            self.num_min = number if self.num_min is None else min(self.num_min, number)
            self.num_max = number if self.num_max is None else max(self.num_max, number)
        elif kind in ("date", "datetime"):
            self.text_min = value if self.text_min is None else min(self.text_min, value)
            self.text_max = value if self.text_max is None else max(self.text_max, value)
        if value in self.values or len(self.values) < DISTINCT_CAP:
            self.values[value] += 1
        else:
            self.capped = True

    def inferred(self):
        kinds = set(self.kinds)
        if not kinds:
            return "empty", 1.0
        if kinds <= {"int", "float"} and "float" in kinds:
            main = "float"
            share = (self.kinds["int"] + self.kinds["float"]) / sum(self.kinds.values())
        elif kinds <= {"date", "datetime"} and "datetime" in kinds:
            main = "datetime"
            share = 1.0
        else:
            main, top = self.kinds.most_common(1)[0]
            share = top / sum(self.kinds.values())
        return main, share

    def report(self, top_n):
        main, share = self.inferred()
        non_null = self.count - sum(self.nulls.values())
        exceptions = {k: {"count": n, "example": self.kind_examples[k]}
                      for k, n in self.kinds.items()
                      if k != main and not (main == "float" and k == "int")
                      and not (main == "datetime" and k == "date")}
        lowered = Counter(v.lower() for v in self.values)
        case_variants = sorted(v for v, n in lowered.items() if n > 1)[:5]
        out = {
            "name": self.name,
            "non_null": non_null,
            "null_tokens": dict(self.nulls.most_common()),
            "type": main,
            "type_share": round(share, 4),
            "type_exceptions": exceptions,
            "distinct": ("%d+" % DISTINCT_CAP) if self.capped else len(self.values),
            "min_len": self.min_len,
            "max_len": self.max_len,
            "top_values": self.values.most_common(top_n),
        }
        if self.num_min is not None:
            out["min"], out["max"] = self.num_min, self.num_max
        if self.text_min is not None:
            out["min"], out["max"] = self.text_min, self.text_max
        for key, val in (("untrimmed", self.whitespace), ("leading_zeros", self.leading_zeros),
                         ("control_chars", self.control)):
            if val:
                out[key] = val
        if case_variants:
            out["case_variants"] = case_variants
        return out


def profile(args):
    info = scan_bytes(args.path)
    encoding, why = choose_encoding(info, args.encoding)
    dialect, sniffed = sniff_dialect(args.path, encoding, args.delimiter)
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    problems = []

    with open(args.path, newline="", encoding=encoding, errors="replace") as fh:
        reader = csv.reader(fh, dialect)
        try:
            header = next(reader)
        except StopIteration:
            raise csv.Error("%s is empty" % args.path)
        columns = [Column(name) for name in header]
        ragged, empty_rows, rows = [], 0, 0
        seen, duplicates = set(), 0
        for row in reader:
            if args.max_rows and rows >= args.max_rows:
                break
            rows += 1
            if not any(cell.strip() for cell in row):
                empty_rows += 1
                continue
            if len(row) != len(header):
                if len(ragged) < 10:
                    ragged.append({"line": reader.line_num, "fields": len(row)})
                else:
                    ragged.append(None)
            key = hash(tuple(row))
            if key in seen:
                duplicates += 1
            else:
                seen.add(key)
            for col, cell in zip(columns, row):
                col.add(cell)

    counts = Counter(header)
    dup_headers = sorted(h for h, n in counts.items() if n > 1)
    blank_headers = [i + 1 for i, h in enumerate(header) if not h.strip()]
    odd_headers = [h for h in header if h != h.strip() or not re.fullmatch(r"[a-z][a-z0-9_]*", h.strip())]

    if encoding not in ("utf-8", "utf-8-sig") and not args.encoding:
        problems.append("encoding is not UTF-8: " + why)
    if info["nul"]:
        problems.append("%d NUL bytes (UTF-16 or binary data?)" % info["nul"])
    if sum(1 for n in (info["crlf"], info["lf"], info["cr"]) if n) > 1:
        problems.append("mixed line endings")
    if dup_headers:
        problems.append("duplicate header names: %s" % ", ".join(dup_headers))
    if blank_headers:
        problems.append("blank header in column(s) %s" % blank_headers)
    if ragged:
        problems.append("%d row(s) with a field count different from the header (%d)"
                        % (len(ragged), len(header)))
    if duplicates:
        problems.append("%d exact duplicate row(s)" % duplicates)
    if empty_rows:
        problems.append("%d empty row(s)" % empty_rows)
    col_reports = [c.report(args.top) for c in columns]
    for c in col_reports:
        if c["type_exceptions"] and c["type"] != "text":
            problems.append("column %r is mostly %s but has exceptions" % (c["name"], c["type"]))
        if c.get("leading_zeros"):
            problems.append("column %r has leading zeros: keep it as text" % c["name"])
        if c.get("untrimmed"):
            problems.append("column %r has %d untrimmed value(s)" % (c["name"], c["untrimmed"]))

    return {
        "file": args.path,
        "bytes": info["bytes"],
        "encoding": encoding,
        "encoding_reason": why,
        "line_endings": {"crlf": info["crlf"], "lf": info["lf"], "cr": info["cr"]},
        "delimiter": dialect.delimiter,
        "quotechar": dialect.quotechar,
        "delimiter_sniffed": sniffed,
        "rows": rows,
        "truncated": bool(args.max_rows and rows >= args.max_rows),
        "columns": len(header),
        "header_not_snake_case": odd_headers,
        "ragged_examples": [r for r in ragged if r],
        "problems": problems,
        "column_profiles": col_reports,
    }


def print_text(p):
    print("file        %s (%d bytes)" % (p["file"], p["bytes"]))
    print("encoding    %s (%s)" % (p["encoding"], p["encoding_reason"]))
    le = p["line_endings"]
    print("lines       CRLF=%d LF=%d CR=%d" % (le["crlf"], le["lf"], le["cr"]))
    print("dialect     delimiter=%r quotechar=%r%s" % (
        p["delimiter"], p["quotechar"], " (sniffed)" if p["delimiter_sniffed"] else ""))
    print("shape       %d data rows x %d columns%s" % (
        p["rows"], p["columns"], " (stopped at --max-rows)" if p["truncated"] else ""))
    for r in p["ragged_examples"]:
        print("ragged      line %d has %d fields" % (r["line"], r["fields"]))
    print()
    for c in p["column_profiles"]:
        nulls = sum(c["null_tokens"].values())
        null_info = "null %d %s" % (nulls, list(c["null_tokens"])) if nulls else "null 0"
        print("[%s] %s %.1f%%, non-null %d, %s, distinct %s, len %s-%s" % (
            c["name"], c["type"], 100 * c["type_share"], c["non_null"], null_info,
            c["distinct"], c["min_len"], c["max_len"]))
        if "min" in c:
            print("    range          %s .. %s" % (c["min"], c["max"]))
        for kind, ex in c["type_exceptions"].items():
            print("    exception      %d x %s, e.g. %r" % (ex["count"], kind, ex["example"]))
        for key in ("untrimmed", "leading_zeros", "control_chars", "case_variants"):
            if key in c:
                print("    %-14s %s" % (key, c[key]))
        top = ", ".join("%r x%d" % (v, n) for v, n in c["top_values"])
        print("    top            %s" % top)
    print()
    if p["problems"]:
        print("problems:")
        for msg in p["problems"]:
            print("  - " + msg)
    else:
        print("problems: none found")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", help="CSV file to profile")
    ap.add_argument("--delimiter", help="field delimiter (default: sniffed)")
    ap.add_argument("--encoding", help="text encoding (default: detected)")
    ap.add_argument("--max-rows", type=int, default=0, help="stop after N data rows")
    ap.add_argument("--top", type=int, default=5, help="top values per column (default 5)")
    ap.add_argument("--json", action="store_true", help="print the profile as JSON")
    ap.add_argument("--strict", action="store_true", help="exit 1 when problems are found")
    args = ap.parse_args(argv)
    if args.delimiter == "\\t":
        args.delimiter = "\t"
    try:
        result = profile(args)
    except (OSError, LookupError, csv.Error) as exc:
        print("profile_csv: %s" % exc, file=sys.stderr)
        return 2
    if args.json:
        json.dump(result, sys.stdout, indent=2, ensure_ascii=False, default=str)
        print()
    else:
        print_text(result)
    return 1 if args.strict and result["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
