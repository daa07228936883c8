"""What a recorded shell command may have written, read from its text: the commands of real sessions."""

from __future__ import annotations

import pytest

from toolaudit.replay.shell_effects import CHANGED, EVERYTHING, effect, split

COMMIT = ('git add docs/plans/design.md && git commit -m "$(cat <<\'EOF\'\ndocs: add the design (a) b)\n\n'
          'Co-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)"')  # Claude Code's own commit idiom


@pytest.mark.parametrize("command", [
    "golangci-lint run ./cmd/entire/cli/strategy/... 2>&1 | grep -E \"unused|ineffassign\" | head -20",
    'find . -name "*.go" -exec grep -l "Checkpoint" {} \\;',
    'find . -name "*.go" | xargs grep -l foo',
    "grep -rin 'x;y|z' cmd/ --include='*.go'",
    "grep -w TODO -i src",  # -i and -w are grep's own, not "in place" / "write"
    "go test ./... 2>&1 | tail -30",
    "cd cmd/entire && go build ./... && go vet ./...",
    COMMIT,
    'gh pr create --title "x" --body "$(cat <<\'EOF\'\n## Summary\n- one) two\nEOF\n)"',
    "x=$(git rev-parse HEAD) && git show $x --stat",
    "cat <<'EOF'\nrm -rf /\nEOF",  # a here-document is data
    "echo '$(rm x)' > /dev/null",  # single quotes: no substitution
    "ls -la 2>/dev/null; pwd",
    "sleep 2 &",
    # Safecast/safecast-map-MCP, 2.1.42: a merge previewed, not made (it set 33 Reads and Greps aside)
    "git merge-tree $(git merge-base main feature/x) main feature/x | head -50",
    "git diff-tree --no-commit-id --name-only -r HEAD",
    # Beep206/CyberVPN, Claude Code 2.1.42 (an agent team's teammates): a static analyser's report
    "cd /home/beep/projects/VPNBussiness/cybervpn_mobile && dart analyze lib/features/vpn_profiles/ 2>&1",
    "flutter analyze lib/",
])
def test_commands_that_only_read_change_nothing(command):
    assert effect(command).paths == ()


@pytest.mark.parametrize(("command", "paths"), [
    ("echo hi > out.txt", ("out.txt",)),
    ("echo hi>out.txt", ("out.txt",)),
    ("cat a >> 'my log' 2>/dev/null", ("my log",)),
    ("cat <<EOF > notes.md\nhello\nEOF", ("notes.md",)),
    ("cat > f <<-EOF\n\thi\n\tEOF\nls", ("f",)),
    ("rm -f a.go b.go", ("a.go", "b.go")),
    ("mv old.go new.go", ("old.go", "new.go")),
    ("sed -i.bak 's/a/b/' main.go", ("main.go",)),
    ("sed -i '' 's/a/b/g' a_test.go b_test.go", ("a_test.go", "b_test.go")),  # BSD sed's empty suffix
    ("echo $(date) > stamp", ("stamp",)),
    # issue 28: a substitution is judged by the command it holds (it was "a command substitution that writes":
    # the whole workspace)
    ("echo $(rm -rf build)", ("build",)),
    ("echo `touch x`", ("x",)),
    ("python3 - <<EOF\nopen('x', 'w')\nEOF", ("x",)),  # inline code that names what it writes
])
def test_commands_that_name_what_they_write(command, paths):
    assert effect(command).paths == paths


@pytest.mark.parametrize(("command", "why"), [
    ("git checkout main", "git checkout changes the working tree"),
    ("git stash && git pull", "git stash changes the working tree"),
    ("go generate ./...", "go generate may rewrite files"),
    ("golangci-lint run --fix", "golangci-lint run may rewrite files"),
    ("npm run lint:fix", "npm lint:fix may rewrite files"),
    ("ls | xargs -I{} rm {}", "xargs rm writes the files it is given"),
    ("find . -name '*.orig' -delete", "find deletes or writes files"),
    ("find . -exec rm {} +", "find -exec rm writes the files it finds"),
    ("perl -pi -e 's/a/b/' f", "perl edits files in place"),
    ('echo "unclosed', "cannot be read as words"),
])
def test_commands_that_may_write_anything_make_everything_uncertain(command, why):
    found = effect(command)
    assert found.paths == (EVERYTHING,) and found.why == why


