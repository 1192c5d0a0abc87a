/**
 * Runs each bundled kalshi-markets script with plain python3 against the local
 * Kalshi fixture server, in JSON mode and human mode.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type KalshiFixture,
  MAX_PAGE,
  SLOW_PATH,
  startKalshiFixture,
} from "../fixtures/kalshi_server.ts";
import { type CliResult, tempDir } from "../helpers/cli.ts";
import { runPython } from "../helpers/python.ts";
import { SKIP_SLOW } from "../helpers/quick.ts";

const SCRIPTS_DIR = fileURLToPath(
  new URL("../../skills/core/kalshi-markets/scripts/", import.meta.url),
);

const SCRIPTS = [
  "status",
  "markets",
  "market",
  "orderbook",
  "trades",
  "search",
  "events",
  "event",
  "series_list",
  "series",
] as const;

/** Arguments that make each script do one ordinary successful call. */
const SAMPLE_ARGS: Record<(typeof SCRIPTS)[number], string[]> = {
  status: [],
  markets: ["--limit", "2"],
  market: ["KXBTC-25DEC31-B100000"],
  orderbook: ["KXBTC-25DEC31-B100000"],
  trades: ["--limit", "3"],
  search: ["bitcoin"],
  events: [],
  event: ["KXFED-25DEC"],
  series_list: [],
  series: ["KXFED"],
};

type Run = CliResult;

// deno-lint-ignore no-explicit-any
type JsonValue = any;

