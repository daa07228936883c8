"""`toolaudit mcp`: a real MCP client (the official SDK) starts the server over stdio and asks it questions."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp", reason="the MCP server needs the `mcp` extra")

from conftest import SAMPLES  # noqa: E402

SHOP = SAMPLES / "claude-code" / "-home-dev-shop"
SESSION = SHOP / "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11.jsonl"


def _ask(roots: list[Path], calls: list[tuple[str, dict]], *extra: str) -> tuple[list[str], list]:
    """Start `toolaudit mcp ROOTS` and make `calls` in order: (the tools' names, each call's result)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "toolaudit", "mcp", *map(str, roots), *extra],
                                   env={**os.environ})

    async def talk():
        with anyio.fail_after(120):  # a hung server fails the test instead of hanging the suite
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                names = sorted(tool.name for tool in (await session.list_tools()).tools)
                results = [await session.call_tool(name, args) for name, args in calls]
                return names, results

    return anyio.run(talk)


def _json(result) -> dict:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def _error(result) -> str:
    assert result.is_error
    return result.content[0].text


def test_tools_answer_inside_their_folders_and_refuse_outside(tmp_path):
    import toolaudit

    outside = tmp_path / "outside.jsonl"
    shutil.copy(SESSION, outside)
    link = tmp_path / "root" / "link.jsonl"
    link.parent.mkdir()
    link.symlink_to(outside)  # inside by name, outside once resolved
    names, (context, scan, simulate, far, linked, top, advice) = _ask([SHOP, tmp_path / "root"], [
        ("context", {"transcript": str(SESSION)}),
        ("scan", {"path": str(SHOP), "by": "session"}),
        ("simulate", {"path": str(SHOP), "preset": "claude-code"}),
        ("scan", {"path": str(outside)}),
        ("context", {"transcript": str(link)}),
        ("scan", {"path": str(SHOP), "top": 3}),
        ("advise", {"path": str(SHOP)}),
    ])
    assert names == ["advise", "context", "scan", "simulate"]
    expected_advice = json.loads(toolaudit.advise([SHOP]).to_json())["recommendations"]
    got_advice = _json(advice).get("recommendations", [])  # none: left out, as every empty field
    assert len(got_advice) == min(5, len(expected_advice))
    assert [(r["kind"], r["net_tokens_saved"]) for r in got_advice] == \
        [(r["kind"], r["net_tokens_saved"]) for r in expected_advice[:len(got_advice)]]
    now = toolaudit.scan.context_now(SESSION)
    got = _json(context)
    assert (got["in_context"], got["calls"], got["resent"]) == (now.in_context, now.calls, now.resent)
    assert got["by_tool"][0] == {"tool": now.by_tool[0][0], "tokens": now.by_tool[0][1]}
    expected = json.loads(toolaudit.scan([SHOP], by="session").to_json())
    doc = _json(scan)
    assert {k: doc["totals"][k] for k in ("calls", "tokens", "files")} == \
        {k: expected["totals"][k] for k in ("calls", "tokens", "files")}
    assert [(g["session"], g["tokens"]) for g in doc["groups"]] == \
        [(g["session"], g["tokens"]) for g in expected["groups"]]
    assert [(t["tool"], t["tokens"]) for t in doc["tools"]] == [(t["tool"], t["tokens"]) for t in expected["tools"][:5]]
    api = json.loads(toolaudit.simulate([SHOP], preset="claude-code").to_json())["totals"]
    assert {k: _json(simulate)["totals"].get(k, 0) for k in ("calls", "tokens_saved", "later_used")} == \
        {k: api[k] for k in ("calls", "tokens_saved", "later_used")}
    assert "outside the folders" in _error(far) and "outside the folders" in _error(linked)
    assert "--show-content" in _error(top)
    for answer in (context, scan, simulate, advice):  # one compact copy on the wire, no structured duplicate
        text = answer.content[0].text
        assert answer.structured_content is None and len(answer.content) == 1
        assert text == json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)


def test_show_content_lets_scan_list_the_largest_calls():
    _, (top,) = _ask([SHOP], [("scan", {"path": str(SHOP), "top": 2})], "--show-content")
    assert len(_json(top)["top"]) == 2


def test_no_folder_and_no_agent_folders_is_a_usage_error(run, tmp_path):
    result = run("mcp", env={"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c"),
                             "CODEX_HOME": str(tmp_path / "x")})
    assert result.exit_code == 2 and "name the folders" in result.output


def test_a_link_inside_a_folder_to_a_file_or_folder_outside_is_refused(tmp_path):
    # the folder is allowed; a scan of it would read through the links to what lies outside
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(SESSION, outside / "secret.jsonl")
    by_file, by_folder, plain = tmp_path / "root" / "files", tmp_path / "root" / "folders", tmp_path / "root" / "plain"
    for folder in (by_file, by_folder, plain):
        folder.mkdir(parents=True)
        shutil.copy(SHOP / SESSION.name, folder / "own.jsonl")
    (by_file / "link.jsonl").symlink_to(outside / "secret.jsonl")
    (by_folder / "more").symlink_to(outside, target_is_directory=True)
    inner = plain / "inner.jsonl"
    inner.symlink_to(plain / "own.jsonl")  # a link that stays inside is fine
    _, (file_link, folder_link, whole, context, fine) = _ask([tmp_path / "root"], [
        ("scan", {"path": str(by_file)}),
        ("scan", {"path": str(by_folder)}),
        ("scan", {"path": str(tmp_path / "root")}),
        ("context", {"transcript": str(by_file / "link.jsonl")}),
        ("scan", {"path": str(plain)}),
    ])
    for refused in (file_link, folder_link, whole):
        assert "links to" in _error(refused) and "outside the folders" in _error(refused)
    assert "outside the folders" in _error(context)
    assert _json(fine)["totals"]["calls"] > 0