@pytest.mark.parametrize(("command", "why"), [
    ("gofmt -s -w .", "gofmt may have reformatted the files the session changed"),
    ("mise run fmt && mise run lint 2>&1 | tail -10", "mise fmt may have reformatted the files the session changed"),
    ("go fmt ./...", "go fmt may have reformatted the files the session changed"),
    ("npm run format", "npm format may have reformatted the files the session changed"),
    ("npx prettier --write src", "prettier may have reformatted the files the session changed"),
    ("cargo fmt", "cargo fmt may have reformatted the files the session changed"),
    ("ruff format .", "ruff format may have reformatted the files the session changed"),
])
def test_a_formatter_over_the_tree_may_only_have_changed_what_the_session_changed(command, why):
    found = effect(command)
    assert found.paths == (CHANGED,) and found.why == why


def test_a_formatter_and_a_named_target_are_both_kept():
    assert effect("gofmt -w . && rm old.go").paths == (CHANGED, "old.go")


def test_split_respects_quotes_and_drops_redirections():
    assert split('grep -E "a|b" f 2>&1 | head -5 && echo "x;y" >> log') == [
        ('grep -E "a|b" f  ', []), (" head -5 ", []), (' echo "x;y" ', ["log"])]
    assert split("cmd &>all.log < input.txt") == [("cmd  ", ["all.log"])]


@pytest.mark.parametrize("command", [
    'cd ../entire.io && git log --format="%h %s" -15 | while read h s; do git show --stat "$h"; done',
    "cd /tmp && rm -rf test-worktree && mkdir test-worktree && cd test-worktree && git init",
    "cd ~/scratch && touch notes.txt",
    "git check-ignore -v docs/plans/x.md",
    "for f in *.go; do wc -l \"$f\"; done",
    "if [ -f go.mod ]; then cat go.mod; fi",
])
def test_loops_and_commands_run_outside_the_working_folder_change_nothing_here(command):
    assert effect(command, "/Users/dev/cli").paths == ()


def test_a_cd_inside_the_working_folder_still_counts_and_a_loop_that_writes_is_seen():
    assert effect("cd /Users/dev/cli/cmd && rm old.go", "/Users/dev/cli").paths == ("cmd/old.go",)
    assert effect("cd packages/api && git restore src/app.ts > /tmp/log", "/Users/dev/cli").paths == \
        ("/tmp/log", "packages/api/src/app.ts")  # relative paths are under the folder the cd moved to
    assert effect("for f in *.orig; do rm \"$f\"; done", "/Users/dev/cli").paths == (".",)  # the folder its values lie in
    assert effect("cd /tmp/x && rm a", None).paths == ()  # no working folder known: an absolute cd is elsewhere


@pytest.mark.parametrize(("command", "keeps"), [
    ("git reset HEAD", True), ("git reset HEAD~1 --soft", True), ("git reset --hard origin/main", False),
    ("git checkout -b alex/improve-explain", True), ("git switch -c fix/x", True), ("git checkout main", False),
    ("git checkout -b new origin/other", False), ("git checkout -- cmd/main.go", False),
    ("git restore --staged a.go", True), ("git restore a.go", False),
    ("git stash list", True), ("git stash", False), ("git stash pop", False),
])
def test_git_commands_that_only_move_refs_or_the_index_keep_the_files(command, keeps):
    assert (effect(command).paths == ()) is keeps


@pytest.mark.parametrize(("command", "paths"), [
    (".specify/scripts/bash/check-prerequisites.sh --json --require-tasks", ()),
    ("cd /home/dev/proj && ./.specify/scripts/bash/check-prerequisites.sh --json", ()),
    ("bash .specify/scripts/bash/setup-plan.sh --json", ("specs",)),
    ('.specify/scripts/bash/create-new-feature.sh --json "Add login"', ("specs",)),
    ("npm install -g chrome-mcp", ()),
    ("yarn global add serve", ()),
    ("git restore --source HEAD -- app.js index.html", ("app.js", "index.html")),
    ("git checkout HEAD -- cmd/main.go", ("cmd/main.go",)),
    ("git rm -q old.go", ("old.go",)),
])
def test_commands_known_to_write_only_some_files(command, paths):
    """spec-kit's scripts as its repository has them, global installs, git commands that name their paths."""
    assert effect(command, "/home/dev/proj").paths == paths


