"""-f html: one offline file per command, opened in headless Chromium: no console message, the expected marks.

The browser tests need Debian's `chromium` (.ci/run installs it); without it they skip and say so.
Marks are counted in the DOM Chromium dumps after loading the file: vl-convert gives every bar
or point an `aria-roledescription`, and its `aria-label` names the values it draws.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from datetime import date, timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest

from png import first_row_with
from conftest import ROOT, SAMPLES
from toolaudit import reports

pytest.importorskip("vl_convert", reason="the html extra is not installed (pip install -e '.[html]')")
pytestmark = pytest.mark.slow  # make test-all only: the reports opened in a real browser (Chromium)

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
browser = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install chromium; "
                                                      ".ci/run installs it when missing)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0", "--hide-scrollbars"]
KANBAN = SAMPLES / "claude-code" / "-home-dev-kanban"
FIXTURES = ROOT / "tests" / "fixtures"
REPLAY = ["replay", FIXTURES / "search_session.jsonl", "--workspace", FIXTURES / "search_repo",
          "--translate", "shell-search", "--tool", "grep=builtin:grep?max_matches=100&max_bytes=10000",
          "--tool", "glob=builtin:glob", "--tool", "Read=builtin:read_file?max_chars=5000"]
GUIDES = ("axis", "legend", "title")  # graphics symbols that are no mark of the data
EVIL = "<script>alert(1)</script>"
EVIL_SVG = "</svg><img src=x onerror=alert(2)>&amp;"


# --- helpers ---------------------------------------------------------------------------------------

class Page(HTMLParser):
    """What a test reads from a page: per chart section its title, marks and table rows; every tag seen."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.charts: list[dict] = []
        self.tags: Counter = Counter()
        self.attributes: list[str] = []
        self._depth = 0  # inside a chart section: its nesting depth
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._text: list[str] | None = None  # inside an h2 or an svg <text>
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags[tag] += 1
        self.attributes += [name for name, _ in attrs.items()]
        if tag == "section" and "data-chart" in attrs:
            self.charts.append({"title": "", "marks": Counter(), "labels": [], "by_mark": {}, "rows": [],
                                "svg_text": []})
        if tag == "section" and (self._depth or "data-chart" in attrs):
            self._depth += 1
        if not self._depth:
            return
        chart = self.charts[-1]
        if attrs.get("role") == "graphics-symbol" and attrs.get("aria-roledescription") not in GUIDES:
            chart["marks"][attrs["aria-roledescription"]] += 1
            chart["labels"].append(attrs.get("aria-label", ""))
            chart["by_mark"].setdefault(attrs["aria-roledescription"], []).append(attrs.get("aria-label", ""))
        if tag in ("h2", "text"):
            self._text = []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        chart = self.charts[-1] if self.charts and self._depth else None
        if tag == "section" and self._depth:
            self._depth -= 1
        if chart is None:
            return
        if tag == "h2" and self._text is not None:
            chart["title"], self._text = "".join(self._text), None
        elif tag == "text" and self._text is not None:
            chart["svg_text"].append("".join(self._text))
            self._text = None
        elif tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            chart["rows"].append(self._row)
            self._row = None

    def handle_data(self, data):
        for sink in (self._text, self._cell):
            if sink is not None:
                sink.append(data)

    def chart(self, title: str) -> dict:
        found = [c for c in self.charts if c["title"].startswith(title)]
        assert len(found) == 1, f"{title!r} not among {[c['title'] for c in self.charts]}"
        return found[0]


