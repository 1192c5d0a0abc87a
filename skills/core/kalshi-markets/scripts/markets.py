#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""List Kalshi markets with filters, one page at a time (follow `cursor` for more)."""

from __future__ import annotations

import argparse
import sys

sys.dont_write_bytecode = True  # importing _kalshi must leave no __pycache__ in the skill
from _kalshi import Parser, api_get, bounded_int, emit_json, market_line, run, summarize_market  # noqa: E402


# ---- markets ----

STATUSES = ("unopened", "open", "paused", "closed", "settled")


def status_list(text: str) -> str:
    parts = [p.strip().lower() for p in text.split(",") if p.strip()]
    bad = [p for p in parts if p not in STATUSES]
    if not parts or bad:
        raise argparse.ArgumentTypeError(f"status must be a comma list of: {', '.join(STATUSES)}")
    return ",".join(parts)


def build_parser() -> Parser:
    parser = Parser(
        prog="markets.py",
        description="List Kalshi markets (prices in dollars). Returns one page plus a cursor for the next.",
        epilog="Example: markets.py --status open --series-ticker KXBTC --limit 20 --json",
    )
    parser.add_argument("--status", type=status_list, help=f"filter by status, comma list of: {', '.join(STATUSES)}")
    parser.add_argument("--event-ticker", help="only markets of this event (e.g. KXFED-25DEC)")
    parser.add_argument("--series-ticker", help="only markets of this series (e.g. KXFED)")
    parser.add_argument("--tickers", help="comma-separated market tickers to fetch")
    parser.add_argument("--limit", type=bounded_int(1, 1000), default=100, help="page size, 1-1000 (default 100)")
    parser.add_argument("--cursor", help="cursor from a previous page")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def _main(args) -> int:
    params = {
        "status": args.status,
        "event_ticker": args.event_ticker,
        "series_ticker": args.series_ticker,
        "tickers": args.tickers,
        "limit": args.limit,
        "cursor": args.cursor,
    }
    data = api_get("/markets", params)
    markets = [summarize_market(m) for m in data.get("markets") or [] if isinstance(m, dict)]
    cursor = data.get("cursor") or None
    if args.json:
        emit_json({"markets": markets, "count": len(markets), "cursor": cursor})
        return 0
    if not markets:
        print("No markets found.")
    for market in markets:
        print(market_line(market))
    print(f"\n{len(markets)} market(s)." + (f" More: --cursor {cursor}" if cursor else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
