"""find -delete deletes under its start folders only: gstack's skill preamble (garrytan/gstack, MIT), as
paretoimproved/ZeroToShip's Claude Code 2.1.81 sessions ran it, prunes its own session files under ~/.gstack, outside
the workspace; it had set every later call of those sessions aside (689 Read/Grep/Glob calls of the tuning set)."""

from __future__ import annotations

from toolaudit.replay.shell_effects import EVERYTHING, effect

CWD = "/Users/brandonqueener/Desktop/github/Projects/IdeaForge"


def test_a_delete_under_the_home_folder_leaves_the_workspace_as_it_was():
    done = effect("find ~/.gstack/sessions -mmin +120 -type f -delete 2>/dev/null || true", CWD, "")
    assert done.paths == ("/Users/brandonqueener/.gstack/sessions",)
    assert effect("find /tmp/build -name '*.o' -delete", CWD, "").paths == ("/tmp/build",)


def test_a_delete_under_the_working_folder_or_a_written_list_may_change_anything():
    assert effect("find . -name '*.pyc' -delete", CWD, "").paths == (EVERYTHING,)
    assert effect("find -L ~/x -delete", CWD, "").paths == (EVERYTHING,)  # an option first: not read further
    assert effect("find ~/x -fprint list.txt", CWD, "").paths == (EVERYTHING,)  # -fprint writes a file anywhere


def test_an_exec_that_writes_only_what_it_finds_changes_only_under_the_start_folders():
    # gstack's later preamble prunes with `-exec rm {} +` (yyopc/yyork's Codex 0.140 sessions: 1,069 calls set
    # aside before); yyork's own `find cmd/yyork/dashboard … -exec rm -rf {} +` empties one folder of the repository
    done = effect("find ~/.gstack/sessions -mmin +120 -type f -exec rm {} + 2>/dev/null || true", CWD, "")
    assert done.paths == ("/Users/brandonqueener/.gstack/sessions",)
    done = effect("find cmd/yyork/dashboard -mindepth 1 -maxdepth 1 ! -name .gitkeep -exec rm -rf {} +", CWD, "")
    assert done.paths == ("cmd/yyork/dashboard",)
    assert effect("find src -name '*.py' -exec sed -i 's/a/b/' {} +", CWD, "").paths == ("src",)
    assert effect("find src -name x -delete", CWD, "").paths == ("src",)
    # the working folder itself, no start folder, or a program that writes elsewhere: anything
    assert effect("find . -exec rm {} +", CWD, "").paths == (EVERYTHING,)
    assert effect("find -name x -exec rm {} +", CWD, "").paths == (EVERYTHING,)
    assert effect("find src -exec sh -c 'echo > /tmp/x' \\;", CWD, "").paths == (EVERYTHING,)
    assert effect("find ../other -exec rm {} +", CWD, "").paths == (EVERYTHING,)


def test_a_loop_over_what_find_or_a_glob_gives_writes_under_its_folder():
    # gstack's preamble again (yyopc/yyork's Codex 0.133 sessions: `rm -f "$_PF"` set 237 whole-folder reads aside)
    loop = ("for _PF in $(find ~/.gstack/analytics -maxdepth 1 -name '.pending-*' 2>/dev/null); do\n"
            '  if [ -f "$_PF" ]; then\n    rm -f "$_PF" 2>/dev/null || true\n  fi\n  break\ndone')
    assert effect(loop, CWD, "").paths == ("/Users/brandonqueener/.gstack/analytics",)
    assert effect('for f in src/*.py; do rm "$f"; done', CWD, "").paths == ("src",)
    assert effect('for f in $(find src -name x); do rm "${f}"; done', CWD, "").paths == ("src",)
    # the working folder's own files: all of it (its name alone doubted only a path named `$f`)
    assert effect('for f in *.py; do rm "$f"; done', CWD, "").paths == (".",)
    assert effect('rm -f "$X"', CWD, "").paths == ("$X",)  # a variable no loop gives: its name, as before


def test_the_working_folder_named_whole_is_everything():
    # entireio/git-sync's Claude Code 2.1.104 session: `find /Users/soph/Work/entire/devenv/git-sync -name '*.go'
    # -exec sed -i '' 's|go-git/v5|go-git/v6|g' {} +`, its own folder by its absolute path, as `find .` would
    assert effect(f"find {CWD} -name '*.go' -exec sed -i '' 's|a|b|g' {{}} +", CWD, "").paths == (EVERYTHING,)
    assert effect(f"find {CWD}/src -name '*.go' -exec sed -i '' 's|a|b|g' {{}} +", CWD, "").paths == (f"{CWD}/src",)
    assert effect("find /Users/brandonqueener/Desktop -name '*.tmp' -delete", CWD, "").paths == (EVERYTHING,)
    # a copy into a folder above the working folder writes nothing in it
    assert effect("cp notes.md /Users/brandonqueener/Desktop/", CWD, "").paths == ("/Users/brandonqueener/Desktop",)


# helper-52's review of the rules above (ac1acde, 3ae7db9, 26b0ec0): each failed before its mend


def test_every_exec_counts_and_a_variable_start_folder_is_anything():
    assert effect("find src -exec rm {} \\; -exec rm -rf lib \\;", CWD, "").paths == (EVERYTHING,)
    assert effect("find src -delete -exec rm -rf lib \\;", CWD, "").paths == (EVERYTHING,)
    assert effect('find "$DIR" -delete', CWD, "").paths == (EVERYTHING,)
    assert effect("find $DIR -exec rm {} +", CWD, "").paths == (EVERYTHING,)
    assert effect(f"find {CWD}/. -exec rm -rf {{}} +", CWD, "").paths == (EVERYTHING,)
    assert effect(f"find {CWD}/.. -exec rm {{}} +", CWD, "").paths == (EVERYTHING,)


def test_a_loop_variable_takes_every_folder_its_loops_give():
    assert effect('for f in src/*.tmp docs/*.tmp; do rm "$f"; done', CWD, "").paths == (".",)
    assert effect('for f in src/a/*.tmp src/b/*.tmp; do rm "$f"; done', CWD, "").paths == ("src",)
    two = 'for f in a/*.tmp; do rm "$f"; done; for f in b/*.md; do cat "$f"; done'
    assert effect(two, CWD, "").paths == (".",)  # a/ and b/ share only the working folder
    # a loop written into a file by a heredoc is no loop of this command
    assert effect("cat > run.sh <<EOF\nfor f in $(find src -name x); do echo; done\nEOF\nrm $f", CWD,
                  "").paths == ("run.sh", "$f")