def open_in_browser(page: Path, tmp_path: Path) -> str:
    """Chromium's DOM after loading `page`; fails on any console message (errors, CSP refusals); saves a screenshot."""
    profile = tmp_path / f"profile-{page.stem}"
    url = page.resolve().as_uri()
    dump = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    assert dump.returncode == 0, dump.stderr[-2000:]
    console = [line for line in dump.stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
    assert not console, f"{page.name}: console messages:\n" + "\n".join(console)
    shot = tmp_path / f"{page.stem}.png"
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--window-size=1280,1600",
                           f"--screenshot={shot}", url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", done.stderr[-2000:]
    return dump.stdout


def report(run, tmp_path: Path, name: str, *args) -> tuple[Path, dict]:
    """The command's HTML report in tmp_path/NAME.html, and its JSON document beside it."""
    page = tmp_path / f"{name}.html"
    jobs = () if args[0] == "replay" else ("-j", "1")  # replay runs in one process
    result = run(*args, "-f", "html", "-o", page, "-q", *jobs)
    assert result.exit_code in (0, 3), result.output
    doc = run(*args, "-f", "json", "-q", *jobs)
    assert doc.exit_code == result.exit_code, doc.output
    return page, json.loads(doc.stdout)


def label(text: str, field: str) -> str:
    """One field of a mark's aria-label (`tool: Read; tokens: 15,730`)."""
    found = re.search(rf"(?:^|; ){re.escape(field)}: (.*?)(?:; [\w ]+: |$)", text)
    assert found, f"{field!r} not in {text!r}"
    return found.group(1)


def others(n: int, top: int = 12) -> int:
    """Rows a chart shows for n tools: the largest `top`, plus one `others` row."""
    return min(n, top) + (n > top)


def write_calls(path: Path, calls: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(c) + "\n" for c in calls), encoding="utf-8")
    return path


# --- in the browser -------------------------------------------------------------------------------

