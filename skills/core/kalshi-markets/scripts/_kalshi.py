"""Helpers shared by the kalshi-markets scripts: HTTP GET against the Kalshi Trade API v2,
JSON/human output, argument parsing and price conversion.

Not a script itself: the leading underscore (and `scripts_ignore` in SKILL.md) keep it
out of script discovery. Each script imports it with `from _kalshi import ...`; Python
puts the script's own folder first on sys.path, so this works under `python3 <script>`
and `uv run --script <script>`. Standard library only.
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

# ---- HTTP, errors and output ----


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


# ---- event summaries ----


def event_fields(e: dict) -> dict:
    """The fields of a raw event worth showing (without its markets)."""
    return {
        "event_ticker": e.get("event_ticker"),
        "series_ticker": e.get("series_ticker"),
        "title": e.get("title"),
        "sub_title": e.get("sub_title") or None,
        "category": e.get("category"),
        "mutually_exclusive": e.get("mutually_exclusive"),
        "strike_date": e.get("strike_date"),
    }


# ---- arguments ----


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


def require_ticker(text: str) -> str:
    """The ticker argument without surrounding blanks; a blank one is a KalshiError."""
    ticker = text.strip()
    if not ticker:
        raise KalshiError("ticker must not be empty")
    return ticker