def test_the_recorded_output_says_what_never_ran():
    # a program nobody knows (issue 28: it was the whole workspace): what the session later shows changed
    assert effect("ver --list").paths == () and effect("ver --list").unknown == ("ver",)
    assert effect("ver --list", printed="bash: ver: command not found").none
    assert effect("zsh_tool", printed="zsh: command not found: zsh_tool").paths == ()
    unclosed = 'rg -n "add_parser\\(\\"x|y\\" cli.py -n'  # a quote left open: the shell stopped there
    assert effect(unclosed).paths == (EVERYTHING,)
    assert effect(unclosed, printed="bash: -c: line 1: unexpected EOF while looking for matching `\"'").paths == ()
    # the same words from a program the shell ran say nothing of the shell: jq's own parse error
    edit = "sed -i $'s/it\\'s/x/' notes.txt; jq . bad.json"
    assert effect(edit, printed="parse error: Invalid numeric literal at line 1, column 4").paths == (EVERYTHING,)


def test_an_apply_patch_text_sent_to_a_shell_writes_only_what_a_line_redirects():
    """A Codex 0.34 model sent a patch to `bash -lc` (Monotoba/OpenPrintKit): bash ran its lines as commands
    and stopped at a syntax error; nothing was patched."""
    patch = "*** Begin Patch\n*** Update File: opk/cli/__main__.py\n@@\n from x import y\n-a = 1\n+a = 2\n*** End Patch\n"
    refused = "bash: line 3: @@: command not found\nbash: -c: line 12: syntax error near unexpected token `('"
    assert effect(patch, printed=refused).paths == ()
    assert effect(patch.replace("+a = 2", "+a = b > out.txt"), printed=refused).paths == ("out.txt",)
    assert not effect(patch).none  # no sign it was refused: its lines are programs nobody knows


@pytest.mark.parametrize(("command", "reads"), [
    ("python3 - <<'PY'\nimport pathlib, re\ntext = pathlib.Path('specs/main/tasks.md').read_text()\nprint(text)\nPY", True),
    ("cd /home/dev/proj && python - << 'PY'\nimport json\nprint(json.load(open('a.json')))\nPY", True),
    ("python3 - <<'PY'\nfrom pathlib import Path\nPath('x.md').write_text('y')\nPY", False),
    ("python3 - <<'PY'\nopen('notes.md', 'a').close()\nPY", False),
    ("python3 - <<'PY'\nimport subprocess\nsubprocess.run(['git', 'checkout', 'main'])\nPY", False),
    ("python3 - <<'PY'\nimport subprocess\nsubprocess.run(['git', 'status', '--short'])\nPY", True),
    ("python3 - <<'PY'\nimport os\nos.makedirs('out/a')\nPY", False),
    ("python3 - <<'PY'\nimport tarfile\ntarfile.open('a.tgz', 'w:gz').close()\nPY", False),
    ("python3 - <<'PY'\nimport os\nos.close(os.open('p', os.O_WRONLY | os.O_CREAT))\nPY", False),
    ("python3 - <<'PY'\nimport pandas as pd\npd.DataFrame().to_parquet('out.parquet')\nPY", False),
    ("python3 -c 'import json; print(json.load(open(\"x.json\")))'", True),
    ("python3 -c 'import shutil; shutil.rmtree(\"build\")'", False),
    ("node - <<'JS'\nconsole.log(require('./package.json').name)\nJS", True),
    # issue 28: words in comments and strings are no calls; a module imported is not called
    ("python3 - <<'PY'\n# extract the table and save it\nimport json, copy\nprint(json.load(open('t.json')))\nPY", True),
    ("python3 -c 'import sys; sys.stdout.write(\"remove\")'", True),
    ("python3 - <<'PY'\nimport pandas as pd\ndf = pd.read_csv('a.csv')\nprint(df['x'].str.extract(r'(\\d+)'))\nPY", True),
    ("node -e \"// writeFileSync later\nconsole.log('rm -rf')\"", True),
    ("node -e \"require('fs').writeFileSync('out.json', '{}')\"", False),
    ("python3 - <<'PY'\nimport mypkg.gen\nmypkg.gen.main()\nPY", False),  # the project's own code: unknown
])
def test_inline_code_that_calls_nothing_that_writes_reads(command, reads):
    """The code of `python - <<'PY'` and `python -c` is in the recording: no write, move, delete or run, no effect."""
    assert effect(command).none is reads