@browser
def test_console_check_sees_errors_and_blocked_loads(tmp_path):
    # the detector must fail on a script error and on a load the CSP refuses, or it proves nothing
    for body, head in (("<script>undefinedFunction()</script>", ""),
                       ('<img src="https://example.invalid/a.png">',
                        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'">')):
        page = tmp_path / f"bad{len(head)}.html"
        page.write_text(f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>")
        with pytest.raises(AssertionError, match="console messages"):
            open_in_browser(page, tmp_path)


@browser
def test_scan_report_in_the_browser(run, tmp_path):
    from toolaudit.reports import charts, charts_scan

    page, doc = report(run, tmp_path, "scan", "scan", SAMPLES)
    dom = Page(open_in_browser(page, tmp_path))
    assert dom.tags["script"] == 0 and dom.tags["svg"] == len(dom.charts) == 4
    tools = doc["tools"]

    bars = dom.chart("Tokens per tool")
    assert bars["marks"] == {"bar": others(len(tools))}
    drawn = {(label(t, "tool"), label(t, "tokens")) for t in bars["labels"]}
    named = {(t["tool"], f"{t['tokens']:,}") for t in tools[:12]}
    rest = sum(t["tokens"] for t in tools[12:])
    assert drawn == named | {(f"others ({len(tools) - 12} tools)", f"{rest:,}")}
    assert bars["rows"][0] == ["tool", "calls", "tokens", "share"] and len(bars["rows"]) == 1 + others(len(tools))

    spread = dom.chart("Tokens per call")
    assert spread["marks"]["point"] == 3 * min(len(tools), 12)
    assert [r[4] for r in spread["rows"][1:]] == [f"{t['tokens_max']:,}" for t in tools[:12]]

    unit, bucket = charts_scan._bucket([d["day"] for d in doc["days"]])  # sample_logs' dates span a year and more
    per_day = dom.chart(f"Tokens per {unit}")
    ranked: Counter = Counter()
    for d in doc["days"]:
        ranked[d["tool"]] += d["tokens"]
    top = {t for t, _ in sorted(ranked.items(), key=lambda kv: (-kv[1], kv[0]))[:8]}
    stacks = {(bucket(d["day"]), d["tool"] if d["tool"] in top else "others") for d in doc["days"]}
    assert per_day["marks"] == {"bar": len(stacks)}
    assert [r[0] for r in per_day["rows"][1:]] == sorted({bucket(d["day"]) for d in doc["days"]})
    assert sum(int(r[-1].replace(",", "")) for r in per_day["rows"][1:]) == sum(d["tokens"] for d in doc["days"])

    bill = dom.chart("The bill")
    usage = doc["usage"]
    assert bill["marks"] == {"bar": 4}
    assert {label(t, "part"): label(t, "tokens") for t in bill["labels"]} == {
        "uncached": f"{usage['input_uncached']:,}", "cache write": f"{usage['cache_write']:,}",
        "cache read": f"{usage['cache_read']:,}",
        "tool outputs (est.)": f"{round(usage['tool_output_share'] * usage['input_total']):,}"}


@browser
def test_simulate_reports_in_the_browser(run, tmp_path):
    page, doc = report(run, tmp_path, "simulate", "simulate", SAMPLES, "--preset", "swe-agent-bash-only")
    chart = Page(open_in_browser(page, tmp_path)).chart("Before and after")
    assert chart["marks"] == {"bar": 2 * others(len(doc["tools"]))}
    read = [label(t, "tokens") for t in chart["labels"] if label(t, "tool") == "Read"]
    row = next(t for t in doc["tools"] if t["tool"] == "Read")
    assert read == [f"{row['tokens_before']:,}", f"{row['tokens_after']:,}"] and row["tokens_saved"] > 0

    values = ["500", "1000", "2000", "5000", "10000"]
    page, doc = report(run, tmp_path, "sweep", "simulate", KANBAN, "--sweep", "max_chars=" + ",".join(values))
    curve = Page(open_in_browser(page, tmp_path)).chart("Sweep of max_chars")
    assert curve["marks"] == {"point": 4 * len(values), "line mark": 4}
    saved = {label(t, "value"): label(t, "y") for t in curve["by_mark"]["point"] if label(t, "series") == "saved %"}
    assert saved == {f"{int(v['value']):,}": f"{v['saved_pct']:,}" for v in doc["sweep"]}  # a value axis
    assert [r[0] for r in curve["rows"][1:]] == values


@browser
def test_compare_report_in_the_browser(run, tmp_path):
    # per run, output chars (approx: tokens = chars / 4): A fix 1200/2400/4000, add 100/300; B fix 200/400/800,
    # add 140; new 100 -> medians A fix 600, add 50; B fix 100, add 35, new 25
    runs = {"A": {"fix": [1200, 2400, 4000], "add": [100, 300]}, "B": {"fix": [200, 400, 800], "add": [140],
                                                                      "new": [100]}}
    for side, tasks in runs.items():
        for task, sizes in tasks.items():
            for i, n in enumerate(sizes):
                write_calls(tmp_path / side / task / f"run{i}.jsonl", [{"tool": "Read", "output": "x" * n}])
    page, _ = report(run, tmp_path, "compare", "compare", tmp_path / "A", tmp_path / "B", "--tokenizer", "approx")
    chart = Page(open_in_browser(page, tmp_path)).chart("Per task")
    assert chart["marks"] == {"bar": 5}
    assert sorted((label(t, "task"), label(t, "series"), label(t, "tokens")) for t in chart["labels"]) == [
        ("add", "A", "50"), ("add", "B", "35"), ("fix", "A", "600"), ("fix", "B", "100"), ("new", "B", "25")]
    assert [r[0] for r in chart["rows"][1:]] == ["fix", "add", "new"]  # largest median first


@browser
def test_ci_report_puts_failed_checks_first(run, tmp_path):
    baseline = tmp_path / "baseline.json"
    assert run("scan", SAMPLES, "-f", "json", "-o", baseline, "-q", "-j", "1").exit_code == 0
    doc = json.loads(baseline.read_text())
    read = next(t for t in doc["tools"] if t["tool"] == "Read")
    read["tokens"] //= 2  # Read doubled since the baseline
    baseline.write_text(json.dumps(doc))
    page, ci = report(run, tmp_path, "ci", "ci", SAMPLES, "--baseline", baseline,
                      "--fail-on", "*:tokens.total:+10%", "--min-calls", "0")
    assert ci["verdict"] == "fail"
    html = page.read_text()
    # the verdict first: before any chart, in words (no emoji a machine's fonts may lack), failed checks named
    assert html.index('<section class="verdict fail"') < html.index('<section class="chart"')
    assert '<p class="badge">FAIL</p>' in html and "<li>failed: " in html
    assert not any(mark in html for mark in ("✅", "❌", "⚠"))
    dom = Page(open_in_browser(page, tmp_path))
    top = first_row_with(tmp_path / "ci.png", (0xFF, 0xEB, 0xE9))  # the FAIL box's background, in the screenshot
    assert top is not None and top < 400, top  # in the first screen, under the title
    checks = dom.chart("Checks, failed first")
    assert checks["rows"][1][:2] == ["fail", "Read"] and all(r[0] != "fail" for r in checks["rows"][2:])
    assert label(checks["labels"][0], "check") == "Read · tokens.total" and label(checks["labels"][0], "status") == "fail"
    assert checks["marks"]["bar"] == len([c for c in ci["checks"] if c["change_pct"] is not None][:24])
    per_tool = dom.chart("Per tool")
    assert per_tool["marks"] == {"bar": 2 * others(len(ci["tools"]))}


@browser
def test_replay_report_in_the_browser(run, tmp_path):
    page, doc = report(run, tmp_path, "replay", *REPLAY)
    dom = Page(open_in_browser(page, tmp_path))
    chart = dom.chart("Before and after")
    assert chart["marks"] == {"bar": 2 * len(doc["tools"])} and doc["tools"]
    assert {(label(t, "tool"), label(t, "series"), label(t, "tokens")) for t in chart["labels"]} == {
        (t["tool"], side, f"{t[f'tokens_{side}']:,}") for t in doc["tools"] for side in ("before", "after")}
    assert len(dom.charts) == 1 and "No tool menu" in page.read_text()  # builtins list no tools


def test_replay_menu_chart(run, tmp_path):
    pytest.importorskip("mcp", reason="the `mcp` SDK is not installed (pip install -e '.[mcp]')")
    server = ROOT / "tests" / "replay" / "mcp_servers" / "kanban_v2.py"
    args = ["replay", FIXTURES / "kanban_session.jsonl", "--tool", f"mcp__kanban__*=mcp:{sys.executable} {server}"]
    page, doc = report(run, tmp_path, "menu", *args)
    menu = Page(page.read_text()).chart("Tool menu")
    listed = [(t["name"], f"{t['tokens']:,}") for t in doc["menu"][0]["tools"]]
    assert len(listed) == 2 and menu["marks"] == {"bar": 2}
    assert [(label(t, "tool"), label(t, "tokens")) for t in menu["labels"]] == listed
    assert [tuple(r[1:]) for r in menu["rows"][1:]] == listed


# --- escaping, privacy, size, the missing extra -----------------------------------------------------

def hostile(tmp_path: Path) -> Path:
    """Calls of tools whose names are markup, in a session named like one."""
    return write_calls(tmp_path / "evil" / "calls.jsonl", [
        {"session": "<b>s</b>", "call_id": f"c{i}", "tool": name, "output": "secret output text " * (i + 5),
         "ts": f"2026-03-0{i + 1}T10:00:00Z"} for i, name in enumerate([EVIL, EVIL_SVG, "Read"])])


def test_markup_in_tool_names_is_text(run, tmp_path):
    page, _ = report(run, tmp_path, "evil", "scan", hostile(tmp_path), "--by", "session")
    text = page.read_text()
    assert "<script" not in text.lower() and "<img" not in text.lower() and "<b>" not in text
    dom = Page(text)
    assert dom.tags["script"] == dom.tags["img"] == dom.tags["b"] == 0 and "onerror" not in dom.attributes
    bars = dom.chart("Tokens per tool")
    assert {r[0] for r in bars["rows"][1:]} == {EVIL, EVIL_SVG, "Read"}  # the table cells read as the names
    assert {EVIL, EVIL_SVG} <= set(bars["svg_text"])  # and so do the SVG's axis labels
    assert "secret output text" not in text  # numbers only: no output without --show-content


@browser
def test_markup_in_tool_names_stays_text_in_the_browser(run, tmp_path):
    page, _ = report(run, tmp_path, "evil", "scan", hostile(tmp_path))
    dom = Page(open_in_browser(page, tmp_path))
    assert dom.tags["script"] == dom.tags["img"] == 0
    assert EVIL in {r[0] for r in dom.chart("Tokens per tool")["rows"]}


def test_report_is_offline_and_small(run, tmp_path):
    # 1,000 calls of 300 tools over 400 days: charts stay bounded (top tools, weeks instead of days)
    calls = [{"session": f"s{i % 40}", "call_id": f"c{i}", "tool": f"tool_{i % 300}",
              "output": "word " * (20 + (i * 37) % 900),
              "ts": (date(2025, 1, 1) + timedelta(days=i * 400 // 1000)).isoformat() + "T12:00:00Z"}
             for i in range(1000)]
    page, doc = report(run, tmp_path, "big", "scan", write_calls(tmp_path / "big" / "calls.jsonl", calls),
                       "--tokenizer", "approx")
    text = page.read_text()
    assert doc["totals"]["calls"] == 1000 and len(page.read_bytes()) < 1_500_000
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", text)  # nothing to fetch
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert Page(text).chart("Tokens per week")["marks"]["bar"] <= 60 * 9


def test_missing_extra_is_one_usage_line(run, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "vl_convert", None)  # import fails as if not installed
    for name in ("charts", "charts_scan", "chart_parts"):  # chart_parts imports vl_convert: all three run again
        monkeypatch.delitem(sys.modules, f"toolaudit.reports.{name}", raising=False)
        monkeypatch.delattr(reports, name, raising=False)
    result = run("scan", SAMPLES / "toolaudit-jsonl", "-f", "html", "-o", tmp_path / "r.html", "-q", "-j", "1")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == ["error: -f html needs the html extra: pip install -e '.[html]' "
                                                  "(from a clone of toolaudit)"]
    assert not (tmp_path / "r.html").exists()



def test_simulate_replay_and_compare_lead_with_their_verdict(run, tmp_path):
    page, _ = report(run, tmp_path, "simulate", "simulate", SAMPLES, "--preset", "claude-code")
    html = page.read_text()
    box = html[html.index('<section class="verdict'):html.index("</section>", html.index('<section class="verdict'))]
    assert html.index('<section class="verdict') < html.index('<section class="chart"')
    assert "<li>saved " in box and "<li>risk: " in box and 'class="verdict warn"' in box  # later_used 1
    page, _ = report(run, tmp_path, "replay", *REPLAY)
    html = page.read_text()
    assert html.index('<section class="verdict') < html.index('<section class="chart"')
    assert "<li>verdict: " in html[html.index('<section class="verdict'):]
    runs = Path(__file__).resolve().parents[1] / "docs" / "examples" / "runs"
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(runs / "baseline" / "add-export", a / "add-export")
    shutil.copytree(runs / "capped" / "bump-deps", b / "bump-deps")
    page, _ = report(run, tmp_path, "compare", "compare", a, b)
    html = page.read_text()
    assert '<section class="verdict warn"' in html and "no task is on both sides" in html
    page, doc = report(run, tmp_path, "compare-shared", "compare", runs / "baseline", runs / "capped")
    html = page.read_text()  # sides that share tasks: the verdict is the median per run, A against B
    tokens = doc["overall"]["metrics"]["tokens"]
    assert '<section class="verdict info"' in html and (
        f"<li>median output tokens per run: A {tokens['a']['median']:,} → B {tokens['b']['median']:,} "
        f"({tokens['pct_change']:+.1f}%)") in html


def test_time_is_on_a_date_scale_with_gaps_and_a_sweep_on_a_value_scale(run, tmp_path):
    from toolaudit.reports import charts

    calls = [{"session": "s", "call_id": f"c{i}", "tool": "Read", "args": {}, "output": "x " * 100, "ts": ts}
             for i, ts in enumerate(["2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z", "2026-03-09T09:00:00Z"])]
    transcript = write_calls(tmp_path / "dated.jsonl", calls)
    doc = json.loads(run("scan", transcript, "-f", "json", "-q").stdout)
    chart = charts.time_chart(doc)
    encoding = chart.spec["encoding"]
    assert encoding["x"]["type"] == "temporal" and encoding["x2"]["field"] == "end"
    assert [row[0] for row in chart.rows] == ["2026-03-01", "2026-03-09"]  # the table lists the days with data
    svg = charts.svg(chart.spec)
    assert "2026-03-05" in svg or "2026-03-04" in svg or "2026-03-03" in svg  # the axis runs through the gap
    sweep = json.loads(run("simulate", KANBAN, "--sweep", "max_chars=2000,5000,20000", "-f", "json", "-q",
                           "-j", "1").stdout)
    spec = charts.sweep_chart(sweep).spec
    assert all(layer["encoding"]["x"]["type"] == "quantitative" for layer in spec["layer"])


@pytest.mark.parametrize("by", ["family", "model", "session"])
def test_by_changes_the_charts(run, by):
    from toolaudit.reports import charts

    doc = json.loads(run("scan", SAMPLES, "--by", by, "-f", "json", "-q", "-j", "1").stdout)
    found = charts.scan_charts(doc)
    assert found[0].title == f"Tokens per {by}" and found[0].headers[0] == by
    assert [r[0] for r in found[0].rows[:3]] == [str(g[by]) for g in doc["groups"][:3]]
    assert found[1].title == "Tokens per tool"


def test_by_week_and_month_set_the_time_charts_unit(run):
    from toolaudit.reports import charts

    for by in ("week", "month"):
        doc = json.loads(run("scan", SAMPLES, "--by", by, "-f", "json", "-q", "-j", "1").stdout)
        titles = [c.title for c in charts.scan_charts(doc)]
        assert f"Tokens per {by}" in titles and "Tokens per day" not in titles


PROBE = """<script>
addEventListener("load", () => {
  const W = innerWidth;
  const boxes = [...document.querySelectorAll("body *")].filter(e => !["TD", "TH"].includes(e.tagName) && !e.closest("svg"));
  const clipped = boxes.filter(e => ["auto", "scroll", "hidden"].includes(getComputedStyle(e).overflowX)
                                    && e.scrollWidth > e.clientWidth + 1);
  const outside = e => { const r = e.getBoundingClientRect(); return r.left < -0.5 || r.right > W + 0.5; };
  const marks = [...document.querySelectorAll("svg [role=graphics-symbol]")];
  const leaves = [...document.body.querySelectorAll("*")].filter(e => !e.children.length && e.textContent.trim());
  const verdict = document.querySelector(".verdict");
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify({width: W, scroll_width: document.documentElement.scrollWidth,
    clipped: clipped.map(e => e.tagName + "." + e.className), marks: marks.length,
    offscreen: marks.filter(outside).map(e => e.getAttribute("aria-label")),
    charts_offscreen: [...document.querySelectorAll("svg")].filter(outside).length,
    verdict_first: verdict !== null && leaves.length > 0 && verdict.contains(leaves[0]),
    verdict: verdict && verdict.textContent,
    verdict_line: verdict && verdict.querySelector("li") && verdict.querySelector("li").textContent});
  document.body.append(out);
  if (parent !== window) parent.postMessage(out.textContent, "*");  // measured in a frame: tell the page
});
</script>"""
# headless Chromium's window is 500 px wide at the least: a phone's 390 px is a frame of that width
FRAME = """<!DOCTYPE html><html><body style="margin:0"><iframe src="{src}" style="border:0;width:{width}px;height:900px">
</iframe><script>addEventListener("message", e => {{ const p = document.createElement("pre"); p.id = "probe";
p.textContent = e.data; document.body.append(p); }});</script></body></html>"""


def probe_at(page: Path, tmp_path: Path, width: int) -> dict:
    """What a copy of `page`, with a measuring script let in, finds at `width` px: the page's scroll width, boxes
    that hide content, chart marks off the screen, and whether the verdict is the first text."""
    copy = tmp_path / f"probe-{page.name}"
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page.read_text(encoding="utf-8"))
    copy.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    frame = tmp_path / f"frame-{width}-{page.name}"
    frame.write_text(FRAME.format(src=copy.name, width=width), encoding="utf-8")
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'probe-profile'}",
                           f"--window-size={width + 100},900", "--virtual-time-budget=3000", "--dump-dom",
                           frame.as_uri()], capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found, done.stderr[-2000:]
    probe = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
                       .replace("&gt;", ">"))
    assert probe["width"] == width, probe
    return probe


