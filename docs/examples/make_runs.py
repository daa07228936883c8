"""Writes docs/examples/runs/: the same 3 tasks run 3 times under two conditions, for the compare page.

`baseline` is a harness whose Grep and Bash return everything; `capped` cuts both at 2,000 chars.
The outputs are made-up but shaped like real ones (grep matches, file reads, test logs), seeded,
so the files and the page's figures are the same on every run: python docs/examples/make_runs.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent / "runs"
TASKS = ("fix-login", "add-export", "bump-deps")
CAP = 2000


def grep_output(rng: random.Random, matches: int) -> str:
    files = ["src/auth/session.py", "src/auth/login.py", "src/api/export.py", "tests/test_login.py", "docs/api.md"]
    return "\n".join(f"{rng.choice(files)}:{rng.randint(1, 900)}:    token = refresh_token(user, scope={rng.randint(1, 99)})"
                     for _ in range(matches))


def read_output(rng: random.Random, lines: int) -> str:
    return "\n".join(f"{i:6}\t    value_{rng.randint(0, 999)} = compute(row[{i}], limit={rng.randint(1, 50)})"
                     for i in range(1, lines + 1))


def bash_output(rng: random.Random, tests: int) -> str:
    return "\n".join(f"tests/test_{rng.choice(['login', 'export', 'deps'])}.py::test_case_{i} PASSED"
                     for i in range(tests)) + f"\n{tests} passed in {rng.randint(1, 9)}.{rng.randint(0, 99)}s"


def cut(text: str, capped: bool) -> str:
    return text if not capped or len(text) <= CAP else text[:CAP] + f"\n[{len(text) - CAP} chars omitted]"


def write(condition: str, capped: bool) -> None:
    for t, task in enumerate(TASKS):
        for run in range(1, 4):
            rng = random.Random(f"{task}-{run}")  # the same agent behaviour under both conditions
            calls = [("Grep", grep_output(rng, rng.randint(10, 60))), ("Read", read_output(rng, rng.randint(40, 160))),
                     ("Bash", bash_output(rng, rng.randint(20, 90)))]
            if rng.random() < 0.5:
                calls.append(("Grep", grep_output(rng, rng.randint(5, 30))))
            path = HERE / condition / task / f"run{run}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(json.dumps({"tool": tool, "output": cut(out, capped and tool != "Read"),
                                                "call_id": f"c{i}", "request": i})
                                    + "\n" for i, (tool, out) in enumerate(calls)), encoding="utf-8")


if __name__ == "__main__":
    write("baseline", capped=False)
    write("capped", capped=True)
