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
import http.client
import json
import math
import os
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

DEFAULT_API_BASE = "https://api.elections.kalshi.com/trade-api/v2"
USER_AGENT = "kalshi-markets-skill/1.0.0 (python-urllib)"

# ---- shared helpers (copied into each script: PEP 723 scripts stand alone) ----


class KalshiError(Exception):
    """A failure reported to the user as one line."""


def _timeout() -> float:
    try:
        value = float(os.environ.get("KALSHI_TIMEOUT", "15"))
    except ValueError:
        return 15.0
    return value if math.isfinite(value) and value > 0 else 15.0


def _short_body(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace").strip()
    try:
        err = json.loads(text).get("error")
        text = str(err.get("message") or err.get("code") or text) if isinstance(err, dict) else str(err or text)
    except (ValueError, AttributeError):
        pass
    return " ".join(text.split())[:200] or "(empty body)"


def api_get(path: str, params: dict | None = None, not_found: str | None = None) -> dict:
    """GET a Kalshi v2 endpoint and return its JSON object, or raise KalshiError."""
    pairs = {k: ("true" if v is True else v) for k, v in (params or {}).items() if v not in (None, "", False)}
    query = urllib.parse.urlencode(pairs)
    base = (os.environ.get("KALSHI_API_BASE") or DEFAULT_API_BASE).rstrip("/")
    request = urllib.request.Request(
        base + path + (f"?{query}" if query else ""),
        headers={"Accept": "application/json", "User-Agent": USER_AGENT},
    )
    try:
        with urllib.request.urlopen(request, timeout=_timeout()) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        if exc.code == 404 and not_found:
            raise KalshiError(not_found) from None
        raise KalshiError(f"HTTP {exc.code} from {path}: {_short_body(exc.read())}") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise KalshiError(f"Network error contacting Kalshi API: {reason}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        raise KalshiError(f"Invalid JSON from {path}") from None
    if not isinstance(data, dict):
        raise KalshiError(f"Unexpected response from {path}")
    return data


def clean(value):
    """Replace NaN/Infinity (not valid JSON) with None, recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def emit_json(document) -> None:
    sys.stdout.write(json.dumps(clean(document), allow_nan=False, ensure_ascii=False) + "\n")


def fail(message: str, as_json: bool) -> int:
    if as_json:
        emit_json({"error": message})
    else:
        print(f"Error: {message}", file=sys.stderr)
    return 1


class Parser(argparse.ArgumentParser):
    """argparse that also reports usage errors as JSON on stdout when --json was given."""

    json_errors = False

    def error(self, message):
        if self.json_errors:
            emit_json({"error": message})
        super().error(message)


def run(main_body, argv: list[str] | None, parser: Parser) -> int:
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="replace")
    argv = sys.argv[1:] if argv is None else argv
    parser.json_errors = "--json" in argv
    args = parser.parse_args(argv)
    try:
        return main_body(args)
    except KalshiError as exc:
        return fail(str(exc), args.json)
    except Exception as exc:  # noqa: BLE001 - last resort: keep stdout valid JSON
        return fail(f"Unexpected error: {type(exc).__name__}: {exc}", args.json)


# ---- prices: prefer the "<field>_dollars" strings, else legacy integer cents ----


def to_number(value) -> float | None:
    """Parse a JSON number or numeric string; None for bools, junk, NaN and infinities."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def price(obj: dict, field: str) -> float | None:
    """Dollar price of `field`: "<field>_dollars" ("0.4200") when present, else cents / 100."""
    dollars = to_number(obj.get(f"{field}_dollars"))
    if dollars is not None:
        return round(dollars, 4)
    cents = to_number(obj.get(field))
    return None if cents is None else round(cents / 100, 4)


def count(obj: dict, field: str) -> int | float | None:
    """Contract count from `field`, else its fixed-point "<field>_fp" string."""
    value = to_number(obj.get(field))
    if value is None:
        value = to_number(obj.get(f"{field}_fp"))
    if value is None:
        return None
    return int(value) if value.is_integer() else value


def fmt_price(value: float | None) -> str:
    if value is None:
        return "-"
    whole, _, fraction = f"{value:.4f}".partition(".")
    return f"${whole}.{fraction.rstrip('0').ljust(2, '0')}"


# ---- market summaries ----


def summarize_market(m: dict) -> dict:
    return {
        "ticker": m.get("ticker"),
        "event_ticker": m.get("event_ticker"),
        "title": m.get("title"),
        "subtitle": m.get("yes_sub_title") or m.get("subtitle") or None,
        "status": m.get("status"),
        "yes_bid": price(m, "yes_bid"),
        "yes_ask": price(m, "yes_ask"),
        "no_bid": price(m, "no_bid"),
        "no_ask": price(m, "no_ask"),
        "last_price": price(m, "last_price"),
        "volume": count(m, "volume"),
        "volume_24h": count(m, "volume_24h"),
        "open_interest": count(m, "open_interest"),
        "close_time": m.get("close_time"),
    }


def market_line(m: dict) -> str:
    volume = "-" if m["volume"] is None else m["volume"]
    title = m["title"] or ""
    if m["subtitle"]:
        title += f" [{m['subtitle']}]"
    return (
        f"{m['ticker']}  {m['status'] or ''}  yes bid {fmt_price(m['yes_bid'])} ask {fmt_price(m['yes_ask'])}"
        f"  last {fmt_price(m['last_price'])}  vol {volume}\n    {title}"
    )


def bounded_int(low: int, high: int):
    """argparse type: an integer within [low, high]."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {value}")
        return value

    return parse


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
