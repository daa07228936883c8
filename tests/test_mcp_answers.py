"""The MCP server's answers (in process): compact, within their token budget on real and sample transcripts,
the current session read when no path is given (in a fake home), simulate's context policies, --help."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp", reason="the MCP server needs the `mcp` extra")

from conftest import SAMPLES  # noqa: E402

SHOP = SAMPLES / "claude-code" / "-home-dev-shop"
SESSION = SHOP / "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11.jsonl"
OTHER = SAMPLES / "claude-code" / "-home-dev-kanban" / "c3d2e1f0-7a6b-4c5d-8e9f-a0b1c2d3e4f5.jsonl"
ROLLOUT = SAMPLES / "codex" / "rollout-2026-01-14T09-47-03-019bbd3e-71a8-7c05-8e2f-d46a1b93c7f2.jsonl"
GEMINI = SAMPLES / "gemini-cli" / "session-2026-05-12T09-14-3b9c2e71.jsonl"
AGENT_ENV = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID",
             "CLAUDECODE", "GEMINI_CLI")


def _server(roots, env=None, show_content=False):
    from toolaudit.server import build

    return build(list(roots), show_content, env={} if env is None else env)


def _text(server, name: str, args: dict) -> str:
    """The one text block a tool answers (the SDK raises ToolError for a refusal)."""
    async def call():
        return await server.call_tool(name, args)

    result = anyio.run(call)
    assert not result.is_error, result.content
    assert result.structured_content is None and len(result.content) == 1
    return result.content[0].text


def _answer(server, name: str, args: dict, budget: int = 1500) -> dict:
    """The answer, checked compact and within `budget` o200k_base tokens."""
    from toolaudit.server_fit import count

    text = _text(server, name, args)
    doc = json.loads(text)
    assert text == json.dumps(doc, separators=(",", ":"), ensure_ascii=False), "not compact JSON"
    assert count(text) <= budget, (name, args, count(text))
    return doc


def _refusal(server, name: str, args: dict) -> str:
    from mcp.server.mcpserver.exceptions import ToolError

    with pytest.raises(ToolError) as caught:
        _text(server, name, args)
    return str(caught.value)


def _calls(root):
    return [("scan", {"path": str(root), "by": by}) for by in ("tool", "session", "file", "agent", "model", "day")] + [
        ("simulate", {"path": str(root), "preset": "claude-code"}),
        ("simulate", {"path": str(root), "context": "mask:keep=10"}),
        ("simulate", {"path": str(root), "max_chars": 2000}),
        ("advise", {"path": str(root)})]


def test_every_answer_fits_1500_tokens_on_the_samples():
    server = _server([SAMPLES])
    for name, args in _calls(SAMPLES):
        _answer(server, name, args)
    for transcript in sorted(SAMPLES.glob("claude-code/*/*.jsonl")):
        _answer(server, "context", {"transcript": str(transcript)})


def test_every_answer_fits_1500_tokens_on_the_corpus(corpus):
    server = _server([corpus])
    for name, args in _calls(corpus):
        doc = _answer(server, name, args)
        assert doc["source"] == {"path": str(corpus)}
    for transcript in sorted(corpus.glob("claude-code/*/*.jsonl")):
        _answer(server, "context", {"transcript": str(transcript)})


def test_the_budget_leaves_out_the_lowest_rows_and_says_how_to_see_them(corpus):
    import toolaudit

    server = _server([corpus])
    full = _answer(server, "scan", {"path": str(corpus), "by": "session", "rows": 1000, "max_tokens": 100_000},
                   budget=100_000)
    api = json.loads(toolaudit.scan([corpus], by="session").to_json())
    assert "truncated" not in full and "groups_rest" not in full
    assert [(g["session"], g["tokens"]) for g in full["groups"]] == [(g["session"], g["tokens"]) for g in api["groups"]]
    small = _answer(server, "scan", {"path": str(corpus), "by": "session", "rows": 1000, "max_tokens": 600}, budget=600)
    left = small["truncated"]["rows_left_out"]
    assert left > 0 and "max_tokens=" in small["truncated"]["ask"]
    assert len(small["groups"]) + small["truncated"]["from"].get("groups", 0) == len(api["groups"])
    # nothing is lost from the sums: the rows shown plus the rest make the totals
    assert sum(g["tokens"] for g in small["groups"]) + small["groups_rest"]["tokens"] == api["totals"]["tokens"]
    assert small["totals"]["tokens"] == api["totals"]["tokens"]
    from mcp.server.mcpserver.exceptions import ToolError

    with pytest.raises(ToolError):  # under the floor: the schema refuses it
        _text(server, "scan", {"path": str(corpus), "max_tokens": 10})


def test_rows_top_n_and_the_rest_summed():
    import toolaudit

    server = _server([SAMPLES])
    doc = _answer(server, "scan", {"path": str(SAMPLES), "rows": 3})
    api = json.loads(toolaudit.scan([SAMPLES]).to_json())
    assert [t["tool"] for t in doc["tools"]] == [t["tool"] for t in api["tools"][:3]]
    assert doc["tools_rest"]["rows"] == len(api["tools"]) - 3
    assert doc["tools_rest"]["calls"] == sum(t["calls"] for t in api["tools"][3:])
    assert all(0 not in (t.get("error_calls"), t.get("agent_truncated_calls")) for t in doc["tools"])  # no zeros


def test_fit_keeps_whole_json_when_even_the_essentials_are_over():
    from toolaudit.server_fit import Ranked, count, fit

    doc = {"source": {"path": "x"}, "note": "word " * 3000}
    rows = Ranked("rows", [{"n": i} for i in range(50)], 10, ("n",))
    text = fit(doc, [rows], 300, essential=("source",))
    answer = json.loads(text)
    assert count(text) <= 300 and answer["source"] == {"path": "x"} and "note" in answer["truncated"]["fields_left_out"]


def test_simulate_takes_a_context_policy_as_the_cli_does():
    import toolaudit

    server = _server([SAMPLES])
    for policy in ("mask:keep=2", "claude-code"):
        doc = _answer(server, "simulate", {"path": str(SHOP), "context": policy})
        api = json.loads(toolaudit.simulate([SHOP], context=policy).to_json())["totals"]
        assert doc["context"]["net_tokens_saved"] == api["net_tokens_saved"]
        assert doc["context"]["cost_before_usd"] == round(api["cost_before_usd"], 2)
        assert doc["verdict"][0].startswith("verdict: ") and doc["policy"]["context"] == policy
    assert "no-such-policy" in _refusal(server, "simulate", {"path": str(SHOP), "context": "no-such-policy"})
    assert "pass preset" in _refusal(server, "simulate", {"path": str(SHOP)})  # named as the tool's arguments


def test_help_names_every_tool_the_server_registers(run):
    result = run("mcp", "--help")
    assert result.exit_code == 0
    names = [tool.name for tool in anyio.run(_server([SAMPLES]).list_tools)]
    assert "advise" in names and len(names) == 4
    for name in names:
        assert re.search(rf"^\s+{name}\s", result.output, re.M), name


# ---- no path: the current session, in a fake home ----

@pytest.fixture
def home(tmp_path, monkeypatch):
    """A fake home and a working folder (its name has a '_' and a '.', which Claude Code writes as '-')."""
    for name in AGENT_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    work = tmp_path / "work" / "my_app.v2"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    return tmp_path / "home"


def _claude_project(home, folder):
    return home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(folder))


def _place(source, target, age: int):
    """`source` copied to `target`, written `age` seconds ago."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, target)
    stamp = target.stat().st_mtime - age
    os.utime(target, (stamp, stamp))
    return target


