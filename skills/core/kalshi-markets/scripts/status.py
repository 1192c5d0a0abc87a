#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""Kalshi exchange status: is the exchange up, and is trading open right now?

Closed trading hours are data, not an error: the script exits 0 either way.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # importing _kalshi must leave no __pycache__ in the skill
from _kalshi import Parser, api_get, emit_json, run  # noqa: E402


# ---- status ----


def build_parser() -> Parser:
    parser = Parser(
        prog="status.py",
        description="Show whether the Kalshi exchange is up and whether trading is open.",
        epilog="Outside trading hours trading_active is false; that is normal and exits 0.",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def summarize_status(data: dict) -> dict:
    return {
        "exchange_active": bool(data.get("exchange_active")),
        "trading_active": bool(data.get("trading_active")),
        "exchange_estimated_resume_time": data.get("exchange_estimated_resume_time"),
    }


def render_status(status: dict) -> str:
    lines = [
        f"Exchange: {'active' if status['exchange_active'] else 'down (maintenance)'}",
        f"Trading: {'open' if status['trading_active'] else 'closed'}",
    ]
    if status.get("exchange_estimated_resume_time"):
        lines.append(f"Estimated resume: {status['exchange_estimated_resume_time']}")
    return "\n".join(lines)


def _main(args) -> int:
    status = summarize_status(api_get("/exchange/status"))
    if args.json:
        emit_json(status)
    else:
        print(render_status(status))
    return 0


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
