"""`--top` names the file a call read: long paths are shortened from the left, not cut off at the right (issue 31.8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolaudit.cli import cli
from toolaudit.scan.measure import ARGS_PREVIEW, args_preview, preview

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


@pytest.mark.parametrize("args, shown", [
    ('{"file_path":"/home/dev/shop/src/shop/checkout.py"}', '{"file_path":"/home/dev/shop/src/shop/checkout.py"}'),
    ('{"file_path":"/Users/soph/Work/entire/devenv/cli/cmd/entire/cli/strategy/manual_commit.go"}',
     '{"file_path":"…/cmd/entire/cli/strategy/manual_commit.go"}'),
    ('{"file_path":"/home/marco/projects/spotter/.beads/issues.jsonl","limit":50}',
     '{"file_path":"…/spotter/.beads/issues.jsonl","limit":50}'),
    ('{"file_path":"D:\\\\repo\\\\src\\\\app\\\\handlers\\\\an_order_service.py"}',
     '{"file_path":"…/repo/src/app/handlers/an_order_service.py"}'),
])
def test_args_preview_keeps_the_file_name(args, shown):
    assert args_preview(args) == shown
    assert len(args_preview(args)) <= ARGS_PREVIEW


def test_a_path_inside_other_text_is_left_to_the_plain_cut():
    args = '{"command":"ls /usr/local/lib/python3.11/site-packages/foo && echo done and more words"}'
    assert args_preview(args) == preview(args, ARGS_PREVIEW)


def test_a_secret_in_a_path_stays_redacted():
    key = "AKIA" + "Q" * 16
    shown = args_preview('{"file_path":"/home/dev/projects/deploy/keys/' + key + '/credentials.json"}')
    assert key not in shown


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"real corpus not found at {CORPUS}")
def test_top_reads_name_their_files_on_the_real_corpus():
    result = CliRunner().invoke(cli, ["scan", str(CORPUS / "claude-code"), "--top", "20", "-f", "json", "-q",
                                      "--no-cache"], catch_exceptions=False)
    assert result.exit_code == 0
    reads = [row for row in json.loads(result.stdout)["top"] if row["tool"] == "Read"]
    assert len(reads) >= 5
    named = [r for r in reads if r["args_preview"].rstrip('"}…').rsplit("/", 1)[-1].count(".") >= 1]
    assert len(named) >= len(reads) - 1, [r["args_preview"] for r in reads]
