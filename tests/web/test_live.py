"""Live updates: an event from the controller reaches an open stream as the new board; a
controller that goes away and comes back is said and followed again; a detail view streams
its own HTML."""

from __future__ import annotations

from tests.web.conftest import JOB_A, PANE_A, WebHarness, job, pane, read_event


def test_a_state_change_reaches_the_open_stream(harness: WebHarness) -> None:
    harness.controller.panes = [pane(PANE_A, provider="claude-code", agentState="running")]

    async def body(h: WebHarness) -> None:
        await h.pair()
        async with h.http.get("/events?view=home") as stream:
            assert "state-running" in await read_event(stream, "board")
            h.controller.panes[0]["agentState"] = "waiting-approval"
            h.controller.changed()
            pushed = await read_event(stream, "board")
            assert "state-waiting-approval" in pushed and "needs approval" in pushed

    harness.run(body)


def test_a_controller_that_goes_and_comes_back(harness: WebHarness) -> None:
    harness.controller.panes = [pane(PANE_A, provider="codex", agentState="running")]

    async def body(h: WebHarness) -> None:
        await h.pair()
        async with h.http.get("/events?view=home") as stream:
            await read_event(stream, "board")
            h.controller.down = True
            h.controller.changed()
            assert "not running" in await read_event(stream, "board")
            h.controller.down = False
            assert "state-running" in await read_event(stream, "board")

    harness.run(body)


def test_a_job_detail_streams_its_screen(harness: WebHarness) -> None:
    harness.controller.panes = [pane(PANE_A, provider="claude-code", agentState="running")]
    harness.controller.jobs = [job(JOB_A, PANE_A, "running", label="scan")]
    harness.controller.screens[PANE_A] = "first screen"

    async def body(h: WebHarness) -> None:
        await h.pair()
        page = await (await h.http.get(f"/job/{JOB_A}")).text()
        assert "first screen" in page and f'data-view="job:{JOB_A}"' in page
        async with h.http.get(f"/events?view=job:{JOB_A}") as stream:
            assert "first screen" in await read_event(stream, "board")
            h.controller.screens[PANE_A] = "second screen"
            h.controller.results[JOB_A] = "All done."
            h.controller.jobs[0]["state"] = "succeeded"
            h.controller.changed()
            pushed = await read_event(stream, "board")
            assert "second screen" in pushed and "All done." in pushed
        bad = await h.http.get("/events?view=job:<x>")
        assert bad.status == 404

    harness.run(body)
