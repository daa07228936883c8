"""No planted secret is ever shown: every command and report format runs on a corpus of
transcripts (Claude Code, Codex, toolaudit-jsonl) full of fake secrets, in arguments and
in outputs, and none of the secret values may appear in what is printed or written.

To cover a new command or report format, add one line to COMMANDS (`replay` is still to
come: see the TO ADD comment). To cover a new kind of secret,
add one Planted to PLANTED. Values are made up at run time (`fake`), so no secret-looking
literal sits in this file.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from conftest import CORPUS, SAMPLES

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
FRAGMENT = 16  # a leak is any run of this many characters of a value (or the whole of a shorter one)


def fake(kind: str, n: int, alphabet: str = ALNUM) -> str:
    """`n` characters drawn from `alphabet`, the same on every run, different for each `kind`."""
    out: list[str] = []
    counter = 0
    while len(out) < n:
        digest = hashlib.sha256(f"{kind}:{counter}".encode()).digest()
        out += [alphabet[b % len(alphabet)] for b in digest]
        counter += 1
    return "".join(out[:n])


def _b64url(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


@dataclass(frozen=True)
class Planted:
    """One kind of secret: the text put in transcripts, and the values that must never show."""

    kind: str
    text: str
    values: tuple[str, ...]


def _block(kind: str, begin: str, end: str, lines: int, width: int = 64, first: str = "",
           armour: str = "") -> Planted:
    body = [fake(f"{kind}{i}", width, B64) for i in range(lines)] + [fake(f"{kind}-last", 28, B64) + "=="]
    text = "\n".join([f"-----BEGIN {begin}-----", *([armour] if armour else []), *([first] if first else []),
                      *body, f"-----END {end}-----"])
    return Planted(kind, text, tuple(body))


def _planted() -> list[Planted]:
    aws = "AKIA" + fake("aws", 16, UPPER)
    glued = "AKIA" + fake("aws-glued", 16, UPPER)
    aws_secret = fake("aws-secret", 40, B64)
    ghp = "ghp_" + fake("ghp", 36)
    openai = "sk-proj-" + fake("openai", 48, URLSAFE)
    anthropic = "sk-ant-api03-" + fake("anthropic", 93, URLSAFE) + "AA"
    slack = f"xoxb-{fake('slack1', 12, string.digits)}-{fake('slack2', 13, string.digits)}-{fake('slack3', 24)}"
    stripe = "sk_live_" + fake("stripe", 24)
    google = "AIza" + fake("google", 35, URLSAFE)
    payload = _b64url({"sub": "user-" + fake("jwt-sub", 12), "iat": 1760000000, "role": "admin"})
    signature = fake("jwt-sig", 43, URLSAFE)
    jwt = f"{_b64url({'alg': 'HS256', 'typ': 'JWT'})}.{payload}.{signature}"
    azure = fake("azure", 86, B64) + "=="
    db_pass = "Qh7" + fake("db-pass", 13)
    url_pass = "Uq9" + fake("url-pass", 13)
    escaped_pass = "Jz4" + fake("escaped-pass", 13)
    json_pass = "Kc2" + fake("json-pass", 13)
    bearer = fake("bearer", 40, ALNUM + "._-")
    hex_token = fake("hex-token", 64, HEX)
    api_key = fake("api-key", 32)
    return [
        Planted("aws-access-key", f"aws configure set aws_access_key_id {aws}", (aws,)),
        Planted("aws-secret-key", f"AWS_SECRET_ACCESS_KEY={aws_secret}", (aws_secret,)),
        Planted("github-pat", f"gh auth login --with-token <<< {ghp}", (ghp,)),
        Planted("openai-key", f"Using OpenAI project key {openai} for the batch", (openai,)),
        Planted("anthropic-key", f"x-api-key: {anthropic}", (anthropic,)),
        Planted("slack-token", f"SLACK_BOT={slack} ./notify.sh", (slack,)),
        Planted("stripe-key", f"charged the card with {stripe} in live mode", (stripe,)),
        Planted("google-api-key", f"https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key={google}",
                (google,)),
        Planted("jwt", f"set-cookie: sid={jwt}; Path=/; HttpOnly", (jwt, payload, signature)),
        _block("pem-rsa", "RSA PRIVATE KEY", "RSA PRIVATE KEY", 6),
        _block("openssh", "OPENSSH PRIVATE KEY", "OPENSSH PRIVATE KEY", 4, width=70,
               first="b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"),
        _block("pgp", "PGP PRIVATE KEY BLOCK", "PGP PRIVATE KEY BLOCK", 5, armour="Version: GnuPG v2\n"),
        Planted("azure-account-key",
                f"DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey={azure};"
                "EndpointSuffix=core.windows.net", (azure,)),
        Planted("db-pass", f"DB_PASS={db_pass} psql -h db.internal -U app shop", (db_pass,)),
        Planted("url-password", f"DATABASE_URL=postgres://app:{url_pass}@db.internal:5432/shop", (url_pass,)),
        Planted("json-escaped-password", '{\\"user\\":\\"app\\",\\"password\\":\\"' + escaped_pass + '\\"}',
                (escaped_pass,)),
        Planted("json-password", f'{{"user": "app", "password": "{json_pass}"}}', (json_pass,)),
        Planted("bearer-token", f"curl -H 'Authorization: Bearer {bearer}' https://api.example.com/v1/orders",
                (bearer,)),
        Planted("aws-key-glued", f"the log line said {glued}exampleSuffix and stopped", (glued,)),
        Planted("secret-token-hex", f"export SECRET_TOKEN={hex_token}", (hex_token,)),
        Planted("export-api-key", f'export API_KEY="{api_key}"', (api_key,)),
    ]


PLANTED = _planted()
# prose with no evidence items (no paths, numbers or code-like names), to make outputs long
# enough for every preset's cap (Claude Code cuts Bash at 30,000 chars)
FILLER = "\n".join(["the service answered the health check and nothing else happened here"] * 230)


def outputs(p: Planted) -> list[str]:
    """Two outputs per secret: short with it on line 2 (a head cut hides it; a PEM body starts
    a removed part under --head-lines 2), and long with it in the middle (middle cuts)."""
    return [f"ok\n{p.text}\ndone", f"{FILLER}\n{p.text}\n{FILLER}"]


def _claude(path: Path) -> None:
    lines, n = [], 0
    for p in PLANTED:
        for output, command in zip(outputs(p), (p.text, "tail -n 400 logs/app.log")):
            n += 1
            base = {"sessionId": "s-claude", "cwd": "/srv/app", "version": "2.1.38",
                    "timestamp": f"2026-03-01T10:{n // 60:02d}:{n % 60:02d}.000Z"}
            lines.append({**base, "type": "assistant", "uuid": f"a{n}", "requestId": f"req{n}", "message": {
                "id": f"msg{n}", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": command}}]}})
            lines.append({**base, "type": "user", "uuid": f"u{n}", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": output}]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _codex(path: Path) -> None:
    lines = [{"timestamp": "2026-03-01T10:00:00.000Z", "type": "session_meta",
              "payload": {"id": "019c0000-0000-7000-8000-00000000c0de", "cwd": "/srv/app", "originator": "codex_cli_rs",
                          "cli_version": "0.94.0", "source": "cli", "model_provider": "openai"}},
             {"timestamp": "2026-03-01T10:00:00.100Z", "type": "turn_context",
              "payload": {"cwd": "/srv/app", "model": "gpt-5.2-codex"}}]
    n = 0
    for p in PLANTED:
        for output, command in zip(outputs(p), (p.text, "tail -n 400 logs/app.log")):
            n += 1
            ts = f"2026-03-01T10:{n // 60:02d}:{n % 60:02d}.500Z"
            lines.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "function_call", "name": "exec_command", "call_id": f"call_{n}",
                "arguments": json.dumps({"cmd": command, "workdir": "/srv/app"})}})
            lines.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": f"call_{n}", "output": output}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _toolaudit(path: Path) -> None:
    lines, n = [], 0
    for p in PLANTED:
        for output, args in zip(outputs(p), ({"script": p.text}, p.text)):
            n += 1
            lines.append({"tool": "shell", "session": "s-own", "call_id": f"c{n}", "request": n,
                          "args": args, "output": output})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """corpus/{claude,codex,own}/: one transcript per format, every secret in args and outputs."""
    root = tmp_path_factory.mktemp("secrets") / "corpus"
    for name, write, file in (("claude", _claude, "5f1c2a9e-0000-4000-8000-000000000001.jsonl"),
                              ("codex", _codex, "rollout-2026-03-01T10-00-00-019c0000-0000-7000-8000-00000000c0de.jsonl"),
                              ("own", _toolaudit, "calls.jsonl")):
        (root / name).mkdir(parents=True)
        write(root / name / file)
    return root


# ------------------------------------------------------------------ what runs

@dataclass(frozen=True)
class Run:
    """One command line; `{corpus}`, `{out}` and `{baseline}` are filled in. `setup` makes any
    file the command needs first (a baseline), in `out`."""

    name: str
    argv: tuple[str, ...]
    codes: tuple[int, ...] = (0,)
    setup: tuple[str, ...] = ()
    shows: str = ""  # printed only when the secret-bearing text was really shown (redacted)
    writes: tuple[str, ...] = ()  # files it must have written (else their check proves nothing)


REDACTED = "[REDACTED]"
SUMMARY = "step-summary.md"  # $GITHUB_STEP_SUMMARY
SCAN = ("scan", "{corpus}", "-j", "1")
SIM = ("simulate", "{corpus}", "-j", "1", "--explain", "500")
REPLAY = ("replay", "{corpus}", "--workspace", "{out}", "--tool", "*=cmd:cat", "--explain", "500")
COMMANDS = [
    Run("scan-table", SCAN),
    *(Run(f"scan-{fmt}", (*SCAN, "-f", fmt)) for fmt in ("json", "csv", "markdown")),
    Run("scan-json-file", (*SCAN, "-f", "json", "-o", "{out}/scan.json"), writes=("scan.json",)),
    Run("scan-by-session", (*SCAN, "--by", "session", "-f", "markdown")),
    *(Run(f"scan-top-{fmt}", (*SCAN, "--top", "200", "-f", fmt), shows=REDACTED)
      for fmt in ("table", "json", "markdown", "html")),
    Run("scan-top-csv", (*SCAN, "--top", "200", "-f", "csv")),  # CSV holds the groups only
    *(Run(f"scan-show-content-{fmt}", (*SCAN, "--top", "200", "--show-content", "-f", fmt), shows=REDACTED)
      for fmt in ("table", "json", "markdown", "html")),
    Run("scan-html-file", (*SCAN, "--top", "200", "-f", "html", "-o", "{out}/scan.html"), writes=("scan.html",)),
    Run("scan-records-csv", (*SCAN, "--records", "{out}/calls.csv"), writes=("calls.csv",)),
    Run("scan-records-parquet", (*SCAN, "--records", "{out}/calls.parquet"), writes=("calls.parquet",)),
    *(Run(f"simulate-{cap}-{fmt}", (*SIM, *flags, "-f", fmt), shows=REDACTED)
      for cap, flags in (("head1", ("--head-lines", "1")), ("head2", ("--head-lines", "2")),
                         ("max-lines", ("--max-lines", "6")), ("max-chars", ("--max-chars", "300")))
      for fmt in ("table", "json", "markdown", "html")),
    *(Run(f"simulate-preset-{preset}-{fmt}", (*SIM, "--preset", preset, "-f", fmt))
      for preset in ("codex", "claude-code", "mini-swe-agent") for fmt in ("table", "json")),
    Run("simulate-sweep", ("simulate", "{corpus}", "-j", "1", "--sweep", "max-lines=2,6,40", "-f", "json")),
    *(Run(f"ci-{fmt}", ("ci", "{corpus}", "--baseline", "{baseline}", "-j", "1", "-f", fmt), codes=(0, 3),
          setup=("scan", "{corpus}/claude", "-j", "1", "-f", "json", "-o", "{baseline}"), writes=(SUMMARY,))
      for fmt in ("table", "markdown", "json", "junit")),
    Run("ci-simulate-baseline", ("ci", "{corpus}", "--baseline", "{baseline}", "-j", "1", "-f", "markdown"),
        codes=(0, 3), setup=("simulate", "{corpus}/own", "-j", "1", "--max-lines", "6", "-f", "json",
                             "-o", "{baseline}"), writes=(SUMMARY,)),
    Run("ci-update-baseline", ("ci", "{corpus}", "--baseline", "{baseline}", "-j", "1", "--update-baseline"),
        writes=("baseline.json",)),
    *(Run(f"compare-{fmt}", ("compare", "{corpus}/claude", "{corpus}/codex", "-j", "1", "-f", fmt))
      for fmt in ("table", "json", "csv", "markdown", "html")),
    Run("compare-records", ("compare", "{out}/a.csv", "{corpus}/own", "-j", "1", "-f", "json"),
        setup=("scan", "{corpus}/claude", "-j", "1", "--records", "{out}/a.csv")),
    # replay: `cat` answers every call with its recorded arguments, so the new outputs hold the
    # planted values too; --explain previews both outputs (redacted)
    *(Run(f"replay-{fmt}", (*REPLAY, "-f", fmt), shows=REDACTED if fmt != "csv" else "")
      for fmt in ("table", "json", "markdown", "csv")),
    Run("replay-json-file", (*REPLAY, "-f", "json", "-o", "{out}/replay.json"), writes=("replay.json",)),
    Run("ci-replay-baseline", ("ci", "{corpus}", "--baseline", "{baseline}", "-f", "markdown"), codes=(0, 3),
        setup=(*REPLAY[:-2], "-f", "json", "-o", "{baseline}"), writes=(SUMMARY,)),
    # not here: replay --calls-out, a transcript written on request (outputs verbatim, as recorded,
    # so that scan counts them exactly); docs/replay.md says so
]


def _texts(path: Path) -> list[str]:
    """What a written file says, as text a reader (or a grep) would see."""
    if path.suffix == ".parquet":
        import pandas as pd

        return [pd.read_parquet(path).to_csv(index=False), path.read_bytes().decode("latin-1")]
    return [path.read_text(encoding="utf-8", errors="replace")]


def _views(text: str) -> list[str]:
    """The text, and as Markdown/HTML/JSON escapes would hide it (`\\_`, `&amp;`, `\\/`)."""
    return [text, text.replace("\\", ""), html.unescape(text)]


def leaks(texts: dict[str, str]) -> list[str]:
    """`where: kind` for every planted value (or a FRAGMENT-long run of one) found in `texts`."""
    found = []
    for where, text in texts.items():
        views = _views(text)
        for p in PLANTED:
            for value in p.values:
                pieces = {value[i:i + FRAGMENT] for i in range(max(1, len(value) - FRAGMENT + 1))}
                if any(piece in view for piece in pieces for view in views):
                    found.append(f"{where}: {p.kind}")
                    break
    return found


def test_the_corpus_plants_enough_kinds(corpus):
    assert len({p.kind for p in PLANTED}) >= 15
    texts = {path.name: path.read_text() for path in corpus.rglob("*.jsonl")}
    assert len(texts) == 3
    # the planted values are really there, in every transcript (else the leak check proves nothing)
    for name, text in texts.items():
        assert len(leaks({name: text})) == len(PLANTED), name


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_no_planted_secret_is_printed_or_written(command: Run, corpus, run, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    summary = tmp_path / SUMMARY
    fill: Callable[[tuple[str, ...]], list[str]] = lambda argv: [
        a.format(corpus=corpus, out=out, baseline=out / "baseline.json") for a in argv]
    env = {"GITHUB_STEP_SUMMARY": str(summary), "COLUMNS": "400", "NO_COLOR": "1"}
    if command.setup:
        made = run(*fill(command.setup), "-q", env=env)
        assert made.exit_code == 0, made.output
    result = run(*fill(command.argv), env=env)
    assert result.exit_code in command.codes, result.output
    assert result.stdout.strip() or list(out.iterdir()), "the command printed and wrote nothing"
    texts = {"stdout": result.stdout, "stderr": result.stderr}
    for path in [*out.iterdir(), summary]:
        if path.exists():
            for i, text in enumerate(_texts(path)):
                texts[f"{path.name}#{i}"] = text
    assert leaks(texts) == []
    assert command.shows in "".join(texts.values())
    assert all(f"{name}#0" in texts for name in command.writes), sorted(texts)



@pytest.mark.parametrize("where", ["planted", "sample_logs", "shared"])
def test_top_previews_made_late_are_the_ones_every_worker_made(where, corpus, run, tmp_path):
    """`scan --top` alone previews only the rows it shows, from the heads workers send (FileResult.heads);
    with --records every worker previews every call. The shown rows are the same, secrets masked alike."""
    path = {"planted": corpus, "sample_logs": SAMPLES, "shared": CORPUS}[where]
    if not path.is_dir():
        pytest.skip(f"{path} is absent (../shared/corpus: the real transcripts)")
    args = ("scan", path, "--top", "60", "--show-content", "-f", "json", "-q")
    late = run(*args, "-j", "2")
    eager = run(*args, "-j", "1", "--records", tmp_path / "rows.csv")
    assert late.exit_code == 0 and eager.exit_code == 0, late.output + eager.output
    top, also = json.loads(late.stdout)["top"], json.loads(eager.stdout)["top"]
    assert len(top) == 60 and top == also
    assert sum(bool(row["args_preview"]) for row in top) > 30 and all("output_preview" in row for row in top)
    if where == "planted":
        assert leaks({"late": late.stdout}) == [] and "[REDACTED]" in late.stdout
