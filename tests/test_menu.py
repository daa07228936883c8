"""scan's tool menu: each definition's tokens, the requests that carried it, and the menu's cost."""

from __future__ import annotations

import csv
import io
import json

from click.testing import CliRunner

from toolaudit.scan.summary import Collected, menu_summary
from toolaudit.cli import cli
from toolaudit.model import FileResult, MenuMeasurement
from toolaudit.tokenizers import get_tokenizer

GREP = {"name": "Grep", "description": "A powerful search tool built on ripgrep. Supports full regex syntax.",
        "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"},
                                                          "glob": {"type": "string"}}, "required": ["pattern"]}}
READ = {"name": "Read", "description": "Reads a file from the local filesystem. Lines are numbered like cat -n.",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"},
                                                          "offset": {"type": "number"}}, "required": ["file_path"]}}
TASKS = {"name": "mcp__kanban__list_tasks", "description": "List the tasks of a board, with their bodies — all of them.",
         "input_schema": {"type": "object", "properties": {"board": {"type": "string"}}}}


def compact(defn) -> str:
    return json.dumps(defn, separators=(",", ":"), ensure_ascii=False)


def request_log(tmp_path):
    """Two Anthropic request logs: a session of 3 requests that gained an MCP tool on its third,
    and one of 2 requests with a shorter menu. Results, calls and answers are beside the point."""
    def body(messages, tools):
        return {"model": "claude-sonnet-4-5", "max_tokens": 8000, "system": "You are a coding agent.",
                "tools": tools, "messages": messages}
    u = {"role": "user", "content": "find the retry limit"}
    a = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_g1", "name": "Grep", "input": {"pattern": "RETRY"}}]}
    r = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_g1", "content": "src/webhook.py:3:RETRY_LIMIT = 7"}]}
    a2 = {"role": "assistant", "content": [{"type": "text", "text": "It is 7."}]}
    u2 = {"role": "user", "content": "and the tasks?"}
    one = tmp_path / "one.jsonl"
    one.write_text("".join(json.dumps(x) + "\n" for x in (
        body([u], [GREP, READ]), body([u, a, r], [GREP, READ]), body([u, a, r, a2, u2], [GREP, READ, TASKS]))))
    two = tmp_path / "two.jsonl"
    v = {"role": "user", "content": "read the README"}
    two.write_text("".join(json.dumps(x) + "\n" for x in (body([v], [READ]), body([v, a2, u2], [READ]))))
    return one, two