@browser
def test_no_column_hides_behind_a_scroll_box_at_1280_px(run, tmp_path):
    for name, args in (("simulate", ("simulate", SAMPLES, "--max-chars", "2000")), ("replay", REPLAY),
                       ("scan", ("scan", SAMPLES, "--top", "5")), ("advise", ("advise", SAMPLES))):
        page, _ = report(run, tmp_path, name, *args)
        probe = probe_at(page, tmp_path, 1280)
        assert probe["clipped"] == [], (name, probe)


RUNS = ROOT / "docs" / "examples" / "runs"
PRICED = "priced"  # a verdict whose first line carries dollars; otherwise it says in words why it has none
# every command's page: its arguments, and whether its verdict can carry dollars
PAGES = {
    "scan": (("scan", SAMPLES), PRICED),
    "simulate": (("simulate", SAMPLES, "--max-chars", "2000"), PRICED),
    "context": (("simulate", SAMPLES, "--context", "mask:keep=3"), PRICED),
    "sweep": (("simulate", KANBAN, "--sweep", "max_chars=500,2000,10000"), PRICED),
    "replay": (tuple(REPLAY), PRICED),
    "compare": (("compare", KANBAN, SAMPLES / "claude-code" / "-home-dev-shop"), PRICED),
    "unpriced-compare": (("compare", RUNS / "baseline", RUNS / "capped"), "name no model to price them with"),
    "ci": (("ci", SAMPLES, "--baseline", "BASELINE"), PRICED),
    "advise": (("advise", SAMPLES), "dollars unknown"),  # sample_logs' one advice is an MCP server's: no sweep
}


