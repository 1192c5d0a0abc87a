/**
 * The bundled skills through `skills run`: every kalshi-markets script in JSON and human
 * mode against the local Kalshi fixture (KALSHI_API_BASE reaches the scripts through the
 * skill's `permissions.env: [KALSHI_*]`; the sandbox lets them reach the fixture's loopback
 * port because SKILLS_ALLOW_NET grants it, as the skill itself declares only Kalshi's API
 * host), and hello-extended's advanced_greeting.
 */

import assert from "node:assert/strict";
import { type KalshiFixture, startKalshiFixture } from "../../fixtures/kalshi_server.ts";
import { type CliResult, okJson, runCli, tempDir } from "../../helpers/cli.ts";
import { SKIP_SLOW } from "../../helpers/quick.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** One ordinary successful call per script, and what its JSON must show. */
const SCRIPTS: [string, string[], (body: Json) => void][] = [
  ["status", [], (b) => assert.equal(b.trading_active, false)],
  ["markets", ["--limit", "2"], (b) => {
    assert.equal(b.count, 2);
    assert.equal(typeof b.cursor, "string");
  }],
  ["market", ["KXFED-25DEC-T4.50"], (b) => assert.equal(b.market.yes_ask, 0.08)],
  ["orderbook", ["KXFED-25DEC-T4.50"], (b) => assert.deepEqual(b.yes_bids, [])],
  ["trades", ["--limit", "2"], (b) => assert.equal(b.trades.length, 2)],
  ["search", ["bitcoin"], (b) => assert.ok(JSON.stringify(b).includes("KXBTC"))],
  ["events", [], (b) => assert.ok(Array.isArray(b.events) && b.events.length > 0)],
  ["event", ["KXFED-25DEC", "--with-markets"], (b) => assert.equal(b.event.markets.length, 3)],
  ["series_list", [], (b) => assert.ok(Array.isArray(b.series) && b.series.length > 0)],
  ["series", ["KXFED"], (b) => assert.equal(b.series.ticker, "KXFED")],
];

interface Env extends AsyncDisposable {
  fixture: KalshiFixture;
  run(args: string[]): Promise<CliResult>;
}

async function setup(): Promise<Env> {
  const home = await tempDir();
  const cache = await tempDir("kalshi-cache-");
  const fixture = await startKalshiFixture();
  const env = {
    SKILLS_HOME: home.path,
    KALSHI_API_BASE: fixture.baseUrl,
    KALSHI_CACHE_DIR: cache.path,
    SKILLS_ALLOW_NET: new URL(fixture.baseUrl).host,
  };
  return {
    fixture,
    run: (args) => runCli(args, { env }),
    [Symbol.asyncDispose]: async () => {
      await fixture.close();
      await cache[Symbol.asyncDispose]();
      await home[Symbol.asyncDispose]();
    },
  };
}

Deno.test("every kalshi-markets script works through skills run in JSON and human mode", {
  ignore: SKIP_SLOW,
}, async () => {
  await using env = await setup();
  for (const [script, args, check] of SCRIPTS) {
    const json = await env.run(["run", "kalshi-markets", script, ...args, "--json"]);
    assert.equal(json.code, 0, `${script}: ${json.stderr}`);
    const body = JSON.parse(json.stdout); // exactly one JSON document
    assert.equal(body.error, undefined, script);
    check(body);

    const human = await env.run(["run", "kalshi-markets", script, ...args]);
    assert.equal(human.code, 0, `${script}: ${human.stderr}`);
    assert.ok(human.stdout.trim().length > 0, script);
    assert.ok(!human.stdout.trimStart().startsWith("{"), `${script} printed JSON in human mode`);
  }
  assert.ok(env.fixture.requests.length >= SCRIPTS.length * 2, "the scripts used the fixture");
});

Deno.test(
  "skills run resolves Kalshi-Markets / Status name variants",
  { ignore: SKIP_SLOW },
  async () => {
    await using env = await setup();
    for (
      const [skill, script] of [
        ["Kalshi-Markets", "Status"],
        ["kalshi_markets", "status.py"],
        ["KALSHI-MARKETS", "STATUS"],
      ]
    ) {
      const result = await env.run(["run", skill!, script!, "--json"]);
      assert.equal(result.code, 0, `${skill} ${script}: ${result.stderr}`);
      assert.deepEqual(JSON.parse(result.stdout), {
        exchange_active: true,
        trading_active: false,
        exchange_estimated_resume_time: null,
      });
    }
    const human = await env.run(["run", "Kalshi-Markets", "Status"]);
    assert.match(human.stdout, /Trading: closed/);
  },
);

Deno.test("a kalshi 404 reaches the caller as the script's JSON error with its exit code", {
  ignore: SKIP_SLOW,
}, async () => {
  await using env = await setup();
  const result = await env.run(["run", "kalshi-markets", "market", "XYZ", "--json"]);
  assert.equal(result.code, 1);
  const body = JSON.parse(result.stdout);
  assert.equal(body.success, false);
  assert.equal(body.error, "execution_failed");
  assert.deepEqual(body.details, { exit_code: 1, output: { error: "Market not found: XYZ" } });
  assert.match(body.message, /^Script failed with exit code 1\noutput: .*Market not found: XYZ/);
  const human = await env.run(["run", "kalshi-markets", "market", "XYZ"]);
  assert.equal(human.code, 1);
  assert.match(human.stderr, /Market not found: XYZ/);
});

Deno.test("hello-extended advanced_greeting runs through skills run", async () => {
  await using env = await setup();
  const json = await env.run([
    "run",
    "hello-extended",
    "advanced_greeting",
    "--name",
    "Ada",
    "--style",
    "formal",
    "--json",
  ]);
  const body = okJson(json);
  assert.match(JSON.stringify(body), /Good day, Ada/);
  const human = await env.run(["run", "Hello_Extended", "Advanced_Greeting", "--name", "Ada"]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /Ada/);
  const missing = await env.run(["run", "hello-extended", "advanced_greeting", "--json"]);
  assert.equal(missing.code, 2, "argparse usage errors pass their exit code through");
  assert.equal(JSON.parse(missing.stdout).error, "execution_failed");
});

Deno.test("skills info and skills scripts list kalshi-markets' ten scripts", async () => {
  await using env = await setup();
  const info = await env.run(["info", "kalshi-markets", "--json"]);
  assert.equal(info.code, 0, info.stderr);
  const names = JSON.parse(info.stdout).scripts.map((s: { name: string }) => s.name).sort();
  const expected = SCRIPTS.map(([name]) => name).sort();
  assert.deepEqual(names, expected);
  const scripts = await env.run(["scripts", "kalshi-markets", "--json"]);
  assert.equal(scripts.code, 0);
  assert.deepEqual(
    JSON.parse(scripts.stdout)["kalshi-markets"].map((s: { name: string }) => s.name).sort(),
    expected,
  );
});
