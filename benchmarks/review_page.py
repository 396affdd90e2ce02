"""The review page at ICM-Bench scale: first paint and DOM size in headless Chromium.

Synthesises a run folder of 2,800 shots over 840 clips and 1,200 candidate items
(``tests/review_runs.py``: real PNG stills and anchors, real H.264 clips, hard-linked), serves it
with ``ReviewServer`` and opens the page in Debian's ``/usr/bin/chromium`` through Playwright
(extra ``review``). Measured in one run:

- ``first_paint_ms``: from navigation start to the first frame painted after the first rows were
  placed (``window.__review.rowsPaintedMs``, ``performance.now()`` of that frame), on a server that
  has not read the run yet (cold: its first ``/api/data`` reads the run folder) and again (warm);
- ``dom_nodes``: elements in the document after the first paint, after scrolling to the middle of
  the shots, after switching to the items, and after filtering;
- ``payload_bytes``: the ``/api/data`` reply; ``server_data_ms``: the server reading the run.

Goals (issue 34): first paint <= 2,000 ms and <= 5,000 DOM nodes. Figures from a shared 2-core
machine are indicative.

    .venv/bin/python benchmarks/review_page.py [--shots 2800 --items 1200 --clips 840] [--json FILE]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mnemoforge.review_data import review_data  # noqa: E402
from mnemoforge.review_server import ReviewServer  # noqa: E402
from tests.browser import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402
from tests.review_runs import synthesise_run  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402

GOAL_PAINT_MS, GOAL_NODES = 2000, 5000
NODES = "document.getElementsByTagName('*').length"


def _load(page, url: str) -> dict:  # type: ignore[no-untyped-def]
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=60_000)
    return page.evaluate(f"({{paint: window.__review.rowsPaintedMs, nodes: {NODES}}})")


def measure(run: Path) -> dict:
    from playwright.sync_api import sync_playwright

    t0 = time.perf_counter()
    review_data(run)
    server_ms = (time.perf_counter() - t0) * 1000
    out: dict = {"server_data_ms": round(server_ms, 1)}
    srv = ReviewServer(run).start()  # a fresh server: its first /api/data reads the run (cold)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
            page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
            cold = _load(page, srv.url)
            warm = _load(page, srv.url)
            page.evaluate("document.getElementById('list').scrollTop = document.getElementById('spacer')"
                          ".offsetHeight / 2")  # fmt: skip
            page.wait_for_timeout(300)
            middle = page.evaluate(NODES)
            page.keyboard.press("t")
            page.wait_for_timeout(300)
            items = page.evaluate(NODES)
            page.select_option("#f-status", "unreviewed")
            page.wait_for_timeout(200)
            filtered = page.evaluate(NODES)
            rows = page.evaluate("document.querySelectorAll('.card').length")
            browser.close()
        with urllib.request.urlopen(srv.url + "api/data", timeout=60) as r:
            payload = len(r.read())
    finally:
        srv.stop()
    out |= {
        "first_paint_ms": {"cold": round(cold["paint"], 1), "warm": round(warm["paint"], 1)},
        "dom_nodes": {
            "first_paint": cold["nodes"],
            "scrolled_middle": middle,
            "items": items,
            "items_filtered": filtered,
        },  # fmt: skip
        "rendered_rows": rows,
        "payload_bytes": payload,
    }
    worst_paint = max(out["first_paint_ms"].values())
    worst_nodes = max(out["dom_nodes"].values())
    out["goals"] = {
        "first_paint_ms<=2000": worst_paint <= GOAL_PAINT_MS,
        "dom_nodes<=5000": worst_nodes <= GOAL_NODES,
    }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shots", type=int, default=2800)
    ap.add_argument("--items", type=int, default=1200)
    ap.add_argument("--clips", type=int, default=840)
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks/results/review_page.json")
    args = ap.parse_args()
    if not CHROMIUM.exists():
        sys.exit(f"no {CHROMIUM} (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="mf-review-bench-") as tmp:
        t0 = time.perf_counter()
        run = synthesise_run(Path(tmp) / "run", shots=args.shots, items=args.items, clips=args.clips)
        made = time.perf_counter() - t0
        res = {"scale": {"shots": args.shots, "items": args.items, "clips": args.clips},
               "synthesise_s": round(made, 2), **measure(run)}  # fmt: skip
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.json, res)
    print(f"review page at {args.shots} shots / {args.items} items / {args.clips} clips")
    paint = res["first_paint_ms"]
    print(f"  first paint   cold {paint['cold']:.0f} ms, warm {paint['warm']:.0f} ms"
          f" (goal <= {GOAL_PAINT_MS})")  # fmt: skip
    print(f"  DOM nodes     {res['dom_nodes']} (goal <= {GOAL_NODES})")
    print(
        f"  /api/data     {res['payload_bytes'] / 1e6:.2f} MB, "
        f"read by the server in {res['server_data_ms']:.0f} ms"
    )
    print(f"  goals         {res['goals']}")
    print(f"  wrote {args.json}")


if __name__ == "__main__":
    main()
