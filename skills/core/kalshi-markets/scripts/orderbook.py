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
    ticker = args.ticker.strip()
    if not ticker:
        raise KalshiError("ticker must not be empty")
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
