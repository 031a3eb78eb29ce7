"""Benchmark of the gateway of `skilldex serve` (raw JSON-RPC on stdio).

Usage: python benches/gateway.py SKILLDEX_BINARY [--servers 10] [--tools 1000] [--runs 300]

Builds a folder in target/bench/gateway with SERVERS upstream test servers
(tests/fixtures/mcp-servers/gateway_server.py) of TOOLS tools each,
syncs their snapshots with `skilldex tools sync`, then measures in one
`skilldex serve` session:
- `tool_search` round trips (default limit 8) over varied queries: p50, p90, p99;
- a proxied call (`s00__echo`, loaded by a search) against the same call sent
  to the same upstream server started directly, interleaved one by one, so
  both see the same machine; the overhead is the difference of the p50s.

Prints a table and one JSON line with every figure.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SERVER = REPO / "tests" / "fixtures" / "mcp-servers" / "gateway_server.py"
QUERIES = [
    "approve an invoice", "schedule a meeting", "thaw a culture", "calibrate the pipette",
    "export the budget", "archive old memos", "label reagents", "inspect the microscope",
    "share a contract with a visitor", "record a spectrum", "cancel an expense", "reserve a freezer",
    "merge two rosters", "discard a plate", "rename a badge", "transfer an enzyme",
    "list parcels in the mailbox", "dilute a buffer", "create a holiday", "measure a sample",
]


class Session:
    def __init__(self, command: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def request(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}}
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the server closed stdout")
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer or answer.get("result", {}).get("isError"):
                    raise RuntimeError(f"{method} failed: {answer}")
                return answer

    def initialize(self) -> None:
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.process.stdin.flush()

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
    session.request(method, params)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--servers", type=int, default=10)
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    folder = REPO / "target" / "bench" / "gateway"
    (folder / "skills" / "demo").mkdir(parents=True, exist_ok=True)
    (folder / "skills" / "demo" / "SKILL.md").write_text(
        "---\nname: demo\ndescription: A demo skill. Use when benchmarking.\n---\n\n# demo\n")
    generated = max(args.tools - 7, 0)  # the fixture adds 7 fixed tools
    lines = ["roots: [skills]", "mcp_servers:"]
    for i in range(args.servers):
        theme = "office" if i % 2 == 0 else "lab"
        lines += [f"  s{i:02d}:", f"    command: {sys.executable}",
                  f"    args: [{json.dumps(str(SERVER))}, s{i:02d}, \"{generated}\", {theme}]"]
    (folder / "skilldex.yaml").write_text("\n".join(lines) + "\n")
    started = time.perf_counter()
    subprocess.run([args.binary, "-q", "tools", "sync"], cwd=folder, check=True)
    sync_s = time.perf_counter() - started

    skilldex = Session([args.binary, "-q", "serve", "--no-watch"], folder)
    skilldex.initialize()
    skilldex.request("tools/list")
    first = timed(skilldex, "tools/call", {"name": "tool_search", "arguments": {"query": "warm up"}})
    search = [timed(skilldex, "tools/call", {"name": "tool_search", "arguments": {"query": QUERIES[i % len(QUERIES)]}})
              for i in range(args.runs)]

    direct = Session([sys.executable, str(SERVER), "s00", str(generated), "office"], folder)
    direct.initialize()
    skilldex.request("tools/call", {"name": "tool_search", "arguments": {"query": "s00/echo", "limit": 1}})
    echo = {"text": "ping"}
    # Warm both (the first proxied call starts s00).
    for _ in range(20):
        skilldex.request("tools/call", {"name": "s00__echo", "arguments": echo})
        direct.request("tools/call", {"name": "echo", "arguments": echo})
    proxied, plain = [], []
    for _ in range(args.runs):
        proxied.append(timed(skilldex, "tools/call", {"name": "s00__echo", "arguments": echo}))
        plain.append(timed(direct, "tools/call", {"name": "echo", "arguments": echo}))
    direct.close()
    skilldex.close()

    figures = {
        "servers": args.servers, "tools": args.servers * args.tools, "sync_s": round(sync_s, 2),
        "first_tool_search_ms": round(first * 1000, 1), "tool_search": percentiles(search),
        "proxied_call": percentiles(proxied), "direct_call": percentiles(plain),
    }
    figures["overhead_p50_ms"] = round(figures["proxied_call"]["p50_ms"] - figures["direct_call"]["p50_ms"], 3)
    print(f"{figures['tools']:,} tools on {args.servers} servers (sync {sync_s:.1f} s); "
          f"first tool_search (reads the snapshots) {figures['first_tool_search_ms']} ms")
    print(f"{'':24} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8}")
    for name in ("tool_search", "proxied_call", "direct_call"):
        row = figures[name]
        print(f"{name:24} {row['p50_ms']:>8} {row['p90_ms']:>8} {row['p99_ms']:>8}")
    print(f"proxy overhead (p50 difference): {figures['overhead_p50_ms']} ms")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
