"""Risk columns: failure signals (not the word "error"), Codex's JSON wrapper cut inside, linear work."""

from __future__ import annotations

import json

import pytest

from toolaudit.simulate import risk, signals
from toolaudit.simulate.policies import Chain, CodexLegacy, HeadTail
from toolaudit.simulate.policymap import PolicyMap
from toolaudit.simulate.presets import get_preset


def cut(text: str, keep: int = 60) -> str:
    """The first and last `keep` chars with a marker between: a middle cut."""
    return text[:keep] + "\n[... cut ...]\n" + text[-keep:]


PAD = "\n".join(f"line {i} of ordinary output" for i in range(40))


@pytest.mark.parametrize("signal", [
    "Traceback (most recent call last):",
    "ValueError: invalid literal for int() with base 10: 'x'",
    "java.lang.IllegalStateException: queue is closed",
    "error: could not compile `shop` due to 2 previous errors",
    "error[E0425]: cannot find value `total` in this scope",
    "src/main.c:3:5: error: expected ';' before 'return'",
    "FAILED tests/test_cart.py::test_refund - assert 3 == 4",
    "=== 2 failed, 40 passed in 1.20s ===",
    "--- FAIL: TestRefund (0.00s)",
    "npm ERR! code ELIFECYCLE",
    "fatal: not a git repository (or any of the parent directories): .git",
    "Exit code: 2",
    "Process exited with code 1",
    "<returncode>1</returncode>",
    "thread 'main' panicked at src/lib.rs:4:5:",
    "E       AssertionError: assert 3 == 4",
])
def test_a_failure_signal_in_the_removed_part_is_cut(signal):
    before = PAD + "\n" + signal + "\n" + PAD
    assert signals.failure_lines(before) == {signal.strip()}
    assert risk.errors_cut(risk.Full(before), cut(before))
    assert not risk.errors_cut(risk.Full(before), before + "\n")  # all of it kept


@pytest.mark.parametrize("code", [
    "  error: null,",
    "error: null",
    "    error: string;",
    "error: Error | null;",
    "const state = { error: null, loading: false };",
    "    except ValueError:",
    "except (KeyError, TypeError):",
    "  } catch (Exception e) {",
    "FAILED = 'failed'",
    "if status == FAILED:",
    "    log.error('retrying')",
    "        raise RuntimeError(f'bad {x}')",
    '  "error": null,',
    "     7→error: null",
    "Exit code: 0",
    "Process exited with code 0",
    "0 failed, 12 passed",
])
def test_source_code_and_success_are_no_failure_signal(code):
    before = PAD + "\n" + code + "\n" + PAD
    assert signals.failure_lines(before) == set()
    assert not risk.errors_cut(risk.Full(before), cut(before))


def _wrapped(inner: str, exit_code: int = 0) -> str:
    return json.dumps({"output": inner, "metadata": {"exit_code": exit_code, "duration_seconds": 0.5}},
                      separators=(",", ":"), ensure_ascii=False)


def test_a_cap_cuts_inside_codex_json_wrapper_and_keeps_it_valid():
    inner = "".join(f"row {i:04d} — ok\n" for i in range(2000))  # 2,000 lines, non-ASCII, ~36 KB
    before = _wrapped(inner, 2)
    for policy_map in (PolicyMap(get_preset("codex-legacy")), PolicyMap(get_preset("codex")),
                       PolicyMap(flags=Chain.of(HeadTail(max_chars=5000)))):
        after = policy_map.policy_for("shell").apply(before)
        doc = json.loads(after)  # still the wrapper, metadata untouched
        assert doc["metadata"] == {"exit_code": 2, "duration_seconds": 0.5}
        assert len(doc["output"]) < len(inner) and "row 0000" in doc["output"][:200]
        assert not risk.json_broken(risk.Full(before), after)
    legacy = json.loads(PolicyMap(get_preset("codex-legacy")).policy_for("shell").apply(before))["output"]
    assert legacy == CodexLegacy().apply(inner)  # exactly what Codex 0.5x stored
    # a small one is left alone, the very same object
    small = _wrapped("ok\n")
    assert PolicyMap(get_preset("codex")).policy_for("shell").apply(small) is small


def test_errors_cut_and_json_broken_look_inside_the_wrapper():
    inner = PAD + "\nerror: linker `cc` not found\n" + PAD * 30
    before = _wrapped(inner, 1)
    after = PolicyMap(get_preset("codex-legacy")).policy_for("shell").apply(_wrapped(inner, 1))
    full = risk.Full(before)
    assert full.failures == {"error: linker `cc` not found"}
    assert risk.errors_cut(full, after) == ("error: linker `cc` not found" not in json.loads(after)["output"])
    # JSON the command printed, cut in the middle: broken inside the wrapper
    printed = _wrapped(json.dumps({"rows": list(range(3000))}))
    assert risk.json_broken(risk.Full(printed), PolicyMap(flags=Chain.of(HeadTail(max_chars=2000))).policy_for("x").apply(printed))


def test_failure_scan_is_bounded_by_the_number_of_lines_it_looks_at(monkeypatch):
    # one huge line full of "error" words: each line is confirmed once, never once per hit
    checked = []
    real = signals._confirm

    def counting(*args):
        checked.append(1)
        return real(*args)

    monkeypatch.setattr(signals, "_confirm", counting)
    text = "x error y " * 200_000 + "\n" + "ok\n" * 10
    signals.failure_lines(text)
    assert len(checked) <= 4 * len(text) // signals.WINDOW + 20


def test_an_item_is_looked_up_where_its_text_occurs():
    text = "x" * 5000 + " see src/shop/checkout.py:42 and getUserById\n" + "domain.pyc " * 3 + "\n  12→main.py\n"
    full = risk.Full(text)
    for item in ("src/shop/checkout.py:42", "src/shop/checkout.py", "checkout.py", "getUserById"):
        assert full.has_item(item), item
    # inside another token, inside a blob, or only as a gutter number: no item
    assert not full.has_item("main.py") or "main.py" in risk.items(text)
    assert full.has_item("main.py") == ("main.py" in risk.items(text))
    for item in ("ain.pyc", "xxxxxx", "12"):
        assert full.has_item(item) == (item in risk.items(text)), item
    # a blob's inside is never an item, even past the window
    blob = "a" * 3000 + "token_inside" + "b" * 3000
    assert not risk.Full(blob).has_item("token_inside") and "token_inside" not in risk.items(blob)


def test_codex_inner_answers_each_text_asked_in_turn():
    """codex_inner keeps the last text's answer: asking of another text, or of an equal copy, is answered afresh."""
    from toolaudit.simulate.policies.codex import codex_inner

    wrapped = json.dumps({"output": "Exit code: 1\nboom", "metadata": {"exit_code": 1}})
    other = json.dumps({"output": "fine", "metadata": {"exit_code": 0}})
    plain = "just text"
    for text in (wrapped, wrapped, plain, other, "".join([wrapped[:5], wrapped[5:]]), plain, other):
        found = codex_inner(text)
        expected = json.loads(text)["output"] if text != plain else None
        assert (found[1] if found else None) == expected
