#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""Show one Kalshi series: its category, tags, frequency and settlement sources."""

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


# ---- series ----

FIELDS = ("ticker", "title", "category", "tags", "frequency", "settlement_sources", "contract_url",
          "contract_terms_url", "fee_type", "fee_multiplier", "additional_prohibitions")


def describe_series(s: dict) -> dict:
    return {field: s.get(field) for field in FIELDS}


def render_series(d: dict) -> str:
    lines = [f"{d['ticker']}  {d['title'] or ''}",
             f"Category: {d['category'] or '-'}  Frequency: {d['frequency'] or '-'}"]
    if d["tags"]:
        lines.append(f"Tags: {', '.join(map(str, d['tags']))}")
    for source in d["settlement_sources"] or []:
        if isinstance(source, dict):
            lines.append(f"Settlement source: {source.get('name') or '-'} {source.get('url') or ''}".rstrip())
    if d["contract_url"]:
        lines.append(f"Contract: {d['contract_url']}")
    return "\n".join(lines)


def build_parser() -> Parser:
    parser = Parser(
        prog="series.py",
        description="Show one Kalshi series by series ticker.",
        epilog="Example: series.py KXFED --json   (then: events.py --series-ticker KXFED)",
    )
    parser.add_argument("ticker", help="series ticker, e.g. KXFED")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def _main(args) -> int:
    ticker = args.ticker.strip()
    if not ticker:
        raise KalshiError("ticker must not be empty")
    data = api_get(f"/series/{urllib.parse.quote(ticker, safe='')}", not_found=f"Series not found: {ticker}")
    if not isinstance(data.get("series"), dict):
        raise KalshiError(f"Series not found: {ticker}")
    detail = describe_series(data["series"])
    if args.json:
        emit_json({"series": detail})
    else:
        print(render_series(detail))
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
