"""The phase table of a request in flight: every phase and transition named and checked."""

from __future__ import annotations

import itertools

import pytest

from genmcp._suite.lifecycle import TRANSITIONS, LifecycleError, Phase, Trigger, next_phase

P, T = Phase, Trigger
LIVE = (P.RUNNING, P.STREAMING, P.ASKING)
GONE = (T.DISCONNECT, T.CANCEL, T.SHUTDOWN)


@pytest.mark.parametrize(
    ("phase", "trigger", "after"),
    [
        (P.RUNNING, T.STREAM, P.STREAMING),
        (P.RUNNING, T.ANSWER, P.DONE),
        (P.RUNNING, T.ASK, P.ASKING),
        (P.STREAMING, T.STREAM, P.STREAMING),
        (P.STREAMING, T.ANSWER, P.DONE),
        (P.STREAMING, T.ASK, P.ASKING),
        (P.ASKING, T.ANSWERED, P.RUNNING),
        (P.ASKING, T.ANSWER, P.DONE),
        (P.RUNNING, T.DISCONNECT, P.ABANDONED),
        (P.RUNNING, T.CANCEL, P.ABANDONED),
        (P.RUNNING, T.SHUTDOWN, P.ABANDONED),
        (P.ASKING, T.DISCONNECT, P.ABANDONED),
        (P.ASKING, T.CANCEL, P.ABANDONED),
        (P.ASKING, T.SHUTDOWN, P.ABANDONED),
        (P.STREAMING, T.DISCONNECT, P.CLOSING),
        (P.STREAMING, T.CANCEL, P.CLOSING),
        (P.STREAMING, T.SHUTDOWN, P.CLOSING),
        (P.ABANDONED, T.STREAM, P.CLOSING),
        (P.ABANDONED, T.ANSWER, P.ABANDONED),
        (P.ABANDONED, T.ASK, P.ABANDONED),
        (P.ABANDONED, T.CLOSED, P.DONE),
        (P.CLOSING, T.CLOSED, P.DONE),
        (P.CLOSING, T.ANSWER, P.DONE),
    ],
)
def test_each_transition(phase: Phase, trigger: Trigger, after: Phase) -> None:
    assert next_phase(phase, trigger) is after


@pytest.mark.parametrize(
    ("phase", "trigger"), list(itertools.product((P.ABANDONED, P.CLOSING, P.DONE), GONE))
)
def test_late_news_changes_nothing(phase: Phase, trigger: Trigger) -> None:
    assert next_phase(phase, trigger) is phase


@pytest.mark.parametrize(("phase", "trigger"), list(itertools.product(LIVE, GONE)))
def test_leaving_a_live_phase_never_returns_to_one(phase: Phase, trigger: Trigger) -> None:
    after = next_phase(phase, trigger)
    reachable, frontier = {after}, [after]
    while frontier:
        current = frontier.pop()
        for (source, _), target in TRANSITIONS.items():
            if source is current and target not in reachable:
                reachable.add(target)
                frontier.append(target)
    assert not reachable & set(LIVE)
    assert P.DONE in reachable


def test_done_is_terminal() -> None:
    assert {target for (source, _), target in TRANSITIONS.items() if source is P.DONE} == {P.DONE}


def test_every_phase_is_reached_and_every_trigger_used() -> None:
    assert set(TRANSITIONS.values()) | {P.RUNNING} == set(P)
    assert {trigger for _, trigger in TRANSITIONS} == set(T)


@pytest.mark.parametrize(
    ("phase", "trigger"),
    [pair for pair in itertools.product(P, T) if pair not in TRANSITIONS],
)
def test_a_pair_not_in_the_table_is_a_bug(phase: Phase, trigger: Trigger) -> None:
    with pytest.raises(LifecycleError, match=f"{phase.value} cannot take {trigger.value}"):
        next_phase(phase, trigger)
