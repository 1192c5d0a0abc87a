/**
 * `skills add --skill '*'` through the real CLI from a real git repository laid out as the
 * public collections are (skills/<name>/, skills/.curated/<name>/), holding every benign
 * look-alike of the labelled corpus (installer docs, Dockerfile templates, security
 * references describing attacks, detection rules, scripts whose comments describe what they
 * avoid): every one installs, none is refused. The hostile scripts of the corpus, published
 * the same way, are refused, but for persistence, which installs showing its high findings.
 */

import assert from "node:assert/strict";
import { userHome } from "../../helpers/user_home.ts";
import { LABELLED_CORPUS, type LabelledSample } from "../../fixtures/audit_corpus/labelled.ts";
import { createRepo } from "../../fixtures/git_repos.ts";

/** Each sample as its own skill (named after its id) in a collection's layout. */
function collection(samples: readonly LabelledSample[]): Record<string, string> {
  const files: Record<string, string> = {};
  samples.forEach((sample, i) => {
    const folder = i % 2 === 0 ? `skills/${sample.id}` : `skills/.curated/${sample.id}`;
    for (const [path, text] of Object.entries(sample.files)) {
      files[`${folder}/${path}`] = path === "SKILL.md"
        ? text.replace(/^name: sample$/m, `name: ${sample.id}`)
        : text;
    }
  });
  return files;
}

interface AddResult {
  installed: { name: string; audit: { counts: Record<string, number> } }[];
  refused: unknown[];
}

Deno.test("installing every benign look-alike of the corpus from a collection refuses none", async () => {
  await using ws = await userHome();
  const benign = LABELLED_CORPUS.filter((s) => !s.hostile);
  const repo = await createRepo(ws.dir.path, "collection", collection(benign));
  const result = await ws.cli(["add", repo.url, "--skill", "*", "--yes", "--json"]);
  assert.equal(result.code, 0, result.stderr);
  const added = JSON.parse(result.stdout) as AddResult;
  assert.deepEqual(added.refused, []);
  assert.deepEqual(added.installed.map((s) => s.name).sort(), benign.map((s) => s.id).sort());
  const critical = added.installed.filter((s) => s.audit.counts.critical! > 0);
  assert.deepEqual(critical.map((s) => s.name), []);
});

Deno.test("the corpus's hostile scripts published as a collection: critical ones refused, the rest shown with high findings", async () => {
  await using ws = await userHome();
  const scripts = LABELLED_CORPUS.filter((s) =>
    s.hostile && Object.keys(s.files).some((path) => path.startsWith("scripts/"))
  );
  const repo = await createRepo(ws.dir.path, "tools", collection(scripts));
  const result = await ws.cli(["add", repo.url, "--skill", "*", "--yes", "--json"]);
  assert.equal(result.code, 1, result.stderr);
  const added = JSON.parse(result.stdout) as AddResult;
  // Only persistence that downloads nothing (a cron entry, a launch agent, a key in
  // authorized_keys) installs, after the user saw its high findings and agreed: every other
  // hostile script is refused.
  const installed = added.installed.map((s) => s.name).sort();
  const persistent = scripts.filter((s) =>
    s.family === "persistence" && !Object.values(s.files).some((t) => /\b(?:curl|wget)\b/.test(t))
  );
  assert.deepEqual(installed, persistent.map((s) => s.id).sort());
  for (const skill of added.installed) assert.ok(skill.audit.counts.high! > 0, skill.name);
  assert.equal(added.refused.length, scripts.length - installed.length);
});
