#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""List Kalshi events (an event groups related markets), one page at a time."""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # importing _kalshi must leave no __pycache__ in the skill
from _kalshi import (  # noqa: E402
    Parser, api_get, bounded_int, emit_json, event_fields, market_line, run, summarize_market,
)


# ---- events ----

STATUSES = ("unopened", "open", "closed", "settled")


def summarize_event(e: dict, markets: list | None = None) -> dict:
    """Event fields worth showing; `markets` (raw) become market summaries when given."""
    summary = event_fields(e)
    if markets is not None:
        summary["markets"] = [summarize_market(m) for m in markets if isinstance(m, dict)]
        summary["market_count"] = len(summary["markets"])
    return summary


def event_line(e: dict) -> str:
    extra = f"  ({e['market_count']} markets)" if "market_count" in e else ""
    sub = f" - {e['sub_title']}" if e["sub_title"] else ""
    return f"{e['event_ticker']}  [{e['category'] or '-'}]  {e['title'] or ''}{sub}{extra}"


def build_parser() -> Parser:
    parser = Parser(
        prog="events.py",
        description="List Kalshi events. Returns one page plus a cursor for the next.",
        epilog="Example: events.py --status open --series-ticker KXFED --with-nested-markets --json",
    )
    parser.add_argument("--status", choices=STATUSES, help="filter by event status")
    parser.add_argument("--series-ticker", help="only events of this series (e.g. KXFED)")
    parser.add_argument("--limit", type=bounded_int(1, 200), default=50, help="page size, 1-200 (default 50)")
    parser.add_argument("--cursor", help="cursor from a previous page")
    parser.add_argument("--with-nested-markets", action="store_true", help="include each event's markets")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def _main(args) -> int:
    params = {"status": args.status, "series_ticker": args.series_ticker, "limit": args.limit,
              "cursor": args.cursor, "with_nested_markets": args.with_nested_markets}
    data = api_get("/events", params)
    events = [
        summarize_event(e, (e.get("markets") or []) if args.with_nested_markets else None)
        for e in data.get("events") or []
        if isinstance(e, dict)
    ]
    cursor = data.get("cursor") or None
    if args.json:
        emit_json({"events": events, "count": len(events), "cursor": cursor})
        return 0
    if not events:
        print("No events found.")
    for event in events:
        print(event_line(event))
        for market in event.get("markets", []):
            print("  " + market_line(market).replace("\n", "\n  "))
    print(f"\n{len(events)} event(s)." + (f" More: --cursor {cursor}" if cursor else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
