import assert from "node:assert/strict";
import {
  agentNames,
  agentProjectDir,
  agentUserDir,
  parseAgentName,
} from "../../src/core/agents.ts";

const isAbsolute = (p: string) => p.startsWith("/");

Deno.test("parseAgentName() accepts every agent, any case and the usual aliases", () => {
  assert.deepEqual(agentNames(), [
    "claude-code",
    "codex",
    "gemini",
    "opencode",
    "goose",
    "cursor",
    "copilot",
  ]);
  assert.equal(parseAgentName("Claude-Code"), "claude-code");
  assert.equal(parseAgentName("claude"), "claude-code");
  assert.equal(parseAgentName("gemini-cli"), "gemini");
  assert.equal(parseAgentName("github-copilot"), "copilot");
  assert.throws(() => parseAgentName("emacs"), /Unknown agent 'emacs'/);
});

Deno.test("each agent's project folder: .claude/skills for Claude Code, .agents/skills for the others", () => {
  assert.deepEqual(agentProjectDir("claude-code"), [".claude", "skills"]);
  for (const agent of ["codex", "gemini", "opencode", "goose", "cursor", "copilot"] as const) {
    assert.deepEqual(agentProjectDir(agent), [".agents", "skills"], agent);
  }
});

Deno.test("agentUserDir() follows HOME, XDG_CONFIG_HOME and CLAUDE_CONFIG_DIR (absolute only)", () => {
  const env = { HOME: "/home/u" };
  assert.deepEqual(agentUserDir("claude-code", env, isAbsolute), ["/home/u", ".claude", "skills"]);
  assert.deepEqual(agentUserDir("codex", env, isAbsolute), ["/home/u", ".agents", "skills"]);
  assert.deepEqual(agentUserDir("goose", env, isAbsolute), [
    "/home/u",
    ".config",
    "agents",
    "skills",
  ]);
  assert.deepEqual(
    agentUserDir("goose", { ...env, XDG_CONFIG_HOME: "/cfg" }, isAbsolute),
    ["/cfg", "agents", "skills"],
  );
  assert.deepEqual(
    agentUserDir("claude-code", { ...env, CLAUDE_CONFIG_DIR: "relative" }, isAbsolute),
    ["/home/u", ".claude", "skills"],
  );
  assert.throws(() => agentUserDir("codex", {}, isAbsolute), /HOME is not set/);
});
