"""End-to-end check of `skilldex serve` with the official MCP Python SDK.

Run by tests/cli/mcp.rs as:
    python e2e.py --mode legacy|auto --binary SKILLDEX --root ROOT --config FILE [--live]

It drives the real binary over stdio as an independent client would and
fails (exit 1, with the failed checks listed) on the first protocol
surprise. Every check prints one `ok`/`FAIL` line so a failure in CI reads
like a report.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

RAW = TypeAdapter(dict[str, Any])
TOOL_NAMES = ["grep_skills", "read_skill", "request_skill_enable", "search_skills"]
SEVEN_TYPES = {"string", "number", "boolean", "integer", "object", "array", "null"}
ALLOWED_KEYWORDS = {
    "$defs", "$ref", "additionalProperties", "allOf", "anyOf", "const", "default",
    "description", "enum", "items", "oneOf", "properties", "required", "type",
}


class ListSkills(types.PaginatedRequest[Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"


class UriParams(types.RequestParams):
    uri: str


class GetSkill(types.Request[UriParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: UriParams


class DirectoryParams(types.PaginatedRequestParams):
    uri: str


class ReadDirectory(types.Request[DirectoryParams, Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"
    params: DirectoryParams


failures: list[str] = []


def check(condition: bool, what: str, detail: Any = "") -> bool:
    if condition:
        print(f"ok    {what}")
    else:
        print(f"FAIL  {what} {detail}")
        failures.append(what)
    return condition


def schema_problems(schema: Any, at: str = "") -> list[str]:
    """Our JSON Schema subset (DESIGN §10), checked independently of the Rust validator."""
    if not isinstance(schema, dict):
        return [f"{at}: not an object"]
    problems = []
    keys = list(schema.keys())
    if keys != sorted(keys):
        problems.append(f"{at}: keys not sorted {keys}")
    for key in keys:
        if key not in ALLOWED_KEYWORDS:
            problems.append(f"{at}: keyword {key}")
    types_ = schema.get("type")
    names = [types_] if isinstance(types_, str) else (types_ or [])
    for name in names:
        if name not in SEVEN_TYPES:
            problems.append(f"{at}: type {name}")
    if "object" in names and "properties" not in schema:
        problems.append(f"{at}: object without properties")
    description = schema.get("description")
    if description is not None and (not description.strip() or len(description.encode()) > 1000):
        problems.append(f"{at}: bad description")
    for name, sub in (schema.get("properties") or {}).items():
        if not sub.get("description"):
            problems.append(f"{at}/properties/{name}: no description")
        problems += schema_problems(sub, f"{at}/properties/{name}")
    return problems


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def expect_mcp_error(awaitable, code: int, what: str) -> None:
    try:
        await awaitable
    except MCPError as error:
        check(error.code == code, what, f"code {error.code}: {error}")
    else:
        check(False, what, "no error")


async def main(args: argparse.Namespace) -> None:
    root = Path(args.root)
    config = Path(args.config)
    seen: dict[str, int] = {}
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            return
        method = getattr(message, "method", None)
        if method:
            seen[method] = seen.get(method, 0) + 1
            if method == "notifications/resources/list_changed":
                changed.set()

    elicitations: list[types.ElicitRequestParams] = []

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        elicitations.append(params)
        return types.ElicitResult(action="accept", content={}, _meta={"persist": "always"})

    env = {"SKILLDEX_CONFIG": str(config), "NO_COLOR": "1"}
    server = StdioServerParameters(
        command=args.binary,
        args=["serve", "--root", str(root)],
        env=env,
    )
    # A client that cannot elicit is told so, and nothing changes.
    async with Client(server, mode=args.mode, cache=None, read_timeout_seconds=30) as plain:
        result = await plain.call_tool("request_skill_enable", {
            "name": "secret-recipes", "suggest_reason": "The user asked for the family recipes."})
        check(result.is_error and "does not support elicitation" in text_of(result)
              and "skilldex.yaml" in text_of(result),
              "without elicitation support the tool says so and how to enable by hand", text_of(result))

    started = time.monotonic()
    async with Client(
        server,
        mode=args.mode,
        message_handler=on_message,
        elicitation_callback=on_elicit,
        cache=None,
        read_timeout_seconds=30,
    ) as client:
        print(f"connected in {(time.monotonic() - started) * 1000:.0f} ms, protocol {client.protocol_version}")
        check(client.server_info is not None and client.server_info.name == "skilldex", "server name is skilldex")
        extensions = client.server_capabilities.extensions or {}
        skills_ext = extensions.get("io.modelcontextprotocol/skills")
        check(isinstance(skills_ext, dict) and skills_ext.get("directoryRead") is True,
              "Skills extension declared with directoryRead", extensions)
        check(client.server_capabilities.resources is not None, "resources capability declared")
        instructions = client.instructions or ""
        check("read_skill" in instructions and "csv-cleanup" in instructions,
              "instructions carry the directory and how to use the tools", instructions[:200])

        # --- tools and their schemas
        tools = (await client.list_tools()).tools
        check(sorted(t.name for t in tools) == TOOL_NAMES, "the four tools are listed", [t.name for t in tools])
        for tool in tools:
            problems = schema_problems(tool.input_schema)
            check(not problems, f"{tool.name} schema fits the subset", problems)
            check(bool(tool.description) and len(tool.description.encode()) <= 1000,
                  f"{tool.name} description is 1..1000 bytes")

        # --- search_skills
        result = await client.call_tool("search_skills", {"query": "clean a messy csv export", "limit": 3})
        hits = json.loads(text_of(result))
        check(not result.is_error and hits["results"] and hits["results"][0]["name"] == "csv-cleanup",
              "search_skills ranks csv-cleanup first", text_of(result)[:300])
        check(hits["results"][0].get("uri") == "skill://data/csv-cleanup/SKILL.md", "search hits carry their skill:// uri")
        result = await client.call_tool("search_skills", {"query": "zebra quantum"})
        answer = json.loads(text_of(result))
        check(answer["no_match"] is True and "zebra" in answer["unmatched_terms"],
              "search_skills says no match and names the unmatched words", answer)

        # --- read_skill
        result = await client.call_tool("read_skill", {"name": "csv-cleanup"})
        body = text_of(result)
        check(not result.is_error and "# CSV" in body or "csv" in body.lower(), "read_skill returns the body", body[:200])
        check("files:" in body and "scripts/profile_csv.py" in body, "read_skill lists the skill's files", body[:400])
        result = await client.call_tool("read_skill", {"name": "csv-cleanup", "path": "scripts/profile_csv.py"})
        check(not result.is_error and "profile_csv.py" in text_of(result), "read_skill reads a sub-file")
        result = await client.call_tool("read_skill", {"name": "csv-cleanup", "start_line": 1, "end_line": 3})
        check(not result.is_error and "lines 1–3" in text_of(result), "read_skill reads a line range", text_of(result)[:120])
        result = await client.call_tool("read_skill", {"name": "big", "section": "Part 2"})
        check(not result.is_error and "Part 2" in text_of(result), "read_skill reads a section", text_of(result)[:200])
        result = await client.call_tool("read_skill", {"name": "big"})
        check("continue with read_skill" in text_of(result), "a long read ends with a continuation hint", text_of(result)[-300:])
        result = await client.call_tool("read_skill", {"name": "csv-cleanup", "path": "../../../etc/passwd"})
        check(result.is_error and "not inside skill" in text_of(result), "a path outside the skill is an isError result", text_of(result))
        result = await client.call_tool("read_skill", {"name": "csv-cleanu"})
        check(result.is_error and "csv-cleanup" in text_of(result), "an unknown skill is an isError result with a suggestion", text_of(result))
        result = await client.call_tool("read_skill", {"name": "secret-recipes"})
        check(result.is_error and "disabled by configuration" in text_of(result), "a disabled skill says so", text_of(result))
        await expect_mcp_error(client.call_tool("read_skill", {"name": 42}), -32602,
                               "a wrong argument type is a JSON-RPC invalid-params error")
        await expect_mcp_error(client.call_tool("no_such_tool", {}), -32602, "an unknown tool is a JSON-RPC error")

        # --- grep_skills
        result = await client.call_tool("grep_skills", {"pattern": "delimiter", "ignore_case": True})
        check(not result.is_error and "csv-cleanup/" in text_of(result), "grep_skills finds text", text_of(result)[:200])
        result = await client.call_tool("grep_skills", {"pattern": "(unclosed"})
        check(result.is_error and "not a valid regular expression" in text_of(result), "a bad regex is an isError result", text_of(result))
        result = await client.call_tool("grep_skills", {"pattern": "e", "max_results": 5})
        check(not result.is_error and "stopped at 5" in text_of(result), "grep_skills caps and says so", text_of(result)[:200])

        # --- what hosts send and expect (issue 20 §4)
        check(len(instructions.encode("utf-16-le")) // 2 <= 2048, "instructions fit in 2,048 characters",
              len(instructions))
        lead = instructions.split("\n\n")[0]
        check(len(lead) <= 247 and "search_skills" in lead and "read_skill" in lead,
              "the first 247 characters say how to use the tools", lead)
        # Gemini CLI adds wait_for_previous to every call.
        result = await client.call_tool("search_skills", {"query": "clean a messy csv export", "wait_for_previous": True})
        check(not result.is_error and "csv-cleanup" in text_of(result), "an argument a host adds is ignored",
              text_of(result)[:200])
        result = await client.call_tool("read_skill", {"name": "csv-cleanup", "sectoin": "x"})
        notes = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
        check(not result.is_error and "did you mean `section`" in notes, "a misspelt argument is ignored and named",
              notes[-300:])
        # OpenAI strict mode: every argument present, optional ones null.
        strict_calls = [
            ("search_skills", {"query": "clean a messy csv export", "limit": None}),
            ("read_skill", {"name": "csv-cleanup", "path": None, "section": None, "start_line": None,
                            "end_line": None, "max_tokens": None}),
            ("grep_skills", {"pattern": "delimiter", "skill": None, "namespace": None, "fixed_strings": None,
                             "ignore_case": None, "max_results": None}),
        ]
        for name, arguments in strict_calls:
            result = await client.call_tool(name, arguments)
            check(not result.is_error, f"{name} called the strict way (nulls) works", text_of(result)[:200])
        # Prompts: one per skill, the instructions as a user message.
        check(client.server_capabilities.prompts is not None, "prompts capability declared")
        prompts = (await client.list_prompts()).prompts
        names = {p.name for p in prompts}
        check("csv-cleanup" in names and "git-bisect" in names and "secret-recipes" not in names,
              "every enabled skill is a prompt", sorted(names)[:20])
        prompt = await client.get_prompt("git-bisect")
        message = prompt.messages[0] if prompt.messages else None
        check(message is not None and message.role == "user" and isinstance(message.content, types.TextContent)
              and "# Git bisect" in message.content.text, "prompts/get gives the skill's instructions",
              str(prompt)[:300])
        # The discovery index beside the skills.
        index_read = (await client.read_resource("skill://index.json")).contents[0]
        index = json.loads(index_read.text) if isinstance(index_read, types.TextResourceContents) else {}
        entries = {e["name"]: e for e in index.get("skills", [])}
        check(index.get("$schema") == "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
              and entries.get("csv-cleanup", {}).get("type") == "skill-md"
              and entries.get("csv-cleanup", {}).get("url") == "skill://data/csv-cleanup/SKILL.md",
              "skill://index.json is the discovery document", str(index)[:300])
        skill_file = (await client.read_resource("skill://data/csv-cleanup/SKILL.md")).contents[0]
        digest = "sha256:" + hashlib.sha256(skill_file.text.encode()).hexdigest()
        check(entries.get("csv-cleanup", {}).get("digest") == digest, "index digests match the files")

        # --- request_skill_enable
        result = await client.call_tool("request_skill_enable", {"name": "secret-recipes", "suggest_reason": "  "})
        check(result.is_error and "suggest_reason" in text_of(result), "an empty suggest_reason is refused")
        result = await client.call_tool("request_skill_enable", {"name": "csv-cleanup", "suggest_reason": "x"})
        check(result.is_error and "already enabled" in text_of(result), "enabling an enabled skill is refused")
        before = config.read_text()
        modern = client.protocol_version >= "2026-07-28"
        listen = client.listen(resources_list_changed=True) if modern else None
        subscription = await listen.__aenter__() if listen else None
        result = await client.call_tool("request_skill_enable", {
            "name": "secret-recipes", "suggest_reason": "The user asked for the family recipes."})
        with anyio.move_on_after(10):
            if subscription is not None:
                async for event in subscription:
                    if type(event).__name__ == "ResourcesListChanged":
                        changed.set()
                        break
            else:
                await changed.wait()
        if listen is not None:
            await listen.__aexit__(None, None, None)
        check(changed.is_set(), "enabling a skill sends notifications/resources/list_changed"
              + (" on the listen stream" if modern else ""))
        changed = anyio.Event()
        answer = json.loads(text_of(result)) if not result.is_error else {}
        check(answer.get("completed") is True and answer.get("user_confirmed") is True and answer.get("name") == "secret-recipes",
              "request_skill_enable asks the user and enables the skill", text_of(result))
        check(len(elicitations) == 1, "one elicitation reached the client", len(elicitations))
        if elicitations:
            raw = elicitations[0].meta or {}
            meta = raw if isinstance(raw, dict) else raw.model_dump(by_alias=True)
            check(meta.get("codex_approval_kind") == "tool_suggestion" and meta.get("persist") == "always",
                  "the elicitation is tagged as a tool suggestion", meta)
        after = config.read_text()
        check("secret-recipes, " in before and after == before.replace("secret-recipes, ", ""),
              "persist=always removed just that item from the disabled list of the config file", after)
        result = await client.call_tool("read_skill", {"name": "secret-recipes"})
        check(not result.is_error, "the enabled skill can be read", text_of(result)[:200])

        # --- the Skills extension
        skills: list[dict] = []
        cursor = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await client.session.send_request(ListSkills(params=params), RAW)
            skills += page["skills"]
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        names = sorted(s["frontmatter"]["name"] for s in skills)
        check("csv-cleanup" in names and "big" in names, "skills/list lists the skills", names)
        check("Bad_Name" not in json.dumps(skills), "a skill breaking the extension's name rule is left out")
        files = 0
        for entry in skills:
            got = await client.session.send_request(GetSkill(params=UriParams(uri=entry["uri"])), RAW)
            if not check(got["skill"] == entry, f"skills/get {entry['uri']} equals the list entry"):
                continue
            for resource in entry["resources"]:
                contents = (await client.read_resource(resource["uri"])).contents
                item = contents[0]
                data = item.text.encode() if isinstance(item, types.TextResourceContents) else base64.b64decode(item.blob)
                good = (len(contents) == 1 and item.uri == resource["uri"] and len(data) == resource["size"]
                        and "sha256:" + hashlib.sha256(data).hexdigest() == resource["digest"])
                check(good, f"resources/read {resource['uri']} matches size and digest")
                files += 1
        print(f"      verified {len(skills)} skills, {files} files")
        await expect_mcp_error(
            client.session.send_request(GetSkill(params=UriParams(uri="skill://no/such-skill/SKILL.md")), RAW),
            -32602, "skills/get of an unknown uri is -32602")
        listing = await client.session.send_request(
            ReadDirectory(params=DirectoryParams(uri="skill://data/csv-cleanup")), RAW)
        children = {r["name"]: r.get("mimeType") for r in listing["resources"]}
        check(children.get("scripts") == "inode/directory" and children.get("SKILL.md") == "text/markdown",
              "resources/directory/read lists direct children", children)
        await expect_mcp_error(
            client.session.send_request(ReadDirectory(params=DirectoryParams(uri="skill://data/csv-cleanup/SKILL.md")), RAW),
            -32602, "resources/directory/read of a file is -32602")
        directory = (await client.read_resource("skilldex://directory")).contents[0]
        check(isinstance(directory, types.TextResourceContents) and "csv-cleanup" in directory.text,
              "the directory is a resource")

        # --- live: a new skill on disk reaches the client
        if args.live:
            modern = client.protocol_version >= "2026-07-28"
            listen = client.listen(resources_list_changed=True) if modern else None
            subscription = await listen.__aenter__() if listen else None
            new = root / "data" / "fresh-skill"
            new.mkdir(parents=True)
            (new / "SKILL.md").write_text(
                "---\nname: fresh-skill\ndescription: Appears while the server runs. Use when testing live reload.\n---\n\n# Fresh\n")
            notified = listed = False
            # Like a host: on each change notification, list again, until
            # the new skill is there (or 15 s pass).
            with anyio.move_on_after(15):
                while not listed:
                    if subscription is not None:
                        async for event in subscription:
                            if type(event).__name__ == "ResourcesListChanged":
                                break
                    else:
                        await changed.wait()
                        changed = anyio.Event()
                    notified = True
                    page = await client.session.send_request(ListSkills(params=None), RAW)
                    listed = any(s["frontmatter"]["name"] == "fresh-skill" for s in page["skills"])
            if listen is not None:
                await listen.__aexit__(None, None, None)
            check(notified and listed, "a new skill on disk sends notifications/resources/list_changed and the next skills/list has it")
            result = await client.call_tool("search_skills", {"query": "fresh skill live reload"})
            check("fresh-skill" in text_of(result), "search_skills sees the new revision", text_of(result)[:200])
            result = await client.call_tool("read_skill", {"name": "fresh-skill"})
            check(not result.is_error and "Fresh" in text_of(result), "read_skill sees the new revision")

    if failures:
        print(f"\n{len(failures)} failed: {failures}")
        sys.exit(1)
    print("\nall checks passed")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--live", action="store_true")
    arguments = parser.parse_args()
    anyio.run(main, arguments)
