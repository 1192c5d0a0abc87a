/**
 * Every shell example in README.md and docs/ that runs `skills` is run, as a reader would
 * type it: the blocks of one document in order, in one shell, in a fresh git repository with
 * an empty SKILLS_HOME and HOME, `skills` on PATH being this checkout (the binary's flags).
 * Each line must exit 0, or the status its comment ends with (`# … exit 1`). A YAML block's
 * `run: |` steps (a CI job) count as shell.
 *
 * A block is marked by the HTML comment before it (`<!-- doctest: … -->`):
 * - `network`: `owner/repo` is a local git repository (skills `pdf` and `docx`), and
 *   kalshi-markets reaches a local Kalshi stand-in (tests/fixtures/kalshi_server.ts);
 * - `model`: the chat model is a local fake of OpenAI's API (tests/fixtures/llm_server.ts)
 *   that activates kalshi-markets, runs `status` and answers;
 * - `eval`: `./report-writer` is a copy of the eval fixture skill (tests/fixtures/eval_skill)
 *   and the model is the scripted eval model (tests/fixtures/eval_model.ts);
 * - `registry`: `ghcr.io` is a local OCI registry (Debian's docker-registry on loopback, no
 *   login: a `docker login` line is skipped), and `./pdf` and `./skills` are copies of
 *   `owner/repo`'s skills;
 * - `server`: each line starts a server (`:8080` becomes `:0`, a free port), which must say
 *   where it listens (an `http://` URL on stderr) within 20 s; it is then stopped;
 * - `synopsis`: usage forms, not run; each names a real command and only flags it declares;
 * - `not-run: <why>`: shown, never run (a server that runs until stopped, a registry login).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { SPECS } from "../../src/cli/specs/all.ts";
import { startKalshiFixture } from "../fixtures/kalshi_server.ts";
import { createRepo, fixtureGitEnv, pyScript } from "../fixtures/git_repos.ts";
import { type LlmReply, type RecordedLlmRequest, startLlmServer } from "../fixtures/llm_server.ts";
import { startRegistry } from "../helpers/oci_registry.ts";
import { evalModel } from "../fixtures/eval_model.ts";
import { EVAL_SKILL_FIXTURE } from "../helpers/eval_fixture.ts";
import { baseEnv, cliEntry, entryFlags, REPO_ROOT, tempDir } from "../helpers/cli.ts";
import {
  type Block,
  commandLines,
  documents,
  fencedBlocks,
  runsSkills,
  shellOf,
} from "./markdown.ts";

const SHELL = new Set(["sh", "bash", "shell", "console"]);

/** What the doc test does with a block. */
export function blockKind(block: Block): "run" | "synopsis" | "not-run" | "none" {
  if (!SHELL.has(block.lang)) return "none";
  if (!commandLines(block).some((l) => runsSkills(l.text))) return "none";
  if (/^not-run:\s*\S/.test(block.marker)) return "not-run";
  if (block.marker.split(/\s+/).includes("synopsis")) return "synopsis";
  return "run";
}