@pytest.mark.parametrize(("command", "paths"), [
    ("go mod tidy", ("go.mod", "go.sum", "vendor")),
    ("go get github.com/x/y@v1", ("go.mod", "go.sum")),
    ("yes | pnpm install --offline", ("package.json", "pnpm-lock.yaml", "node_modules")),
    ("uv add httpx", ("pyproject.toml", "uv.lock", ".venv")),
    (".specify/scripts/bash/update-agent-context.sh codex", ("AGENTS.md",)),
    ("bash .specify/scripts/bash/update-agent-context.sh claude", ("CLAUDE.md",)),
    ("find . -name '*.go' -print0 | xargs -0 gofmt -w", (CHANGED,)),
])
def test_dependency_managers_agent_files_and_formatters_fed_by_xargs(command, paths):
    assert effect(command, "/home/dev/proj").paths == paths


def test_update_agent_context_without_an_agent_rewrites_every_agents_file():
    found = effect(".specify/scripts/bash/update-agent-context.sh").paths
    assert {"AGENTS.md", "CLAUDE.md", "GEMINI.md", ".github"} <= set(found) and EVERYTHING not in found



@pytest.mark.parametrize("command", [
    "python3 - <<'PY'\nprint(1)\nPY\ngit checkout -- src/app.py\npython3 - <<'PY'\nprint(2)\nPY",
    "node - <<'JS'\nrequire('fs').createWriteStream('src/out.js')\nJS",
    "node - <<'JS'\nrequire('fs').rmSync('src/legacy', {recursive: true})\nJS",
    "python3 - <<'PY'\nfrom pathlib import Path\nf = Path('src/gen.py').open('w')\nPY",
    "python3 - <<'PY'\nimport urllib.request\nurllib.request.urlretrieve(u, 'src/vendor.js')\nPY",
    "python3 - <<'PY'\nimport tarfile\ntarfile.open('a.tgz').extractall('src')\nPY",
    "python3 - <<'PY'\nfrom pathlib import Path\nPath('a.py').replace('b.py')\nPY",
    "python3 - <<PY\nprint('$(sed -i s/a/b/ src/app.py)')\nPY",
    "grep -rl foo src | xargs rm",
    "find . -name '*.orig' | xargs -0 rm -f",
    "sed -Ei 's/a/b/' src/*.py",
    "sed --in-place=.bak 's/a/b/' f.py",
    "uv run python gen.py",
    "npx shadcn@latest add button",
    "npx jest -u",
    "pytest --snapshot-update",
    "gh pr checkout 123",
    "curl -sL https://x/y.js -o src/y.js",
    "wget -O src/x.js https://x/x.js",
    "yq -i '.a = 1' config.yaml",
    "sort -o list.txt list.txt",
    "go run ./cmd/codegen",
    "npm run codegen",
    "mise run gen",
])
def test_commands_that_write_source_files_are_never_taken_for_readers(command):
    """The review's cases: each writes a file in the workspace, so it must not leave it certain (it names what it
    writes, may write anything, or is a program replay cannot read: what the session later shows changed)."""
    assert not effect(command, "/home/dev/proj").none


