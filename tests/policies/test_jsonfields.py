"""JSON fields: drop or cut body fields, mark the object, stay valid JSON; the kanban seed figures."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import texts

from toolaudit.simulate.policies import JsonFields
from toolaudit.errors import UsageError

WORDS = ("migrate", "the", "session", "store", "to", "sqlite", "and", "keep", "a", "rollback", "path", "for",
         "older", "clients", "while", "metrics", "stay", "comparable", "across", "releases")


def prose(seed: int, chars: int) -> str:
    words, i = [], seed
    while sum(map(len, words)) + len(words) < chars:
        words.append(WORDS[(i * 7 + 3) % len(WORDS)])
        i += 1
    return " ".join(words)[:chars]


def kanban_list() -> str:
    """A JSON list of 29 tasks as a kanban tool returns it: metadata plus a long markdown body."""
    tasks = [{
        "id": f"T-{100 + i}", "title": prose(i, 48).capitalize(), "status": ("todo", "doing", "review", "done")[i % 4],
        "column": ("backlog", "sprint-14", "sprint-15")[i % 3], "priority": ("low", "medium", "high")[i % 3],
        "assignee": ("ana", "bo", "chen", None)[i % 4], "labels": ["backend", "infra"][: 1 + i % 2],
        "created_at": f"2025-03-{1 + i % 28:02d}T09:{i % 60:02d}:00Z",
        "updated_at": f"2025-04-{1 + i % 28:02d}T17:05:00Z",
        "estimate": 1 + i % 5, "parent": None if i % 3 else "T-099", "reporter": ("ana", "dev-bot")[i % 2],
        "body": f"## Context\n{prose(i, 730)}\n\n## Acceptance\n- {prose(i + 1, 200)}\n- {prose(i + 2, 240)}",
    } for i in range(29)]
    return json.dumps(tasks, separators=(",", ":"))


def test_seed_kanban_list_without_bodies_saves_78_percent():
    text = kanban_list()
    out = JsonFields(no_body=True).apply(text)
    tasks = json.loads(out)
    assert len(tasks) == 29 and all("body" not in t and t["_body_truncated"] is True for t in tasks)
    assert 0.76 <= 1 - len(out) / len(text) <= 0.80  # the seed: 43,230 -> 9,381 chars, 78%
    assert "\n" not in out and '":' in out  # compact in, compact out
    cut_100 = JsonFields(body_chars=100).apply(text)
    cut_300 = JsonFields(body_chars=300).apply(text)
    assert len(out) < len(cut_100) < len(cut_300) < len(text)  # body_chars 100 and 300 sit between
    assert {len(t["body"]) for t in json.loads(cut_100)} == {103}


def test_seed_kanban_get_body_891_to_368():
    # harness-caps.md: 891 -> 368 chars on the body alone (59%); 368 = 365 chars + "..."
    task = {"id": "T-7", "title": "Fix login", "body": prose(3, 891)}
    out = json.loads(JsonFields(body_chars=365).apply(json.dumps(task, indent=2)))
    assert len(task["body"]) == 891 and len(out["body"]) == 368 and out["_body_truncated"] is True
    assert round(1 - 368 / 891, 2) == 0.59


def test_nested_objects_and_lists_of_objects_and_indentation():
    doc = {"result": {"items": [{"description": "d" * 50, "n": 1}, {"description": "ok", "n": 2}]}, "body": 5}
    text = json.dumps(doc, indent=4)
    out = JsonFields(body_chars=10, fields=("description", "body")).apply(text)
    assert json.loads(out) == {"result": {"items": [{"description": "d" * 10 + "...", "n": 1, "_body_truncated": True},
                                                    {"description": "ok", "n": 2}]}, "body": 5}
    assert out == json.dumps(json.loads(out), indent=4)  # indented in, indented out
    assert json.loads(JsonFields(no_body=True).apply(text)) == {"_body_truncated": True}


def test_text_that_is_not_json_or_has_nothing_to_cut_is_the_same_object():
    for text in ("plain output", "{not json", '"a string"', json.dumps({"title": "x", "body": "short"}), ""):
        assert JsonFields(body_chars=100).apply(text) is text


@pytest.mark.parametrize("kwargs", [dict(), dict(no_body=True, body_chars=5), dict(body_chars=-1)])
def test_settings_need_exactly_one_mode(kwargs):
    with pytest.raises(UsageError):
        JsonFields(**kwargs)


json_docs = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), texts),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(["body", "content", "id", "result", "x"]), inner,
                                            max_size=4)),
    max_leaves=20,
)


@given(json_docs, st.integers(0, 10), st.booleans(), st.sampled_from([None, 2]))
def test_json_fields_properties(doc, n, no_body, indent):
    text = json.dumps(doc, indent=indent, ensure_ascii=False)
    policy = JsonFields(no_body=True) if no_body else JsonFields(body_chars=n)
    out = policy.apply(text)
    json.loads(out)  # always valid JSON
    if out == text:
        assert out is text
    assert policy.apply(out) == out  # idempotent
