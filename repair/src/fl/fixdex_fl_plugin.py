"""fixdex fault localization helper (repair::fl): a pytest plugin loaded with
`-p fixdex_fl_plugin` under `coverage run`. It switches coverage.py's dynamic context to
the test's node id for the whole run of each test (setup, call, teardown), and writes each
test's outcome ("passed", "failed" or "skipped") as a JSON list of [node id, outcome]
pairs, in run order, to $FIXDEX_FL_OUTCOMES at the end of the session. A test fails when any phase fails; it is
skipped when a phase is skipped or it is marked xfail (whether it then fails or passes)."""
import json
import os

import coverage
import pytest

_RANK = {"passed": 0, "skipped": 1, "failed": 2}
_outcomes = {}


def _switch(context):
    cov = coverage.Coverage.current()
    if cov is not None:
        cov.switch_context(context)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _switch(item.nodeid)
    yield
    _switch("")


def pytest_runtest_logreport(report):
    outcome = "skipped" if hasattr(report, "wasxfail") else report.outcome
    previous = _outcomes.get(report.nodeid, "passed")
    _outcomes[report.nodeid] = max(previous, outcome, key=_RANK.get)


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("FIXDEX_FL_OUTCOMES")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump([[name, outcome] for name, outcome in _outcomes.items()], f)
