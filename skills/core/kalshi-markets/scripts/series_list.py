#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""List Kalshi series (templates for recurring events), filtered by category or tags."""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # importing _kalshi must leave no __pycache__ in the skill
from _kalshi import Parser, api_get, bounded_int, emit_json, run  # noqa: E402


# ---- series list ----


def summarize_series(s: dict) -> dict:
    return {
        "ticker": s.get("ticker"),
        "title": s.get("title"),
        "category": s.get("category"),
        "tags": s.get("tags") if isinstance(s.get("tags"), list) else [],
        "frequency": s.get("frequency"),
    }


def build_parser() -> Parser:
    parser = Parser(
        prog="series_list.py",
        description="List Kalshi series. Without filters the list is long: prefer --category or --tags.",
        epilog="Example: series_list.py --category Economics --json",
    )
    parser.add_argument("--category", help="exact category, e.g. Economics, Crypto, Politics")
    parser.add_argument("--tags", help="comma-separated tags, e.g. 'Fed,Inflation'")
    parser.add_argument("--limit", type=bounded_int(1, 10000), default=100,
                        help="show at most N series (default 100); `total` reports how many matched")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def _main(args) -> int:
    data = api_get("/series", {"category": args.category, "tags": args.tags})
    everything = [summarize_series(s) for s in data.get("series") or [] if isinstance(s, dict)]
    shown = everything[: args.limit]
    if args.json:
        emit_json({"series": shown, "count": len(shown), "total": len(everything)})
        return 0
    if not shown:
        print("No series found.")
    for s in shown:
        tags = f"  tags: {', '.join(map(str, s['tags']))}" if s["tags"] else ""
        print(f"{s['ticker']}  [{s['category'] or '-'}]  {s['title'] or ''}  ({s['frequency'] or '-'}){tags}")
    print(f"\n{len(shown)} of {len(everything)} series.")
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
