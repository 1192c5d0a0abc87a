import assert from "node:assert/strict";
import { heldBackReason, heldBackRoot } from "../../src/core/policy/workspace.ts";

Deno.test("heldBackReason() holds back any .git at any depth, file or folder", () => {
  for (
    const rel of [".git", ".git/config", "sub/.git", "a/b/c/.git/hooks/pre-commit", ".GIT/config"]
  ) {
    assert.equal(heldBackReason(rel), "git", rel);
  }
});

Deno.test("heldBackReason() holds back agent, editor, shell, package-manager and CI settings", () => {
  const cases: [string, string][] = [
    [".claude/settings.json", "agent or editor settings"],
    ["packages/web/.vscode/tasks.json", "agent or editor settings"],
    [".cursor/rules", "agent or editor settings"],
    [".mcp.json", "agent or editor settings"],
    [".envrc", "shell start-up"],
    ["deep/.bashrc", "shell start-up"],
    [".npmrc", "package-manager configuration"],
    [".yarnrc.yml", "package-manager configuration"],
    [".pre-commit-config.yaml", "package-manager configuration"],
    [".github/workflows/ci.yml", "CI workflows"],
    ["svc/.github/actions/x/action.yml", "CI workflows"],
    ["skills-lock.json", "the skills lockfile"],
  ];
  for (const [rel, reason] of cases) assert.equal(heldBackReason(rel), reason, rel);
});

Deno.test("heldBackReason() lets ordinary project files through, .venv and node_modules too", () => {
  for (
    const rel of [
      "out/report.json",
      ".github/ISSUE_TEMPLATE.md",
      ".venv/lib/python3.11/site-packages/x.pth",
      "node_modules/left-pad/index.js",
      "a/b/c/d/e/f/g/benchmark.json",
      "gitconfig.txt",
    ]
  ) assert.equal(heldBackReason(rel), undefined, rel);
});

Deno.test("heldBackRoot() names the shallowest guarded part", () => {
  assert.equal(heldBackRoot("sub/.git/hooks/post-checkout"), "sub/.git");
  assert.equal(heldBackRoot(".github/workflows/ci.yml"), ".github/workflows");
  assert.equal(heldBackRoot(".mcp.json"), ".mcp.json");
  assert.equal(heldBackRoot("src/main.ts"), undefined);
});
