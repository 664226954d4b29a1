"""The validator of the bodies the bot sends, one for the whole session (tests/spec_validation.py):
built at the first test that asks for it, closed at the end, named in the summary."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.spec_validation import NoSpec, Validator, load_validator

_used: list[Validator] = []  # the session's validator, once built, for the summary


@pytest.fixture(scope="session")
def spec_validator() -> Iterator[Validator]:
    validator = load_validator()
    _used.append(validator)
    try:
        yield validator
    finally:
        validator.close()


@pytest.fixture
def strict_spec_validator(spec_validator: Validator) -> Validator:
    """For tests about validation itself: skipped, with the reason, when no description is found."""
    if isinstance(spec_validator, NoSpec):
        pytest.skip(f"bodies not validated: {spec_validator.reason}")
    return spec_validator


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for validator in _used:
        terminalreporter.write_line(f"request bodies validated against: {validator.source}")
