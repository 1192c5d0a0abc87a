#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""List recent Kalshi trades, optionally for one market and a time window."""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # importing _kalshi must leave no __pycache__ in the skill
from _kalshi import KalshiError, Parser, api_get, bounded_int, count, emit_json, fmt_price, price, run  # noqa: E402


# ---- trades ----


def summarize_trade(t: dict) -> dict:
    return {
        "trade_id": t.get("trade_id"),
        "ticker": t.get("ticker"),
        "created_time": t.get("created_time"),
        "taker_side": t.get("taker_side"),
        "yes_price": price(t, "yes_price"),
        "no_price": price(t, "no_price"),
        "count": count(t, "count"),
    }


def trade_line(t: dict) -> str:
    return (f"{t['created_time'] or '-'}  {t['ticker'] or '-'}  taker {t['taker_side'] or '-'}"
            f"  yes {fmt_price(t['yes_price'])} / no {fmt_price(t['no_price'])}  x {'-' if t['count'] is None else t['count']}")


def build_parser() -> Parser:
    parser = Parser(
        prog="trades.py",
        description="List executed Kalshi trades, newest first (prices in dollars).",
        epilog="Example: trades.py --ticker KXBTC-25DEC31-B100000 --limit 20 --json",
    )
    parser.add_argument("--ticker", help="only trades of this market ticker")
    parser.add_argument("--min-ts", type=bounded_int(0, 2**63 - 1), help="only trades after this Unix time (seconds)")
    parser.add_argument("--max-ts", type=bounded_int(0, 2**63 - 1), help="only trades before this Unix time (seconds)")
    parser.add_argument("--limit", type=bounded_int(1, 1000), default=100, help="page size, 1-1000 (default 100)")
    parser.add_argument("--cursor", help="cursor from a previous page")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def _main(args) -> int:
    if args.min_ts is not None and args.max_ts is not None and args.min_ts > args.max_ts:
        raise KalshiError("--min-ts must not be later than --max-ts")
    params = {"ticker": args.ticker, "min_ts": args.min_ts, "max_ts": args.max_ts,
              "limit": args.limit, "cursor": args.cursor}
    data = api_get("/markets/trades", params)
    trades = [summarize_trade(t) for t in data.get("trades") or [] if isinstance(t, dict)]
    cursor = data.get("cursor") or None
    if args.json:
        emit_json({"trades": trades, "count": len(trades), "cursor": cursor})
        return 0
    if not trades:
        print("No trades found.")
    for trade in trades:
        print(trade_line(trade))
    print(f"\n{len(trades)} trade(s)." + (f" More: --cursor {cursor}" if cursor else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
