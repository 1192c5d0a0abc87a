#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""List recent Kalshi trades, optionally for one market and a time window."""

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


# ---- trades ----


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
