#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""Search open Kalshi markets by keyword in title, subtitle, ticker or event ticker.

The first run pages through every open market and caches the list; later runs search
the cache until it is older than --ttl (default 6h). Cache directory: KALSHI_CACHE_DIR,
else the platform cache dir + /kalshi-markets.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # importing _kalshi must leave no __pycache__ in the skill
from _kalshi import (  # noqa: E402
    DEFAULT_API_BASE, KalshiError, Parser, api_get, bounded_int, clean, emit_json, market_line, run, summarize_market,
    to_number,
)


# ---- search ----

CACHE_FILE = "open_markets.json"
CACHE_VERSION = 1
PAGE_SIZE = 1000
SEARCH_FIELDS = ("title", "subtitle", "ticker", "event_ticker")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def cache_dir(env=None, platform: str | None = None, home: str | None = None) -> str:
    """KALSHI_CACHE_DIR if set, else <platform cache dir>/kalshi-markets."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if env.get("KALSHI_CACHE_DIR"):
        return env["KALSHI_CACHE_DIR"]
    home = home or os.path.expanduser("~")
    if home == "~":  # no HOME and no passwd entry
        home = tempfile.gettempdir()
    if platform.startswith("win"):
        base = env.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
    elif platform == "darwin":
        base = os.path.join(home, "Library", "Caches")
    else:
        xdg = env.get("XDG_CACHE_HOME")
        base = xdg if xdg and os.path.isabs(xdg) else os.path.join(home, ".cache")
    return os.path.join(base, "kalshi-markets")


def parse_duration(text: str) -> int:
    """'6h', '30m', '90s', '1d' or plain seconds -> seconds."""
    text = text.strip().lower()
    unit = UNITS.get(text[-1:], None)
    number = text[:-1] if unit else text
    try:
        value = float(number) * (unit or 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a duration like 6h, 30m or 3600, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"duration must be zero or positive, got {text!r}")
    return int(value)


def load_cache(path: str, base_url: str, ttl: int, now: float) -> dict | None:
    """The cached document if readable, for this API base and younger than ttl; else None."""
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("version") != CACHE_VERSION or doc.get("base_url") != base_url:
        return None
    fetched_at = to_number(doc.get("fetched_at"))
    if fetched_at is None or not isinstance(doc.get("markets"), list) or not 0 <= now - fetched_at <= ttl:
        return None
    return doc


def write_cache(path: str, doc: dict) -> None:
    """Atomic write: a temp file in the same directory, then os.replace."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".open_markets.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(clean(doc), fh, allow_nan=False, ensure_ascii=False)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def fetch_open_markets(max_pages: int) -> tuple[list[dict], bool]:
    """All open markets (summaries), following cursors for at most max_pages pages."""
    markets: list[dict] = []
    cursor = None
    for page in range(1, max_pages + 1):
        data = api_get("/markets", {"status": "open", "limit": PAGE_SIZE, "cursor": cursor})
        batch = [summarize_market(m) for m in data.get("markets") or [] if isinstance(m, dict)]
        markets.extend(batch)
        print(f"Fetched page {page}: {len(markets)} open markets so far", file=sys.stderr)
        next_cursor = data.get("cursor") or None
        if not next_cursor or not batch or next_cursor == cursor:
            return markets, True
        cursor = next_cursor
    print(f"Warning: stopped after {max_pages} pages; results may be incomplete", file=sys.stderr)
    return markets, False


def search_markets(markets: list[dict], query: str, limit: int) -> tuple[list[dict], int]:
    """Markets containing every query word (case-insensitive), most traded first."""
    terms = query.lower().split()
    hits = [
        m for m in markets
        if isinstance(m, dict) and all(t in " ".join(str(m.get(f) or "") for f in SEARCH_FIELDS).lower() for t in terms)
    ]
    hits.sort(key=lambda m: (to_number(m.get("volume_24h")) or 0, to_number(m.get("volume")) or 0), reverse=True)
    return hits[:limit], len(hits)


def build_parser() -> Parser:
    parser = Parser(
        prog="search.py",
        description="Search open Kalshi markets by keyword (all words must match; case-insensitive).",
        epilog="Example: search.py bitcoin --limit 10 --json",
    )
    parser.add_argument("keyword", nargs="+", help="word(s) to find in title, subtitle, ticker or event ticker")
    parser.add_argument("--limit", type=bounded_int(1, 1000), default=20, help="max results, 1-1000 (default 20)")
    parser.add_argument("--ttl", type=parse_duration, default=6 * 3600, help="max cache age, e.g. 6h, 30m, 0 (default 6h)")
    parser.add_argument("--rebuild-cache", action="store_true", help="ignore the cache and refetch all open markets")
    parser.add_argument("--max-pages", type=bounded_int(1, 500), default=20,
                        help=f"pages of {PAGE_SIZE} markets to fetch when building the cache (default 20)")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def _main(args) -> int:
    query = " ".join(args.keyword).strip()
    if not query:
        raise KalshiError("Search keyword must not be empty")
    base_url = (os.environ.get("KALSHI_API_BASE") or DEFAULT_API_BASE).rstrip("/")
    path = os.path.join(cache_dir(), CACHE_FILE)
    now = time.time()
    doc = None if args.rebuild_cache else load_cache(path, base_url, args.ttl, now)
    from_cache = doc is not None
    if doc is None:
        markets, complete = fetch_open_markets(args.max_pages)
        doc = {"version": CACHE_VERSION, "base_url": base_url, "fetched_at": now, "complete": complete, "markets": markets}
        try:
            write_cache(path, doc)
        except OSError as exc:
            print(f"Warning: could not write cache {path}: {exc}", file=sys.stderr)
    results, total = search_markets(doc["markets"], query, args.limit)
    cache = {"path": path, "from_cache": from_cache, "age_seconds": int(now - doc["fetched_at"]),
             "markets": len(doc["markets"]), "complete": bool(doc.get("complete"))}
    if args.json:
        emit_json({"query": query, "results": results, "count": len(results), "total_matches": total, "cache": cache})
        return 0
    if not results:
        print(f"No open markets match {query!r}.")
    for market in results:
        print(market_line(market))
    source = f"cache, {cache['age_seconds']}s old" if from_cache else "fresh download"
    print(f"\n{len(results)} of {total} match(es) among {cache['markets']} open markets ({source}).")
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
