#!/usr/bin/env python3
# /// script
# requires-python = ">=3.10"
# dependencies = []
# ///
"""Compose a greeting in a chosen style, optionally aware of the time of day."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime

STYLES = {
    # style: (salutation, closing)
    "formal": ("Good day", ". It is a pleasure to make your acquaintance."),
    "casual": ("Hey", "! How's it going?"),
    "enthusiastic": ("Hello", "!!! It is AMAZING to see you!"),
}


def time_of_day(hour: int) -> str:
    """'morning' (5-11), 'afternoon' (12-17) or 'evening' (otherwise)."""
    if 5 <= hour < 12:
        return "morning"
    if 12 <= hour < 18:
        return "afternoon"
    return "evening"


def compose(name: str, style: str, hour: int | None = None) -> str:
    """The greeting text; with an hour, the salutation becomes 'Good morning/afternoon/evening'."""
    salutation, closing = STYLES[style]
    if hour is not None:
        salutation = f"Good {time_of_day(hour)}"
    return f"{salutation}, {name}{closing}"


def hour_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an hour 0-23, got {text!r}") from None
    if not 0 <= value <= 23:
        raise argparse.ArgumentTypeError(f"expected an hour 0-23, got {value}")
    return value


class Parser(argparse.ArgumentParser):
    json_errors = False

    def error(self, message):
        if self.json_errors:
            print(json.dumps({"error": message}))
        super().error(message)


def build_parser() -> Parser:
    parser = Parser(
        prog="advanced_greeting.py",
        description="Compose a personalised greeting in a formal, casual or enthusiastic style.",
        epilog="Example: advanced_greeting.py --name Ada --style formal --time-aware --json",
    )
    parser.add_argument("--name", required=True, help="who to greet")
    parser.add_argument("--style", choices=sorted(STYLES), default="casual", help="greeting style (default casual)")
    parser.add_argument("--time-aware", action="store_true",
                        help="start with Good morning/afternoon/evening based on the local time")
    parser.add_argument("--hour", type=hour_arg, help="local hour to assume with --time-aware (0-23; default now)")
    parser.add_argument("--json", action="store_true", help="print one JSON object to stdout")
    return parser


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="replace")
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    parser.json_errors = "--json" in argv
    args = parser.parse_args(argv)
    name = args.name.strip()
    if not name:
        message = "--name must not be empty"
        if args.json:
            print(json.dumps({"error": message}))
        else:
            print(f"Error: {message}", file=sys.stderr)
        return 1
    hour = None
    if args.time_aware:
        hour = datetime.now().hour if args.hour is None else args.hour
    greeting = compose(name, args.style, hour)
    if args.json:
        print(json.dumps({"greeting": greeting, "name": name, "style": args.style, "time_aware": args.time_aware},
                         ensure_ascii=False))
    else:
        print(greeting)
    return 0


if __name__ == "__main__":
    sys.exit(main())
