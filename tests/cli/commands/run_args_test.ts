import assert from "node:assert/strict";
import { type ErrorCode, UsageError } from "../../../src/core/errors.ts";
import { exitCodeFor, parse, type RunOptions } from "../../../src/cli/commands/run.ts";
import { parse as parseScripts } from "../../../src/cli/commands/scripts.ts";

const base: RunOptions = {
  help: false,
  json: false,
  verbose: false,
  skill: "",
  script: "",
  args: [],
  timeoutSeconds: undefined,
  env: [],
  allowNet: [],
  scriptHelp: false,
  readOnly: false,
  write: [],
  review: false,
  background: false,
  idleSeconds: undefined,
  maxSeconds: undefined,
};

Deno.test("run parse() splits its own options from the script's arguments", () => {
  const cases: [string[], Partial<RunOptions>][] = [
    [["--read-only", "--write", "out", "s", "x", "--write", "y"], {
      skill: "s",
      script: "x",
      readOnly: true,
      write: ["out"],
      args: ["--write", "y"],
    }],
    [["kalshi-markets", "status"], { skill: "kalshi-markets", script: "status" }],
    [["Kalshi-Markets", "Status", "--json"], {
      skill: "Kalshi-Markets",
      script: "Status",
      args: ["--json"],
      json: true,
    }],
    [["k", "markets", "--limit", "5", "--timeout", "3", "-v"], {
      skill: "k",
      script: "markets",
      args: ["--limit", "5", "--timeout", "3", "-v"],
    }],
    [["--timeout", "2.5", "--env", "KALSHI_API_BASE", "--env=KALSHI_X=a=b", "k", "s"], {
      skill: "k",
      script: "s",
      timeoutSeconds: 2.5,
      env: ["KALSHI_API_BASE", "KALSHI_X=a=b"],
    }],
    [["--timeout=10", "-v", "k", "s", "x"], {
      skill: "k",
      script: "s",
      args: ["x"],
      timeoutSeconds: 10,
      verbose: true,
    }],
    [["--json", "k", "s"], { skill: "k", script: "s", json: true }],
    [["--allow-net", "API.Example.com", "--allow-net=127.0.0.1:8080", "k", "s"], {
      skill: "k",
      script: "s",
      allowNet: ["api.example.com", "127.0.0.1:8080"],
    }],
    [["k", "--timeout", "4", "s", "--help"], {
      skill: "k",
      script: "s",
      timeoutSeconds: 4,
      args: ["--help"],
      scriptHelp: true,
    }],
    // The script's `--` is skills run's: not passed on, and nothing after it is read.
    [["--", "k", "s", "--", "-x"], { skill: "k", script: "s", args: ["-x"] }],
    [["k", "s", "--", "--json", "--help"], { skill: "k", script: "s", args: ["--json", "--help"] }],
    // `--json VALUE` is the script's own option; a bare one (last, or before an option) is ours.
    [["t", "collect", "nodeapp", "--json", "out/findings.json"], {
      skill: "t",
      script: "collect",
      args: ["nodeapp", "--json", "out/findings.json"],
    }],
    [["k", "s", "--json", "--limit", "5"], {
      skill: "k",
      script: "s",
      args: ["--json", "--limit", "5"],
      json: true,
    }],
    [["--help"], { help: true }],
    [["k", "-h"], { help: true }],
  ];
  for (const [argv, expected] of cases) {
    assert.deepEqual(parse(argv), { ...base, ...expected }, argv.join(" "));
  }
});

Deno.test("run parse() rejects what it cannot understand with a usage error", () => {
  const cases: [string[], RegExp][] = [
    [[], /^Missing skill name$/],
    [["kalshi-markets"], /^Missing script name$/],
    [["--timeout", "0", "k", "s"], /^Invalid --timeout '0'/],
    [["--timeout", "abc", "k", "s"], /^Invalid --timeout 'abc'/],
    [["--allow-net", "a:99999", "k", "s"], /^Invalid --allow-net: .a:99999. has an invalid port/],
    [["--timeout"], /^Option '--timeout' needs a value$/],
    [["--env", "1BAD", "k", "s"], /^Invalid --env '1BAD'/],
    [["--env", "A-B=1", "k", "s"], /^Invalid --env 'A-B=1'/],
    [["--frobnicate", "k", "s"], /^Unknown option '--frobnicate'/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(() => parse(argv), (error: unknown) => {
      assert.ok(error instanceof UsageError, argv.join(" "));
      assert.equal(error.exitCode, 2);
      assert.match(error.message, message);
      return true;
    });
  }
});

Deno.test("exitCodeFor() maps envelopes to the documented exit codes", () => {
  const f = (error: ErrorCode, details?: Record<string, unknown>) =>
    exitCodeFor({ success: false, error, message: "m", ...(details ? { details } : {}) });
  assert.equal(exitCodeFor({ success: true, result: 1, message: "m" }), 0);
  assert.equal(f("timeout"), 124);
  assert.equal(f("cancelled"), 130);
  assert.equal(f("invalid_name"), 2);
  assert.equal(f("args_too_large"), 2);
  assert.equal(f("execution_failed", { exit_code: 3 }), 3);
  assert.equal(f("execution_failed", { exit_code: 300 }), 1);
  assert.equal(f("parse_error"), 1);
  assert.equal(f("untrusted"), 1);
});

Deno.test("scripts parse() takes an optional skill name", () => {
  assert.equal(parseScripts([]).skill, undefined);
  assert.deepEqual(parseScripts(["kalshi-markets", "--json"]), {
    help: false,
    json: true,
    verbose: false,
    skill: "kalshi-markets",
  });
  assert.throws(() => parseScripts(["a", "b"]), UsageError);
  assert.throws(() => parseScripts(["--nope"]), UsageError);
});
