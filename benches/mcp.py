"""Benchmark of `skilldex serve` over one stdio session (raw JSON-RPC).

Usage: python benches/mcp.py SKILLDEX_BINARY CORPUS_ROOT [--runs N]

Measures, on the given corpus:
- start: from spawning `skilldex serve` to the `initialize` answer (median of
  --runs starts), next to the wall time of `skilldex render` on the same root;
- the round trip of `search_skills` and `read_skill` calls, one at a time in
  one session (p50, p90, p99 over a few hundred varied calls);
- the same for `skills/list` (first page) and `grep_skills`, for context.

Prints a table and one JSON line with every figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUERIES = [
    "review a pull request", "parse csv files", "deploy to kubernetes", "write release notes",
    "debug a memory leak", "format sql queries", "translate documents", "summarize logs",
    "generate api docs", "fix flaky tests", "rotate credentials", "plan a database migration",
    "profile slow code", "label images", "check accessibility", "monitor alerts",
    "bisect a regression", "clean spreadsheet data", "design a json schema", "audit dependencies",
]


class Session:
    def __init__(self, binary: str, root: str) -> None:
        self.process = subprocess.Popen(
            [binary, "-q", "serve", "--root", root],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self.next_id = 0

    def request(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the server closed stdout")
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                return answer

    def initialize(self) -> dict:
        answer = self.request("initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
        self.process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.process.stdin.flush()
        return answer

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(10)


def percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]
    return {"p50_ms": round(pick(0.5) * 1000, 3), "p90_ms": round(pick(0.9) * 1000, 3),
            "p99_ms": round(pick(0.99) * 1000, 3), "n": len(samples)}


def timed(session: Session, method: str, params: dict) -> float:
    started = time.perf_counter()
    answer = session.request(method, params)
    elapsed = time.perf_counter() - started
    if "error" in answer or answer.get("result", {}).get("isError"):
        raise RuntimeError(f"{method} {params} failed: {str(answer)[:300]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("root")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    binary, root = args.binary, args.root

    # Start to first answer, against `skilldex render` of the same root.
    starts, renders = [], []
    for _ in range(args.runs):
        started = time.perf_counter()
        subprocess.run([binary, "-q", "render", "--root", root], stdout=subprocess.DEVNULL, check=True)
        renders.append(time.perf_counter() - started)
        started = time.perf_counter()
        session = Session(binary, root)
        session.initialize()
        starts.append(time.perf_counter() - started)
        session.close()

    session = Session(binary, root)
    session.initialize()
    # Names to read: the first pages of the Skills extension listing.
    names = []
    page = session.request("skills/list")["result"]
    names += [s["frontmatter"]["name"] for s in page["skills"]]
    # Warm-up: the search index is built in the background after start.
    timed(session, "tools/call", {"name": "search_skills", "arguments": {"query": "warm up"}})
    search = [timed(session, "tools/call", {"name": "search_skills", "arguments": {"query": QUERIES[i % len(QUERIES)] + (" x" * (i % 3))}})
              for i in range(300)]
    read = [timed(session, "tools/call", {"name": "read_skill", "arguments": {"name": names[i % len(names)]}})
            for i in range(300)]
    section = [timed(session, "tools/call", {"name": "read_skill", "arguments": {"name": names[i % len(names)], "start_line": 5, "end_line": 20}})
               for i in range(100)]
    listing = [timed(session, "skills/list", {}) for _ in range(20)]
    grep = [timed(session, "tools/call", {"name": "grep_skills", "arguments": {"pattern": "Use when", "max_results": 50}})
            for _ in range(10)]
    session.close()

    figures = {
        "corpus": root,
        "start_to_initialize_ms": round(statistics.median(starts) * 1000, 1),
        "render_ms": round(statistics.median(renders) * 1000, 1),
        "start_over_render": round(statistics.median(starts) / statistics.median(renders), 2),
        "search_skills": percentiles(search),
        "read_skill": percentiles(read),
        "read_skill_lines": percentiles(section),
        "skills_list_page": percentiles(listing),
        "grep_skills": percentiles(grep),
    }
    print(f"corpus {root}")
    print(f"start to initialize answer  {figures['start_to_initialize_ms']:8.1f} ms (median of {args.runs})")
    print(f"skilldex render             {figures['render_ms']:8.1f} ms (median of {args.runs}); ratio {figures['start_over_render']}")
    for key in ["search_skills", "read_skill", "read_skill_lines", "skills_list_page", "grep_skills"]:
        f = figures[key]
        print(f"{key:27} p50 {f['p50_ms']:8.3f} ms  p90 {f['p90_ms']:8.3f} ms  p99 {f['p99_ms']:8.3f} ms  (n={f['n']})")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
