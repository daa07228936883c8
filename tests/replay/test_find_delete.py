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
