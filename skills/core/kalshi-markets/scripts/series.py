#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""Show one Kalshi series: its category, tags, frequency and settlement sources."""

from __future__ import annotations

import sys
import urllib.parse

sys.dont_write_bytecode = True  # importing _kalshi must leave no __pycache__ in the skill
from _kalshi import KalshiError, Parser, api_get, emit_json, require_ticker, run  # noqa: E402


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
    ticker = require_ticker(args.ticker)
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
