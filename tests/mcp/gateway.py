"""End-to-end check of the gateway with the official MCP Python SDK.

Run by tests/cli/gateway.rs as:
    python gateway.py --mode legacy|auto --binary SKILLDEX --folder FOLDER

FOLDER holds a skilldex.yaml with two upstream test servers
(tests/fixtures/mcp-servers/gateway_server.py: `office` and `lab`, a few
hundred tools) whose snapshots `skilldex tools sync` has written. The
script drives `skilldex serve` as an independent client would: search,
the found tools appended to tools/list, calls proxied upstream, twenty
loads keeping every earlier entry byte for byte, a crash mid-call, errors,
progress, a slow server beside a fast one, and an upstream whose tools
change. Every check prints one `ok`/`FAIL` line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

failures: list[str] = []


def check(condition: bool, what: str, detail: Any = "") -> bool:
    if condition:
        print(f"ok    {what}")
    else:
        print(f"FAIL  {what} {detail}")
        failures.append(what)
    return condition


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def dumped(tools: list[types.Tool]) -> list[str]:
    """Each tool as the bytes a host would put in its prompt."""
    return [json.dumps(t.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=True) for t in tools]


async def eventually(what: str, probe, seconds: float = 20.0) -> Any:
    """Poll `probe` until it returns something truthy, with a deadline."""
    last = None
    with anyio.move_on_after(seconds):
        while True:
            last = await probe()
            if last:
                check(True, what)
                return last
            await anyio.sleep(0.05)
    check(False, what, f"not within {seconds} s; last: {last}")
    return None


# How the user answers each suggestion: (action, persist).
# Every combination of type × action × accept/decline × persist/not.
ANSWERS = {
    # mcp_server × enable
    "spare": ("accept", "always"),
    "spare3": ("accept", None),
    "extra": ("decline", "always"),
    "spare2": ("decline", None),
    # skill × enable
    "secret": ("accept", None),
    "secret2": ("accept", "always"),
    "secret3": ("decline", "always"),
    "secret4": ("decline", None),
    # skill × install
    "pdf-tools": ("accept", None),
    "csv-tools": ("accept", "always"),
    "zip-tools": ("decline", "always"),
    "tar-tools": ("decline", None),
    # mcp_server × install
    "notes": ("accept", None),
    "notes2": ("accept", "always"),
    "notes3": ("decline", "always"),
    "notes4": ("decline", None),
}
# What a declined "always" leaves in skilldex.yaml.
DECLINED = ["enable:mcp_server:extra", "enable:skill:secret3", "install:skill:zip-tools",
            "install:mcp_server:notes3"]
asked: list[str] = []


# Queries for twenty successive loads, in the fixture's vocabulary.
LOADS = [
    "schedule a meeting", "share a contract", "export the budget", "archive a memo",
    "rename a badge", "list desks", "merge printer", "cancel an expense", "approve payroll",
    "create a holiday", "measure a sample", "label a reagent", "thaw a culture",
    "dilute buffer", "record a spectrum", "inspect the microscope", "discard a plate",
    "reserve the freezer", "calibrate the pipette", "transfer an enzyme",
]


async def main(args: argparse.Namespace) -> None:
    folder = Path(args.folder)
    tool_changes = 0

    async def on_message(message: Any) -> None:
        nonlocal tool_changes
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            tool_changes += 1

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        meta = params.meta or {}
        tool_id = meta.get("tool_id")
        asked.append(tool_id)
        check(meta.get("codex_approval_kind") == "tool_suggestion" and meta.get("persist") == "always",
              f"the question about {tool_id} is tagged as a tool suggestion", meta)
        action, persist = ANSWERS.get(tool_id, ("decline", None))
        return types.ElicitResult(action=action, content={}, _meta={"persist": persist} if persist else None)

    server = StdioServerParameters(
        command=args.binary,
        args=["serve"],
        env={"SKILLDEX_CONFIG": str(folder / "skilldex.yaml"), "NO_COLOR": "1"},
        cwd=str(folder),
    )
    async with Client(server, mode=args.mode, message_handler=on_message, elicitation_callback=on_elicit, cache=None,
                      read_timeout_seconds=30) as client:
        modern = (client.protocol_version or "") >= "2026-07-28"
        listen = client.listen(tools_list_changed=True) if modern else None
        subscription = await listen.__aenter__() if listen else None

        async def count_events() -> None:
            nonlocal tool_changes
            async for _ in subscription:
                tool_changes += 1

        async with anyio.create_task_group() as events:
            if subscription is not None:
                events.start_soon(count_events)
            await session(client, folder, lambda: tool_changes)
            events.cancel_scope.cancel()
        if listen is not None:
            await listen.__aexit__(None, None, None)

    await later_session(args)
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)


async def session(client: Client, folder: Path, tool_changes) -> None:
    if True:
        first = (await client.list_tools()).tools
        names = [t.name for t in first]
        check(names[-3:] == ["tool_search", "call_tool", "request_install"],
              "tool_search, call_tool and request_install follow skilldex's own tools", names)
        search = next(t for t in first if t.name == "tool_search")
        check("office (2" in (search.description or "") and "lab (1" in (search.description or ""),
              "tool_search's description lists the servers with their tool counts", search.description)
        check((search.input_schema.get("required") or []) == ["query"], "tool_search needs only a query")

        # --- search → appended at the end → call → upstream result
        before = dumped(first)
        result = await client.call_tool("tool_search", {"query": "approve an invoice"})
        answer = json.loads(text_of(result))
        found = [hit["id"] for hit in answer["tools"]]
        check(not result.is_error and found[:1] == ["office/invoice_approve"],
              "tool_search finds the tool the words describe", found)
        check(len(found) == 8, "tool_search returns 8 tools by default", len(found))
        check(answer["loaded"] == [hit["name"] for hit in answer["tools"]],
              "the answer lists the loaded names", answer["loaded"])
        await eventually("a load sends notifications/tools/list_changed", lambda: _true(tool_changes() > 0))
        after = dumped((await client.list_tools()).tools)
        check(after[:len(before)] == before, "the earlier entries stay byte for byte in place")
        appended = [json.loads(t)["name"] for t in after[len(before):]]
        check(appended == answer["loaded"], "the found tools are appended at the end, in answer order", appended)
        result = await client.call_tool("office__invoice_approve", {"id": "inv-42"})
        structured = result.structured_content or {}
        check(not result.is_error and structured.get("server") == "office"
              and structured.get("tool") == "invoice_approve"
              and structured.get("arguments") == {"id": "inv-42"},
              "a loaded tool's call reaches its upstream and comes back", structured)

        # --- a strict-mode call (nulls for unused optional arguments) and a
        # host's own argument reach upstream as a plain call
        result = await client.call_tool("office__invoice_approve",
                                        {"id": "inv-43", "note": None, "wait_for_previous": True})
        structured = result.structured_content or {}
        check(not result.is_error and structured.get("arguments") == {"id": "inv-43"}
              and len(result.content) == 1,
              "null means absent and unknown arguments are ignored on a loaded tool, without a word", structured)
        result = await client.call_tool("office__invoice_approve", {"id": "inv-44", "nota": "x"})
        check(not result.is_error and (result.structured_content or {}).get("arguments") == {"id": "inv-44"}
              and "did you mean `note`?" in text_of(result),
              "a misspelt argument is ignored with a note", text_of(result))
        result = await client.call_tool("call_tool", {"tool": "office/invoice_approve",
                                                      "arguments": {"id": "inv-45", "note": None}})
        check(not result.is_error and (result.structured_content or {}).get("arguments") == {"id": "inv-45"},
              "call_tool fits the arguments the same way", text_of(result))

        # --- twenty successive loads never move an earlier entry
        listed = after
        stable = True
        grew = 0
        for query in LOADS:
            result = await client.call_tool("tool_search", {"query": query, "limit": 2})
            if result.is_error:
                stable = False
                print(f"      search {query!r} failed: {text_of(result)}")
                continue
            now = dumped((await client.list_tools()).tools)
            if now[:len(listed)] != listed:
                stable = False
            grew += len(now) > len(listed)
            listed = now
        check(stable, "20 successive loads keep every earlier entry byte for byte in place")
        check(grew >= 15, "the successive loads append new tools", grew)
        names = [json.loads(t)["name"] for t in listed]
        check(len(names) == len(set(names)) and all(len(n) <= 64 for n in names),
              "callable names are unique and within 64 characters")
        resource = await client.read_resource("skilldex://tools/loaded")
        loaded = json.loads(resource.contents[0].text)["loaded"]
        check([e["name"] for e in loaded] == names[7:], "the loaded-tools resource lists them in list order")

        # --- errors come back as tool errors with the server's message
        result = await client.call_tool("call_tool", {"tool": "lab/fail_rpc"})
        check(result.is_error and "lab says no" in text_of(result),
              "an upstream JSON-RPC error is a tool error with its message", text_of(result))
        result = await client.call_tool("call_tool", {"tool": "lab/fail_tool"})
        check(result.is_error and "widget is jammed" in text_of(result),
              "an upstream tool error is passed through", text_of(result))
        result = await client.call_tool("call_tool", {"tool": "lab/no_such_thing"})
        check(result.is_error and "tool_search" in text_of(result),
              "an unknown id is a tool error that points to tool_search", text_of(result))

        # --- a crash mid-call, then the next call works
        result = await client.call_tool("call_tool", {"tool": "lab/echo", "arguments": {"text": "one"}})
        pid = (result.structured_content or {}).get("pid")
        result = await client.call_tool("call_tool", {"tool": "lab/crash_now"})
        check(result.is_error and "exited during the call" in text_of(result)
              and "crash requested" in text_of(result),
              "a crash mid-call is a clean tool error with the server's last words", text_of(result))
        result = await client.call_tool("call_tool", {"tool": "lab/echo", "arguments": {"text": "two"}})
        again = result.structured_content or {}
        check(not result.is_error and again.get("arguments") == {"text": "two"} and again.get("pid") != pid,
              "the next call works, on a restarted server", (text_of(result), pid))

        # --- progress is carried through
        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        result = await client.call_tool("call_tool", {"tool": "lab/slow_count", "arguments": {"steps": 3, "delay_ms": 20}},
                                        progress_callback=on_progress)
        check(not result.is_error and text_of(result) == "counted to 3", "a slow call completes", text_of(result))
        await eventually("the upstream's progress reaches the client", lambda: _true(len(progress) >= 2))

        # --- a cancelled call is cancelled upstream too, and ends
        events = folder / "lab-events.log"
        steps_seen: list[float] = []

        async def on_step(value: float, total: float | None, message: str | None) -> None:
            steps_seen.append(value)

        async with anyio.create_task_group() as group:
            async def doomed() -> None:
                await client.call_tool("call_tool", {"tool": "lab/slow_count", "arguments": {"steps": 400, "delay_ms": 50}},
                                       progress_callback=on_step)

            group.start_soon(doomed)
            await eventually("the long call is running upstream", lambda: _true(len(steps_seen) >= 2))
            group.cancel_scope.cancel()

        async def upstream_cancelled() -> str:
            return events.read_text() if events.exists() else ""

        seen = await eventually("notifications/cancelled reaches the upstream server", upstream_cancelled)
        if seen:
            step = int(seen.split("at step ")[1].split(" ")[0])
            check(step < 400, "the cancelled call ends before it would have finished", seen)
        result = await client.call_tool("call_tool", {"tool": "lab/echo", "arguments": {"text": "after"}})
        check(not result.is_error, "the server answers the next call after a cancellation", text_of(result))

        # --- a slow server blocks neither the other server nor skilldex's own tools
        order: list[str] = []

        async def slow() -> None:
            await client.call_tool("call_tool", {"tool": "lab/slow_count", "arguments": {"steps": 30, "delay_ms": 100}})
            order.append("slow")

        async with anyio.create_task_group() as group:
            group.start_soon(slow)
            await anyio.sleep(0.2)
            await client.call_tool("call_tool", {"tool": "office/echo", "arguments": {"text": "fast"}})
            order.append("office")
            await client.call_tool("search_skills", {"query": "demo"})
            order.append("skills")
        check(order == ["office", "skills", "slow"], "a slow upstream blocks neither the others nor skilldex's tools", order)

        # --- an upstream whose tools change
        result = await client.call_tool("tool_search", {"query": "lab/echo"})
        check(json.loads(text_of(result))["tools"][0]["id"] == "lab/echo", "an exact id ranks first")
        echo_before = next(t for t in dumped((await client.list_tools()).tools) if json.loads(t)["name"] == "lab__echo")
        await client.call_tool("call_tool", {"tool": "lab/add_tool", "arguments": {"name": "zebra_polish"}})

        async def added() -> bool:
            result = await client.call_tool("tool_search", {"query": "zebra polish", "limit": 1})
            hits = json.loads(text_of(result))["tools"]
            return bool(hits) and hits[0]["id"] == "lab/zebra_polish"

        await eventually("tools/list_changed upstream refreshes the snapshot and search finds the new tool", added)
        snapshot = json.loads((folder / "skills" / "lab" / "mcp-tools.json").read_text())
        check(any(t["name"] == "zebra_polish" for t in snapshot["tools"]), "the snapshot on disk has the new tool")
        await client.call_tool("call_tool", {"tool": "lab/change_echo"})

        async def changed() -> Any:
            result = await client.call_tool("tool_search", {"query": "lab/echo", "limit": 1})
            hit = json.loads(text_of(result))["tools"][0]
            return hit if hit["status"] == "changed" else None

        hit = await eventually("a changed upstream schema is reported by search", changed)
        if hit:
            check("loud" in hit["input_schema"]["properties"], "search offers the new schema", hit)
        echo_after = next(t for t in dumped((await client.list_tools()).tools) if json.loads(t)["name"] == "lab__echo")
        check(echo_after == echo_before, "the loaded tool keeps the schema it was loaded with")

        # --- enable / install (Type × Action)
        async def install(type_: str, action: str, id_: str, reason: str = "The task needs it.") -> dict:
            result = await client.call_tool("request_install", {"type": type_, "action": action, "id": id_,
                                                                "suggest_reason": reason})
            text = text_of(result)
            return {"error": text} if result.is_error else json.loads(text)

        answer = await install("mcp_server", "enable", "spare", "   ")
        check("suggest_reason" in answer.get("error", ""), "an empty suggest_reason is refused", answer)
        check(asked == [], "nothing is asked without a reason", asked)
        answer = await install("mcp_server", "enable", "spare2")
        check(answer.get("user_confirmed") is False and answer.get("completed") is False,
              "a declined server stays disabled", answer)
        config = (folder / "skilldex.yaml").read_text()
        answer = await install("mcp_server", "enable", "spare")
        check(answer.get("completed") is True and answer.get("tools", 0) > 100,
              "an accepted server is enabled and its tools synced", answer)
        check(answer.get("persisted") and "spare:" in (folder / "skilldex.yaml").read_text()
              and (folder / "skilldex.yaml").read_text().count("enabled: false") == config.count("enabled: false") - 1,
              "\"always\" deletes its `enabled: false` and nothing else", (folder / "skilldex.yaml").read_text())
        check("# the spare server" in (folder / "skilldex.yaml").read_text(), "the file keeps its comments")
        result = await client.call_tool("call_tool", {"tool": "spare/echo", "arguments": {"text": "hi"}})
        check(not result.is_error and (result.structured_content or {}).get("server") == "spare",
              "the enabled server's tools run", text_of(result))
        answer = await install("mcp_server", "enable", "extra")
        check(answer.get("user_confirmed") is False, "a declined \"always\" is a no", answer)
        before_asked = len(asked)
        answer = await install("mcp_server", "enable", "extra")
        check(answer.get("suppressed") is True and len(asked) == before_asked,
              "a declined \"always\" is not asked again", (answer, asked))
        answer = await install("skill", "enable", "secret")
        check(answer.get("completed") is True and "persisted" not in answer,
              "a disabled skill is enabled for the session", answer)
        result = await client.call_tool("read_skill", {"name": "secret"})
        check(not result.is_error, "the enabled skill reads", text_of(result)[:200])
        check("secret" in (folder / "skilldex.yaml").read_text(), "without \"always\" the file is unchanged")
        answer = await install("mcp_server", "enable", "spare3")
        check(answer.get("completed") is True and "persisted" not in answer,
              "a server enabled without \"always\" is enabled for the session only", answer)
        check("spare3:\n    command: python3\n    args: " in (folder / "skilldex.yaml").read_text()
              and (folder / "skilldex.yaml").read_text().count("enabled: false") == config.count("enabled: false") - 1,
              "without \"always\" the server's `enabled: false` stays")
        answer = await install("skill", "enable", "secret2")
        check(answer.get("completed") is True and answer.get("persisted"),
              "a skill enabled with \"always\" is enabled in the file", answer)
        for id_ in ("secret3", "secret4"):
            answer = await install("skill", "enable", id_)
            check(answer.get("user_confirmed") is False and answer.get("completed") is False,
                  f"a declined skill {id_} stays disabled", answer)
            result = await client.call_tool("read_skill", {"name": id_})
            check(result.is_error or "disabled" in text_of(result), f"{id_} still does not read", text_of(result)[:200])

        # --- skill × install: copied from the collection into the first writable root
        answer = await install("skill", "install", "no-such-skill")
        check("no available collection offers" in answer.get("error", ""), "an unknown skill id is a clear error", answer)
        answer = await install("skill", "install", "demo")
        check("already installed" in answer.get("error", ""), "an installed skill is refused", answer)
        asked_before = len(asked)
        for id_ in ("pdf-tools", "csv-tools"):
            answer = await install("skill", "install", id_)
            check(answer.get("completed") is True and answer.get("installed", "").endswith(f"skills/{id_}"),
                  f"an accepted skill {id_} is installed", answer)
            check((folder / "skills" / id_ / "scripts" / "run.py").read_text() == "print('run')\n",
                  f"{id_}'s folder is copied whole")
            result = await client.call_tool("read_skill", {"name": id_})
            check(not result.is_error and f"skill {id_} — SKILL.md" in text_of(result),
                  f"the installed skill {id_} reads at once", text_of(result)[:200])
        check(len(asked) == asked_before + 2, "each install was asked", asked)
        for id_ in ("zip-tools", "tar-tools"):
            answer = await install("skill", "install", id_)
            check(answer.get("user_confirmed") is False and not (folder / "skills" / id_).exists(),
                  f"a declined skill {id_} is not copied", answer)
        answer = await install("skill", "install", "pdf-tools")
        check("already installed" in answer.get("error", ""), "installing twice says it is installed", answer)
        check(not any(p.name.startswith(".skilldex-install") for p in (folder / "skills").iterdir()),
              "no staging folder is left in the root")

        # --- mcp_server × install: added to mcp_servers, synced, searchable
        answer = await install("mcp_server", "install", "nobody")
        check("the offered ones are `notes`" in answer.get("error", ""), "an unknown server is a clear error", answer)
        answer = await install("mcp_server", "install", "office")
        check("already installed" in answer.get("error", ""), "an installed server is refused", answer)
        answer = await install("mcp_server", "install", "spare2")
        check("disabled" in answer.get("error", "") and "enable" in answer.get("error", ""),
              "a disabled server points to enable", answer)
        text_before = (folder / "skilldex.yaml").read_text()
        for id_ in ("notes", "notes2"):
            answer = await install("mcp_server", "install", id_)
            check(answer.get("completed") is True and answer.get("tools", 0) > 5 and answer.get("persisted"),
                  f"an accepted server {id_} is installed and synced", answer)
            result = await client.call_tool("tool_search", {"query": f"{id_}/echo", "limit": 1})
            hits = json.loads(text_of(result))["tools"]
            check(hits and hits[0]["id"] == f"{id_}/echo", f"{id_}'s tools are searchable at once", hits)
            result = await client.call_tool("call_tool", {"tool": f"{id_}/echo", "arguments": {"text": "hi"}})
            check(not result.is_error and (result.structured_content or {}).get("server") == id_,
                  f"the installed server {id_} runs", text_of(result))
        text_after = (folder / "skilldex.yaml").read_text()
        check(text_after.startswith(text_before.split("# offered, not installed")[0].rstrip("\n"))
              and "# the spare server" in text_after and "# offered, not installed\navailable_servers:" in text_after,
              "the file keeps its bytes and comments", text_after)
        section = text_after.split("# offered, not installed")[0]
        check("\n  notes:\n    command: python3\n" in section and "\n  notes2:\n" in section,
              "the installed servers are under mcp_servers", section)
        for id_ in ("notes3", "notes4"):
            answer = await install("mcp_server", "install", id_)
            check(answer.get("user_confirmed") is False and f"\n  {id_}:" not in
                  (folder / "skilldex.yaml").read_text().split("# offered, not installed")[0],
                  f"a declined server {id_} is not installed", answer)

        # --- a declined "always" is remembered in the file, for later sessions
        text = (folder / "skilldex.yaml").read_text()
        check(all(key in text for key in DECLINED) and "install:skill:tar-tools" not in text,
              "each declined \"always\" is listed under declined_suggestions, and nothing else", text)


async def later_session(args: argparse.Namespace) -> None:
    """A second `serve`: the declined "always" suggestions stay declined;
    the others are asked again."""
    folder = Path(args.folder)
    asked.clear()

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append((params.meta or {}).get("tool_id"))
        return types.ElicitResult(action="decline", content={})

    server = StdioServerParameters(
        command=args.binary,
        args=["serve"],
        env={"SKILLDEX_CONFIG": str(folder / "skilldex.yaml"), "NO_COLOR": "1"},
        cwd=str(folder),
    )
    async with Client(server, mode=args.mode, elicitation_callback=on_elicit, cache=None,
                      read_timeout_seconds=30) as client:
        async def install(type_: str, action: str, id_: str) -> dict:
            result = await client.call_tool("request_install", {"type": type_, "action": action, "id": id_,
                                                                "suggest_reason": "The task needs it."})
            text = text_of(result)
            return {"error": text} if result.is_error else json.loads(text)

        for type_, action, id_ in [("mcp_server", "enable", "extra"), ("skill", "enable", "secret3"),
                                    ("skill", "install", "zip-tools"), ("mcp_server", "install", "notes3")]:
            answer = await install(type_, action, id_)
            check(answer.get("suppressed") is True and "declined_suggestions" in answer.get("note", ""),
                  f"the next session does not ask about {action} {id_} again", answer)
        check(asked == [], "nothing declined for good was asked", asked)
        answer = await install("skill", "install", "tar-tools")
        check(asked == ["tar-tools"] and answer.get("user_confirmed") is False,
              "a plain decline is asked again in the next session", (asked, answer))
        result = await client.call_tool("read_skill", {"name": "csv-tools"})
        check(not result.is_error, "the installed skill is in the next session's catalog", text_of(result)[:200])
        result = await client.call_tool("call_tool", {"tool": "notes/echo", "arguments": {"text": "again"}})
        check(not result.is_error, "the installed server is configured in the next session", text_of(result))
        result = await client.call_tool("call_tool", {"tool": "spare3/echo", "arguments": {"text": "again"}})
        check(result.is_error, "a server enabled for one session only is disabled again", text_of(result))


async def appear(args: argparse.Namespace) -> None:
    """A session that begins without any tool catalog: tool_search is not
    offered; when a snapshot appears on disk, the gateway's tools are
    appended (with tools/list_changed) and find the new tools."""
    folder = Path(args.folder)
    changes = 0

    async def on_message(message: Any) -> None:
        nonlocal changes
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            changes += 1

    server = StdioServerParameters(command=args.binary, args=["serve", "--root", "skills"],
                                   env={"NO_COLOR": "1"}, cwd=str(folder))
    async with Client(server, mode="legacy", message_handler=on_message, cache=None,
                      read_timeout_seconds=30) as client:
        first = dumped((await client.list_tools()).tools)
        names = [json.loads(t)["name"] for t in first]
        check("tool_search" not in names, "without tool catalogs tool_search is not offered", names)
        snapshot = folder / "skills" / "late" / "mcp-tools.json"
        snapshot.parent.mkdir(parents=True)
        tools = [{"name": f"{noun}_polish", "description": f"Polish a {noun} until it shines.",
                  "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}}
                 for noun in ("zebra", "kettle", "lantern")]
        snapshot.write_text(json.dumps({"tools": tools}))

        async def offered() -> Any:
            now = dumped((await client.list_tools()).tools)
            return now if any(json.loads(t)["name"] == "tool_search" for t in now) else None

        now = await eventually("tool_search is offered once a tool catalog appears", offered)
        if now:
            check(now[:len(first)] == first, "the earlier entries stay byte for byte in place")
        await eventually("the client hears tools/list_changed", lambda: _true(changes > 0))
        result = await client.call_tool("tool_search", {"query": "polish a kettle"})
        hits = json.loads(text_of(result))["tools"]
        check(hits and hits[0]["id"] == "late/kettle_polish", "the new tools are found", hits)
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)


async def offers(args: argparse.Namespace) -> None:
    """No tool catalog, no server, but a collection offered: request_install
    is listed and installs from it."""
    folder = Path(args.folder)

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={})

    server = StdioServerParameters(command=args.binary, args=["serve"],
                                   env={"SKILLDEX_CONFIG": str(folder / "skilldex.yaml"), "NO_COLOR": "1"},
                                   cwd=str(folder))
    async with Client(server, mode="legacy", elicitation_callback=on_elicit, cache=None,
                      read_timeout_seconds=30) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        check("request_install" in names, "request_install is offered when only a collection is", names)
        result = await client.call_tool("request_install", {"type": "skill", "action": "install", "id": "pdf-tools",
                                                            "suggest_reason": "The task needs it."})
        answer = json.loads(text_of(result))
        check(answer.get("completed") is True, "it installs from the collection", answer)
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)


async def declared(args: argparse.Namespace) -> None:
    """Skills that declare their tools: reading one appends exactly its
    declared tools (tools/list_changed, nothing listed moves) and they are
    called through skilldex; a skill that needs an offered server leads to
    an install request that, accepted, installs the server and appends the
    skill's tools of it."""
    folder = Path(args.folder)
    changes = 0
    asked_here: list[str] = []

    async def on_message(message: Any) -> None:
        nonlocal changes
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            changes += 1

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked_here.append((params.meta or {}).get("tool_id"))
        return types.ElicitResult(action="accept", content={})

    server = StdioServerParameters(command=args.binary, args=["serve", "--no-watch"],
                                   env={"SKILLDEX_CONFIG": str(folder / "skilldex.yaml"), "NO_COLOR": "1"},
                                   cwd=str(folder))
    async with Client(server, mode=args.mode, message_handler=on_message, elicitation_callback=on_elicit,
                      cache=None, read_timeout_seconds=30) as client:
        modern = (client.protocol_version or "") >= "2026-07-28"
        listen = client.listen(tools_list_changed=True) if modern else None
        subscription = await listen.__aenter__() if listen else None

        async def count_events() -> None:
            nonlocal changes
            async for _ in subscription:
                changes += 1

        async with anyio.create_task_group() as events:
            if subscription is not None:
                events.start_soon(count_events)
            await declared_session(client, lambda: changes, asked_here)
            events.cancel_scope.cancel()
        if listen is not None:
            await listen.__aexit__(None, None, None)
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)


