"""toolaudit.secrets.redact: every planted kind masked in every shape it reaches a preview in,
the text around it kept, key blocks masked wherever a window starts, and the detector run
only on the window a caller shows."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from test_secrets_e2e import FRAGMENT, PLANTED, SELF_NAMED, Planted, _block, fake, leaks
from toolaudit.secrets import redact as redact_module
from toolaudit.simulate.policymap import maps_from_spec
from toolaudit.secrets.redact import MASK, excerpt, in_secret, preview, redact
from toolaudit.simulate.engine import simulate_records
from toolaudit.model import ToolCall
from toolaudit.tokenizers import get_tokenizer

KEY_BLOCK = next(p for p in PLANTED if p.kind == "pem-rsa")


def shapes(p: Planted) -> dict[str, str]:
    """The ways a secret reaches us: as written, in an output between lines, as JSON arguments
    (quotes and newlines escaped), and JSON-encoded twice (an output holding JSON)."""
    return {"plain": p.text, "lines": f"ok\n{p.text}\ndone", "args": json.dumps({"command": p.text}),
            "twice": json.dumps(json.dumps({"command": p.text}))}


@pytest.mark.parametrize("planted", PLANTED, ids=lambda p: p.kind)
def test_every_kind_is_masked_in_every_shape(planted: Planted):
    for shape, text in shapes(planted).items():
        assert leaks({shape: text}), "the value must be in the text before redaction"
        assert leaks({shape: redact(text)}) == [], shape
        assert leaks({shape: preview(text, 60)}) == [], shape
        assert MASK in redact(text), shape


@pytest.mark.parametrize("planted", [p for p in PLANTED if p.kind in SELF_NAMED], ids=lambda p: p.kind)
def test_a_key_as_a_path_part_is_masked(planted: Planted):
    """A token that names its kind, as a file or folder name in arguments (`…/missing/sq0atp-….txt`), or
    between an MCP name's `__`."""
    value = planted.values[0]
    for text in (json.dumps({"file_path": f"/srv/app/missing/{value}.txt"}), f"ls ./keys/{value}/ && echo ok",
                 json.dumps({"tool": f"mcp__{value}__run"})):
        assert leaks({"path": redact(text)}) == [], text
        assert leaks({"path": preview(text, 60)}) == []


def test_at_least_ninety_kinds_are_planted():
    assert len({p.kind for p in PLANTED}) == len(PLANTED) >= 90


@pytest.mark.parametrize("planted", PLANTED, ids=lambda p: p.kind)
def test_every_kind_in_a_name_is_masked(planted: Planted):
    """A tool, session, model or agent name holding a secret is masked where records leave a collector."""
    from toolaudit.secrets.redact import name, named

    for text in (planted.text, f"mcp__{planted.text}__run", planted.text.replace("\n", " ")):
        assert leaks({"name": text}), "the value must be in the name before redaction"
        assert leaks({"name": name(text)}) == [] and MASK in name(text)
    call = ToolCall(source="s.jsonl", line=1, collector="toolaudit-jsonl", session=f"s-{planted.text}",
                    tool=f"t-{planted.text}", call_id="c1", args="{}", output="ok", model=f"m-{planted.text}")
    masked = named(call)
    assert leaks({f: getattr(masked, f) for f in ("session", "tool", "model")}) == []
    assert masked.output == "ok" and masked.source == "s.jsonl"


@pytest.mark.parametrize("name", ["Bash", "mcp__github__create_pull_request", "claude-sonnet-4-5-20250929",
                                  "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11", "gpt-5.2-codex", "mcp__telegram__send",
                                  "rollout-2026-03-01T10-00-00-019c0000-0000-7000-8000-00000000c0de",
                                  "agent-acompact-f46190", "toolu_01XFDUDYJgAACzvnptvVoYEL", "read_file"])
def test_ordinary_names_stay(name):
    from toolaudit.secrets.redact import name as masked

    assert masked(name) == name


@pytest.mark.parametrize("text, kept", [
    ("OPENAI_API_KEY=sk-proj-" + fake("keep1", 40) + " HOME=/root", "HOME=/root"),
    ("DB_PASS=" + fake("keep2", 14) + " psql -h db.internal", "DB_PASS="),
    ('{"sort_keys": true, "max_tokens": 4096, "input_tokens": 120}', '"max_tokens": 4096, "input_tokens": 120'),
    ("git log -1 5be07c3e41d2a9f0c8b16e7d2a94c05f3e8b71d6 -- src/app/main.py", "5be07c3e41d2a9f0c8b16e7d2a94c05f3e8b71d6"),
    ('{"session": "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11"}', "5f1c2a9e-3b7d-4e21-9a6c-0d8e4f2b7a11"),
    ("rg -n 'def apply_coupon' src/shop/checkout.py", "rg -n 'def apply_coupon' src/shop/checkout.py"),
    ("    10→ Each pane is a map with keys:\n    11→ `:pane_id`", "keys:\n    11→"),  # a count, then a gutter
    ("const octokit = new Octokit({ auth: import.meta.env.VITE_GITHUB_TOKEN });", "auth: import.meta.env"),
])
def test_what_is_not_a_secret_stays(text, kept):
    assert kept in redact(text)


