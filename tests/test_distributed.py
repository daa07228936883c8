"""The same scan on a Dask cluster over object storage: a real LocalCluster (worker processes) and
moto's S3 server, both on 127.0.0.1, started here and always stopped."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import socket
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="the dask extra (dask[distributed]) is not installed")
s3fs = pytest.importorskip("s3fs", reason="the s3 extra (s3fs) is not installed")
moto_server = pytest.importorskip("moto.server", reason="moto[server] is not installed")
zstandard = pytest.importorskip("zstandard")

from conftest import CORPUS, SAMPLES  # noqa: E402
pytestmark = pytest.mark.slow  # make test-all only: a Dask cluster and an S3 server

BUCKET = "toolaudit-test"
URL = f"s3://{BUCKET}/audit"
# a part of the real corpus beside the sample logs: formats with subagents, resumed sessions, big documents
CORPUS_PARTS = ("claude-code", "codex", "mini-swe-agent", "openhands", "swe-agent")
CREATED = re.compile(r'"created": "[^"]*"')


def _stable(text: str) -> str:
    """A JSON report without its one volatile field (ci's has none)."""
    return CREATED.sub('"created": ""', text)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """The local copy of what is uploaded: the sample logs, part of the corpus, and compressed transcripts."""
    root = tmp_path_factory.mktemp("tree")
    shutil.copytree(SAMPLES, root / "sample_logs")
    if CORPUS.is_dir():
        for part in CORPUS_PARTS:
            if (CORPUS / part).is_dir():
                shutil.copytree(CORPUS / part, root / "corpus" / part)
    packed = root / "packed"
    packed.mkdir()
    session = SAMPLES / "claude-code" / "-home-dev-kanban" / "c3d2e1f0-7a6b-4c5d-8e9f-a0b1c2d3e4f5.jsonl"
    (packed / "kanban.jsonl.gz").write_bytes(gzip.compress(session.read_bytes()))
    codex = sorted((SAMPLES / "codex").iterdir())[0]
    (packed / f"{codex.stem}.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(codex.read_bytes()))
    return root


@pytest.fixture(scope="module")
def s3(tree):
    """moto's S3 server on 127.0.0.1 with `tree` uploaded under s3://toolaudit-test/audit; the AWS variables
    set for this process and the cluster's workers (started after), then restored."""
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    saved = dict(os.environ)
    os.environ.update({
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
        # botocore (and so s3fs) takes the endpoint from the environment, as a real deployment would
        "AWS_ENDPOINT_URL": f"http://{host}:{port}", "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    })
    s3fs.S3FileSystem.clear_instance_cache()
    try:
        fs = s3fs.S3FileSystem()
        fs.mkdir(BUCKET)
        fs.put(f"{tree}/", f"{BUCKET}/audit", recursive=True)
        yield fs
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
        os.environ.clear()
        os.environ.update(saved)
        server.stop()


@pytest.fixture(scope="module")
def cluster(s3):
    """A LocalCluster of 2 worker processes × 1 thread on 127.0.0.1, no dashboard; closed at the end."""
    from distributed import Client, LocalCluster

    local = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                         dashboard_address=None, worker_dashboard_address=None)
    client = Client(local)
    try:
        yield client
    finally:
        client.close()
        local.close()


def _ok(result):
    assert result.exit_code == 0, result.output
    return result


def _local_as_s3(text: str, tree: Path) -> str:
    return text.replace(str(tree), URL)


def test_scan_s3_on_the_cluster_equals_the_local_scan(run, tree, cluster):
    args = ("-f", "json", "-q", "--by", "file", "--top", "5")
    remote = _ok(run("scan", f"{URL}/", *args, "--scheduler", cluster.scheduler.address))
    remote_here = _ok(run("scan", f"{URL}/", *args, "-j", "1"))
    local = _ok(run("scan", tree, *args, "-j", "1"))
    assert _stable(remote.stdout) == _stable(remote_here.stdout)  # the cluster changes nothing
    assert _stable(remote.stdout) == _stable(_local_as_s3(local.stdout, tree))  # nor does object storage
    doc = json.loads(remote.stdout)
    assert doc["totals"]["files"] >= 25 and doc["totals"]["calls"] > 100
    if CORPUS.is_dir():  # subagent and resumed-session copies are dropped as they are locally
        assert doc["totals"]["duplicates_dropped"] > 0


def test_compressed_transcripts_in_s3(run, tree, cluster):
    remote = _ok(run("scan", f"{URL}/packed", "-f", "json", "-q", "--scheduler", cluster.scheduler.address))
    local = _ok(run("scan", tree / "packed", "-f", "json", "-q", "-j", "1"))
    assert _stable(remote.stdout) == _stable(_local_as_s3(local.stdout, tree))
    doc = json.loads(remote.stdout)
    assert doc["meta"]["collectors"] == {"claude-code": 1, "codex": 1} and doc["totals"]["calls"] > 0


def test_simulate_with_a_preset_on_the_cluster(run, tree, cluster):
    args = ("--preset", "codex", "-f", "json", "-q")
    remote = _ok(run("simulate", f"{URL}/", *args, "--scheduler", cluster.scheduler.address))
    local = _ok(run("simulate", tree, *args, "-j", "1"))
    assert _stable(remote.stdout) == _stable(_local_as_s3(local.stdout, tree))
    assert json.loads(remote.stdout)["totals"]["calls"] > 100


def test_ci_on_the_cluster_against_a_local_baseline(run, tree, cluster, tmp_path):
    baseline = tmp_path / "baseline.json"
    _ok(run("scan", tree, "-f", "json", "-o", baseline, "-q", "-j", "1"))
    args = ("--baseline", baseline, "-f", "json", "-q")
    remote = _ok(run("ci", f"{URL}/", *args, "--scheduler", cluster.scheduler.address))
    here = _ok(run("ci", f"{URL}/", *args, "-j", "1"))
    assert _stable(remote.stdout) == _stable(here.stdout)
    doc = json.loads(remote.stdout)
    assert doc["verdict"] == "pass", doc
    total = next(c for c in doc["checks"] if c["metric"] == "tokens.total")
    assert total["current"] == total["baseline"] > 0  # the cluster over S3 measured what the local scan did


class KillOnce(distributed.WorkerPlugin):
    """Ends its worker's process the first time a toolaudit task starts on it, once per cluster (a marker file)."""

    name = "toolaudit-kill-once"

    def __init__(self, marker: str):
        self.marker = marker

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and str(key).startswith("toolaudit-"):
            try:
                fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.write(fd, str(key).encode())
            os.close(fd)
            os._exit(1)


def test_a_worker_killed_mid_run_changes_nothing(run, tree, cluster, tmp_path):
    import cloudpickle

    args = ("-f", "json", "-q", "--by", "session")
    expected = _ok(run("scan", f"{URL}/", *args, "-j", "1"))
    marker = tmp_path / "killed"
    cloudpickle.register_pickle_by_value(__import__(__name__))  # the workers cannot import this test module
    cluster.register_plugin(KillOnce(str(marker)))
    try:
        remote = _ok(run("scan", f"{URL}/", *args, "--scheduler", cluster.scheduler.address))
    finally:
        cluster.unregister_worker_plugin(KillOnce.name)
        cloudpickle.unregister_pickle_by_value(__import__(__name__))
    assert marker.read_text().startswith("toolaudit-")  # a worker did die in a task
    assert _stable(remote.stdout) == _stable(expected.stdout)


def test_records_from_the_cluster_as_a_parquet_dataset_in_s3(run, tree, cluster, s3, tmp_path, monkeypatch):
    import pandas as pd
    import pyarrow.parquet as pq

    from toolaudit.scan import records

    # three parts whatever the tree holds (the sample logs alone, or the corpus too): a group size fixed
    # beforehand made one part where ../shared/corpus is absent, as in a fresh clone
    counted = tmp_path / "count.parquet"
    _ok(run("scan", tree, "-q", "-j", "1", "-o", os.devnull, "--records", counted))
    rows = pq.ParquetFile(counted).metadata.num_rows
    group = -(-rows // 3)
    assert rows >= 7 and -(-rows // group) == 3
    monkeypatch.setattr(records, "ROWS_PER_GROUP", group)
    _ok(run("scan", f"{URL}/", "-q", "-o", os.devnull, "--records", f"s3://{BUCKET}/out/",
            "--scheduler", cluster.scheduler.address))
    local_file = tmp_path / "calls.parquet"
    _ok(run("scan", tree, "-q", "-j", "1", "-o", os.devnull, "--records", local_file))
    names = sorted(p.rsplit("/", 1)[1] for p in s3.ls(f"{BUCKET}/out"))
    parts = [n for n in names if n.startswith("part-")]
    assert len(parts) == 3 and "_SUCCESS" in names
    remote = pd.read_parquet(f"s3://{BUCKET}/out/")
    local = pd.read_parquet(local_file)
    local["source"] = local["source"].str.replace(str(tree), URL, regex=False)
    pd.testing.assert_frame_equal(remote, local)
    assert pq.ParquetFile(local_file).num_row_groups == len(parts)  # one row group as files finish
    meta = json.loads(pq.read_schema(local_file).metadata[b"toolaudit"])
    assert meta["tokenizer"] == "o200k_base" and meta["schema_version"] >= 1 and meta["version"]


def test_scheduler_from_the_environment_and_the_config(run, tree, tmp_path, monkeypatch):
    from toolaudit import distributed as executor

    seen = []

    def spy(address, files, options, worker, extra=()):
        seen.append(address)
        return (worker(path, options, *extra) for path in files)  # scanned here: only the routing is tested

    monkeypatch.setattr(executor, "scan_on_cluster", spy)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.toolaudit]\nscheduler = "tcp://config:8786"\n')
    monkeypatch.chdir(project)
    folder = tree / "sample_logs" / "claude-code"
    _ok(run("scan", folder, "-q"))
    _ok(run("scan", folder, "-q", env={"TOOLAUDIT_SCHEDULER": "tcp://env:8786"}))
    _ok(run("scan", folder, "-q", "--scheduler", "tcp://flag:8786", env={"TOOLAUDIT_SCHEDULER": "tcp://env:8786"}))
    assert seen == ["tcp://config:8786", "tcp://env:8786", "tcp://flag:8786"]


def test_scheduler_without_dask_says_how_to_install_it(run, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    result = run("scan", SAMPLES / "claude-code", "--scheduler", "tcp://127.0.0.1:8786")
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --scheduler needs Dask: pip install 'agent-toolaudit[dask]'"


def test_no_scheduler_there_is_one_line(run, monkeypatch):
    from toolaudit import distributed as executor

    monkeypatch.setattr(executor, "CONNECT_TIMEOUT", "1s")
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = run("scan", SAMPLES / "claude-code", "-q", "--scheduler", f"tcp://127.0.0.1:{port}")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}")
    assert len(result.stderr.strip().splitlines()) == 1


def test_missing_s3_object_is_a_usage_error(run, s3):
    result = run("scan", f"s3://{BUCKET}/nothing-here/", "-q", "-j", "1")
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: no such file or directory: s3://{BUCKET}/nothing-here"


@pytest.mark.parametrize("name", ["calls.csv", "calls.parquet"])
def test_records_as_one_object_in_s3(run, tree, s3, tmp_path, name):
    import pandas as pd

    read = pd.read_csv if name.endswith(".csv") else pd.read_parquet
    _ok(run("scan", f"{URL}/sample_logs", "-q", "-j", "1", "-o", os.devnull, "--records", f"s3://{BUCKET}/{name}"))
    _ok(run("scan", tree / "sample_logs", "-q", "-j", "1", "-o", os.devnull, "--records", tmp_path / name))
    remote, local = read(f"s3://{BUCKET}/{name}"), read(tmp_path / name)
    local["source"] = local["source"].str.replace(str(tree), URL, regex=False)
    assert len(remote) > 100
    pd.testing.assert_frame_equal(remote, local)


@pytest.mark.parametrize("flags, previews", [((), False), (("--top", "3"), True)])
def test_workers_send_numbers_not_content(run, cluster, monkeypatch, flags, previews):
    """Without --top/--records/--show-content, no argument or output text comes back from a worker."""
    from toolaudit import distributed as executor

    real, returned = executor.scan_on_cluster, []

    def watching(*args, **kwargs):
        for result in real(*args, **kwargs):
            returned.append(result)
            yield result

    monkeypatch.setattr(executor, "scan_on_cluster", watching)
    _ok(run("scan", f"{URL}/sample_logs", "-q", "-o", os.devnull, *flags, "--scheduler", cluster.scheduler.address))
    rows = [m for result in returned for m in result.measurements]
    assert len(rows) > 100 and all(m.output_preview is None for m in rows)
    assert any(m.args_preview for m in rows) is previews
    assert not any(result.heads for result in returned)  # unredacted heads never cross the network


def test_relative_paths_mean_the_same_on_the_workers(run, tree, cluster, monkeypatch):
    """Workers have their own working folder (here the one the cluster started in): a relative PATH is still
    read where the command ran, and keeps its name in the report."""
    monkeypatch.chdir(tree)
    assert Path("packed").is_dir() and not (Path(__file__).parents[1] / "packed").exists()  # not where workers are
    args = ("packed", "sample_logs/codex", "-f", "json", "-q", "--by", "file")
    remote = _ok(run("scan", *args, "--scheduler", cluster.scheduler.address))
    here = _ok(run("scan", *args, "-j", "1"))
    assert _stable(remote.stdout) == _stable(here.stdout)
    doc = json.loads(remote.stdout)
    assert doc["totals"]["files"] == 4 and not doc["errors"]
    assert {row["file"].split("/")[0] for row in doc["groups"]} == {"packed", "sample_logs"}, doc["groups"]


def test_compare_on_the_cluster(run, tree, cluster):
    a, b = tree / "sample_logs", tree / ("corpus" if (tree / "corpus").is_dir() else "packed")
    remote = _ok(run("compare", a, b, "-f", "json", "-q", "--scheduler", cluster.scheduler.address))
    here = _ok(run("compare", a, b, "-f", "json", "-q", "-j", "1"))
    assert _stable(remote.stdout) == _stable(here.stdout)
    assert json.loads(remote.stdout)["sides"]["a"]["runs"] > 10


@pytest.mark.parametrize("url, extra", [("gs://bucket/runs/", "gcs"), ("az://container/runs/", "az")])
def test_a_store_without_its_backend_names_the_extra(run, url, extra):
    import importlib.util

    backend = {"gcs": "gcsfs", "az": "adlfs"}[extra]
    if importlib.util.find_spec(backend) is not None:
        pytest.skip(f"{backend} is installed here")
    result = run("scan", url, "-q", "-j", "1")
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"error: reading {url.split(':')[0]}:// needs its fsspec backend: "
                                     f"pip install 'agent-toolaudit[{extra}]'")


def test_file_urls_are_local_paths(run):
    folder = SAMPLES / "codex"
    by_url = _ok(run("scan", f"file://{folder}", "-f", "json", "-q", "-j", "1"))
    by_path = _ok(run("scan", folder, "-f", "json", "-q", "-j", "1"))
    assert _stable(by_url.stdout) == _stable(by_path.stdout) and json.loads(by_url.stdout)["totals"]["calls"] > 0
    missing = run("scan", f"file://{folder}/nothing.jsonl", "-q")
    assert missing.exit_code == 2 and "does not exist" in missing.stderr