function runScript(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Run> {
  return runPython([join(SCRIPTS_DIR, `${script}.py`), ...args], { env });
}

/** stdout must be exactly one JSON document (plus a trailing newline). */
function parseJson(run: Run): JsonValue {
  assert.equal(
    run.stdout.trim().split("\n").length,
    1,
    `expected one JSON line, got:\n${run.stdout}`,
  );
  return JSON.parse(run.stdout);
}

interface Ctx {
  fixture: KalshiFixture;
  cacheDir: string;
  json(
    script: string,
    ...args: string[]
  ): Promise<{ run: Run; body: JsonValue }>;
  human(script: string, ...args: string[]): Promise<Run>;
  env: Record<string, string>;
}

async function withFixture(fn: (ctx: Ctx) => Promise<void>): Promise<void> {
  const fixture = await startKalshiFixture();
  await using cache = await tempDir("kalshi-cache-");
  const cacheDir = cache.path;
  const env = { KALSHI_API_BASE: fixture.baseUrl, KALSHI_CACHE_DIR: cacheDir };
  try {
    await fn({
      fixture,
      cacheDir,
      env,
      json: async (script, ...args) => {
        const run = await runScript(script, [...args, "--json"], env);
        return { run, body: parseJson(run) };
      },
      human: (script, ...args) => runScript(script, args, env),
    });
  } finally {
    await fixture.close();
  }
}

function closedPortUrl(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return `http://127.0.0.1:${port}/trade-api/v2`;
}

Deno.test(
  "every kalshi script answers --help with usage and exit 0",
  { ignore: SKIP_SLOW },
  async () => {
    for (const script of SCRIPTS) {
      const run = await runScript(script, ["--help"]);
      assert.equal(run.code, 0, `${script}: ${run.stderr}`);
      assert.match(run.stdout, /usage/i, script);
      assert.match(run.stdout, /--json/, script);
    }
  },
);

Deno.test("kalshi scripts import the shared _kalshi.py without writing __pycache__ into the skill", async () => {
  // runScript clears the environment, so PYTHONDONTWRITEBYTECODE is not set here.
  const run = await runScript("status", ["--help"]);
  assert.equal(run.code, 0, run.stderr);
  await assert.rejects(
    Deno.stat(join(SCRIPTS_DIR, "__pycache__")),
    Deno.errors.NotFound,
  );
});

Deno.test("every kalshi script prints one JSON document in --json mode and text otherwise", {
  ignore: SKIP_SLOW,
}, async () => {
  await withFixture(async ({ json, human }) => {
    for (const script of SCRIPTS) {
      const { run, body } = await json(script, ...SAMPLE_ARGS[script]);
      assert.equal(run.code, 0, `${script}: ${run.stderr}`);
      assert.equal(typeof body, "object", script);
      assert.equal(body.error, undefined, script);
      assert.doesNotMatch(run.stdout, /NaN|Infinity/, script);

      const text = await human(script, ...SAMPLE_ARGS[script]);
      assert.equal(text.code, 0, `${script}: ${text.stderr}`);
      assert.ok(text.stdout.trim().length > 0, script);
      assert.ok(
        !text.stdout.trimStart().startsWith("{"),
        `${script} printed JSON in human mode`,
      );
    }
  });
});

Deno.test("status.py reports closed trading as data and exits 0", async () => {
  await withFixture(async ({ json, human }) => {
    const { run, body } = await json("status");
    assert.equal(run.code, 0);
    assert.deepEqual(body, {
      exchange_active: true,
      trading_active: false,
      exchange_estimated_resume_time: null,
    });
    const text = await human("status");
    assert.equal(text.code, 0);
    assert.match(text.stdout, /Exchange: active/);
    assert.match(text.stdout, /Trading: closed/);
  });
});

Deno.test("markets.py returns one page with a cursor that fetches the next page", async () => {
  await withFixture(async ({ json, fixture }) => {
    const first = await json("markets", "--limit", "2");
    assert.equal(first.run.code, 0);
    assert.equal(first.body.count, 2);
    assert.equal(typeof first.body.cursor, "string");
    assert.deepEqual(first.body.markets.map((m: JsonValue) => m.ticker), [
      "KXBTC-25DEC31-B100000",
      "KXBTC-25DEC31-B102500",
    ]);
    const second = await json(
      "markets",
      "--limit",
      "2",
      "--cursor",
      first.body.cursor,
    );
    assert.deepEqual(second.body.markets.map((m: JsonValue) => m.ticker), [
      "KXBTC-25DEC31-T110000",
      "KXFED-25DEC-T4.50",
    ]);
    assert.ok(
      fixture.requests.some((r) => r.includes("/markets?") && r.includes(`cursor=`)),
    );
    assert.ok(
      fixture.requests.every((r) => !r.includes("/markets?") || r.includes("limit=2")),
    );
  });
});

Deno.test("markets.py ends with a null cursor on the last page", async () => {
  await withFixture(async ({ json }) => {
    const { body } = await json(
      "markets",
      "--series-ticker",
      "KXFED",
      "--status",
      "open",
    );
    assert.equal(body.count, 3);
    assert.ok(body.count <= MAX_PAGE);
    assert.equal(body.cursor, null);
    assert.ok(
      body.markets.every((m: JsonValue) => m.ticker.startsWith("KXFED-")),
    );
  });
});

Deno.test("markets.py converts both cent and dollar price fields to dollars", async () => {
  await withFixture(async ({ json }) => {
    const { body } = await json(
      "markets",
      "--tickers",
      "KXBTC-25DEC31-B100000,KXBTC-25DEC31-T110000,KXHIGHNY-25NOV22-T55",
    );
    const byTicker = Object.fromEntries(
      body.markets.map((m: JsonValue) => [m.ticker, m]),
    );
    const both = byTicker["KXBTC-25DEC31-B100000"];
    assert.deepEqual(
      [both.yes_bid, both.yes_ask, both.last_price, both.volume],
      [0.42, 0.45, 0.43, 15230],
    );
    const dollarsOnly = byTicker["KXBTC-25DEC31-T110000"];
    assert.deepEqual([
      dollarsOnly.yes_bid,
      dollarsOnly.no_ask,
      dollarsOnly.volume,
    ], [0.065, 0.935, 5400]);
    const centsOnly = byTicker["KXHIGHNY-25NOV22-T55"];
    assert.deepEqual([
      centsOnly.yes_bid,
      centsOnly.yes_ask,
      centsOnly.last_price,
    ], [0.12, 0.15, 0.14]);
  });
});

Deno.test("markets.py rejects --limit outside 1..1000 before calling the API", async () => {
  await withFixture(async ({ json, fixture }) => {
    for (const limit of ["0", "1001", "ten"]) {
      const { run, body } = await json("markets", "--limit", limit);
      assert.notEqual(run.code, 0);
      assert.match(body.error, /--limit/);
    }
    assert.deepEqual(fixture.requests, []);
  });
});

Deno.test("market.py shows one market with prices in dollars", async () => {
  await withFixture(async ({ json, human }) => {
    const { run, body } = await json("market", "KXFED-25DEC-T4.50");
    assert.equal(run.code, 0);
    assert.equal(body.market.ticker, "KXFED-25DEC-T4.50");
    assert.equal(body.market.event_ticker, "KXFED-25DEC");
    assert.equal(body.market.yes_ask, 0.08);
    assert.equal(body.market.liquidity, 1234.56);
    assert.match(body.market.rules_primary, /Above 4.50%/);
    const text = await human("market", "KXFED-25DEC-T4.50");
    assert.match(text.stdout, /ask \$0\.08/);
  });
});

Deno.test("market.py reports an unknown ticker as 'Market not found' with exit 1", async () => {
  await withFixture(async ({ json, human }) => {
    const { run, body } = await json("market", "XYZ");
    assert.equal(run.code, 1);
    assert.deepEqual(body, { error: "Market not found: XYZ" });
    const text = await human("market", "XYZ");
    assert.equal(text.code, 1);
    assert.equal(text.stdout, "");
    assert.match(text.stderr, /Market not found: XYZ/);
  });
});

Deno.test("ticker scripts reject a blank ticker without calling the API", async () => {
  await withFixture(async ({ json, fixture }) => {
    for (const script of ["market", "orderbook", "event", "series"]) {
      const { run, body } = await json(script, " ");
      assert.equal(run.code, 1, script);
      assert.deepEqual(body, { error: "ticker must not be empty" }, script);
    }
    assert.deepEqual(fixture.requests, []);
  });
});

Deno.test("market.py reports other HTTP errors with status, path and message", async () => {
  await withFixture(async ({ json }) => {
    const { run, body } = await json("market", "KXERR-500");
    assert.equal(run.code, 1);
    assert.equal(
      body.error,
      "HTTP 500 from /markets/KXERR-500: something broke upstream",
    );
  });
});

Deno.test("orderbook.py treats a null side as no orders", async () => {
  await withFixture(async ({ json, human }) => {
    const { run, body } = await json("orderbook", "KXFED-25DEC-T4.50");
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(body.yes_bids, []);
    assert.deepEqual(body.no_bids, [{ price: 0.92, quantity: 250 }, {
      price: 0.9,
      quantity: 40,
    }]);
    assert.equal(body.best_yes_bid, null);
    assert.equal(body.implied_yes_ask, 0.08);
    assert.equal(body.spread, null);
    const text = await human("orderbook", "KXFED-25DEC-T4.50");
    assert.equal(text.code, 0);
    assert.match(text.stdout, /YES bids:\n\s+\(no orders\)/);
  });
});

Deno.test("orderbook.py --depth keeps the best levels and passes depth to the API", async () => {
  await withFixture(async ({ json, fixture }) => {
    const { body } = await json(
      "orderbook",
      "KXBTC-25DEC31-B100000",
      "--depth",
      "2",
    );
    assert.deepEqual(body.yes_bids, [{ price: 0.42, quantity: 13 }, {
      price: 0.41,
      quantity: 25,
    }]);
    assert.equal(body.best_no_bid, 0.55);
    assert.equal(body.spread, 0.03);
    assert.ok(
      fixture.requests.includes(
        "/trade-api/v2/markets/KXBTC-25DEC31-B100000/orderbook?depth=2",
      ),
    );
  });
});

Deno.test("orderbook.py reports an unknown ticker as 'Market not found'", async () => {
  await withFixture(async ({ json }) => {
    const { run, body } = await json("orderbook", "NOPE-1");
    assert.equal(run.code, 1);
    assert.deepEqual(body, { error: "Market not found: NOPE-1" });
  });
});

Deno.test("trades.py filters by ticker and time window", async () => {
  await withFixture(async ({ json, fixture }) => {
    const { body } = await json(
      "trades",
      "--ticker",
      "KXBTC-25DEC31-B100000",
      "--min-ts",
      "1700000100",
      "--max-ts",
      "1700000300",
    );
    assert.deepEqual(body.trades, [{
      trade_id: "trade-3",
      ticker: "KXBTC-25DEC31-B100000",
      created_time: "2023-11-14T22:16:40.000Z",
      taker_side: "yes",
      yes_price: 0.42,
      no_price: 0.58,
      count: 30,
    }]);
    assert.equal(body.cursor, null);
    assert.ok(
      fixture.requests.some((r) =>
        r.includes("min_ts=1700000100") && r.includes("max_ts=1700000300")
      ),
    );
  });
});

Deno.test("trades.py pages with --limit and --cursor", async () => {
  await withFixture(async ({ json }) => {
    const first = await json("trades", "--limit", "2");
    assert.deepEqual(first.body.trades.map((t: JsonValue) => t.trade_id), [
      "trade-5",
      "trade-4",
    ]);
    const second = await json(
      "trades",
      "--limit",
      "2",
      "--cursor",
      first.body.cursor,
    );
    assert.deepEqual(second.body.trades.map((t: JsonValue) => t.trade_id), [
      "trade-3",
      "trade-2",
    ]);
  });
});

Deno.test("trades.py rejects a time window that ends before it starts", async () => {
  await withFixture(async ({ json, fixture }) => {
    const { run, body } = await json(
      "trades",
      "--min-ts",
      "20",
      "--max-ts",
      "10",
    );
    assert.equal(run.code, 1);
    assert.match(body.error, /--min-ts/);
    assert.deepEqual(fixture.requests, []);
  });
});

Deno.test("search.py finds a keyword across pages and caches the open markets", async () => {
  await withFixture(async ({ json, human, fixture, cacheDir }) => {
    const marketRequests = () =>
      fixture.requests.filter((r) => r.startsWith("/trade-api/v2/markets?"));

    const first = await json("search", "temperature");
    assert.equal(first.run.code, 0, first.run.stderr);
    assert.deepEqual(first.body.results.map((m: JsonValue) => m.ticker), [
      "KXHIGHNY-25NOV22-B50.5",
      "KXHIGHNY-25NOV22-T45",
      "KXHIGHNY-25NOV22-T55",
    ]);
    assert.equal(first.body.total_matches, 3);
    assert.equal(first.body.cache.from_cache, false);
    assert.equal(
      first.body.cache.markets,
      9,
      "all open markets, closed ones excluded",
    );
    assert.equal(first.body.cache.complete, true);
    assert.equal(marketRequests().length, 3, "three pages");
    assert.ok(marketRequests().every((r) => r.includes("status=open")));
    assert.match(first.run.stderr, /page 3/);
    const cached = JSON.parse(
      await Deno.readTextFile(join(cacheDir, "open_markets.json")),
    );
    assert.equal(cached.markets.length, 9);

    const second = await json("search", "FED", "4.25");
    assert.equal(second.body.cache.from_cache, true);
    assert.deepEqual(second.body.results.map((m: JsonValue) => m.ticker), [
      "KXFED-25DEC-T4.25",
    ]);
    const text = await human("search", "bitcoin", "--limit", "1");
    assert.match(text.stdout, /KXBTC-25DEC31-B100000/);
    assert.match(text.stdout, /1 of 3 match/);
    assert.equal(
      marketRequests().length,
      3,
      "cached runs make no /markets requests",
    );

    const rebuilt = await json("search", "temperature", "--rebuild-cache");
    assert.equal(rebuilt.body.cache.from_cache, false);
    assert.equal(marketRequests().length, 6);
  });
});

Deno.test("search.py refetches when the cache is older than --ttl", async () => {
  await withFixture(async ({ json, fixture }) => {
    await json("search", "bitcoin");
    const { body } = await json("search", "bitcoin", "--ttl", "0");
    assert.equal(body.cache.from_cache, false);
    assert.equal(
      fixture.requests.filter((r) => r.includes("/markets?")).length,
      6,
    );
  });
});

Deno.test("search.py reports no matches as an empty result, not an error", async () => {
  await withFixture(async ({ json }) => {
    const { run, body } = await json("search", "zzzz-nothing");
    assert.equal(run.code, 0);
    assert.deepEqual([body.results, body.count, body.total_matches], [
      [],
      0,
      0,
    ]);
  });
});

Deno.test("events.py lists events with a cursor and optional nested markets", async () => {
  await withFixture(async ({ json }) => {
    const page = await json("events", "--limit", "2");
    assert.deepEqual(page.body.events.map((e: JsonValue) => e.event_ticker), [
      "KXBTC-25DEC31",
      "KXFED-25DEC",
    ]);
    assert.equal(page.body.events[0].markets, undefined);
    assert.equal(typeof page.body.cursor, "string");

    const nested = await json(
      "events",
      "--series-ticker",
      "KXFED",
      "--with-nested-markets",
    );
    assert.equal(nested.body.count, 1);
    assert.equal(nested.body.events[0].market_count, 3);
    assert.equal(nested.body.events[0].markets[1].yes_bid, 0.35);
  });
});

Deno.test("event.py shows one event, with markets on request", async () => {
  await withFixture(async ({ json }) => {
    const plain = await json("event", "KXFED-25DEC");
    assert.equal(plain.body.event.title, "Fed decision in Dec 2025?");
    assert.deepEqual(plain.body.event.market_tickers, [
      "KXFED-25DEC-T4.50",
      "KXFED-25DEC-T4.25",
      "KXFED-25DEC-T4.00",
    ]);
    const full = await json("event", "KXFED-25DEC", "--with-markets");
    assert.equal(full.body.event.market_count, 3);
    assert.equal(full.body.event.markets[2].yes_bid, 0.88);
  });
});

Deno.test("event.py and series.py report unknown tickers as not found", async () => {
  await withFixture(async ({ json }) => {
    const event = await json("event", "NOPE-EVENT");
    assert.equal(event.run.code, 1);
    assert.deepEqual(event.body, { error: "Event not found: NOPE-EVENT" });
    const series = await json("series", "NOPE");
    assert.equal(series.run.code, 1);
    assert.deepEqual(series.body, { error: "Series not found: NOPE" });
  });
});

Deno.test("series_list.py filters by category and tags", async () => {
  await withFixture(async ({ json, fixture }) => {
    const economics = await json("series_list", "--category", "Economics");
    assert.deepEqual(economics.body.series.map((s: JsonValue) => s.ticker), [
      "KXFED",
    ]);
    assert.ok(
      fixture.requests.includes("/trade-api/v2/series?category=Economics"),
    );
    const tagged = await json(
      "series_list",
      "--tags",
      "Weather,BTC",
      "--limit",
      "1",
    );
    assert.deepEqual([tagged.body.count, tagged.body.total], [1, 2]);
  });
});

Deno.test("series.py shows one series with its settlement sources", async () => {
  await withFixture(async ({ json, human }) => {
    const { body } = await json("series", "KXHIGHNY");
    assert.equal(body.series.category, "Climate and Weather");
    assert.equal(
      body.series.settlement_sources[0].name,
      "National Weather Service",
    );
    const text = await human("series", "KXHIGHNY");
    assert.match(text.stdout, /Settlement source: National Weather Service/);
  });
});

Deno.test("every kalshi script reports an unreachable API as a network error", async () => {
  const base = closedPortUrl();
  await using cache = await tempDir("kalshi-cache-");
  for (const script of SCRIPTS) {
    const run = await runScript(script, [...SAMPLE_ARGS[script], "--json"], {
      KALSHI_API_BASE: base,
      KALSHI_CACHE_DIR: cache.path,
    });
    assert.equal(run.code, 1, script);
    assert.match(
      parseJson(run).error,
      /^Network error contacting Kalshi API: /,
      script,
    );
  }
});

Deno.test("kalshi scripts give up after KALSHI_TIMEOUT seconds", async () => {
  await withFixture(async ({ env }) => {
    const ticker = SLOW_PATH.split("/").pop()!;
    const started = performance.now();
    const run = await runScript("market", [ticker, "--json"], {
      ...env,
      KALSHI_TIMEOUT: "0.5",
    });
    assert.ok(
      performance.now() - started < 8000,
      "did not wait for the slow server",
    );
    assert.equal(run.code, 1);
    assert.match(
      parseJson(run).error,
      /^Network error contacting Kalshi API: .*timed out/,
    );
  });
});
