"""`search_skills` in the semantic mode, with the official MCP Python SDK.

Run by tests/cli/semantic.rs as:
    python semantic.py --binary SKILLDEX --root ROOT --model DIR --cache-dir DIR --stderr LOG

Starts `skilldex serve --model DIR` (following changes), asks a request that
shares no word with the skill that serves it, checks the honest flags, then
edits one skill and waits for the server to embed that one skill only.
Every check prints one `ok`/`FAIL` line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

failures: list[str] = []


def check(condition: bool, what: str, detail: object = "") -> None:
    print(("ok   " if condition else "FAIL ") + what + ("" if condition else f": {detail}"))
    if not condition:
        failures.append(what)


def text_of(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def wait_for(log: Path, needle: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if log.exists() and needle in log.read_text(errors="replace"):
            return True
        await anyio.sleep(0.1)
    return False


async def main(args: argparse.Namespace) -> None:
    log = Path(args.stderr)
    # The server's stderr goes to a file the checks read.
    server = StdioServerParameters(
        command="/bin/sh",
        args=["-c", 'exec "$0" "$@" 2>>"$SKILLDEX_TEST_LOG"', args.binary, "serve", "--root", args.root,
              "--model", args.model, "--cache-dir", args.cache_dir],
        env={"NO_COLOR": "1", "SKILLDEX_TEST_LOG": str(log), "HOME": "/nonexistent"},
    )
    async with Client(server, cache=None, read_timeout_seconds=120) as client:
        # While the vectors are being embedded, the answer is lexical and says so.
        for _ in range(600):
            result = await client.call_tool("search_skills", {"query": "how many yen would I get for 50 euros"})
            answer = json.loads(text_of(result))
            if answer.get("mode") == "semantic":
                break
            check(answer.get("mode") == "lexical" and "still being built" in answer.get("note", ""),
                  "an answer before the vectors are built says it is lexical", answer)
            await anyio.sleep(0.2)
        names = [hit["name"] for hit in answer.get("results", [])]
        check(not result.is_error and names[:1] == ["currency-converter"],
              "search_skills finds the skill by meaning", answer)
        check(answer.get("mode") == "semantic", "the answer says it ranked by meaning", answer)
        check(answer.get("confidence") == "low", "a hit found by meaning alone is flagged low", answer)

        result = await client.call_tool("search_skills", {"query": "knit a sweater for my nephew"})
        answer = json.loads(text_of(result))
        check(answer.get("no_match") is True or answer.get("confidence") == "low",
              "a request no skill serves is not answered as sure", answer)

        check(await wait_for(log, "embedded 6 of 6 skills", 60), "the first snapshot embeds every skill",
              log.read_text(errors="replace") if log.exists() else "no log")
        skill = Path(args.root) / "travel" / "weather-forecast" / "SKILL.md"
        skill.write_text("---\nname: weather-forecast\ndescription: Hourly outlook of rain and sunshine for any town.\n---\n\n"
                         "# weather-forecast\n\nHourly outlook of rain and sunshine for any town.\n")
        check(await wait_for(log, "embedded 1 of 6 skills", 60), "a changed skill is the only one embedded again",
              log.read_text(errors="replace"))
        result = await client.call_tool("search_skills", {"query": "will it be sunny in my town this afternoon"})
        answer = json.loads(text_of(result))
        names = [hit["name"] for hit in answer.get("results", [])]
        check(names[:1] == ["weather-forecast"], "the new text is searched", answer)

    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)
    print("all semantic checks passed")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    for flag in ("--binary", "--root", "--model", "--cache-dir", "--stderr"):
        parser.add_argument(flag, required=True)
    anyio.run(main, parser.parse_args())