@browser
@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_leads_with_its_verdict_and_fits_a_phone(run, tmp_path, name):
    args, money = PAGES[name]
    if "BASELINE" in args:
        baseline = tmp_path / "baseline.json"
        assert run("scan", SAMPLES, "-f", "json", "-o", baseline, "-q", "-j", "1").exit_code == 0
        args = tuple(baseline if a == "BASELINE" else a for a in args)
    page, _ = report(run, tmp_path, name, *args)
    for width in (390, 1280):
        probe = probe_at(page, tmp_path, width)
        # no sideways scrolling of the page: wide tables scroll in their own box, charts shrink to fit
        assert probe["scroll_width"] <= width, (width, probe)
        assert probe["offscreen"] == [] and probe["charts_offscreen"] == 0, (width, probe)
        assert probe["marks"] or name == "advise", probe  # sample_logs' one advice (an MCP server's) has no sweep
        assert probe["verdict_first"], probe  # nothing before it: not a chart, not the title line
        if money == PRICED:  # the dollars first: the verdict's first line
            assert re.search(r"\$\d|under \$0\.01", probe["verdict_line"]), probe["verdict"]
        else:
            assert "$" not in probe["verdict"] and money in probe["verdict"], probe["verdict"]


def test_advise_verdict_lists_every_recommendation_with_its_dollars(run, tmp_path, corpus):
    page, doc = report(run, tmp_path, "advise", "advise", corpus)
    recs = doc["recommendations"]
    assert len(recs) > 3 and any(r["saved_usd"] for r in recs)  # more than the 3 the verdict used to list
    html = page.read_text()
    box = html[html.index('<section class="verdict'):html.index("</section>")]
    items = re.findall(r"<li>(.*?)</li>", box)
    assert len(items) == len(recs)
    for i, (item, rec) in enumerate(zip(items, recs), 1):
        assert item.startswith(f"{i}. {rec['policy']} on "), item
        if rec["saved_usd"] is None:
            assert "dollars unknown" in item, item
        else:
            saved = f"${rec['saved_usd']:,.2f}" if rec["saved_usd"] >= 0.005 else "under $0.01"
            assert f"saves {saved}" in item, item


