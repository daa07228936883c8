"""corepack runs the package manager it names; `tar -t` lists; ssh-keygen reads with -l/-y and writes its -f key.

The commands are cut from chikachow/cyspbot's (MIT License, Copyright (c) 2026 cysp) Codex 0.142 rollouts (`corepack pnpm exec vitest run
test/token-exchange-worker.test.ts`, `tar -tzf`, `ssh-add -l`, `ssh-keygen -lf`), where each was a program replay did
not know, so the files they named were set aside."""

from __future__ import annotations

import pytest

from toolaudit.replay.shell_effects import effect

CWD = "/Users/cysp/src/cyspbot"


@pytest.mark.parametrize(("command", "paths", "unknown"), [
    ("corepack pnpm exec vitest run test/token-exchange-worker.test.ts", (), ()),
    ("corepack pnpm exec vitest run -u", ("*",), ()),  # vitest -u updates its snapshots, as `pnpm exec vitest -u`
    ("corepack pnpm@9.1.0 install", ("package.json", "pnpm-lock.yaml", "node_modules"), ()),
    ("corepack enable", (), ()),
    ("corepack use pnpm@9", ("package.json", "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "node_modules"), ()),
    ("tar -tzf dist.tgz", (), ()),
    ("tar tf dist.tar", (), ()),
    ("tar -xzf dist.tgz", ("dist.tgz",), ("tar",)),  # extracts: a program replay does not know, as before
    ("ssh-add -l", (), ()),
    ("ssh-keygen -lf ~/.ssh/id_ed25519.pub", (), ()),
    ("ssh-keygen -t ed25519 -f deploy_key -N ''", ("deploy_key", "deploy_key.pub"), ()),
])
def test_what_the_command_may_change(command, paths, unknown):
    found = effect(command, CWD)
    assert (found.paths, found.unknown) == (paths, unknown)
