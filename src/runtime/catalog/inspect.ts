/**
 * Full validation of one skill directory, as `skills validate` and `skills add` need it:
 * the whole SKILL.md, symlinks anywhere in the skill, scripts, toolset modules.
 */

import { join, relative, resolve } from "../os/paths.ts";
import { type Diagnostic, type Manifest, parseSkillMd } from "../../core/manifest.ts";
import { VERSION } from "../../core/version.ts";
import { isWithin, lstatSyncOrNull, readPrefixSync } from "../os/fs.ts";
import { loadSkillDir, SkillLoadError, type SkillRecord } from "./loader.ts";

/** SKILL.md larger than this is refused outright (bounded memory). */
export const MAX_SKILL_MD_BYTES = 2 * 1024 * 1024;
const MAX_WALK_ENTRIES = 20_000;

export interface InspectResult {
  dir: string;
  manifest: Manifest | undefined;
  record: SkillRecord | undefined;
  diagnostics: Diagnostic[];
}

export interface InspectOptions {
  strict?: boolean;
}

/**
 * Filesystem calls here are synchronous: a skill is a handful of small files, and the
 * per-call cost of async ops would dominate `skills add` of one skill.
 */
export async function inspectSkillDir(
  dirInput: string,
  options: InspectOptions = {},
): Promise<InspectResult> {
  const dir = resolve(dirInput);
  const diagnostics: Diagnostic[] = [];
  const skillMd = join(dir, "SKILL.md");
  const result: InspectResult = { dir, manifest: undefined, record: undefined, diagnostics };
  const error = (message: string, file = skillMd, line?: number) =>
    diagnostics.push(
      line === undefined
        ? { level: "error", file, message }
        : { level: "error", file, line, message },
    );

  const dirInfo = lstatSyncOrNull(dir);
  if (dirInfo === null) {
    error(`directory not found: ${dirInput}`, dir);
    return result;
  }
  if (dirInfo.isSymlink) {
    error("skill directory is a symlink (refused)", dir);
    return result;
  }
  if (!dirInfo.isDirectory) {
    error("not a directory", dir);
    return result;
  }
  const mdInfo = lstatSyncOrNull(skillMd);
  if (mdInfo === null) {
    error("SKILL.md not found");
    return result;
  }
  if (mdInfo.isSymlink) {
    error("SKILL.md is a symlink (refused)");
    return result;
  }
  if (!mdInfo.isFile) {
    error("SKILL.md is not a regular file");
    return result;
  }
  if (mdInfo.size > MAX_SKILL_MD_BYTES) {
    error(`SKILL.md is ${mdInfo.size} bytes (max ${MAX_SKILL_MD_BYTES})`);
    return result;
  }

  checkSymlinks(dir, diagnostics);

  const bytes = Deno.readFileSync(skillMd);
  const dirName = dir.split(/[\\/]/).pop() ?? "";
  const parsed = await parseSkillMd(bytes, skillMd, {
    strict: options.strict ?? false,
    dirName,
    cliVersion: VERSION,
  });
  diagnostics.push(...parsed.diagnostics);
  result.manifest = parsed.manifest;
  if (parsed.manifest === undefined || diagnostics.some((d) => d.level === "error")) return result;

  if (parsed.body.trim() === "") {
    diagnostics.push({
      level: "warning",
      file: skillMd,
      line: parsed.bodyLine,
      message: "SKILL.md has no instructions after the front matter",
    });
  }

  try {
    result.record = await loadSkillDir(dir, join(dir, ".."), {
      origin: "local",
      trusted: false,
      strict: options.strict ?? false,
      parsed,
    });
    // Keep the loader's script warnings (its manifest warnings are ours already).
    for (const w of result.record.warnings) {
      if (!diagnostics.some((d) => d.message === w.message)) diagnostics.push(w);
    }
  } catch (e) {
    if (!(e instanceof SkillLoadError)) throw e;
    error(e.message, dir);
    return result;
  }

  for (const ref of parsed.manifest.toolsets) {
    const modulePath = ref.split(":")[0]!.replaceAll(".", "/");
    const candidates = [join(dir, `${modulePath}.py`), join(dir, modulePath, "__init__.py")];
    if (!candidates.some((path) => lstatSyncOrNull(path)?.isFile)) {
      error(`toolset '${ref}': ${modulePath}.py not found in the skill`, skillMd);
    }
  }
  for (const script of result.record.scripts) {
    const head = new TextDecoder().decode(readPrefixSync(script.path, 4096).bytes);
    if (!head.includes("# /// script")) {
      diagnostics.push({
        level: "warning",
        file: script.path,
        message: "no PEP 723 '# /// script' block; it will run with plain python3",
      });
    }
  }
  return result;
}

/** Every symlink inside the skill is reported; one that leaves the skill is an error. */
function checkSymlinks(root: string, diagnostics: Diagnostic[]): void {
  let seen = 0;
  const realRoot = Deno.realPathSync(root);
  const walk = (dir: string): void => {
    for (const entry of Deno.readDirSync(dir)) {
      if (++seen > MAX_WALK_ENTRIES) {
        diagnostics.push({
          level: "error",
          file: root,
          message: `skill has more than ${MAX_WALK_ENTRIES} files`,
        });
        return;
      }
      const path = join(dir, entry.name);
      if (entry.isSymlink) {
        let target: string | undefined;
        try {
          target = Deno.realPathSync(path);
        } catch { /* dangling */ }
        const rel = relative(root, path);
        if (target === undefined || !isWithin(realRoot, target)) {
          diagnostics.push({
            level: "error",
            file: path,
            message: `symlink ${rel} points outside the skill (refused)`,
          });
        } else {
          diagnostics.push({ level: "warning", file: path, message: `symlink ${rel} is ignored` });
        }
      } else if (entry.isDirectory && entry.name !== ".git") {
        walk(path);
      }
    }
  };
  walk(root);
}