async def declared_session(client: Client, changes, asked_here: list[str]) -> None:
    if True:
        first = dumped((await client.list_tools()).tools)
        result = await client.call_tool("read_skill", {"name": "bench"})
        check(not result.is_error and "Measure the sample." in text_of(result), "the declaring skill reads",
              text_of(result)[:200])
        await eventually("reading it sends tools/list_changed", lambda: _true(changes() > 0))
        now = dumped((await client.list_tools()).tools)
        check(now[:len(first)] == first, "the earlier entries stay byte for byte in place")
        appended = [json.loads(t)["name"] for t in now[len(first):]]
        check(appended == ["lab__echo", "lab__slow_count"], "exactly the declared tools are appended", appended)
        result = await client.call_tool("lab__echo", {"text": "declared"})
        structured = result.structured_content or {}
        check(not result.is_error and structured.get("server") == "lab"
              and structured.get("arguments") == {"text": "declared"},
              "a declared tool's call reaches its upstream", structured)

        listed = dumped((await client.list_tools()).tools)
        result = await client.call_tool("read_skill", {"name": "journal"})
        note = text_of(result)
        check("`request_install`" in note and "id `notes`" in note, "a skill needing an offered server says how to ask",
              note[-400:])
        result = await client.call_tool("request_install", {"type": "mcp_server", "action": "install", "id": "notes",
                                                            "suggest_reason": "The skill `journal` needs it."})
        answer = json.loads(text_of(result))
        check(asked_here == ["notes"] and answer.get("completed") is True, "the install is asked and done",
              (asked_here, answer))
        appended = answer.get("appended") or []
        check("notes__echo" in appended and len(appended) == answer.get("tools")
              and all(name.startswith("notes__") for name in appended),
              "the skill declares the whole server: the answer names each of its tools, appended", answer)
        now = dumped((await client.list_tools()).tools)
        check(now[:len(listed)] == listed, "the install moves nothing listed")
        check([json.loads(t)["name"] for t in now[len(listed):]] == answer.get("appended"),
              "the skill's tools of the new server are appended", [json.loads(t)["name"] for t in now[len(listed):]])
        result = await client.call_tool("notes__echo", {"text": "hi"})
        check(not result.is_error and (result.structured_content or {}).get("server") == "notes",
              "the installed server's declared tool runs", text_of(result))


