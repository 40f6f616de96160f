"""Take the documentation's screenshots from the main job, so they show what the code draws now.

    python scripts/screenshots.py            # writes docs/html-report.png and docs/dashboard.png

In a fresh temporary folder (no path of this machine's on the pages beyond its name), it runs the
README's main job twice, ``pytest --tts-engine=espeak -k numerals``, the first time with
``--html=report.html`` (the second night gives the dashboard a history and a "Changes" section; it
reuses the first's cached clips), builds ``ttsbench dashboard`` over both runs, and opens each page
in headless Chromium at 1400x900: the first screen, what a reader sees first. The pages and runs are
left nowhere: the folder is removed. Needs Debian's ``chromium`` (or ``chromium-browser``) on PATH.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAIN_JOB = ("-m", "pytest", "-p", "no:cacheprovider", "--tts-engine=espeak", "-k", "numerals")
WINDOW = (1400, 900)


def run(command: list[str], cwd: Path) -> None:
    """Run one step; the main job exits 1 when the gate fails (as it does on eSpeak NG): still a run."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")


def screenshot(chromium: str, page: Path, out: Path, profile: Path) -> None:
    """The page's first screen as a PNG, after its scripts ran (pytest-html draws its table in JS)."""
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
            "--virtual-time-budget=10000",
            f"--screenshot={out}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for the PNG files (default: docs/)")
    args = parser.parse_args(argv)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("chromium is not installed (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory(prefix="ttsbench-screenshots-") as temp:
        project = Path(temp) / "my-voice"
        project.mkdir()
        run([sys.executable, *MAIN_JOB, "--html=report.html"], project)
        run([sys.executable, *MAIN_JOB], project)
        run([sys.executable, "-m", "pytest_ttsbench.cli", "dashboard", ".ttsbench/runs"], project)
        args.out.mkdir(parents=True, exist_ok=True)
        screenshot(chromium, project / "report.html", args.out / "html-report.png", Path(temp) / "profile")
        dashboard = project / "ttsbench-dashboard" / "index.html"
        screenshot(chromium, dashboard, args.out / "dashboard.png", Path(temp) / "profile")
    print(f"wrote {args.out / 'html-report.png'} and {args.out / 'dashboard.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
