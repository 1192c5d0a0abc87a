"""Unit tests for the kalshi-markets helpers: the shared module `scripts/_kalshi.py` and
the pure functions inside the scripts.

Each script is a standalone PEP 723 file that does `from _kalshi import ...` (Python puts
the script's folder first on sys.path), so the tests import them by path with the scripts
folder on sys.path only while a module loads.
"""

import importlib.util
import json
import os
import sys
import tempfile
import unittest
from pathlib import Path

# Importing skill files must not leave __pycache__ inside the skill directories.
sys.dont_write_bytecode = True

SCRIPTS = Path(__file__).resolve().parents[2] / "skills" / "core" / "kalshi-markets" / "scripts"
SCRIPT_NAMES = ("status", "markets", "market", "orderbook", "trades", "search", "events", "event",
                "series_list", "series")


def load(name, module_name=None):
    """Import scripts/<name>.py; its `from _kalshi import ...` resolves via the scripts folder."""
    spec = importlib.util.spec_from_file_location(module_name or f"kalshi_{name}", SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    if module_name:
        sys.modules[module_name] = module
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    return module


# Registered as `_kalshi` so the scripts below share this very module.
kalshi = load("_kalshi", "_kalshi")
orderbook = load("orderbook")
search = load("search")
trades = load("trades")
event = load("event")


class PriceTest(unittest.TestCase):
    def test_prefers_dollars_string_over_cents(self):
        self.assertEqual(kalshi.price({"yes_bid": 41, "yes_bid_dollars": "0.4200"}, "yes_bid"), 0.42)

    def test_falls_back_to_cents_divided_by_100(self):
        self.assertEqual(kalshi.price({"yes_bid": 42}, "yes_bid"), 0.42)

    def test_keeps_sub_penny_dollar_prices(self):
        self.assertEqual(kalshi.price({"yes_bid_dollars": "0.0650"}, "yes_bid"), 0.065)

    def test_missing_or_junk_values_become_none(self):
        for raw in ({}, {"yes_bid": None}, {"yes_bid": "abc"}, {"yes_bid": True},
                    {"yes_bid_dollars": "NaN"}, {"yes_bid": float("inf")}):
            with self.subTest(raw=raw):
                self.assertIsNone(kalshi.price(raw, "yes_bid"))

    def test_junk_dollars_string_falls_back_to_cents(self):
        self.assertEqual(kalshi.price({"last_price": 7, "last_price_dollars": ""}, "last_price"), 0.07)

    def test_count_reads_fixed_point_strings(self):
        self.assertEqual(kalshi.count({"volume_fp": "5400.00"}, "volume"), 5400)
        self.assertEqual(kalshi.count({"volume_fp": "12.50"}, "volume"), 12.5)
        self.assertEqual(kalshi.count({"volume": 7, "volume_fp": "9.00"}, "volume"), 7)
        self.assertIsNone(kalshi.count({}, "volume"))

    def test_fmt_price_shows_dollars(self):
        self.assertEqual([kalshi.fmt_price(v) for v in (0.42, 0.065, 1, None)], ["$0.42", "$0.065", "$1.00", "-"])

    def test_summarize_market_uses_yes_sub_title(self):
        summary = kalshi.summarize_market({"ticker": "T", "subtitle": "", "yes_sub_title": "Above 4.50%",
                                           "yes_ask": 8, "no_bid_dollars": "0.9200"})
        self.assertEqual(summary["subtitle"], "Above 4.50%")
        self.assertEqual((summary["yes_ask"], summary["no_bid"], summary["yes_bid"]), (0.08, 0.92, None))


class OrderbookTest(unittest.TestCase):
    def test_null_side_means_no_orders(self):
        data = {"orderbook": {"yes": None, "no": [[90, 40], [92, 250]], "yes_dollars": None}}
        book = orderbook.summarize_book("T", data, None)
        self.assertEqual(book["yes_bids"], [])
        self.assertIsNone(book["best_yes_bid"])
        self.assertIsNone(book["spread"])
        self.assertEqual(book["no_bids"][0], {"price": 0.92, "quantity": 250})
        self.assertEqual(book["implied_yes_ask"], 0.08)

    def test_missing_orderbook_is_empty_not_a_crash(self):
        for data in ({}, {"orderbook": None}, {"orderbook": {"yes": "junk", "no": [[1]]}}):
            with self.subTest(data=data):
                book = orderbook.summarize_book("T", data, 3)
                self.assertEqual((book["yes_bids"], book["no_bids"]), ([], []))

    def test_prefers_dollar_levels_and_sorts_best_first(self):
        data = {"orderbook": {"yes": [[1, 1]], "yes_dollars": [["0.4000", 100], ["0.4200", 13]]}}
        self.assertEqual(orderbook.book_side(data, "yes"), [{"price": 0.42, "quantity": 13},
                                                            {"price": 0.4, "quantity": 100}])

    def test_reads_orderbook_fp_shape(self):
        data = {"orderbook_fp": {"no_dollars": [["0.5500", "7.00"]]}}
        self.assertEqual(orderbook.book_side(data, "no"), [{"price": 0.55, "quantity": 7}])

    def test_depth_limits_levels_per_side(self):
        data = {"orderbook": {"yes": [[40, 1], [41, 2], [42, 3]], "no": [[55, 7]]}}
        book = orderbook.summarize_book("T", data, 2)
        self.assertEqual([level["price"] for level in book["yes_bids"]], [0.42, 0.41])
        self.assertEqual(book["spread"], 0.03)


class SearchCacheTest(unittest.TestCase):
    def test_explicit_cache_dir_wins(self):
        self.assertEqual(search.cache_dir({"KALSHI_CACHE_DIR": "/x/y"}, "linux", "/home/u"), "/x/y")

    def test_linux_uses_xdg_cache_home_or_dot_cache(self):
        self.assertEqual(search.cache_dir({"XDG_CACHE_HOME": "/xdg"}, "linux", "/home/u"),
                         os.path.join("/xdg", "kalshi-markets"))
        self.assertEqual(search.cache_dir({}, "linux", "/home/u"), os.path.join("/home/u", ".cache", "kalshi-markets"))
        # A relative XDG_CACHE_HOME is invalid per the XDG spec and ignored.
        self.assertEqual(search.cache_dir({"XDG_CACHE_HOME": "rel"}, "linux", "/home/u"),
                         os.path.join("/home/u", ".cache", "kalshi-markets"))

    def test_macos_uses_library_caches(self):
        self.assertEqual(search.cache_dir({}, "darwin", "/Users/u"),
                         os.path.join("/Users/u", "Library", "Caches", "kalshi-markets"))

    def test_windows_uses_localappdata(self):
        self.assertEqual(search.cache_dir({"LOCALAPPDATA": "C:\\L"}, "win32", "C:\\U"),
                         os.path.join("C:\\L", "kalshi-markets"))

    def test_parse_duration(self):
        self.assertEqual([search.parse_duration(t) for t in ("6h", "30m", "90s", "1d", "3600", "0")],
                         [21600, 1800, 90, 86400, 3600, 0])
        for bad in ("", "abc", "-1h", "nanh"):
            with self.subTest(bad=bad), self.assertRaises(Exception):
                search.parse_duration(bad)

    def test_cache_round_trip_and_expiry(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "nested", "open_markets.json")
            doc = {"version": search.CACHE_VERSION, "base_url": "http://b", "fetched_at": 1000.0,
                   "complete": True, "markets": [{"ticker": "A"}]}
            search.write_cache(path, doc)
            self.assertEqual(os.listdir(os.path.dirname(path)), ["open_markets.json"])  # no temp left behind
            self.assertEqual(search.load_cache(path, "http://b", 60, 1030.0), doc)
            self.assertIsNone(search.load_cache(path, "http://b", 60, 1061.0), "expired")
            self.assertIsNone(search.load_cache(path, "http://other", 60, 1030.0), "other API base")

    def test_corrupt_or_missing_cache_is_ignored(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "open_markets.json")
            self.assertIsNone(search.load_cache(path, "http://b", 60, 0))
            Path(path).write_text("{not json")
            self.assertIsNone(search.load_cache(path, "http://b", 60, 0))
            Path(path).write_text(json.dumps([1, 2]))
            self.assertIsNone(search.load_cache(path, "http://b", 60, 0))

    def test_search_matches_all_words_case_insensitively_most_traded_first(self):
        rows = [
            {"ticker": "KXFED-25DEC-T4.50", "event_ticker": "KXFED-25DEC", "title": "Fed above 4.50%", "volume": 5},
            {"ticker": "KXFED-25DEC-T4.25", "event_ticker": "KXFED-25DEC", "title": "Fed above 4.25%", "volume": 9},
            {"ticker": "KXBTC-X", "event_ticker": "KXBTC", "title": "Bitcoin", "subtitle": "Fed-free", "volume": 1},
        ]
        hits, total = search.search_markets(rows, "FED", 10)
        self.assertEqual([h["ticker"] for h in hits], ["KXFED-25DEC-T4.25", "KXFED-25DEC-T4.50", "KXBTC-X"])
        self.assertEqual(total, 3)
        hits, total = search.search_markets(rows, "fed 4.50", 10)
        self.assertEqual(([h["ticker"] for h in hits], total), (["KXFED-25DEC-T4.50"], 1))
        hits, total = search.search_markets(rows, "fed", 1)
        self.assertEqual((len(hits), total), (1, 3))


class SharedHelpersTest(unittest.TestCase):
    def test_every_script_is_importable_without_running(self):
        self.assertEqual(kalshi.DEFAULT_API_BASE, "https://api.elections.kalshi.com/trade-api/v2")
        for name in SCRIPT_NAMES:
            with self.subTest(script=name):
                module = load(name)
                self.assertTrue(callable(module.main))
                self.assertIs(module.run, kalshi.run, "the script uses the shared helpers")
        self.assertNotIn(str(SCRIPTS), sys.path)

    def test_clean_replaces_non_finite_floats(self):
        cleaned = kalshi.clean({"a": float("nan"), "b": [1.5, float("-inf")], "c": "x"})
        self.assertEqual(cleaned, {"a": None, "b": [1.5, None], "c": "x"})
        json.dumps(cleaned, allow_nan=False)

    def test_short_body_extracts_kalshi_error_message(self):
        body = b'{"error": {"code": "not_found", "message": "market not found"}}'
        self.assertEqual(kalshi._short_body(body), "market not found")
        self.assertEqual(kalshi._short_body(b"<html>  Bad\n gateway </html>"), "<html> Bad gateway </html>")
        self.assertEqual(len(kalshi._short_body(b"x" * 5000)), 200)

    def test_require_ticker_strips_and_rejects_blank(self):
        self.assertEqual(kalshi.require_ticker("  KXFED-25DEC "), "KXFED-25DEC")
        for blank in ("", "   "):
            with self.subTest(blank=blank), self.assertRaisesRegex(kalshi.KalshiError, "ticker must not be empty"):
                kalshi.require_ticker(blank)

    def test_trade_summary_reads_both_price_encodings(self):
        legacy = trades.summarize_trade({"yes_price": 40, "no_price": 60, "count": 3})
        newer = trades.summarize_trade({"yes_price_dollars": "0.4000", "no_price_dollars": "0.6000", "count_fp": "3.00"})
        for summary in (legacy, newer):
            self.assertEqual((summary["yes_price"], summary["no_price"], summary["count"]), (0.4, 0.6, 3))

    def test_event_markets_nested_or_top_level(self):
        nested = {"event": {"markets": [{"ticker": "A"}]}, "markets": []}
        top = {"event": {}, "markets": [{"ticker": "B"}, "junk"]}
        self.assertEqual(event.event_markets(nested), [{"ticker": "A"}])
        self.assertEqual(event.event_markets(top), [{"ticker": "B"}])


if __name__ == "__main__":
    unittest.main()
