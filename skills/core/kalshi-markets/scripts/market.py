#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""Show one Kalshi market in detail: prices (dollars), volume, timing and rules."""

from __future__ import annotations

import sys
import urllib.parse

sys.dont_write_bytecode = True  # importing _kalshi must leave no __pycache__ in the skill
from _kalshi import (  # noqa: E402
    KalshiError, Parser, api_get, emit_json, fmt_price, market_line, price, require_ticker, run, summarize_market,
)


# ---- market ----

DETAIL_FIELDS = (
    "market_type", "yes_sub_title", "no_sub_title", "open_time", "expiration_time",
    "result", "can_close_early", "strike_type", "floor_strike", "cap_strike",
    "rules_primary", "rules_secondary",
)


def describe_market(m: dict) -> dict:
    detail = summarize_market(m)
    detail["previous_price"] = price(m, "previous_price")
    detail["liquidity"] = price(m, "liquidity")
    detail["settlement_value"] = price(m, "settlement_value")
    for field in DETAIL_FIELDS:
        if m.get(field) not in (None, ""):
            detail[field] = m[field]
    return detail


def render_market(d: dict) -> str:
    lines = [market_line(d)]
    lines.append(f"    no bid {fmt_price(d['no_bid'])} ask {fmt_price(d['no_ask'])}"
                 f"  24h vol {'-' if d['volume_24h'] is None else d['volume_24h']}"
                 f"  open interest {'-' if d['open_interest'] is None else d['open_interest']}")
    for label, key in (("Event", "event_ticker"), ("Opens", "open_time"), ("Closes", "close_time"),
                       ("Result", "result"), ("Rules", "rules_primary")):
        if d.get(key):
            lines.append(f"{label}: {d[key]}")
    return "\n".join(lines)


def build_parser() -> Parser:
    parser = Parser(
        prog="market.py",
        description="Show details for one Kalshi market by ticker (prices in dollars).",
        epilog="Example: market.py KXFED-25DEC-T4.50 --json",
    )
    parser.add_argument("ticker", help="market ticker, e.g. KXBTC-25DEC31-B100000")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def _main(args) -> int:
    ticker = require_ticker(args.ticker)
    data = api_get(f"/markets/{urllib.parse.quote(ticker, safe='')}", not_found=f"Market not found: {ticker}")
    raw = data.get("market")
    if not isinstance(raw, dict):
        raise KalshiError(f"Market not found: {ticker}")
    detail = describe_market(raw)
    if args.json:
        emit_json({"market": detail})
    else:
        print(render_market(detail))
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