/** The exit status a line's comment ends with (`# error envelope, exit 1`), else 0. */
function expectedStatus(text: string): number {
  const comment = /\s#\s.*$/.exec(text)?.[0] ?? "";
  return Number(/\bexit (\d+)\s*$/.exec(comment)?.[1] ?? 0);
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** One bash script for a document's runnable blocks, each line checked as it ends. */
export function scriptFor(
  doc: string,
  blocks: Block[],
  ownerRepo: string,
  registry = "",
): string {
  const out = ["set -u", 'cd "$DOCTEST_PROJECT"'];
  for (const block of blocks) {
    const words = block.marker.split(/\s+/);
    const network = words.includes("network") || words.includes("model");
    const model = words.includes("model");
    const evalModel = words.includes("eval");
    const oci = words.includes("registry");
    const server = words.includes("server");
    if (oci) out.push('cp -R "$DOCTEST_REPO/skills" ./skills && cp -R ./skills/pdf ./pdf');
    if (evalModel) out.push('[ -d report-writer ] || cp -R "$DOCTEST_EVAL_SKILL" ./report-writer');
    out.push(
      network
        ? 'export KALSHI_API_BASE="$DOCTEST_KALSHI" SKILLS_ALLOW_NET="$DOCTEST_KALSHI_HOST"'
        : "unset KALSHI_API_BASE SKILLS_ALLOW_NET",
      model || evalModel
        ? `export SKILLS_MODEL=openai:gpt-4o-mini OPENAI_API_KEY=sk-doctest SKILLS_BASE_URL="$${
          evalModel ? "DOCTEST_EVAL_LLM" : "DOCTEST_LLM"
        }"`
        : "unset SKILLS_MODEL OPENAI_API_KEY SKILLS_BASE_URL",
    );
    for (const { line, text } of commandLines(block)) {
      if (oci && /^\s*(?:echo .*\|\s*)?docker login\b/.test(text)) continue;
      let command = network ? text.replace(/\bowner\/repo\b/g, ownerRepo) : text;
      if (oci) command = command.replaceAll("ghcr.io", registry);
      const where = `${doc}:${line}`;
      const want = expectedStatus(text);
      if (server) {
        const fail = quote(`doctest: ${where} never said where it listens: ${text}`);
        out.push(
          `printf '%s\\n' ${quote(`$ ${text}`)} >&2`,
          `${command.replaceAll(":8080", ":0")} 2>"$DOCTEST_PROJECT/.server.log" &`,
          "__pid=$!",
          'for __i in $(seq 200); do grep -qs "http://" "$DOCTEST_PROJECT/.server.log" && break; sleep 0.1; done',
          'cat "$DOCTEST_PROJECT/.server.log" >&2',
          `grep -qs "http://" "$DOCTEST_PROJECT/.server.log" || { kill $__pid; echo ${fail} >&2; exit 1; }`,
          'kill $__pid; wait $__pid; rm -f "$DOCTEST_PROJECT/.server.log"',
        );
        continue;
      }
      out.push(
        `printf '%s\\n' ${quote(`$ ${text}`)} >&2`,
        command,
        `__status=$?; if [ "$__status" != ${want} ]; then echo ${
          quote(`doctest: ${where} exited `)
        }"$__status"${quote(`, expected ${want}: ${text}`)} >&2; exit 1; fi`,
      );
    }
  }
  return `${out.join("\n")}\n`;
}

/** The fake model: activate kalshi-markets, run `status`, then answer with what it said. */
function modelTurn(request: RecordedLlmRequest): LlmReply {
  const messages = request.body.messages as { role: string; content: unknown }[];
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const tools = messages.slice(lastUser).filter((m) => m.role === "tool");
  if (tools.length === 0) {
    return { toolCalls: [{ name: "activate_skill", arguments: { name: "kalshi-markets" } }] };
  }
  if (tools.length === 1) {
    return {
      toolCalls: [{
        name: "script_run",
        arguments: { skill_name: "kalshi-markets", script_name: "status", json: true },
      }],
    };
  }
  return { text: `The exchange says: ${String(tools.at(-1)!.content).slice(0, 200)}` };
}

/** `owner/repo` of the examples: two skills, each with a script that answers --help and --json. */
async function ownerRepo(root: string): Promise<{ url: string; work: string }> {
  const skill = (name: string, what: string) => ({
    [`skills/${name}/SKILL.md`]: `---
name: ${name}
description: Extracts the text of ${what} files. Use when the user asks what a ${what} says.
permissions:
  env:
    - ${name.toUpperCase()}_*
---

# ${name}

Run \`scripts/extract.py --json <file>\` and read \`text\` from its output.
`,
    [`skills/${name}/scripts/extract.py`]: pyScript(`import argparse, json
parser = argparse.ArgumentParser(prog="extract.py", description="Extract the text of a ${what} file.")
parser.add_argument("file", nargs="?", help="the file (default: none, an empty result)")
parser.add_argument("--json", action="store_true", help="print one JSON object")
args = parser.parse_args()
result = {"file": args.file, "text": ""}
print(json.dumps(result) if args.json else result["text"])`),
  });
  const repo = await createRepo(root, "repo", {
    "README.md": "# Document skills\n",
    ...skill("pdf", "PDF"),
    ...skill("docx", "Word"),
  });
  return { url: repo.url, work: repo.work };
}

async function runDocument(doc: string, blocks: Block[]): Promise<void> {
  await using dir = await tempDir("skills-doctest-");
  const kalshi = await startKalshiFixture();
  const llm = await startLlmServer(Array.from({ length: 200 }, () => modelTurn));
  const evalLlm = await startLlmServer([], { respond: evalModel });
  const needsRegistry = blocks.some((b) => b.marker.split(/\s+/).includes("registry"));
  const registry = needsRegistry ? await startRegistry() : undefined;
  try {
    const [bin, project, home, skillsHome] = ["bin", "project", "home", "skills-home"].map((d) =>
      join(dir.path, d)
    );
    for (const d of [bin, project, home, skillsHome]) await Deno.mkdir(d!);
    const deno = Deno.execPath();
    await Deno.writeTextFile(
      join(bin!, "skills"),
      `#!/bin/sh\nexec ${quote(deno)} run ${entryFlags().join(" ")} ${quote(cliEntry())} "$@"\n`,
      { mode: 0o755 },
    );
    const repo = await ownerRepo(join(dir.path, "remote"));
    const gitEnv = fixtureGitEnv(home!);
    const init = await new Deno.Command("git", {
      args: ["init", "--quiet", "--initial-branch=main"],
      cwd: project,
      env: gitEnv,
      clearEnv: true,
    }).output();
    assert.ok(init.success);
    const script = scriptFor(doc, blocks, repo.url, registry?.host);
    const output = await new Deno.Command("bash", {
      args: ["-c", script],
      cwd: project,
      env: baseEnv({
        ...gitEnv,
        PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
        HOME: home!,
        SKILLS_HOME: skillsHome!,
        DOCTEST_PROJECT: project!,
        DOCTEST_KALSHI: kalshi.baseUrl,
        DOCTEST_KALSHI_HOST: new URL(kalshi.baseUrl).host,
        DOCTEST_LLM: llm.baseUrl,
        DOCTEST_EVAL_LLM: evalLlm.baseUrl,
        DOCTEST_EVAL_SKILL: EVAL_SKILL_FIXTURE,
        DOCTEST_REPO: repo.work,
        GIT_CONFIG_PARAMETERS: "'protocol.file.allow'='always'",
      }),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    const stdout = new TextDecoder().decode(output.stdout);
    // DOCTEST_SHOW=1 prints what the examples printed, to read them as a reader would.
    if (Deno.env.get("DOCTEST_SHOW")) console.log(`${stderr}\n${stdout}`);
    assert.equal(
      output.code,
      0,
      `${doc}'s examples failed:\n--- stderr (last 60 lines) ---\n${
        stderr.split("\n").slice(-60).join("\n")
      }\n--- stdout (last 30 lines) ---\n${stdout.split("\n").slice(-30).join("\n")}`,
    );
  } finally {
    await kalshi.close();
    await llm.close();
    await evalLlm.close();
    await registry?.close();
  }
}

const flagsOf = new Map(
  SPECS.map((
    s,
  ) => [
    s.name,
    new Set(["json", "verbose", "v", "no-color", "help", "h", ...Object.keys(s.flags)]),
  ]),
);

for (const doc of documents()) {
  const text = Deno.readTextFileSync(join(REPO_ROOT, doc));
  const blocks = fencedBlocks(text).map(shellOf);
  const runnable = blocks.filter((b) => blockKind(b) === "run");
  if (runnable.length > 0) {
    Deno.test(`${doc}: every shell example that runs skills succeeds`, async () => {
      await runDocument(doc, runnable);
    });
  }
  const synopses = blocks.filter((b) => blockKind(b) === "synopsis");
  if (synopses.length > 0) {
    Deno.test(`${doc}: usage forms name real commands and their flags`, () => {
      for (const block of synopses) {
        for (const { line, text } of commandLines(block)) {
          const name = /^skills\s+(\S+)/.exec(text)?.[1] ?? "";
          const spec = SPECS.find((s) => s.name === name || s.aliases?.includes(name));
          assert.ok(spec, `${doc}:${line}: no command '${name}'`);
          const flags = flagsOf.get(spec.name)!;
          // The script's own arguments (after `<script>`) are not skills flags.
          const own = name === "run" ? text.split("<script>")[0]! : text;
          for (const m of own.replace(/#.*$/, "").matchAll(/(?:^|[\s[|])--([a-z][a-z-]*)/g)) {
            assert.ok(flags.has(m[1]!), `${doc}:${line}: skills ${name} has no --${m[1]}`);
          }
        }
      }
    });
  }
}

Deno.test("blocks are sorted: marked blocks, plain ones and CI steps", () => {
  const [plain, server, marked, synopsis, other] = fencedBlocks(
    [
      "```sh\nskills list\n```",
      "<!-- doctest: server -->\n\n```sh\nTOKEN=$(openssl rand -hex 32) skills mcp --http :8080\n```",
      "<!-- doctest: not-run: a server -->\n\n```sh\nskills mcp --http 0.0.0.0:8080\n```",
      "<!-- doctest: synopsis -->\n```sh\nskills add <source> [--yes]\n```",
      "```sh\nnpx -y deno@2.9.6 task test\n```",
    ].join("\n\n"),
  );
  assert.equal(blockKind(plain!), "run");
  assert.equal(blockKind(server!), "run", "a $(…) value before skills");
  assert.equal(blockKind(marked!), "not-run");
  assert.equal(blockKind(synopsis!), "synopsis");
  assert.equal(blockKind(other!), "none");

  const [ci] = fencedBlocks(
    "```yaml\n- name: step\n  run: |\n    skills check   # exit 1 on drift\n- name: next\n```",
  ).map(shellOf);
  assert.equal(blockKind(ci!), "run", "a CI step's run: | is shell");
  assert.deepEqual(commandLines(ci!), [{ line: 4, text: "skills check   # exit 1 on drift" }]);
});
