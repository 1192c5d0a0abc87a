/**
 * Audits every skill (every directory with a SKILL.md) of local git mirrors of public skill
 * repositories and prints, per repository, how many skills `add` would refuse (a critical
 * finding) and how many have high findings, with the findings behind them. Data stays out
 * of the repository: pass the mirrors' git directories.
 *
 *   deno run -A scripts/audit_public.ts /path/to/owner+name/repo ...
 */

import { join, relative } from "node:path";
import { type AuditFile, auditSkill } from "../src/core/audit/audit.ts";
import { AUDIT_MAX_FILE_BYTES } from "../src/core/audit/audit_rules.ts";

async function extract(gitDir: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "audit-public-" });
  const archive = new Deno.Command("git", {
    args: ["--git-dir", gitDir, "archive", "--format=tar", "HEAD"],
    stdout: "piped",
  }).spawn();
  const tar = new Deno.Command("tar", { args: ["-x", "-C", dir], stdin: "piped" }).spawn();
  await archive.stdout.pipeTo(tar.stdin);
  await archive.status;
  await tar.status;
  return dir;
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && entry.name !== ".git") yield* walk(path);
    else if (entry.isFile) yield path;
  }
}

for (const gitDir of Deno.args) {
  const root = await extract(gitDir);
  const skills: string[] = [];
  for await (const path of walk(root)) {
    if (path.endsWith("/SKILL.md")) skills.push(path.slice(0, -"/SKILL.md".length));
  }
  let refused = 0;
  let high = 0;
  const notes: string[] = [];
  const started = performance.now();
  for (const skill of skills.sort()) {
    const files: AuditFile[] = [];
    for await (const path of walk(skill)) {
      const bytes = await Deno.readFile(path);
      files.push({
        path: relative(skill, path),
        bytes: bytes.subarray(0, AUDIT_MAX_FILE_BYTES),
        size: bytes.length,
      });
    }
    const report = auditSkill({ files });
    if (report.counts.critical > 0) refused++;
    if (report.counts.high > 0) high++;
    for (const f of report.findings) {
      if (f.severity === "critical" || f.severity === "high") {
        notes.push(
          `  ${f.severity} ${relative(root, skill)} ${f.rule} ${f.file}:${f.line} ${
            f.excerpt.slice(0, 80)
          }`,
        );
      }
    }
  }
  const ms = performance.now() - started;
  console.log(
    `${gitDir}: ${skills.length} skills, refused ${refused}, with high ${high} (${
      ms.toFixed(0)
    } ms)`,
  );
  console.log(notes.join("\n"));
  await Deno.remove(root, { recursive: true });
}
