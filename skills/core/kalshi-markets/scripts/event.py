#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""Show one Kalshi event, optionally with all of its markets."""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import sys
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


# ---- event ----


def event_markets(data: dict) -> list:
    """Markets of an event response: nested under `event.markets` or top-level `markets`."""
    event = data.get("event") if isinstance(data.get("event"), dict) else {}
    nested = event.get("markets")
    return [m for m in (nested if isinstance(nested, list) else data.get("markets") or []) if isinstance(m, dict)]


def describe_event(data: dict, with_markets: bool) -> dict:
    e = data.get("event") if isinstance(data.get("event"), dict) else {}
    markets = event_markets(data)
    detail = {
        "event_ticker": e.get("event_ticker"),
        "series_ticker": e.get("series_ticker"),
        "title": e.get("title"),
        "sub_title": e.get("sub_title") or None,
        "category": e.get("category"),
        "mutually_exclusive": e.get("mutually_exclusive"),
        "strike_date": e.get("strike_date"),
        "market_count": len(markets),
    }
    if with_markets:
        detail["markets"] = [summarize_market(m) for m in markets]
    else:
        detail["market_tickers"] = [m.get("ticker") for m in markets]
    return detail


def render_event(d: dict) -> str:
    lines = [f"{d['event_ticker']}  {d['title'] or ''}"]
    if d["sub_title"]:
        lines.append(f"    {d['sub_title']}")
    lines.append(f"Series: {d['series_ticker'] or '-'}  Category: {d['category'] or '-'}  Markets: {d['market_count']}")
    for market in d.get("markets", []):
        lines.append(market_line(market))
    for ticker in d.get("market_tickers", []):
        lines.append(f"  {ticker}")
    return "\n".join(lines)


def build_parser() -> Parser:
    parser = Parser(
        prog="event.py",
        description="Show one Kalshi event by event ticker (prices in dollars).",
        epilog="Example: event.py KXFED-25DEC --with-markets --json",
    )
    parser.add_argument("ticker", help="event ticker, e.g. KXFED-25DEC")
    parser.add_argument("--with-markets", action="store_true", help="include each market's prices and volume")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def _main(args) -> int:
    ticker = args.ticker.strip()
    if not ticker:
        raise KalshiError("ticker must not be empty")
    data = api_get(
        f"/events/{urllib.parse.quote(ticker, safe='')}",
        {"with_nested_markets": args.with_markets},
        not_found=f"Event not found: {ticker}",
    )
    if not isinstance(data.get("event"), dict):
        raise KalshiError(f"Event not found: {ticker}")
    detail = describe_event(data, args.with_markets)
    if args.json:
        emit_json({"event": detail})
    else:
        print(render_event(detail))
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