def test_a_long_span_is_drawn_per_week_or_month_with_bars_a_few_pixels_wide(run, tmp_path):
    from toolaudit.reports import charts

    # 9 days with calls over 15 months (the bars were 1-px slivers on a per-day axis), 40 days over 5 months,
    # 20 days over 3 weeks
    for days, unit in (([date(2025, 6, 1) + timedelta(days=d) for d in (0, 1, 40, 90, 180, 250, 300, 400, 470)], "month"),
                       ([date(2026, 1, 1) + timedelta(days=4 * d) for d in range(40)], "week"),
                       ([date(2026, 3, 1) + timedelta(days=d) for d in range(0, 21)], "day")):
        calls = [{"session": "s", "call_id": f"c{i}", "tool": "Read", "output": "word " * 50,
                  "ts": f"{d.isoformat()}T12:00:00Z"} for i, d in enumerate(days)]
        transcript = write_calls(tmp_path / f"{unit}.jsonl", calls)
        doc = json.loads(run("scan", transcript, "-f", "json", "-q", "--tokenizer", "approx").stdout)
        chart = charts.time_chart(doc)
        assert chart.title == f"Tokens per {unit}" and chart.note.startswith(f"One bar per {unit} ")
        widths = [float(w) for w in re.findall(r'aria-roledescription="bar"[^>]*? d="M[\d.\-]+,[\d.\-]+h([\d.]+)',
                                                  charts.svg(chart.spec))]
        assert len(widths) == len(chart.rows) and min(widths) >= 5, (unit, widths)
