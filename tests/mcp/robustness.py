"""Robustness of `skilldex serve`: hostile and heavy input over raw stdio.

Run by tests/cli/mcp.rs as:
    python robustness.py --binary SKILLDEX --root ROOT [--touch DIR]

Sends malformed JSON, unknown methods, wrong argument types, 10 MB strings
and a burst of 1,000 requests (with --touch, files change on disk during
the burst, so some requests meet a reload). Every request must get an
answer with its id, every malformed line an error with id null, the server
must still answer afterwards, and its memory must stay flat. Prints a JSON
report on the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

TEN_MB = 10 * 1024 * 1024


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Server:
    def __init__(self, binary: str, root: str, live: bool) -> None:
        args = [binary, "-q", "serve", "--root", root] + ([] if live else ["--no-watch"])
        self.process = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.answers: dict[object, dict] = {}
        self.null_errors: list[dict] = []
        self.notifications: list[str] = []
        self.lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            message = json.loads(line)
            with self.lock:
                if "id" not in message:
                    self.notifications.append(message.get("method", "?"))
                elif message["id"] is None:
                    self.null_errors.append(message)
                else:
                    self.answers[message["id"]] = message
                self.lock.notify_all()

    def _drain_stderr(self) -> None:
        for _ in self.process.stderr:
            pass

    def send_raw(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def wait(self, ids: list, nulls: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.lock:
            while not (all(i in self.answers for i in ids) and len(self.null_errors) >= nulls):
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    return False
                self.lock.wait(left)
        return True


def call(id_: object, name: str, arguments: object) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--touch", help="a folder under the root to change during each burst (the server then follows changes)")
    args = parser.parse_args()
    failures: list[str] = []
    server = Server(args.binary, args.root, live=bool(args.touch))
    server.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "robustness", "version": "1"}}})
    if not server.wait(["init"], 0, 30):
        print("the server did not answer initialize"); sys.exit(1)
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    # Warm up every path once, then measure.
    warm = [call(f"w{i}", n, a) for i, (n, a) in enumerate([
        ("search_skills", {"query": "csv"}), ("read_skill", {"name": "csv-cleanup"}),
        ("grep_skills", {"pattern": "the"})])]
    warm.append({"jsonrpc": "2.0", "id": "w9", "method": "skills/list"})
    for message in warm:
        server.send(message)
    server.wait([m["id"] for m in warm], 0, 30)
    rss_before = rss_kb(server.process.pid)

    ids: list = []
    nulls = 0
    # Malformed JSON and messages that are not requests.
    for raw in [b"garbage{\n", b"{\"jsonrpc\": \"2.0\", \"id\": 1,\n", b"[]\n", b"42\n", b"\"text\"\n",
                b"[{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\"}]\n", b"\xff\xfe\n"]:
        server.send_raw(raw)
        nulls += 1
    # Unknown methods and shapes.
    for i, method in enumerate(["foo/bar", "skills/nope", "tools/destroy", "resources/write"]):
        server.send({"jsonrpc": "2.0", "id": f"u{i}", "method": method, "params": {}})
        ids.append(f"u{i}")
    server.send({"jsonrpc": "2.0", "id": "nomethod"}); ids.append("nomethod")
    server.send({"jsonrpc": "2.0", "id": "badparams", "method": "tools/call", "params": 5}); ids.append("badparams")
    # Wrong argument types.
    for i, (name, arguments) in enumerate([
        ("read_skill", {"name": 5}), ("read_skill", {"name": "x", "start_line": "one"}),
        ("grep_skills", {"pattern": ["a"]}), ("grep_skills", {"pattern": "a", "max_results": "3"}),
        ("search_skills", {"query": None}), ("search_skills", {"query": "x", "limit": 1.5}),
        ("request_skill_enable", {"name": "x"}), ("read_skill", "not an object"),
        ("search_skills", {"query": None}), ("no_such_tool", {})]):
        server.send(call(f"t{i}", name, arguments)); ids.append(f"t{i}")
    # Arguments a host adds for itself are ignored, not refused.
    server.send(call("extra", "search_skills", {"query": "x", "extra": True, "wait_for_previous": True}))
    ids.append("extra")
    # 10 MB strings.
    big = "a" * TEN_MB
    for i, (name, arguments) in enumerate([
        ("read_skill", {"name": big}), ("grep_skills", {"pattern": big}),
        ("search_skills", {"query": big}), ("read_skill", {"name": "csv-cleanup", "path": big})]):
        server.send(call(f"big{i}", name, arguments)); ids.append(f"big{i}")
    server.send({"jsonrpc": "2.0", "id": "bigmethod", "method": big}); ids.append("bigmethod")
    server.send_raw(b"{" + big.encode() + b"\n"); nulls += 1

    def run_burst(first_id: int, touch: bool) -> tuple[list, float, bool]:
        """1,000 requests written in one go; with `touch`, a skill appears halfway."""
        started = time.monotonic()
        kinds = [
            lambda i: call(i, "search_skills", {"query": "review code changes"}),
            lambda i: call(i, "read_skill", {"name": "csv-cleanup"}),
            lambda i: call(i, "read_skill", {"name": "git-bisect", "section": "Steps"}),
            lambda i: call(i, "grep_skills", {"pattern": "error", "max_results": 20}),
            lambda i: {"jsonrpc": "2.0", "id": i, "method": "tools/list"},
            lambda i: {"jsonrpc": "2.0", "id": i, "method": "skills/list"},
            lambda i: {"jsonrpc": "2.0", "id": i, "method": "resources/read", "params": {"uri": "skill://data/csv-cleanup/SKILL.md"}},
            lambda i: {"jsonrpc": "2.0", "id": i, "method": "ping"},
        ]
        messages = [kinds[i % len(kinds)](first_id + i) for i in range(1000)]
        payload = b"".join(json.dumps(m).encode() + b"\n" for m in messages)

        def writer() -> None:
            half = len(payload) // 2
            server.send_raw(payload[:half])
            if touch:
                touched = Path(args.touch) / f"burst-skill-{first_id}"
                touched.mkdir(parents=True, exist_ok=True)
                (touched / "SKILL.md").write_text(
                    f"---\nname: burst-skill-{first_id}\ndescription: Written during the burst. Use when testing.\n---\n\n# Burst\n")
            server.send_raw(payload[half:])

        thread = threading.Thread(target=writer)
        thread.start()
        burst_ids = [m["id"] for m in messages]
        done = server.wait(ids + burst_ids, nulls, 120)
        thread.join()
        return messages, time.monotonic() - started, done

    burst, burst_seconds, answered_all = run_burst(10_000, bool(args.touch))
    ids += [m["id"] for m in burst]
    if not answered_all:
        missing = [i for i in ids if i not in server.answers]
        failures.append(f"{len(missing)} requests unanswered (first: {missing[:5]}), {len(server.null_errors)}/{nulls} parse errors")
    rss_after_first = rss_kb(server.process.pid)
    second, second_seconds, answered_second = run_burst(20_000, bool(args.touch))
    ids += [m["id"] for m in second]
    burst += second
    if not answered_second:
        failures.append("the second burst was not fully answered")
    rss_after_second = rss_kb(server.process.pid)
    if rss_after_second - rss_after_first > 16 * 1024:
        failures.append(f"a second burst grew memory by {rss_after_second - rss_after_first} KiB")

    # Every answer is well formed: malformed requests are JSON-RPC errors.
    for id_ in [f"u{i}" for i in range(4)] + ["nomethod", "badparams", "bigmethod"] + [f"t{i}" for i in range(10)]:
        answer = server.answers.get(id_, {})
        if "error" not in answer:
            failures.append(f"{id_}: expected a JSON-RPC error, got {str(answer)[:200]}")
    if "result" not in server.answers.get("extra", {}):
        failures.append(f"extra: unknown arguments should be ignored, got {str(server.answers.get('extra'))[:200]}")
    for id_ in [f"big{i}" for i in range(4)]:
        result = server.answers.get(id_, {}).get("result", {})
        if not result.get("isError"):
            failures.append(f"{id_}: a 10 MB argument should be an isError result, got {str(server.answers.get(id_))[:200]}")
    errors_in_burst = [m for m in burst if "error" in server.answers.get(m["id"], {})]
    if errors_in_burst:
        failures.append(f"{len(errors_in_burst)} burst requests failed, e.g. {server.answers[errors_in_burst[0]['id']]}")

    if args.touch and "notifications/resources/list_changed" not in server.notifications:
        failures.append("no notifications/resources/list_changed for the skills written during the bursts")

    # Still alive, and memory flat.
    server.send({"jsonrpc": "2.0", "id": "last", "method": "ping"})
    alive = server.wait(["last"], nulls, 10)
    if not alive:
        failures.append("the server did not answer a ping after the burst")
    time.sleep(0.2)
    rss_after = rss_kb(server.process.pid)
    growth = rss_after - rss_before
    if growth > 64 * 1024:
        failures.append(f"memory grew by {growth} KiB")
    server.process.stdin.close()
    try:
        code = server.process.wait(10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        code = "killed"
        failures.append("the server did not exit on stdin EOF")
    report = {
        "requests": len(ids), "parse_errors_expected": nulls, "parse_errors_answered": len(server.null_errors),
        "answered": sum(1 for i in ids if i in server.answers), "burst_seconds": round(burst_seconds, 3),
        "second_burst_seconds": round(second_seconds, 3), "rss_before_kib": rss_before,
        "rss_after_first_burst_kib": rss_after_first, "rss_after_second_burst_kib": rss_after_second,
        "rss_after_kib": rss_after, "exit_code": code,
        "notifications": len(server.notifications), "failures": failures,
    }
    print(json.dumps(report))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