def test_no_path_reads_the_newest_claude_code_session_of_the_working_folder(home):
    project = _claude_project(home, os.getcwd())
    older = _place(OTHER, project / "0d5e5510-0000-4000-8000-000000000000.jsonl", 600)
    newest = _place(SESSION, project / "x.jsonl", 60)
    _place(OTHER, home / ".claude" / "projects" / "-elsewhere" / "y.jsonl", 0)  # newer, another project
    server = _server([home / ".claude" / "projects"])
    for name in ("context", "scan", "simulate", "advise"):
        doc = _answer(server, name, {"preset": "claude-code"} if name == "simulate" else {})
        assert doc["source"]["path"] == str(newest) and doc["source"]["agent"] == "claude-code", name
        assert "newest Claude Code transcript" in doc["source"]["chosen"]
    import toolaudit

    calls = json.loads(toolaudit.scan([SESSION]).to_json())["totals"]["calls"]
    assert _answer(server, "scan", {})["totals"]["calls"] == calls
    named = _server([home / ".claude" / "projects"], env={"CLAUDE_CODE_SESSION_ID": older.stem})
    assert _answer(named, "scan", {})["source"]["path"] == str(older)  # the session the agent names wins


def test_a_claude_code_session_brings_its_subagents(home):
    project = _claude_project(home, os.getcwd())
    _place(SESSION, project / SESSION.name, 0)
    shutil.copytree(SESSION.with_suffix(""), project / SESSION.stem)
    import toolaudit

    server = _server([home / ".claude" / "projects"])
    expected = json.loads(toolaudit.scan([SESSION.with_suffix(""), SESSION]).to_json())["totals"]["calls"]
    assert _answer(server, "scan", {})["totals"]["calls"] == expected > \
        json.loads(toolaudit.scan([SESSION]).to_json())["totals"]["calls"]


