/**
 * Every link between our documents resolves: the file (or folder) exists, and an `#anchor`
 * names a heading of the document it points into. A moved section breaks this test, not a
 * reader's click.
 */

import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { REPO_ROOT } from "../helpers/cli.ts";
import { anchors, documents, links, slug } from "./markdown.ts";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** What is wrong with every relative link in `doc`, as `doc:line: target: why`. */
export function brokenLinks(doc: string): string[] {
  const text = Deno.readTextFileSync(join(REPO_ROOT, doc));
  const broken: string[] = [];
  for (const { line, target } of links(text)) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
    const [path = "", anchor] = target.split("#", 2);
    const file = path === ""
      ? join(REPO_ROOT, doc)
      : normalize(join(REPO_ROOT, dirname(doc), path));
    const where = `${doc}:${line}: ${target}`;
    if (relative(REPO_ROOT, file).startsWith("..")) {
      broken.push(`${where}: leaves the repository`);
    } else if (!exists(file)) {
      broken.push(`${where}: no such file`);
    } else if (anchor !== undefined && !anchors(Deno.readTextFileSync(file)).has(anchor)) {
      broken.push(`${where}: no heading with that anchor`);
    }
  }
  return broken;
}

Deno.test("every relative link and #anchor in README.md and docs/ resolves", () => {
  const broken = documents().flatMap(brokenLinks);
  assert.deepEqual(broken, []);
});

Deno.test("anchors are GitHub's: punctuation dropped, spaces as hyphens, repeats numbered", () => {
  assert.equal(slug("Scripts: `--help` and `--json`"), "scripts---help-and---json");
  assert.equal(
    slug("`skills scripts [<skill>] [--json]` and `skills run`"),
    "skills-scripts-skill---json-and-skills-run",
  );
  assert.deepEqual([...anchors("# A\n\n## Two\n\n```sh\n# not a heading\n```\n\n## Two\n")], [
    "a",
    "two",
    "two-1",
  ]);
});

Deno.test("a link to a missing anchor is reported with its line", async () => {
  const dir = await Deno.makeTempDir({ dir: join(REPO_ROOT, "docs"), prefix: ".links-test-" });
  try {
    const doc = relative(REPO_ROOT, join(dir, "a.md"));
    await Deno.writeTextFile(join(dir, "a.md"), "# A\n\nSee [b](../security.md#no-such-part).\n");
    assert.deepEqual(brokenLinks(doc), [
      `${doc}:3: ../security.md#no-such-part: no heading with that anchor`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
