"""The GitHub Action's step: run `toolaudit ci`, add its Markdown to the job summary, post or update one PR comment.

Run by action.yml, which passes the inputs as INPUT_* environment variables. Standard
library only (urllib), and only the variables Actions sets: GITHUB_API_URL,
GITHUB_REPOSITORY, GITHUB_EVENT_PATH, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT. Exits with
toolaudit ci's own code (3: the gate failed), after the comment is posted.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

PAGE = 100


def marker(env: dict[str, str]) -> str:
    """The hidden line that finds the comment this configuration wrote before, so a PR keeps one per
    configuration: the `comment-key` input, else the job's id and the baseline (two jobs, or one job gating
    two baselines, no longer overwrite each other's comment)."""
    baseline = env.get("INPUT_BASELINE") or "toolaudit-baseline.json"
    key = env.get("INPUT_COMMENT_KEY") or f"{env.get('GITHUB_JOB', '')} {baseline}"
    return f"<!-- toolaudit: {' '.join(key.replace('--', '- -').split())} -->"  # `--` would end the comment


def report_path(env: dict[str, str]) -> str:
    """Where `toolaudit ci -o` writes the report (action.yml's `output`, the same default without it)."""
    return env.get("INPUT_OUTPUT") or "toolaudit-report"


def ci_command(env: dict[str, str]) -> list[str]:
    """`toolaudit ci` with the inputs: paths and checks split on white space, as a shell would (quotes kept)."""
    paths = shlex.split(env.get("INPUT_PATHS", ""))
    if not paths:
        raise SystemExit("toolaudit action: the `paths` input is empty")
    cmd = [sys.executable, "-m", "toolaudit", "ci", *paths, "--baseline", env.get("INPUT_BASELINE") or
           "toolaudit-baseline.json", "-f", env.get("INPUT_FORMAT") or "markdown",
           "-o", report_path(env)]
    for check in shlex.split(env.get("INPUT_FAIL_ON", "")):
        cmd += ["--fail-on", check]
    return cmd + shlex.split(env.get("INPUT_ARGS", ""))


def pr_number(event_path: str | None) -> int | None:
    """The pull request the event is about (pull_request, pull_request_target, a comment on a PR), else None."""
    if not event_path or not Path(event_path).is_file():
        return None
    event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    if isinstance(event.get("pull_request"), dict):
        return event["pull_request"].get("number")
    issue = event.get("issue")
    if isinstance(issue, dict) and issue.get("pull_request"):
        return issue.get("number")
    return None


class GitHub:
    """The few REST calls the comment needs, with a token."""

    def __init__(self, api: str, repo: str, token: str, mark: str):
        self.api, self.repo, self.token, self.mark = api.rstrip("/"), repo, token, mark

    def call(self, method: str, path: str, body: dict | None = None):
        request = urllib.request.Request(
            f"{self.api}{path}", method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Accept": "application/vnd.github+json",
                     "X-GitHub-Api-Version": "2022-11-28", "Content-Type": "application/json",
                     "User-Agent": "toolaudit-action"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")

    def own_comment(self, number: int) -> int | None:
        """The id of the earlier comment that starts with this configuration's marker, if any (every page of the
        PR's comments)."""
        page = 1
        while True:
            comments = self.call("GET", f"/repos/{self.repo}/issues/{number}/comments?per_page={PAGE}&page={page}")
            for comment in comments:
                if (comment.get("body") or "").startswith(self.mark + "\n"):
                    return comment["id"]
            if len(comments) < PAGE:
                return None
            page += 1

    def post_or_update(self, number: int, markdown: str) -> str:
        """One comment per PR: updated in place when it exists. Returns what was done."""
        body = {"body": f"{self.mark}\n{markdown}"}
        found = self.own_comment(number)
        if found is None:
            self.call("POST", f"/repos/{self.repo}/issues/{number}/comments", body)
            return f"posted a comment on #{number}"
        self.call("PATCH", f"/repos/{self.repo}/issues/comments/{found}", body)
        return f"updated comment {found} on #{number}"


def main(env: dict[str, str] | None = None) -> int:
    env = dict(os.environ if env is None else env)
    with tempfile.TemporaryDirectory() as tmp:
        # toolaudit ci appends its Markdown to $GITHUB_STEP_SUMMARY in every -f: catch it apart for the comment
        caught = Path(tmp) / "summary.md"
        code = subprocess.run(ci_command(env), env={**env, "GITHUB_STEP_SUMMARY": str(caught)}).returncode
        markdown = caught.read_text(encoding="utf-8") if caught.is_file() else ""
    if env.get("GITHUB_STEP_SUMMARY") and markdown:
        with open(env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as fh:
            fh.write(markdown)
    if env.get("GITHUB_OUTPUT"):
        with open(env["GITHUB_OUTPUT"], "a", encoding="utf-8") as fh:
            fh.write(f"exit-code={code}\nreport={report_path(env)}\n")
    token, number = env.get("INPUT_TOKEN", ""), pr_number(env.get("GITHUB_EVENT_PATH"))
    if token and markdown and number is not None:
        github = GitHub(env.get("GITHUB_API_URL") or "https://api.github.com", env.get("GITHUB_REPOSITORY", ""), token,
                        marker(env))
        try:
            print(f"toolaudit action: {github.post_or_update(number, markdown)}")
        except (urllib.error.URLError, OSError, ValueError) as exc:
            # a fork's read-only token cannot comment: say so, and let the gate's own result decide the step
            print(f"::warning::toolaudit could not comment on #{number}: {exc}")
    elif token and number is None:
        print("toolaudit action: not a pull request event; the report is in the job summary only")
    return code


if __name__ == "__main__":
    sys.exit(main())