def scan(*args):
    res = CliRunner().invoke(cli, ["scan", *map(str, args)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def test_json_menu_counts_each_definition_against_an_independent_count(tmp_path):
    one, two = request_log(tmp_path)
    doc = json.loads(scan(one, two, "-f", "json"))
    count = get_tokenizer("o200k_base").count
    grep, read, tasks = (count(compact(d)) for d in (GREP, READ, TASKS))
    # Grep: 3 requests of one.jsonl; Read: those 3 and the 2 of two.jsonl; the MCP tool: 1 request
    assert doc["menu"]["definitions"] == sorted([
        {"tool": "Grep", "tokens": grep, "requests": 3, "carried_tokens": 3 * grep, "versions": 1},
        {"tool": "Read", "tokens": read, "requests": 5, "carried_tokens": 5 * read, "versions": 1},
        {"tool": "mcp__kanban__list_tasks", "tokens": tasks, "requests": 1, "carried_tokens": tasks, "versions": 1},
    ], key=lambda d: (-d["carried_tokens"], d["tool"]))
    carried = 3 * grep + 5 * read + tasks
    assert {k: v for k, v in doc["menu"].items() if k != "definitions"} == {
        "tools": 3, "menus": 3, "sessions": 2, "requests": 5, "tokens_per_request": round(carried / 5),
        "carried_tokens": carried}


def test_text_reports_show_the_menu_line_and_the_largest_definitions_with_top(tmp_path):
    one, two = request_log(tmp_path)
    doc = json.loads(scan(one, two, "-f", "json"))["menu"]
    table = scan(one, two)
    line = (f"tool definitions: 3 tools, {doc['tokens_per_request']:,} tokens per request × 5 requests ≈ "
            f"{doc['carried_tokens']:,} input tokens (3 menus, 2 sessions; --top N lists the largest)")
    assert line in table and "Largest tool definitions" not in table
    top = scan(one, two, "--top", "2")
    assert "Largest tool definitions:" in top
    rows = top.split("Largest tool definitions:")[1].strip().splitlines()[1:]
    assert [r.split()[0] for r in rows] == [d["tool"] for d in doc["definitions"][:2]]
    markdown = scan(one, two, "--top", "2", "-f", "markdown")
    first = doc["definitions"][0]
    assert "#### Largest tool definitions" in markdown
    assert f"| {first['tool']} | {first['tokens']} | {first['requests']} | {first['carried_tokens']:,} |" in markdown
    assert "- tool definitions: 3 tools," in markdown


def test_csv_puts_each_definition_beside_the_tool_outputs(tmp_path):
    one, two = request_log(tmp_path)
    doc = json.loads(scan(one, two, "-f", "json"))["menu"]
    rows = {r["tool"]: r for r in csv.DictReader(io.StringIO(scan(one, two, "-f", "csv")))}
    grep = next(d for d in doc["definitions"] if d["tool"] == "Grep")
    assert (rows["Grep"]["calls"], rows["Grep"]["definition_tokens"], rows["Grep"]["definition_requests"]) == (
        "1", str(grep["tokens"]), "3")
    assert rows["TOTAL"]["definition_carried_tokens"] == str(doc["carried_tokens"])


def test_scans_without_menus_keep_their_json_and_csv(tmp_path):
    path = tmp_path / "calls.jsonl"
    path.write_text(json.dumps({"tool": "Bash", "output": "ok", "session": "s", "call_id": "c1"}) + "\n")
    assert "menu" not in json.loads(scan(path, "-f", "json"))
    assert "definition_tokens" not in scan(path, "-f", "csv") and "tool definitions" not in scan(path)


def measured(source, session, requests, tools, key="k1", global_id=False):
    return MenuMeasurement(source, "openhands-v1", session, "main", requests, key, tools, global_id)


def test_menus_from_any_collector_are_deduplicated_like_their_sessions():
    tools = (("execute_bash", "d1", 300), ("str_replace_editor", "d2", 900))
    # an OpenHands V1 conversation read from its events folder and from an aggregated list: once
    copies = [FileResult(f"conv/{where}", "openhands-v1", menus=(measured(f"conv/{where}", "c0ffee", n, tools,
                                                                          global_id=True),))
              for where, n in (("events", 12), ("events.json", 9))]
    menu = menu_summary(list(Collected(copies).menus.values()))
    assert (menu.requests, menu.sessions, menu.carried_tokens) == (12, 1, 12 * 1200)
    # two files whose sessions are only named after the file: both count, whatever they are called
    local = [FileResult(f"{d}/log.jsonl", "anthropic-messages", menus=(measured(f"{d}/log.jsonl", "log", 4, tools),))
             for d in ("a", "b")]
    menu = menu_summary(list(Collected(local).menus.values()))
    assert (menu.requests, menu.sessions, menu.menus, menu.tokens_per_request) == (8, 2, 1, 1200)


def test_a_definition_that_changed_counts_each_version():
    old, new = ("Bash", "v1", 200), ("Bash", "v2", 260)
    menu = menu_summary([measured("f", "s1", 7, (old,), key="a"), measured("f", "s2", 3, (new,), key="b")])
    (bash,) = menu.definitions
    assert (bash.tokens, bash.requests, bash.carried_tokens, bash.versions) == (200, 10, 7 * 200 + 3 * 260, 2)
    assert menu_summary([]) is None


# ------------------------------------------------------------------ ToolSearch's tool_reference blocks (issue 18 §0)

def _tool_search_session(tmp_path):
    """A Claude Code session whose ToolSearch result loads two MCP tools' definitions (the shape of
    Claude Code 2.1.x: `tool_result.content` is a list of `tool_reference` blocks, nothing else)."""
    env = {"sessionId": "s-ts", "cwd": "/w", "version": "2.1.150", "isSidechain": False}
    lines = [
        {"type": "permission-mode", "permissionMode": "default", "sessionId": "s-ts"},
        {**env, "type": "user", "uuid": "u1", "message": {"role": "user", "content": "list the tasks"}},
        {**env, "type": "assistant", "uuid": "a1", "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-4-6",
         "content": [{"type": "tool_use", "id": "toolu_ts", "name": "ToolSearch",
                      "input": {"query": "select:mcp__kanban__list_tasks,mcp__kanban__get_task", "max_results": 2}}]}},
        {**env, "type": "user", "uuid": "u2", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_ts", "content": [
                {"type": "tool_reference", "tool_name": "mcp__kanban__list_tasks"},
                {"type": "tool_reference", "tool_name": "mcp__kanban__get_task"}]}]},
         "toolUseResult": {"matches": ["mcp__kanban__list_tasks", "mcp__kanban__get_task"], "total_deferred_tools": 40}},
    ]
    path = tmp_path / "s-ts.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_tool_references_are_loaded_definitions_not_output_text(tmp_path):
    # the reference's JSON rendering was counted as the output; the model saw the definitions instead
    doc = json.loads(scan(_tool_search_session(tmp_path), "-f", "json"))
    (row,) = doc["tools"]
    assert (row["tool"], row["calls"], row["tokens"], row["chars"]) == ("ToolSearch", 1, 0, 0)
    assert doc["tool_references"] == {
        "calls": 1, "loads": 2, "tools": [{"tool": "mcp__kanban__get_task", "loads": 1},
                                          {"tool": "mcp__kanban__list_tasks", "loads": 1}],
        "definition_tokens": None, "known_definition_tokens": 0, "unknown_definitions": 2}
    text = scan(_tool_search_session(tmp_path))
    assert ("tool definitions loaded by results (tool_reference, e.g. ToolSearch): 2 in 1 call, 2 tools; "
            "definitions' size unknown for 2 (not recorded in these transcripts)") in text


def test_a_recorded_menu_sizes_the_definitions_a_reference_loads(tmp_path):
    # a request log records the definitions: their tokens are known
    one, _ = request_log(tmp_path)
    lines = one.read_text().splitlines()
    last = json.loads(lines[-1])
    last["messages"] += [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_ts", "name": "ToolSearch", "input": {"query": "tasks"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_ts", "content": [
            {"type": "text", "text": "Loaded:"}, {"type": "tool_reference", "tool_name": "mcp__kanban__list_tasks"}]}]},
    ]
    one.write_text("\n".join(lines + [json.dumps(last)]) + "\n")
    doc = json.loads(scan(one, "-f", "json"))
    tasks = get_tokenizer("o200k_base").count(compact(TASKS))
    assert {r["tool"]: r["tokens"] for r in doc["tools"]}["ToolSearch"] == get_tokenizer("o200k_base").count("Loaded:")
    assert doc["tool_references"]["definition_tokens"] == tasks == doc["tool_references"]["known_definition_tokens"]
    assert doc["tool_references"]["unknown_definitions"] == 0
