#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""Show the order book (resting bids) of one Kalshi market.

Kalshi books hold bids only: a NO bid at p is a YES ask at 1 - p. A side that is
null or missing in the API response means "no orders on that side".
"""

from __future__ import annotations

import sys
import urllib.parse

sys.dont_write_bytecode = True  # importing _kalshi must leave no __pycache__ in the skill
from _kalshi import Parser, api_get, bounded_int, emit_json, fmt_price, require_ticker, run, to_number  # noqa: E402


# ---- orderbook ----


def _levels(raw, scale: float) -> list[dict]:
    levels = []
    for entry in raw if isinstance(raw, list) else []:
        if not isinstance(entry, (list, tuple)) or len(entry) < 2:
            continue
        level_price, quantity = to_number(entry[0]), to_number(entry[1])
        if level_price is None or quantity is None:
            continue
        levels.append({"price": round(level_price / scale, 4), "quantity": int(quantity) if quantity.is_integer() else quantity})
    return levels


def book_side(data: dict, side: str) -> list[dict]:
    """Bids on `side` ("yes"/"no"), best (highest) price first; [] when the side is null.

    Accepts `orderbook.<side>_dollars` / `orderbook_fp.<side>_dollars` ([["0.42", 13]])
    and the legacy `orderbook.<side>` in cents ([[42, 13]]).
    """
    levels: list[dict] = []
    for book in (data.get("orderbook"), data.get("orderbook_fp")):
        if isinstance(book, dict):
            levels = _levels(book.get(f"{side}_dollars"), 1.0) or _levels(book.get(side), 100.0)
        if levels:
            break
    return sorted(levels, key=lambda level: level["price"], reverse=True)


def summarize_book(ticker: str, data: dict, depth: int | None) -> dict:
    yes, no = book_side(data, "yes"), book_side(data, "no")
    best_yes = yes[0]["price"] if yes else None
    best_no = no[0]["price"] if no else None
    yes_ask = round(1 - best_no, 4) if best_no is not None else None
    return {
        "ticker": ticker,
        "yes_bids": yes[:depth] if depth else yes,
        "no_bids": no[:depth] if depth else no,
        "best_yes_bid": best_yes,
        "best_no_bid": best_no,
        "implied_yes_ask": yes_ask,
        "implied_no_ask": round(1 - best_yes, 4) if best_yes is not None else None,
        "spread": round(yes_ask - best_yes, 4) if yes_ask is not None and best_yes is not None else None,
    }


def render_book(book: dict) -> str:
    lines = [f"Order book {book['ticker']} (bids, best first)"]
    for label, key in (("YES", "yes_bids"), ("NO", "no_bids")):
        lines.append(f"{label} bids:")
        if not book[key]:
            lines.append("    (no orders)")
        for level in book[key]:
            lines.append(f"    {fmt_price(level['price']):>9}  x {level['quantity']}")
    lines.append(f"Best YES bid {fmt_price(book['best_yes_bid'])}, implied YES ask {fmt_price(book['implied_yes_ask'])},"
                 f" spread {fmt_price(book['spread'])}")
    return "\n".join(lines)


def build_parser() -> Parser:
    parser = Parser(
        prog="orderbook.py",
        description="Show YES and NO bids for one Kalshi market (prices in dollars).",
        epilog="Example: orderbook.py KXFED-25DEC-T4.50 --depth 5 --json",
    )
    parser.add_argument("ticker", help="market ticker")
    parser.add_argument("--depth", type=bounded_int(1, 100), help="price levels per side, 1-100 (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def _main(args) -> int:
    ticker = require_ticker(args.ticker)
    data = api_get(
        f"/markets/{urllib.parse.quote(ticker, safe='')}/orderbook",
        {"depth": args.depth},
        not_found=f"Market not found: {ticker}",
    )
    book = summarize_book(ticker, data, args.depth)
    if args.json:
        emit_json(book)
    else:
        print(render_book(book))
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
