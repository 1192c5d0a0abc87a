#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""Show one Kalshi event, optionally with all of its markets."""

from __future__ import annotations

import sys
import urllib.parse

sys.dont_write_bytecode = True  # importing _kalshi must leave no __pycache__ in the skill
from _kalshi import (  # noqa: E402
    KalshiError, Parser, api_get, emit_json, event_fields, market_line, require_ticker, run, summarize_market,
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
    detail = {**event_fields(e), "market_count": len(markets)}
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
    ticker = require_ticker(args.ticker)
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