async def pinned(args: argparse.Namespace) -> None:
    """Pinned and alwaysLoad tools: in the first tools/list with
    `anthropic/alwaysLoad`, before anything tool_search appends, which
    carries the server's `anthropic/searchHint`; a pinned tool's call is
    proxied."""
    folder = Path(args.folder)
    changes = 0

    async def on_message(message: Any) -> None:
        nonlocal changes
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            changes += 1

    server = StdioServerParameters(command=args.binary, args=["serve", "--no-watch"],
                                   env={"SKILLDEX_CONFIG": str(folder / "skilldex.yaml"), "NO_COLOR": "1"},
                                   cwd=str(folder))
    async with Client(server, mode=args.mode, message_handler=on_message, cache=None,
                      read_timeout_seconds=30) as client:
        modern = (client.protocol_version or "") >= "2026-07-28"
        first = [json.loads(t) for t in dumped((await client.list_tools()).tools)]
        names = [t["name"] for t in first]
        loaded = [n for n in names if "__" in n]
        check(loaded == ["lab__sample_measure", "lab__slow_count"], "the pinned tools are in the first list", names)
        meta = {t["name"]: t.get("_meta") or {} for t in first}
        check(all(meta[n].get("anthropic/alwaysLoad") is True for n in loaded + ["tool_search"]),
              "pinned tools and tool_search carry anthropic/alwaysLoad", meta)
        result = await client.call_tool("tool_search", {"query": "parrot", "limit": 1})
        answer = json.loads(text_of(result))
        check([t["id"] for t in answer["tools"]] == ["lab/echo"], "the search hint finds its tool", answer)
        if not modern:
            await eventually("the search sends tools/list_changed", lambda: _true(changes > 0))
        now = [json.loads(t) for t in dumped((await client.list_tools()).tools)]
        check(now[:len(first)] == first, "nothing listed moves")
        echo = now[len(first):]
        check([t["name"] for t in echo] == ["lab__echo"]
              and echo[0].get("_meta") == {"anthropic/searchHint": "parrot mirror repeat"},
              "the found tool is appended with its hint", echo)
        result = await client.call_tool("lab__sample_measure", {"id": "s-1"})
        structured = result.structured_content or {}
        check(not result.is_error and structured.get("tool") == "sample_measure", "a pinned tool's call is proxied",
              text_of(result))
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)


async def _true(value: bool) -> bool:
    return value


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--folder", required=True)
    parser.add_argument("--scenario", default="gateway")
    parsed = parser.parse_args()
    scenarios = {"appear": appear, "offers": offers, "gateway": main, "declared": declared, "pinned": pinned}
    anyio.run(scenarios[parsed.scenario], parsed)
