"""The lifecycle of a request in flight: every phase and transition named and checked, and
the decisions a Call asks of the lifecycle's functions (leaving, streaming on, answering)."""

from __future__ import annotations

import itertools

import pytest

from genmcp.call import lifecycle
from genmcp.call.lifecycle import TRANSITIONS, Leaving, LifecycleError, Phase, Trigger, next_phase

P, T = Phase, Trigger
LIVE = (P.RUNNING, P.STREAMING, P.ASKING)
GONE = (T.DISCONNECT, T.CANCEL, T.SHUTDOWN)


def test_the_module_names_the_live_phases_and_the_outside_triggers() -> None:
    assert lifecycle.LIVE == set(LIVE)
    assert lifecycle.GONE == GONE


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


class Hook:
    """The work of a Call, as leaving sees it."""

    def __init__(self, cancellable: bool) -> None:
        self.cancellable = cancellable


class Held:
    """What holds a phase, as a Call does."""

    def __init__(self, phase: Phase = P.RUNNING, started: bool = False) -> None:
        self.phase, self.started = phase, started


def started(phase: Phase) -> Held:
    return Held(phase, started=True)


@pytest.mark.parametrize("phase", list(P))
def test_live_is_owed_an_answer(phase: Phase) -> None:
    assert lifecycle.live(Held(phase)) is (phase in LIVE)


@pytest.mark.parametrize(("phase", "trigger"), list(itertools.product(P, T)))
def test_move_follows_the_table_and_says_when_the_call_ended(
    phase: Phase, trigger: Trigger
) -> None:
    life = Held(phase)
    if (phase, trigger) not in TRANSITIONS:
        with pytest.raises(LifecycleError):
            lifecycle.move(life, trigger)
        assert life.phase is phase
        return
    ended = lifecycle.move(life, trigger)
    assert life.phase is TRANSITIONS[phase, trigger]
    assert ended is (life.phase is P.DONE and phase is not P.DONE)


@pytest.mark.parametrize("trigger", GONE)
@pytest.mark.parametrize("cancellable", [True, False])
def test_leaving_a_running_hook_cancels_it_only_when_it_is_async(
    trigger: Trigger, cancellable: bool
) -> None:
    life = started(P.RUNNING)
    expected = Leaving.CANCELS if cancellable else Leaving.CLOSES
    assert lifecycle.leave(life, trigger, Hook(cancellable)) is expected
    assert life.phase is P.ABANDONED


@pytest.mark.parametrize("trigger", GONE)
def test_leaving_an_input_round_always_cancels_it(trigger: Trigger) -> None:
    life = started(P.ASKING)
    assert lifecycle.leave(life, trigger, Hook(cancellable=False)) is Leaving.CANCELS


@pytest.mark.parametrize("trigger", GONE)
def test_leaving_before_the_first_step_cancels_nothing(trigger: Trigger) -> None:
    life = Held()  # not started: a cancelled task would never run its finally
    assert lifecycle.leave(life, trigger, Hook(cancellable=True)) is Leaving.CLOSES
    assert life.phase is P.ABANDONED


@pytest.mark.parametrize("trigger", GONE)
def test_leaving_a_stream_closes_it(trigger: Trigger) -> None:
    life = started(P.STREAMING)
    assert lifecycle.leave(life, trigger, Hook(cancellable=True)) is Leaving.CLOSES
    assert life.phase is P.CLOSING


@pytest.mark.parametrize(
    ("phase", "trigger"), list(itertools.product((P.ABANDONED, P.CLOSING, P.DONE), GONE))
)
def test_leaving_twice_does_nothing_more(phase: Phase, trigger: Trigger) -> None:
    life = started(phase)
    assert lifecycle.leave(life, trigger, Hook(cancellable=True)) is Leaving.STAYS
    assert life.phase is phase


@pytest.mark.parametrize(("phase", "trigger"), list(itertools.product(LIVE, GONE)))
def test_leaving_never_ends_a_call_by_itself(phase: Phase, trigger: Trigger) -> None:
    life = started(phase)
    lifecycle.leave(life, trigger, Hook(cancellable=True))
    assert life.phase is not P.DONE


@pytest.mark.parametrize(
    ("phase", "goes_on", "after"),
    [
        (P.RUNNING, True, P.STREAMING),  # the first hook returned Stream
        (P.STREAMING, True, P.STREAMING),  # handle_message returned Stream
        (P.ABANDONED, False, P.CLOSING),  # a thread hook returned Stream after the client left
        (P.CLOSING, False, P.CLOSING),  # left while handle_message ran: close, once
    ],
)
def test_stream_says_whether_the_stream_goes_on(phase: Phase, goes_on: bool, after: Phase) -> None:
    life = started(phase)
    assert lifecycle.stream(life) is goes_on
    assert life.phase is after
    assert lifecycle.streaming(life) is goes_on


@pytest.mark.parametrize(
    ("phase", "emit", "ended"),
    [
        (P.RUNNING, True, True),
        (P.STREAMING, True, True),
        (P.ASKING, True, True),
        (P.CLOSING, False, True),  # the message being handled ended the call: nobody listens
        (P.ABANDONED, False, False),  # the abandoned work still winds down to CLOSED
    ],
)
def test_answer_says_whether_to_emit_and_whether_the_call_ended(
    phase: Phase, emit: bool, ended: bool
) -> None:
    life = started(phase)
    assert lifecycle.answer(life) == (emit, ended)
    assert life.phase is TRANSITIONS[phase, T.ANSWER]


def test_answering_a_done_call_is_a_bug() -> None:
    with pytest.raises(LifecycleError):
        lifecycle.answer(started(P.DONE))
