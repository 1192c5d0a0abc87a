import assert from "node:assert/strict";
import { isAbsolute } from "node:path";
import {
  agentDetectDir,
  agentNames,
  agentProjectDir,
  agentRows,
  agentUserDir,
  parseAgentName,
  parseAgentWords,
  peerView,
  renderAgentHelp,
  resolveAgentFolder,
} from "../../src/core/agents.ts";

const env = { HOME: "/home/u" };

Deno.test("every agent row cites the agent's own documentation (an https page) and has both folders", () => {
  assert.ok(agentRows().length >= 15);
  for (const [name, row] of agentRows()) {
    assert.match(row.docs, /^https:\/\/[a-z0-9.-]+\.[a-z]{2,}\//, `${name}: ${row.docs}`);
    assert.match(row.project, /^\.?[a-z0-9._-]+(\/[a-z0-9._-]+)*\/skills$/, `${name}: project`);
    assert.match(row.user, /^(~|\$\{[A-Z_]+:-~[^}]*\})(\/[a-z0-9._-]+)*\/skills$/, `${name}: user`);
    assert.ok(row.label.length > 0, name);
  }
});

Deno.test("parseAgentName() accepts every agent, any case, its aliases and the peer CLI's names", () => {
  for (const name of agentNames()) assert.equal(parseAgentName(name.toUpperCase()), name);
  assert.equal(parseAgentName("Claude-Code"), "claude-code");
  assert.equal(parseAgentName("claude"), "claude-code");
  assert.equal(parseAgentName("gemini-cli"), "gemini");
  assert.equal(parseAgentName("github-copilot"), "copilot");
  assert.equal(parseAgentName("kiro"), "kiro-cli");
  assert.equal(parseAgentName("qwen"), "qwen-code");
  assert.throws(() => parseAgentName("emacs"), /Unknown agent 'emacs'/);
  for (const name of agentNames()) {
    assert.equal(parseAgentName(peerView(name).name), name, `the peer's name for ${name}`);
  }
});

Deno.test("parseAgentWords() splits commas, drops repeats and keeps all-detected apart", () => {
  assert.deepEqual(parseAgentWords(["claude,gemini-cli", "claude-code"]), {
    agents: ["claude-code", "gemini"],
    allDetected: false,
  });
  assert.deepEqual(parseAgentWords(["All-Detected", "roo"]), {
    agents: ["roo"],
    allDetected: true,
  });
  assert.throws(() => parseAgentWords(["roo,vim"]), /Unknown agent 'vim'/);
});

Deno.test("project folders: .claude/skills, the shared .agents/skills, or the agent's own folder", () => {
  assert.deepEqual(agentProjectDir("claude-code"), [".claude", "skills"]);
  assert.deepEqual(agentProjectDir("codex"), [".agents", "skills"]);
  assert.deepEqual(agentProjectDir("windsurf"), [".windsurf", "skills"]);
  assert.deepEqual(agentProjectDir("droid"), [".factory", "skills"]);
});

Deno.test("user folders below the home: ~/.agents/skills, ~/.codeium/windsurf/skills", () => {
  assert.deepEqual(agentUserDir("codex", env, isAbsolute), ["/home/u", ".agents", "skills"]);
  assert.deepEqual(agentUserDir("goose", env, isAbsolute), ["/home/u", ".agents", "skills"]);
  assert.deepEqual(agentUserDir("windsurf", env, isAbsolute), [
    "/home/u",
    ".codeium",
    "windsurf",
    "skills",
  ]);
  assert.throws(() => agentUserDir("codex", {}, isAbsolute), /HOME is not set/);
});

Deno.test("environment overrides: $CLAUDE_CONFIG_DIR and $XDG_CONFIG_HOME, absolute only", () => {
  assert.deepEqual(agentUserDir("claude-code", env, isAbsolute), ["/home/u", ".claude", "skills"]);
  assert.deepEqual(
    agentUserDir("claude-code", { ...env, CLAUDE_CONFIG_DIR: "/etc/claude" }, isAbsolute),
    ["/etc/claude", "skills"],
  );
  assert.deepEqual(
    agentUserDir("claude-code", { ...env, CLAUDE_CONFIG_DIR: "relative" }, isAbsolute),
    ["/home/u", ".claude", "skills"],
  );
  assert.deepEqual(agentDetectDir("opencode", env, isAbsolute), ["/home/u", ".config", "opencode"]);
  assert.deepEqual(
    agentDetectDir("opencode", { ...env, XDG_CONFIG_HOME: "/cfg" }, isAbsolute),
    ["/cfg", "opencode"],
  );
  assert.deepEqual(agentDetectDir("codex", { ...env, CODEX_HOME: "/opt/codex" }, isAbsolute), [
    "/opt/codex",
  ]);
  assert.deepEqual(resolveAgentFolder("${X:-~/.x}/a/b", { ...env, X: "" }, isAbsolute), {
    start: "/home/u",
    path: [".x", "a", "b"],
  });
});

Deno.test("link's help lists every agent and every name it answers to", () => {
  const help = renderAgentHelp();
  for (const [name, row] of agentRows()) {
    const line = help.split("\n").find((l) => l.trimStart().startsWith(`${name}`));
    assert.ok(line, name);
    assert.ok(line.includes(row.project) && line.includes(row.user), line);
  }
  assert.match(help, /all-detected/);
});
