"""Codex's code-mode `exec` (0.144+): a real recorded cell reproduced byte for byte
(tests/fixtures/replay-versions/README.md: source and license), the cell forms replay reads, the ones it refuses,
and what the session's state takes from a cell (its commands' effect, a patch it applies)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from toolaudit.model import PAIRED, ToolCall
from toolaudit.replay import edits
from toolaudit.replay.agents.base import EMULATIONS, Call
from toolaudit.replay.agents.codex_cell import UNREAD, commands, parse, patch, shell_script, unescape
from toolaudit.replay.agents.codex_exec import Exec, items_cut, js_json, js_number
from toolaudit.replay.agents.shell_words import NotReplayable
from toolaudit.replay.base import Sandbox
from toolaudit.replay.state import shell_text

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "replay-versions" / "hk-exec"
SHOWN = "/home/me/proj"


def _recorded(session: Path) -> tuple[str, str]:
    """(the cell's JavaScript, what the model saw: the output items joined as the collector joins them)."""
    rows = [json.loads(line)["payload"] for line in session.read_text(encoding="utf-8").splitlines()]
    code = next(row["input"] for row in rows if row["type"] == "custom_tool_call")
    items = next(row["output"] for row in rows if row["type"] == "custom_tool_call_output")
    return code, "\n".join(item["text"] for item in items)


def test_a_recorded_cell_is_reproduced_byte_for_byte() -> None:
    code, recorded = _recorded(FIXTURE / "session.jsonl")
    root = FIXTURE / "repo"
    call = Call("exec", {"code": code}, root, "/Users/jdx/.codex/worktrees/9a6a/hk", "0.144.2", Sandbox(root),
                model="gpt-5.6-sol", session="s", call_id="call_wqoGC0ghtNaTFX3QXLEOeHEf")
    emulation = EMULATIONS[("codex", "exec")]()
    seen = emulation.from_recording(recorded, call)
    assert seen["script"] == "Script completed" and seen["duration"] == "0.1"
    got = emulation.run(replace(call, params=seen))
    assert got.status == "replayed", got.reason
    assert got.output == recorded


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("alpha\nbeta\n")
    return root


def run(root: Path, code: str, **params: str):
    call = Call("exec", {"code": code}, root, SHOWN, "0.144.2", Sandbox(root), session="s", call_id="c1",
                params={"script": "Script completed", "duration": "0.2", **params})
    return Exec().run(call)


def test_the_result_object_prints_in_codexs_field_order_with_the_recorded_noise(ws: Path) -> None:
    code = 'const r = await tools.exec_command({cmd: "cat a.txt", workdir: "/home/me/proj"}); text(JSON.stringify(r));'
    got = run(ws, code, chunks=json.dumps([["ab12cd", "0.003911"]]))
    assert got.output == ('Script completed\nWall time 0.2 seconds\nOutput:\n\n{"chunk_id":"ab12cd",'
                          '"wall_time_seconds":0.003911,"exit_code":0,"original_token_count":3,'
                          '"output":"alpha\\nbeta\\n"}')


def test_conditions_templates_and_two_commands(ws: Path) -> None:
    code = ("const a = await tools.exec_command({\"cmd\":\"cat a.txt\"})\nconst b = await tools.exec_command("
            "{cmd:'cat missing.txt'});\ntext(a.output); if (b.session_id) text(`SESSION_ID=${b.session_id}`);\n"
            "if (b.output) { text(b.output) } else text('none'); text(`exit=${b.exit_code}`)")
    got = run(ws, code)
    assert got.status == "replayed", got.reason
    head, _, items = got.output.partition("Output:\n\n")
    assert items == "alpha\nbeta\n\ncat: missing.txt: No such file or directory\n\nexit=1"


def test_promise_all_and_an_array_pattern(ws: Path) -> None:
    """The form entireio/entire-graph's Codex 0.146 cells use most (248 tuning cells were refused for it):
    `const [remote, status] = await Promise.all([tools.exec_command({…}), tools.exec_command({…})])`."""
    code = ("const [one, two, three] = await Promise.all([\n  tools.exec_command({\n    cmd: \"cat a.txt\",\n"
            "    workdir: \"/home/me/proj\",\n    yield_time_ms: 10000\n  }),\n  tools.exec_command({cmd: "
            "\"cat missing.txt\"}),\n]);\ntext(one.output);\ntext(`exit=${two.exit_code}`);\ntext(three);")
    got = run(ws, code)
    assert got.status == "replayed", got.reason
    assert got.output.partition("Output:\n\n")[2] == "alpha\nbeta\n\nexit=1\nundefined"
    assert shell_text(_exec_call(code)) == "cat a.txt\ncat missing.txt"  # both judged for what they change
    assert run(ws, "const [a] = await Promise.all(tools.exec_command({cmd: 'cat a.txt'})); text(a.output)"
               ).status == "refused"  # not an array


def test_for_of_loops_and_shorthand_properties(ws: Path) -> None:
    """entireio/entire-graph's Codex 0.146 cells: `for (const r of results) text(r.output);` after a Promise.all, and
    `for (const [name, cmd] of cmds) { const r = await tools.exec_command({cmd, workdir: …}); text(…) }`."""
    code = ("const results = await Promise.all([tools.exec_command({cmd: 'cat a.txt'}), tools.exec_command("
            "{cmd: 'cat a.txt'})]);\nfor (const r of results) text(r.output);\n"
            "const cmds = [[\"a\", \"cat a.txt\"], [\"none\", \"cat none.txt\"]];\n"
            "for (const [name, cmd] of cmds) {\n  const r = await tools.exec_command({cmd, workdir: \"/home/me/proj\"});"
            "\n  text(JSON.stringify({name, exit_code: r.exit_code}));\n}")
    got = run(ws, code)
    assert got.status == "replayed", got.reason
    assert got.output.partition("Output:\n\n")[2] == (
        'alpha\nbeta\n\nalpha\nbeta\n\n{"name":"a","exit_code":0}\n{"name":"none","exit_code":1}')
    assert shell_text(_exec_call(code)) == UNREAD  # a command computed in the loop: judged as an unknown program


@pytest.mark.parametrize(("code", "why"), [
    ('const r = await tools.write_stdin({session_id: 3, chars: ""}); text(r.output)', "running process"),
    ('const patch = "*** Begin Patch\\n*** End Patch"; text(await tools.apply_patch(patch));', "an edit"),
    ('const r = await tools.exec_command({cmd: "echo x > b.txt"}); text(r.output)', "redirection"),
    ('for (const k in {a: 1}) text(k)', "beyond what replay reads (a for loop)"),
    ('for (const c of cmds) text(c)', "reads cmds"),
    ('text(ALL_TOOLS)', "reads ALL_TOOLS"),
    ('text("no tool")', "runs no shell command"),
])
def test_what_a_cell_cannot_replay_says_why_and_writes_nothing(ws: Path, code: str, why: str) -> None:
    got = run(ws, code)
    assert got.status == "refused" and why in got.reason
    assert sorted(p.name for p in ws.iterdir()) == ["a.txt"]


def test_a_cell_that_did_not_complete_is_not_replayed(ws: Path) -> None:
    code = 'const r = await tools.exec_command({cmd: "cat a.txt"}); text(r.output)'
    seen = Exec().from_recording("Script running with cell ID 7\nWall time 10.0 seconds\nOutput:\n", Call(
        "exec", {"code": code}, ws, SHOWN, "0.144.2", Sandbox(ws)))
    assert seen["script"] == "Script running"
    got = run(ws, code, script=seen["script"])
    assert got.status == "refused" and "did not complete" in got.reason


def test_the_items_are_cut_together_past_the_cells_budget() -> None:
    assert items_cut(["a", "b"], 10, True) == ["a", "b"]
    cut = items_cut(["x" * 30, "y" * 30], 10, True)
    assert len(cut) == 1 and cut[0].startswith("Warning: truncated output (original token count: 16)\n")


def test_javascripts_printing() -> None:
    assert [js_number(v) for v in (3, 1.5, 2.51e-06, 1e-08, 1e21)] == ["3", "1.5", "0.00000251", "1e-8", "1e+21"]
    assert js_json({"a": [1, None], "b": "é\n"}, "  ") == '{\n  "a": [\n    1,\n    null\n  ],\n  "b": "é\\n"\n}'
    assert unescape(r"a\tb\u00e9\x41\u{1F600}\'") == "a\tbéA😀'"


def test_the_pragma_sets_the_cells_cap() -> None:
    assert parse('// @exec: {"max_output_tokens": 500}\ntext(1)').max_output_tokens == 500
    with pytest.raises(NotReplayable):
        parse("const {a} = x")


def _exec_call(code: str, output: str = "Script completed\nWall time 0.1 seconds\nOutput:\n\n") -> ToolCall:
    return ToolCall(source="s.jsonl", line=1, collector="codex", session="s", tool="exec", call_id="c", args=code,
                    output=output, status=PAIRED)


def test_the_state_judges_a_cell_by_its_commands() -> None:
    code = 'const r = await tools.exec_command({cmd: "git status", workdir: "/p"}); text(r.output)'
    assert commands(code) == [("git status", "/p")]
    assert shell_text(_exec_call(code)) == "git status"
    two = 'await tools.exec_command({cmd: "cat a"}); await tools.exec_command({cmd: "echo x > b"})'
    assert shell_script(two) == "cat a\necho x > b"
    # a cell replay cannot read, or one calling another tool, is an unknown program; a plan changes nothing
    assert shell_script("for (;;) {}") == UNREAD
    assert shell_script('await tools.mcp__x__y({})') == UNREAD
    assert shell_script('await tools.update_plan({plan: []})') is None


def test_a_cell_that_applies_a_patch_is_an_edit() -> None:
    text = "*** Begin Patch\n*** Add File: n.txt\n+new\n*** End Patch"
    code = f"const patch = {json.dumps(text)};\ntext(await tools.apply_patch(patch));"
    assert patch(code) == text
    call = _exec_call(code)
    assert edits.is_patch_call(call)
    assert [change.path for change in edits.changes_of(call)] == ["n.txt"]
    failed = replace(call, output="Script failed\nWall time 0.0 seconds\nOutput:\n\nScript error:\napply_patch ...")
    assert edits.changes_of(failed) is None


R = 'const r = await tools.exec_command({cmd: "cat a.txt"});\n'


@pytest.mark.parametrize(("code", "printed"), [
    (R + 'const x = "outer"; for (const x of ["a", "b"]) {} text(x)', "outer"),  # a loop's name ends with it
    (R + 'const y = "outer"; for (const x of ["a"]) { const y = x } text(y)', "outer"),
    (R + 'const y = "outer"; if (true) { const y = "in" } text(y)', "outer"),
    (R + 'const of = "of"; text({of: of, for: r.for})', '{"of":"of"}'),  # `of` is a name, `for` a member
])
def test_what_a_review_of_the_loops_found(ws: Path, code: str, printed: str) -> None:
    """helper-45's reproductions (round 8): scopes, and words that are names in JavaScript."""
    got = run(ws, code)
    assert got.status == "replayed", got.reason
    assert got.output.partition("Output:\n\n")[2] == printed


@pytest.mark.parametrize(("code", "why"), [
    (R + "for (const i of [" + "0," * 40 + "]) for (const j of [" + "0," * 40 + "]) for (const k of [" + "0," * 40 +
     "]) text(i)", "more than 10,000 statements"),  # 6 nested loops of 10 took 111 s before
    (R + "for (const i of [1]) { var a = i }", "a var inside a block"),
    (R + "var a = 1;" + " var a = [a];" * 1200 + " text(a)", "nested deeper"),  # printing it recursed
])
def test_a_cell_that_would_run_long_or_leak_a_var_is_refused(ws: Path, code: str, why: str) -> None:
    got = run(ws, code)
    assert got.status == "refused" and why in got.reason, got.reason


def test_a_patch_that_may_run_other_than_once_is_not_the_cells_edit() -> None:
    add, delete = '"*** Begin Patch\\n*** Add File: x.txt\\n+x\\n*** End Patch"', \
        '"*** Begin Patch\\n*** Delete File: a.txt\\n*** End Patch"'
    assert patch(f"const p = {add}; text(await tools.apply_patch(p))") is not None
    assert patch(f"const p = {add}; for (const p of [{delete}]) await tools.apply_patch(p);") is None
    assert patch(f"for (const i of []) await tools.apply_patch({delete});") is None
    assert patch(f"const p = {add}; const [q] = [{delete}]; await tools.apply_patch(p);") is None


def test_the_recorded_chunk_ids_go_to_the_answers_in_the_order_they_are_printed(ws: Path) -> None:
    """The recording lists each answer's chunk id and wall time as it printed them (helper-45: printing a
    Promise.all's answers out of order swapped them; an answer never printed whole took the first)."""
    code = ('const [a, b] = await Promise.all([tools.exec_command({cmd: "cat a.txt"}), '
            'tools.exec_command({cmd: "cat none.txt"})]);\ntext(JSON.stringify(b)); text(JSON.stringify(a));')
    got = run(ws, code, chunks=json.dumps([["bbbbbb", "0.2"], ["aaaaaa", "0.1"]]))
    printed = got.output.partition("Output:\n\n")[2]
    assert printed.index('"chunk_id":"bbbbbb"') < printed.index('"chunk_id":"aaaaaa"')
    assert '"chunk_id":"bbbbbb","wall_time_seconds":0.2,"exit_code":1' in printed
    code = ('const a = await tools.exec_command({cmd: "cat a.txt"});\nconst b = await tools.exec_command('
            '{cmd: "cat none.txt"});\ntext(a.output); text(JSON.stringify(b));')
    got = run(ws, code, chunks=json.dumps([["bbbbbb", "0.2"]]))
    assert '"chunk_id":"bbbbbb","wall_time_seconds":0.2,"exit_code":1' in got.output


@pytest.mark.parametrize(("code", "printed"), [
    # entireio/entire-graph's Codex 0.146 cells: `text("check:\n"+out[1].output+`exit=${out[1].exit_code}`)`
    ('const out = await Promise.all([tools.exec_command({cmd:"cat a.txt"}), tools.exec_command({cmd:"cat b.txt"})]);'
     'text("a:\\n"+out[0].output); text(`exit=${out[1].exit_code}`);', "a:\nalpha\nbeta\n\nexit=1"),
    # Standard-Syntax/basic's: `for (let i=0;i<r.length;i++) { text(`--- ${i+1} ---`); text(r[i].output) }`
    ('const r = await Promise.all([tools.exec_command({cmd:"cat a.txt"})]);\nfor (let i=0;i<r.length;i++) {'
     ' text(`--- ${i+1} ---`); text(r[i].output.trim()); }', "--- 1 ---\nalpha\nbeta"),
    # jdx/mise's and entire-graph's: `results.forEach((r,i)=>text(…))`, `nums.map(n=>tools.exec_command(…))`
    ('const rs = await Promise.all(["a.txt", "c.txt"].map(f => tools.exec_command({cmd: "cat " + f})));\n'
     'rs.forEach((r, i) => { text(`${i}: ${r.exit_code} ${r.output.slice(0, 5)}`) });', "0: 0 alpha\n1: 1 cat: "),
    ('const r = await tools.exec_command({cmd: "cat a.txt"}); text(r.output.trimEnd().length)', "10"),
    ('const r = await tools.exec_command({cmd: "cat a.txt"}); text(r.nothing ?? [1, null, 2].join("-"))', "1--2"),
    ('const r = await tools.exec_command({cmd: "cat a.txt"}); text("a" || "b" && "")', "a"),  # && binds closer
    ('const r = await tools.exec_command({cmd: "cat a.txt"}); text(1 + 2 < 4 === true)', "true"),
])
def test_indexes_counted_loops_arrows_and_string_methods(ws: Path, code: str, printed: str) -> None:
    """Forms that kept 194 of the tuning set's 9,153 cells unread before (each refused then)."""
    got = run(ws, code)
    assert got.status == "replayed", got.reason
    assert got.output.partition("Output:\n\n")[2] == printed


@pytest.mark.parametrize(("code", "why"), [
    (R + 'text([1].map(async (x) => x))', "calls a function"),
    (R + 'text(x => x)', "keeps a function"),
    (R + 'text("😀".slice(0, 1))', "past the Basic Multilingual Plane"),
    (R + 'text("a" < "b")', "compares values"),
    (R + 'for (let i = 0; i < 1; j++) text(i)', "a for loop's step"),
    (R + 'for (let i = 0; i >= 0; i++) {}', "more than 10,000 statements"),
    # helper-50's review: V8 prints another thing, or runs what we cannot see
    (R + "const y = 1; const f = x => y; for (const y of [5]) text([1].map(f))", "keeps a function"),
    ('const r = tools.exec_command({cmd: "cat a.txt"}); text(r.output)', "of a value replay does not follow"),
    ('text(await tools.exec_command({cmd: "cat a.txt"}).output)', "of a value replay does not follow"),
    (R + "var i = 9; for (var i = 0; i < 2; i++) {} text(i)", "a for loop"),
    (R + 'for (let i = "0"; i.length < 3; i++) text(i)', "counts with a value"),
    (R + 'text(r.output["²"])', "of a value replay does not follow"),
    (R + "text(r.wall_time_seconds + 1)", "computes with a value"),
    (R + '[{cmd: "touch x"}].forEach(tools.exec_command)', "passes a tool as a value"),
])
def test_what_those_forms_do_not_follow_is_refused(ws: Path, code: str, why: str) -> None:
    got = run(ws, code)
    assert got.status == "refused" and why in got.reason, got.reason


def test_gits_abbreviation_is_learnt_from_any_command_of_the_cell(tmp_path: Path) -> None:
    """jdx/hk's Codex 0.144 cell ran `rg …` first and `git log -8 --oneline -- …` second; the recording's ids have 7
    digits where the replay's clone abbreviates to 8. Only the first command's output was read for the noise, so
    the length was never learnt (156 -> 158 tokens). Here the recording shows 9 digits."""
    from conftest import committed_repo

    root = tmp_path / "proj"
    root.mkdir()
    full = committed_repo(root, {"a.txt": "alpha\n"}, message="first")
    code = ('const rs = await Promise.all([tools.exec_command({cmd: "cat a.txt"}), '
            'tools.exec_command({cmd: "git log --oneline -1"})]); rs.forEach(x => text(x.output));')
    recorded = f"Script completed\nWall time 0.1 seconds\nOutput:\n\nalpha\n\n{full[:9]} first\n"
    call = Call("exec", {"code": code}, root, SHOWN, "0.144.2", Sandbox(root), session="s", call_id="c1")
    seen = Exec().from_recording(recorded, call)
    assert seen.get("abbrev") == "9"  # before: none
    got = Exec().run(replace(call, params=seen))
    assert got.output.partition("Output:\n")[2] == f"\nalpha\n\n{full[:9]} first\n"


@pytest.mark.parametrize(("code", "printed"), [  # helper-50's review: what node 20 prints for each
    (R + "text(0.5 + 0.5 === 1); text([1, 2].length === 2.0); text([] === []); const a = [1]; text(a === a)",
     "true\ntrue\nfalse\ntrue"),
    (R + "text(0.0000005); text(0.000001); text(9007199254740993); text(123456789012345680000.5)",
     "5e-7\n0.000001\n9007199254740992\n123456789012345680000"),
    (R + 'text(JSON.stringify([1], null, 0.5)); text(JSON.stringify([1], null, true)); '
         'text(JSON.stringify({b: 1, "2": 2, "1": 3}))', '[1]\n[1]\n{"1":3,"2":2,"b":1}'),
    (R + 'text("\\ud83d\\ude00"); text("\\ud83d" === "\\ud83d")', "😀\ntrue"),
])
def test_what_v8_prints_where_the_review_found_a_difference(ws: Path, code: str, printed: str) -> None:
    got = run(ws, code, chunks=json.dumps([["ab12cd", "0.1"]]))
    assert got.status == "replayed", got.reason
    assert got.output.partition("Output:\n\n")[2] == printed


def test_a_tool_passed_as_a_value_or_a_patch_that_may_not_run_is_judged_unknown() -> None:
    assert shell_script('await Promise.all([{cmd: "rm -rf build"}].map(tools.exec_command))') == UNREAD
    p = '"*** Begin Patch\\n*** Delete File: a.txt\\n*** End Patch"'
    for code in (f"[].forEach(() => tools.apply_patch({p}))", f"false && await tools.apply_patch({p})",
                 f"[1, 2].forEach(() => {{ tools.apply_patch({p}) }})", f"const x = 1 ?? tools.apply_patch({p})"):
        assert patch(code) is None, code
    assert patch(f"text(await tools.apply_patch({p}))") is not None


def test_each_command_of_a_cell_is_read_for_its_own_noise(tmp_path: Path) -> None:
    """helper-50: the commands read as one line made `git log` + `cat docs/status.md` read a status's branch from
    the markdown, and a Windows `Get-Content` lost its line ends when another command followed."""
    root = tmp_path / "proj"
    root.mkdir()
    code = ('const rs = await Promise.all([tools.exec_command({cmd: "git log --oneline -2"}), '
            'tools.exec_command({cmd: "cat docs/status.md"})]); rs.forEach(x => text(x.output));')
    recorded = "Script completed\nWall time 0.1 seconds\nOutput:\n\nab12cd3 one\n\n## Done\n"
    seen = Exec().from_recording(recorded, Call("exec", {"code": code}, root, SHOWN, "0.144.2", Sandbox(root)))
    assert not any(key.startswith("status") for key in seen) and seen.get("abbrev") == "7"
    code = ('const rs = await Promise.all([tools.exec_command({cmd: "Get-Content notes.txt"}), '
            'tools.exec_command({cmd: "git status --short"})]); rs.forEach(x => text(x.output));')
    recorded = "Script completed\nWall time 0.1 seconds\nOutput:\n\nline one\r\nline two\r\n\n"
    seen = Exec().from_recording(recorded, Call("exec", {"code": code}, root, "C:\\Users\\me\\proj", "0.144.2",
                                                Sandbox(root)))
    assert seen.get("crlf") == "1"
