"""JUnit XML: one test case per gate check, so any CI system shows failures natively."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

from ..errors import UsageError
from .base import Reporter, reporters


@reporters.register
class JunitReport(Reporter):
    """`-f junit` (ci only): a <testsuite> with one <testcase> per check and scope."""

    key = "junit"
    description = "JUnit XML, one test case per check (toolaudit ci only)"

    def render(self, result: Any, *, color: bool = False, width: int | None = None) -> str:
        if getattr(result, "kind", None) != "ci":
            raise UsageError("-f junit is for `toolaudit ci` results", slug="junit-ci-only")
        blocked = result.blocked  # not comparable, or nothing measured: one failed case that says why
        failures = sum(not o.passed for o in result.outcomes) + (blocked is not None)
        suite = ET.Element("testsuite", name="toolaudit", tests=str(len(result.outcomes) + (blocked is not None)),
                           failures=str(failures), errors="0")
        if blocked is not None:
            case = ET.SubElement(suite, "testcase", classname="toolaudit.ci",
                                 name="comparable" if result.not_comparable else "measured")
            ET.SubElement(case, "failure", message=blocked, type=result.verdict.replace(" ", "-"))
        for outcome in result.outcomes:
            case = ET.SubElement(suite, "testcase", classname=f"toolaudit.{outcome.scope}", name=outcome.check)
            if not outcome.passed:
                ET.SubElement(case, "failure", message=outcome.message(), type="check-failed").text = outcome.message()
            else:
                ET.SubElement(case, "system-out").text = outcome.message()
        ET.indent(suite)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
