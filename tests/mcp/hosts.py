"""An independent MCP client for `serve --host`: starts the server with the
arguments given after `--`, and prints as JSON what a host receives — the
instructions of `initialize` and the `tools/list` entries — for the Rust
test (tests/cli/hosts.rs) to check.
"""

from __future__ import annotations

import argparse
import json
import sys

import anyio
from mcp import Client, StdioServerParameters


async def main(args: argparse.Namespace, serve_args: list[str]) -> None:
    server = StdioServerParameters(
        command=args.binary, args=serve_args, env={"NO_COLOR": "1"}, cwd=args.cwd)
    async with Client(server, mode="legacy", cache=None, read_timeout_seconds=30) as client:
        listed = await client.list_tools()
        tools = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools]
        print(json.dumps({"instructions": client.instructions or "", "tools": tools}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--cwd", required=True)
    split = sys.argv.index("--")
    arguments = parser.parse_args(sys.argv[1:split])
    anyio.run(main, arguments, sys.argv[split + 1:])