def _digests(name: str) -> tuple[str, str, str]:
    """A commit-like sha1, a sha256 and an SRI sha512 of `name`: hashes, made here rather than written out."""
    data = name.encode()
    return (hashlib.sha1(data).hexdigest(), hashlib.sha256(data).hexdigest(),
            "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode())


SHA1, SHA256, SRI = _digests("lodash-4.17.21")
GO_SUM = "h1:" + base64.b64encode(hashlib.sha256(b"testify").digest()).decode()


@pytest.mark.parametrize("text", [
    # code: a call, a sort key, a setter (they were `[REDACTED](false)`, `key=[REDACTED] x`)
    "const [firstTokenReceived, setFirstTokenReceived] = useState(false);",
    "rows.sort(key=lambda x: x[1])",
    "if (!firstTokenReceived) { setFirstTokenReceived(true); }",
    'api_key = os.environ["OPENAI_API_KEY"]',
    "password = getpass.getpass()",
    "password: ${DB_PASSWORD}",
    # lockfiles: integrity hashes and checksums are digests of public packages
    f'      "integrity": "{SRI}",',
    f'  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{SHA1}"\n  integrity {SRI}',
    f'    "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",\n    "integrity": "{SRI}"',
    f"  resolution: {{integrity: {SRI}}}",
    f'{{file = "numpy-1.26.4.tar.gz", hash = "sha256:{SHA256}"}}',
    f'checksum = "{SHA256}"',
    f"github.com/stretchr/testify v1.8.4 {GO_SUM}",
    f"image: nginx@sha256:{SHA256}",
    f"{SHA256}  dist/app.tar.gz",
    # git commit SHAs, quoted, assigned or alone on a line
    f'{{"sha": "{SHA1}", "commit": {{"tree": {{"sha": "{SHA1[::-1]}"}}}}}}',
    f'rev = "{SHA1}"',
    f"$ git rev-parse HEAD\n{SHA1}\n",
    f"Merge: {SHA1[:7]} {SHA1[-7:]}",
    # a flag that is not a password (-p is a port, a parent, a plugin), and what reads one from elsewhere
    "ssh -p 2222 deploy@10.0.0.5",
    "mkdir -p build/output && docker run -p 8080:80 nginx",
    "python -m pytest -q -p no:cacheprovider tests/",
    "mysql -h db.internal -u root -p -e 'select 1'",
    "echo $SUDO_PASS | sudo -S true",
    "docker login ghcr.io -u ci-bot --password-stdin",
    "git checkout -b feature/session-cookies",
    # alone on a line, yet a path or a name, not a token
    "/home/ubuntu/Documents/Gym/results/anyterminal_results_1782117346053_1e01b2c6",
    "Qwen/Qwen3-Coder-30B-A3B-Instruct",
    "test_HTTPClientRetriesOnTimeout429Error",
])
def test_code_digests_and_paths_are_not_secrets(text):
    for shape in (text, json.dumps({"command": text})):
        assert redact(shape) == shape


def test_an_assignment_to_any_secret_name_is_masked():
    for name in ("DB_PASS", "db_password", "SECRET", "client_secret", "GH_TOKEN", "refreshToken", "API_KEY",
                 "AccountKey", "x-api-key"):
        for text in (f"{name}=hunter2x", f'{name}: "hunter2x"', f'"{name}":"hunter2x"', f'\\"{name}\\":\\"hunter2x\\"',
                     f"export {name}='hunter2x'", f"{name} := hunter2x", f"{name}=hunter2x;next=1"):
            assert "hunter2x" not in redact(text), text


def test_a_key_glued_to_letters_goes_whole():
    key = "AKIA" + fake("glue", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    assert redact(f"id {key}abcdef end") == f"id {MASK} end"


def test_a_block_is_masked_from_a_window_that_starts_inside_it():
    # lines too short to be taken for a lone token each: only the block's BEGIN line tells
    block = _block("short-lines", "RSA PRIVATE KEY", "RSA PRIVATE KEY", 12, width=24)
    text = "ok\n" + block.text + "\ndone"
    body = text.index(block.values[0])
    # a window starting in the second line of the body: no BEGIN line in sight
    start = body + 30
    def shown(text: str) -> list[str]:
        return [line for line in block.values if line in text]

    assert shown(excerpt(text, start, start + 200)) == [] and shown(preview(text, 120, start)) == []
    # the same window cut out first would leak: the block is only known from the whole text
    assert shown(redact(text[start:start + 200]))
    assert excerpt(text, text.index("done")) == "done"


def test_a_token_cut_by_the_window_edge_is_still_recognised():
    key = "AKIA" + fake("edge", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    text = "a" + " " * 230 + key + " rest"  # the 240-char window of a 60-char preview ends inside the key
    assert key[:8] not in preview(text, 60)


def test_items_in_a_secret_are_known_as_such():
    text = "see src/app/main.py\n" + KEY_BLOCK.text + "\npassword=" + "Zx9" + fake("item", 12) + "\n"
    assert all(in_secret(text, line) for line in KEY_BLOCK.values)
    assert in_secret(text, "Zx9" + fake("item", 12))
    assert not in_secret(text, "src/app/main.py") and not in_secret(text, "main.py")


def test_explain_shows_hidden_items_but_none_from_a_secret():
    password = "Zx9" + fake("explain", 12)
    output = "\n".join(["head line", "see src/shop/checkout.py", KEY_BLOCK.text, f"DB_PASS={password}",
                        "eyJhbGciOiJIUzI1NiJ9." + fake("jwt-body", 40) + "." + fake("jwt-s", 30), "tail"])
    call = ToolCall("t.jsonl", 2, "toolaudit-jsonl", "s", "Bash", output, call_id="c1", request_index=0)
    maps, _ = maps_from_spec({"flags": {"head_lines": 1}})
    cuts = simulate_records([call], maps, get_tokenizer("o200k_base"), explain=True)[1]
    cut = cuts[0][0]
    assert cut.affected and "src/shop/checkout.py" in cut.hidden
    shown = " ".join(cut.hidden) + " " + (cut.hidden_preview or "")
    assert leaks({"explain": shown}) == []
    assert password not in shown and fake("jwt-body", 40)[:FRAGMENT] not in shown


def test_a_block_begun_before_the_cut_is_masked_in_the_removed_text():
    output = "\n".join(["$ cat id_rsa", *KEY_BLOCK.text.splitlines()])
    call = ToolCall("t.jsonl", 2, "toolaudit-jsonl", "s", "Bash", output, call_id="c1", request_index=0)
    maps, _ = maps_from_spec({"flags": {"head_lines": 3}})  # keeps the BEGIN line and one body line
    cuts = simulate_records([call], maps, get_tokenizer("o200k_base"), explain=True)[1]
    assert cuts[0][0].hidden_preview and leaks({"removed": cuts[0][0].hidden_preview}) == []
    assert cuts[0][0].hidden == ()


def test_the_detector_sees_only_the_window_and_nothing_without_a_hint(monkeypatch):
    seen: list[int] = []
    real = redact_module._values
    monkeypatch.setattr(redact_module, "_values", lambda text, worded, *shaped: seen.append(len(text)) or real(text, worded, *shaped))
    huge = ("token=" + "x" * 40 + " ") * 200_000  # 9 MB, hints everywhere
    assert preview(huge, 60).startswith("token=" + MASK)
    assert seen and max(seen) <= 60 * 4 + 4096 + 1
    seen.clear()
    assert preview("ls -la src && cat README.md | head", 60) == "ls -la src && cat README.md | head"
    assert seen == []  # no hint word, no token-long run: the detectors never ran


def _reach_cases():
    """Texts whose secrets sit where a prefix could change the preview: at the window's edge, in a token
    running past it, in a key block whose END line lies beyond the prefix."""
    from toolaudit.secrets.redact import _LOOKAHEAD

    key = fake("ghp_", 36)
    block = "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 64 + "\n"
    end = "-----END RSA PRIVATE KEY-----"
    for width in (60, 200):
        edge = 4 * width
        for at, pad in ((at, pad) for at in (0, edge - 40, edge - 10, edge - 5, edge, edge + 3)
                        for pad in ("x " * (at // 2), " " * at)):  # spaces fold: the window's end shows
            yield width, pad + f"token={key} rest"
            yield width, pad + "ghp_" + key + " done"
            yield width, pad + "Authorization: Bearer " + "Z" * (2 * _LOOKAHEAD + 50)
            yield width, pad + "k=" + "q" * (_LOOKAHEAD - 10) + key + "w" * (_LOOKAHEAD + 30)
            yield width, pad + block + "B" * (3 * _LOOKAHEAD) + "\n" + end + " after"
            yield width, pad + block + ("C" * 70 + "\n") * 300 + end
            yield width, pad + '{"password": "' + "p" * 30 + '"}' + "y" * 9000
            for planted in PLANTED:  # every kind the end-to-end test plants, at every place
                yield width, pad + planted.text + "\n" + "z" * 5000


@pytest.mark.slow  # seconds of work: make test-all runs it
def test_a_prefix_as_long_as_preview_reach_gives_the_same_preview():
    from toolaudit.secrets.redact import preview_reach

    cases = list(_reach_cases())
    for width, text in cases:
        reach = preview_reach(width)
        assert preview(text[:reach], width) == preview(text, width), (width, len(text))
    # the reach is needed: a shorter prefix changes some of these previews
    assert any(preview(text[:4 * width + 8], width) != preview(text, width) for width, text in cases)
