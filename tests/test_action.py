"""The GitHub Action (action.yml, action/ci_action.py) run locally: fake summary, event and API, no network."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml

from conftest import ROOT, SAMPLES

SCRIPT = ROOT / "action" / "ci_action.py"
sys.path.insert(0, str(SCRIPT.parent))
from ci_action import marker  # noqa: E402

# the GitHub Action run as a workflow would, a process per step: make test-all runs it
pytestmark = pytest.mark.slow


class FakeGitHub:
    """A REST API on 127.0.0.1 that records every request; `comments` are the PR's existing comments."""

    def __init__(self, comments: list[dict] | None = None, refuse_writes: bool = False):
        self.comments = comments or []
        self.refuse_writes = refuse_writes
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                fake.requests.append({"method": self.command, "path": self.path, "body": body,
                                      "auth": self.headers.get("Authorization")})
                status, reply = fake.reply(self.command, self.path)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = _answer

            def log_message(self, *args):  # quiet test output
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def reply(self, method: str, path: str) -> tuple[int, object]:
        if method == "GET":
            page = int(re.search(r"[?&]page=(\d+)", path).group(1))
            return 200, self.comments[(page - 1) * 100:page * 100]
        if self.refuse_writes:
            return 403, {"message": "Resource not accessible by integration"}
        return (201 if method == "POST" else 200), {"id": 1}


@pytest.fixture
def github():
    """Start a FakeGitHub (with the comments a test sets) and always stop it."""
    started = []

    def start(**kwargs) -> FakeGitHub:
        fake = FakeGitHub(**kwargs)
        fake.thread.start()
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.server.shutdown()
        fake.server.server_close()


@pytest.fixture
def action_env(run, tmp_path):
    """The environment Actions gives the step: inputs, a summary and output file, a PR event, a baseline."""
    baseline = tmp_path / "baseline.json"  # the codex sample alone: measuring codex + gemini-cli grows tokens
    assert run("scan", SAMPLES / "codex", "-f", "json", "-o", baseline, "-j", "1", "-q").exit_code == 0
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "pull_request": {"number": 7}}), encoding="utf-8")
    return {
        "INPUT_PATHS": f"{SAMPLES / 'codex'}\n{SAMPLES / 'gemini-cli'}",
        "INPUT_BASELINE": str(baseline),
        "INPUT_FAIL_ON": "tokens.total:+5%  *:tokens.max:+1000",
        "INPUT_FORMAT": "junit",
        "INPUT_OUTPUT": str(tmp_path / "toolaudit.xml"),
        "INPUT_TOKEN": "t0k",
        "INPUT_ARGS": "-j 1 -q",
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(tmp_path / "output.txt"),
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "octo/agent",
        "PATH": "/usr/bin:/bin",
    }