def test_claude_project_dir_names_the_working_folder(home, tmp_path):
    project_dir = tmp_path / "work" / "other"
    project_dir.mkdir()
    session = _place(SESSION, _claude_project(home, project_dir) / "s.jsonl", 0)
    _place(OTHER, _claude_project(home, os.getcwd()) / "t.jsonl", 0)
    server = _server([home / ".claude" / "projects"], env={"CLAUDE_PROJECT_DIR": str(project_dir)})
    assert _answer(server, "scan", {})["source"]["path"] == str(session)


def test_no_path_reads_the_codex_rollout_of_the_working_folder(home):
    sessions = home / ".codex" / "sessions" / "2026" / "01" / "14"
    mine = sessions / ROLLOUT.name
    theirs = sessions / "rollout-2026-01-14T10-00-00-019bbd3e-0000-7c05-8e2f-d46a1b93c7f2.jsonl"  # newer, elsewhere
    for target, cwd, age in ((mine, os.getcwd(), 600), (theirs, "/somewhere/else", 0)):
        lines = ROLLOUT.read_text().splitlines(keepends=True)
        first = json.loads(lines[0])
        first["payload"]["cwd"] = cwd
        _place(ROLLOUT, target, age)
        stamp = target.stat().st_mtime
        target.write_text(json.dumps(first) + "\n" + "".join(lines[1:]))
        os.utime(target, (stamp, stamp))
    doc = _answer(_server([home / ".codex" / "sessions"]), "scan", {})
    assert doc["source"]["path"] == str(mine) and doc["source"]["agent"] == "codex"


def test_no_path_reads_the_gemini_session_of_the_working_folder(home):
    digest = hashlib.sha256(os.getcwd().encode()).hexdigest()
    session = _place(GEMINI, home / ".gemini" / "tmp" / digest / "chats" / GEMINI.name, 0)
    _place(GEMINI, home / ".gemini" / "tmp" / ("0" * 64) / "chats" / "session-other.jsonl", 0)
    doc = _answer(_server([home / ".gemini" / "tmp"]), "scan", {})
    assert doc["source"]["path"] == str(session) and doc["source"]["agent"] == "gemini-cli"


