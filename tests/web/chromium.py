"""Debian's headless Chromium driven over the DevTools protocol, with the stdlib only.

Chromium is started with ``--remote-debugging-pipe``: it reads commands from its fd 3 and writes
replies and events to its fd 4, each message one JSON text ended by a NUL byte. No websocket, no
driver process, no browser download; one reader thread hands each reply to its caller.

A :class:`Page` is one tab in its own browser context (its own cookie jar, so two pages are two
paired devices) with a viewport, and offers what the tests do as a person would: go to an
address, look at the document, click at an element's place on the screen (a real mouse event
that hits whatever is drawn there), type into the focused field, take a screenshot.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from tests.support.harness import wait_until

CHROMIUM = "/usr/bin/chromium"


class BrowserError(AssertionError):
    """The browser refused a command or a script threw."""


class Browser:
    """One headless Chromium process and its DevTools pipe."""

    def __init__(self, executable: str = CHROMIUM) -> None:
        self.profile = tempfile.mkdtemp(prefix="mytty-chromium-")
        to_browser, self._commands = os.pipe()
        self._replies, from_browser = os.pipe()
        args = [
            "--headless",
            "--remote-debugging-pipe",
            # The tests run as root in containers, where Chromium's sandbox cannot start.
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--hide-scrollbars",
            f"--user-data-dir={self.profile}",
            "about:blank",
        ]
        # fd 3 and 4 in the child are the pipe ends; bash puts them there before exec (dash
        # cannot: it only redirects single-digit descriptors).
        redirect = f'exec "$0" "$@" 3<&{to_browser} 4>&{from_browser}'
        # Its chatter goes to a file (a pipe nobody reads would fill and stall it).
        self.log = Path(self.profile) / "chromium.log"
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                ["bash", "-c", redirect, executable, *args],
                pass_fds=(to_browser, from_browser),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        os.close(to_browser)
        os.close(from_browser)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._waiting: dict[int, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self._gone = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        pending, scanned = bytearray(), 0  # a screenshot is megabytes: never rescan a message
        with os.fdopen(self._replies, "rb", buffering=0) as stream:
            while chunk := stream.read(1 << 20):
                pending += chunk
                while (end := pending.find(b"\0", scanned)) >= 0:
                    self._deliver(json.loads(bytes(pending[:end])))
                    del pending[: end + 1]
                    scanned = 0
                scanned = len(pending)
        with self._lock:  # the browser is gone: nobody waits for ever
            self._gone = True
            for event, box in self._waiting.values():
                box.append({"error": {"message": "the browser exited"}})
                event.set()

    def _deliver(self, message: dict[str, Any]) -> None:
        if "id" not in message:
            return  # an event: the tests look at the page itself instead
        with self._lock:
            waiter = self._waiting.pop(message["id"], None)
        if waiter is not None:
            waiter[1].append(message)
            waiter[0].set()

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:  # fmt: skip
        """The result of one DevTools command (BrowserError for an error reply)."""
        ident = next(self._ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        done, box = threading.Event(), list[dict[str, Any]]()
        with self._lock:
            if self._gone:
                raise BrowserError(f"{method}: the browser exited: {self.said()}")
            self._waiting[ident] = (done, box)
        data = memoryview(json.dumps(message).encode() + b"\0")
        try:
            while data:
                data = data[os.write(self._commands, data) :]
        except BrokenPipeError:
            raise BrowserError(f"{method}: the browser exited: {self.said()}") from None
        if not done.wait(timeout):
            raise BrowserError(f"{method}: no reply within {timeout} s")
        if "error" in box[0]:
            raise BrowserError(f"{method}: {box[0]['error'].get('message')}")
        result: dict[str, Any] = box[0].get("result", {})
        return result

    def said(self) -> str:
        """The end of what the browser wrote on its stderr."""
        try:
            return self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def new_page(self, width: int, height: int, *, mobile: bool = False, scale: float = 1) -> Page:
        """A tab in a fresh browser context (no cookies) with a ``width``×``height`` viewport."""
        context = self.send("Target.createBrowserContext")["browserContextId"]
        target = self.send(
            "Target.createTarget", {"url": "about:blank", "browserContextId": context}
        )["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        page = Page(self, session, context, width, height)
        page.call("Page.enable")
        page.call("Runtime.enable")
        page.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile},
        )
        if mobile:
            page.call("Emulation.setTouchEmulationEnabled", {"enabled": True})
        return page

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except BrowserError:
            pass
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(15)
        os.close(self._commands)
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    """One tab: what a person sees in it and does to it."""

    def __init__(
        self, browser: Browser, session: str, context: str, width: int, height: int
    ) -> None:
        self.browser = browser
        self.session = session
        self.context = context
        self.width = width
        self.height = height

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, self.session)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise BrowserError(details.get("exception", {}).get("description") or str(details))
        return result["result"].get("value")

    def goto(self, url: str) -> None:
        self.call("Page.navigate", {"url": url})

    @property
    def url(self) -> str:
        return str(self.evaluate("location.href"))

    def wait_for(self, expression: str, timeout: float = 20.0, message: str = "") -> Any:
        """The expression's value once it is truthy (a poll with a deadline); a document that
        is being replaced counts as not yet."""

        def look() -> Any:
            try:
                return self.evaluate(expression)
            except BrowserError:
                return None

        return wait_until(look, timeout, interval=0.02, message=message or expression)

    def text(self, selector: str) -> str | None:
        """The text a person sees in the first element matching ``selector`` (None if none)."""
        found = self.evaluate(f"document.querySelector({json.dumps(selector)})?.innerText ?? null")
        return None if found is None else str(found)

    def visible(self, selector: str) -> bool:
        """Whether an element matching ``selector`` is drawn (has a box on the page)."""
        return bool(
            self.evaluate(
                f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                " return !!e && e.getClientRects().length > 0 && !e.closest('[hidden]'); })()"
            )
        )

    def wait_visible(self, selector: str, timeout: float = 20.0) -> None:
        wait_until(lambda: self.visible(selector), timeout, interval=0.02, message=selector)

    def wait_gone(self, selector: str, timeout: float = 20.0) -> None:
        wait_until(lambda: not self.visible(selector), timeout, interval=0.02, message=selector)

    def click(self, selector: str) -> None:
        """Click the middle of the element as a mouse would: the element must be what is drawn
        at that point (nothing covering it), else BrowserError."""
        where = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return null; e.scrollIntoView({block: 'center'});"
            " const r = e.getBoundingClientRect(); const x = r.left + r.width / 2,"
            " y = r.top + r.height / 2; const hit = document.elementFromPoint(x, y);"
            " return {x, y, hit: !!hit && (hit === e || e.contains(hit))}; })()"
        )
        if not where or not where["hit"]:
            raise BrowserError(f"nothing clickable at {selector}: {where}")
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": where["x"], "y": where["y"], "button": "left",
                 "clickCount": 0 if kind == "mouseMoved" else 1},
            )  # fmt: skip

    def type_into(self, selector: str, text: str) -> None:
        """Click the field and type ``text`` into it (as the keyboard's input would)."""
        self.click(selector)
        self.call("Input.insertText", {"text": text})

    def cookies(self) -> list[dict[str, Any]]:
        """This page's cookies as the browser keeps them (with httpOnly, sameSite)."""
        found = self.browser.send("Storage.getCookies", {"browserContextId": self.context})
        cookies: list[dict[str, Any]] = found["cookies"]
        return cookies

    def screenshot(self, path: Path) -> Path:
        """A PNG of the whole page (beyond the viewport too)."""
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": self.width, "height": max(size["height"], self.height)}
        shot = self.call(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True, "clip": {**clip, "scale": 1}},
        )
        path.write_bytes(base64.b64decode(shot["data"]))
        return path
