"""The cycle collector is paused during calls and comes back after them."""

from __future__ import annotations

import gc
import threading
import time

from gateway import Gateway, gc_hold
from tests.conftest import DEMO


def test_paused_during_a_call_and_back_after() -> None:
    seen: list[bool] = []
    gateway = Gateway.open(DEMO)
    real = gateway.context_for(None).profile.hop_and_hidden

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    gateway.context_for(None).profile.hop_and_hidden = spy  # type: ignore[method-assign]
    assert gc.isenabled()
    gateway.bfs_query(seeds=["wiki:Irene_Adler"])
    assert seen == [False] and gc.isenabled()


def test_a_caller_that_disabled_it_keeps_it_disabled() -> None:
    gc.disable()
    try:
        with gc_hold.cycle_collector_held():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_calls_resume_it_when_the_last_ends_and_collect_meanwhile(monkeypatch: object) -> None:
    monkeypatch.setattr(gc_hold, "MAX_HOLD_S", 0.0)  # type: ignore[attr-defined]
    collected: list[int] = []
    monkeypatch.setattr(gc_hold.gc, "collect", lambda *a: collected.append(1) or 0)  # type: ignore[attr-defined]
    inside, release = threading.Event(), threading.Event()

    def long_call() -> None:
        with gc_hold.cycle_collector_held():
            inside.set()
            release.wait(10)

    worker = threading.Thread(target=long_call)
    worker.start()
    inside.wait(10)
    time.sleep(0.01)
    with gc_hold.cycle_collector_held():
        assert not gc.isenabled()
    assert not gc.isenabled() and collected  # the other call still runs; a collection ran anyway
    release.set()
    worker.join(10)
    assert gc.isenabled()