def test_no_agent_session_falls_back_to_the_newest_transcript_under_the_working_folder(home):
    work = os.getcwd()
    _place(OTHER, os.path.join(work, "logs", "old.jsonl"), 600)
    newest = _place(SESSION, os.path.join(work, "logs", "deep", "new.jsonl"), 0)
    (newest.parent / "notes.jsonl").write_text('{"not": "a transcript"}\n')
    doc = _answer(_server([work]), "scan", {})
    assert doc["source"]["path"] == str(newest) and "under" in doc["source"]["chosen"]


def test_a_default_outside_the_servers_folders_is_refused(home, tmp_path):
    _place(SESSION, _claude_project(home, os.getcwd()) / "x.jsonl", 0)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    message = _refusal(_server([elsewhere]), "scan", {})
    assert "no path given" in message and str(elsewhere) in message
    # a session file that links out of the folders is passed over, not read
    outside = _place(SESSION, tmp_path / "outside" / "secret.jsonl", 0)
    project = _claude_project(home, os.getcwd())
    (project / "x.jsonl").unlink()
    (project / "link.jsonl").symlink_to(outside)
    assert "no path given" in _refusal(_server([home / ".claude" / "projects"]), "context", {})


def test_the_stdio_server_answers_without_a_path_in_a_session(home):
    """The real flow: `toolaudit mcp` started by an agent in its project folder, with no folders given."""
    import sys

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    newest = _place(SESSION, _claude_project(home, os.getcwd()) / "x.jsonl", 0)
    env = {k: v for k, v in os.environ.items() if k not in AGENT_ENV}
    params = StdioServerParameters(command=sys.executable, args=["-m", "toolaudit", "mcp"], env=env, cwd=os.getcwd())

    async def talk():
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool("scan", {}), await session.call_tool("context", {})

    for result in anyio.run(talk):
        assert not result.is_error, result.content
        assert json.loads(result.content[0].text)["source"]["path"] == str(newest)


def test_a_secret_in_a_file_or_folder_name_is_masked_in_source(home, tmp_path, monkeypatch):
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token's shape, not a real one
    given = _place(SESSION, tmp_path / "given" / f"{token}.jsonl", 0)
    server = _server([given.parent])
    for name, args in (("scan", {"path": str(given)}), ("context", {"transcript": str(given)})):
        text = _text(server, name, args)
        assert token not in text and "[REDACTED]" in json.loads(text)["source"]["path"]
    work = tmp_path / "work" / token  # the working folder's own name: in the chosen file's path and the rule
    work.mkdir()
    monkeypatch.chdir(work)
    _place(SESSION, _claude_project(home, work) / "x.jsonl", 0)
    text = _text(_server([home / ".claude" / "projects"]), "scan", {})
    assert token not in text and json.loads(text)["source"]["agent"] == "claude-code"


def test_a_long_working_folder_is_found_by_its_cut_name_and_cwd(home, tmp_path, monkeypatch):
    work = tmp_path / "work" / ("deep_" * 45)  # past 200 characters once written as Claude Code names it
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    name = re.sub(r"[^A-Za-z0-9]", "-", str(work))[:200] + "-1x2y3z"  # the hash Claude Code adds: any suffix
    session = _place(SESSION, home / ".claude" / "projects" / name / "x.jsonl", 0)
    lines = session.read_text().splitlines(keepends=True)
    assert any('"cwd"' in line for line in lines)
    session.write_text("".join(json.dumps({**json.loads(line), "cwd": str(work)}) + "\n" if '"cwd"' in line
                               else line for line in lines))
    other = _place(SESSION, home / ".claude" / "projects" / (name[:200] + "-other") / "y.jsonl", 0)  # its cwd: the shop
    assert _answer(_server([home / ".claude" / "projects"]), "scan", {})["source"]["path"] == str(session) != str(other)