def run_action(env: dict, api: str | None) -> subprocess.CompletedProcess:
    full = {**env, **({"GITHUB_API_URL": api} if api else {})}
    return subprocess.run([sys.executable, str(SCRIPT)], env=full, capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


def test_first_run_posts_one_comment_and_fills_the_summary(github, action_env, tmp_path):
    api = github()
    done = run_action(action_env, api.url)
    assert done.returncode == 3, done.stdout + done.stderr  # the gate failed, and the step says so
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("earlier step\n")  # appended, not replaced
    assert "toolaudit ci: FAIL" in summary and "tokens.total" in summary
    assert (tmp_path / "toolaudit.xml").read_text(encoding="utf-8").startswith("<?xml")  # the format input
    assert "exit-code=3" in (tmp_path / "output.txt").read_text(encoding="utf-8")
    assert [(r["method"], r["path"].split("?")[0]) for r in api.requests] == [
        ("GET", "/repos/octo/agent/issues/7/comments"), ("POST", "/repos/octo/agent/issues/7/comments")]
    assert all(r["auth"] == "Bearer t0k" for r in api.requests)
    body, mark = api.requests[-1]["body"]["body"], marker(action_env)
    assert mark == f"<!-- toolaudit: {action_env['INPUT_BASELINE']} -->"  # no job id outside Actions
    assert body.startswith(mark) and body.removeprefix(mark + "\n") == summary.removeprefix("earlier step\n")
    assert "t0k" not in done.stdout + done.stderr


def test_a_later_run_updates_its_own_comment_on_page_two(github, action_env):
    others = [{"id": i, "body": f"review {i}"} for i in range(100)]
    api = github(comments=others + [{"id": 4242, "body": f"{marker(action_env)}\nold verdict"}, {"id": 5, "body": "lgtm"}])
    done = run_action(action_env, api.url)
    assert done.returncode == 3, done.stdout + done.stderr
    calls = [(r["method"], r["path"]) for r in api.requests]
    assert calls[:2] == [("GET", "/repos/octo/agent/issues/7/comments?per_page=100&page=1"),
                         ("GET", "/repos/octo/agent/issues/7/comments?per_page=100&page=2")]
    assert calls[2:] == [("PATCH", "/repos/octo/agent/issues/comments/4242")]  # no second comment
    assert "FAIL" in api.requests[-1]["body"]["body"] and "updated comment 4242 on #7" in done.stdout


def test_two_configurations_keep_one_comment_each(github, action_env):
    # two jobs of one workflow gate one PR: each finds and updates its own comment, never the other's
    lint = {**action_env, "GITHUB_JOB": "tools-lint"}
    nightly = {**action_env, "GITHUB_JOB": "tools-nightly", "INPUT_COMMENT_KEY": "nightly -- corpus"}
    assert marker(lint) != marker(nightly) and "-->" not in marker(nightly)[:-3]
    api = github(comments=[{"id": 11, "body": f"{marker(lint)}\nlint's verdict"},
                           {"id": 12, "body": f"{marker(nightly)}\nnightly's verdict"}])
    for env, own in ((nightly, 12), (lint, 11)):
        api.requests.clear()
        done = run_action(env, api.url)
        assert done.returncode == 3, done.stdout + done.stderr
        assert [(r["method"], r["path"]) for r in api.requests][-1] == ("PATCH", f"/repos/octo/agent/issues/comments/{own}")
        assert api.requests[-1]["body"]["body"].startswith(marker(env) + "\n")


def test_passing_gate_without_a_pull_request_comments_nowhere(github, action_env, tmp_path):
    api = github()
    event = tmp_path / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main", "commits": []}), encoding="utf-8")
    env = {**action_env, "GITHUB_EVENT_PATH": str(event), "INPUT_PATHS": str(SAMPLES / "codex"),
           "INPUT_FAIL_ON": "", "INPUT_FORMAT": "markdown"}
    done = run_action(env, api.url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert api.requests == []
    assert "toolaudit ci: PASS" in (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "not a pull request event" in done.stdout


def test_a_refused_comment_warns_and_keeps_the_gates_exit_code(github, action_env):
    api = github(refuse_writes=True)  # a fork's read-only token
    done = run_action(action_env, api.url)
    assert done.returncode == 3, done.stdout + done.stderr
    assert [r["method"] for r in api.requests] == ["GET", "POST"]
    assert "::warning::toolaudit could not comment on #7" in done.stdout


def test_comment_on_a_pr_issue_comment_event(github, action_env, tmp_path):
    event = tmp_path / "issue_comment.json"
    event.write_text(json.dumps({"issue": {"number": 12, "pull_request": {"url": "x"}}}), encoding="utf-8")
    api = github()
    done = run_action({**action_env, "GITHUB_EVENT_PATH": str(event)}, api.url)
    assert done.returncode == 3, done.stdout + done.stderr
    assert api.requests[-1]["path"] == "/repos/octo/agent/issues/12/comments"


def test_action_yml_is_a_composite_that_passes_every_input_to_the_script():
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert {"paths", "baseline", "fail-on", "format"} <= set(action["inputs"])
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    # the caller's Python stays the caller's for the job's later steps; pip's downloads are cached
    assert steps[0]["with"]["update-environment"] is False and steps[0]["with"]["cache"] == "pip"
    assert steps[1]["env"]["ACTION_PYTHON"] == "${{ steps.python.outputs.python-path }}"
    assert '"$ACTION_PYTHON" -m venv "$RUNNER_TEMP/toolaudit-venv"' in steps[1]["run"]
    assert '"$GITHUB_ACTION_PATH${EXTRAS:+[$EXTRAS]}"' in steps[1]["run"]  # from the action's own checkout
    assert steps[1]["env"]["EXTRAS"] == "${{ inputs.extras }}"
    step = next(s for s in steps if s.get("id") == "ci")
    assert "action/ci_action.py" in step["run"] and "${{" not in step["run"]  # inputs never spliced into shell
    script = SCRIPT.read_text(encoding="utf-8")
    for name in action["inputs"]:
        if name in ("python-version", "extras"):  # used by the set-up steps, not the script
            continue
        var = "INPUT_" + name.upper().replace("-", "_")
        assert step["env"][var] == f"${{{{ inputs.{name} }}}}", var
        assert f'"{var}"' in script, f"{var} is passed but never read"
    assert set(action["outputs"]) == {"exit-code", "report"}


@pytest.mark.parametrize("fmt, extras, wanted", [("html", "", "html"), ("html", "mcp", "mcp,html"),
                                                 ("html", "html", "html"), ("html", "mcp,html", "mcp,html"),
                                                 ("markdown", "", ""), ("junit", "mcp", "mcp")])
def test_an_html_report_gets_the_html_extra(fmt, extras, wanted):
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    line = next(l for l in action["runs"]["steps"][1]["run"].splitlines() if l.startswith("if "))
    done = subprocess.run(["bash", "-c", line + '\nprintf %s "$EXTRAS"'], env={"FORMAT": fmt, "EXTRAS": extras},
                          capture_output=True, text=True, check=True)
    assert done.stdout == wanted
