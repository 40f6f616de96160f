"""A headless Chromium driven over the DevTools protocol, for tests of the HTML pages we write.

The protocol runs over a pipe (``--remote-debugging-pipe``: JSON messages ending in NUL on file
descriptors 3 and 4), so there is no port to pick or race for under pytest-xdist and no client
library to install. It offers what the report tests need: open a page, collect console errors,
uncaught exceptions and failed loads, evaluate JavaScript, and take a full-page screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--remote-debugging-pipe",
)


def local_path(url: str) -> Path:
    """The file a ``file://`` URL seen by the browser points at (any other URL fails the test)."""
    assert url.startswith("file://"), f"not a local link: {url}"
    return Path(unquote(urlparse(url).path))


def find_chromium() -> str | None:
    return next((path for name in ("chromium", "chromium-browser") if (path := shutil.which(name))), None)


class BrowserError(RuntimeError):
    pass


class Browser:
    """One Chromium process with one page (tab) attached."""

    def __init__(self, executable: str, profile: Path, log: Path) -> None:
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire() -> None:  # in the child, before exec: the protocol's fds are 3 (in) and 4 (out)
            # Copies first: the pipe ends may themselves be 3 or 4, and dup2 onto itself keeps close-on-exec.
            read_end, write_end = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self._log = log.open("wb")
        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            preexec_fn=wire,
            close_fds=False,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)

    # --- the protocol --------------------------------------------------------------------------

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("timed out waiting for Chromium")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise BrowserError(f"Chromium exited (code {self.process.poll()})")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: bool = False, timeout: float = 30
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode("utf-8") + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event["method"] == method:
                    self.events.remove(event)
                    return event
            message = self._read_message(deadline)
            if "method" in message:
                self.events.append(message)

    # --- what the tests use --------------------------------------------------------------------

    def open(self, url: str, width: int = 1400, height: int = 900) -> None:
        self.events.clear()
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        reply = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session=True
        )
        if "exceptionDetails" in reply:
            raise BrowserError(f"script failed: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise BrowserError(f"timed out waiting for {expression}")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and failed loads seen since the page was opened."""
        self.call("Runtime.evaluate", {"expression": "0"}, session=True)  # drain queued events
        found = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails'].get('text')}")
            elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
            elif event["method"] == "Log.entryAdded" and params["entry"]["level"] == "error":
                entry = params["entry"]
                found.append(f"log: {entry.get('text')} {entry.get('url', '')}")
        return found

    def screenshot(self, path: Path, max_height: int = 6000) -> Path:
        """The whole page (up to ``max_height`` CSS pixels) as a PNG file."""
        metrics = self.call("Page.getLayoutMetrics", session=True)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": metrics["width"], "height": min(metrics["height"], max_height), "scale": 1}
        shot = self.call(
            "Page.captureScreenshot", {"format": "png", "clip": clip, "captureBeyondViewport": True}, session=True
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.call("Browser.close", timeout=5)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_child, self._from_child):
            os.close(fd)
        self._log.close()


PAGE_FACTS = """
(() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.width, r.height]; };
  return {
    title: document.title,
    images: [...document.querySelectorAll('img')].map((el) => ({
      src: el.src, attr: el.getAttribute('src'), complete: el.complete,
      natural: [el.naturalWidth, el.naturalHeight], box: box(el),
    })),
    svgs: [...document.querySelectorAll('svg')].map((el) => ({box: box(el)})),
    audios: [...document.querySelectorAll('audio')].map((el) => ({src: el.src, attr: el.getAttribute('src')})),
    links: [...document.querySelectorAll('a[href]')].map((el) => el.href),
    text: document.body.innerText,
  };
})()
"""