@pytest.mark.parametrize(("command", "paths", "unknown"), [
    ("mix test test/app_test.exs", ("test/app_test.exs",), ("mix",)),  # an unknown program: the paths it names
    ("./bin/tool --out=dist/report.md run", ("dist/report.md",), ("./bin/tool",)),
    ("X=$(mix run priv/x.exs) && echo $X", ("priv/x.exs",), ("mix",)),  # a substitution judged by what it holds
    ("RPC='{\"jsonrpc\": \"2.0\", \"method\": \"eth_blockNumber\"}' && echo $RPC", (), ()),
    ("node --version && npm --version", (), ()),
    # Esdeveniments/esdeveniments-frontend, 2.1.221: `export` with no substitution sets a variable, nothing more
    ("export GH_PAGER=cat\ngh pr view 449 --json number; export A=1 B='two words'", (), ()),
    ("export OUT=$(mix run priv/x.exs)", ("priv/x.exs",), ("mix",)),  # a substitution is judged by what it runs
    ("bd show bd-12 && bd list --status open", (), ()),
    ("mix --version; mix help compile; entire plugin list; gh -h", (), ()),
    ("python3 - <<'PY'\nfrom pathlib import Path\np = Path('docs/a.md')\np.write_text('x')\nPY", ("docs/a.md",), ()),
    ("cd sub && python3 - <<'PY'\nopen('out.txt', 'w').write('x')\nPY", ("sub/out.txt",), ()),
    ("python3 - <<'PY'\nimport subprocess\nsubprocess.run(['mix', 'format'])\nPY", (), ("mix",)),
    ("python3 bad.py <<'PY'\nx = (\nPY", (), ("python3 bad.py",)),
    # Beep206/CyberVPN, 2.1.42: a generator is no analyser (what it wrote is what the session later shows)
    ("cd /home/dev/proj/app && dart run build_runner build --delete-conflicting-outputs", (), ("dart",)),
])
def test_unknown_programs_name_what_they_may_have_changed(command, paths, unknown):
    """Issue 28: a program replay does not know names the paths on its command line and itself (what else it
    changed is what the session later shows); read-only forms and plain assignments change nothing."""
    found = effect(command, "/home/dev/proj")
    assert (found.paths, found.unknown) == (paths, unknown)


def test_inline_code_python_refused_wrote_nothing():
    script = "python3 - <<'PY'\nold = \"a\nb\"\nopen('x', 'w').write(old)\nPY"  # a string left open
    assert effect(script).unknown == ("python3 inline code (Python code that does not parse)",)
    assert effect(script, printed='  File "<stdin>", line 1\nSyntaxError: unterminated string literal').none


def test_uv_run_and_npx_run_what_they_name():
    assert effect("uv run black .").paths == (CHANGED,)
    assert effect("npx tsc --noEmit").paths == ()
    assert effect("uv run pytest -q").paths == ()
    assert effect("pnpm exec prettier --write .").paths == (CHANGED,)
    assert effect("pnpm run format").paths == (CHANGED,)  # a task, not a program: the task's name says


# entireio/git-sync's and ShamsiievDmytro/entire-bmad's Claude Code sessions (Entire checkpoints): a stash, a check on
# the committed tree, and its pop in one command line leave the files as they were
@pytest.mark.parametrize(("command", "printed", "everything"), [
    ("git stash && npm run lint 2>&1; git stash pop", "error  'x' is unused\nDropped refs/stash@{0}", False),
    ("git stash push internal/planner/planner.go && go test ./internal/planner/ -v 2>&1 | tail -20; git stash pop",
     "ok\nOn branch main\nDropped refs/stash@{0} (5f3c2a)", False),
    ("cd /w/gs && git stash && cd e2e && go build ./... 2>&1; cd /w/gs && git stash pop", "", False),
    # nothing was stashed: the pop applied an older stash
    ("git stash && go test ./...; git stash pop", "No local changes to save\nok", True),
    ("git stash && go test ./...; git stash pop", "CONFLICT (content): Merge conflict in a.go", True),
    ("git stash push -m wip", "Saved working directory", True),  # popped later, in another call: not undone here
    ("git stash pop && git stash", "", True),  # a pop before the stash is not a pair
])
def test_a_stash_popped_in_the_same_command_line_changes_nothing(command, printed, everything):
    assert (EVERYTHING in effect(command, "/w/gs", printed).paths) is everything


# sin4auto/typelang-hm-rs's Codex 0.36 session (MIT): `rg … $(python - <<'PY' … PY)` crashed the whole replay
# (IndexError: the substitution's marker stood for a here-document only the outer command line had read)
def test_inline_code_inside_a_substitution_is_judged_not_a_crash():
    command = "rg \"MODEL_INPUT\" -n $(python - <<'PY'\nimport site\nprint(site.getsitepackages())\nPY)"
    found = effect(command, "/home/hsin4/myproject/typelang-hm-rs")
    assert found.paths == () and found.unknown  # its end `PY)` is no terminator to every shell: judged unknown
    writes = "rg x $(python3 - <<'PY'\nopen('out.txt', 'w').write('x')\nPY\n) && python3 - <<'PY'\nprint(1)\nPY"
    assert not effect(writes, "/w").none
