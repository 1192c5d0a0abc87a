/**
 * Test skills installed into a temp `$SKILLS_HOME` the way `skills add` leaves them: files
 * under the home, a registry entry, and (when trusted) the digest of the files.
 */

import { dirname, join } from "node:path";
import { computeDigest } from "../../src/runtime/trust/file_hashes.ts";
import { localEntry, registerEntries } from "./install_fixture.ts";

export interface InstallOptions {
  trusted?: boolean;
  /** Symlinks to create: relative path in the skill → target. */
  symlinks?: Record<string, string>;
}

/** Writes `files` (relative path → text or bytes) to `$home/<name>` and registers it. */
export async function installSkill(
  home: string,
  name: string,
  files: Record<string, string | Uint8Array>,
  options: InstallOptions = {},
): Promise<string> {
  const dir = join(home, name);
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    await Deno.mkdir(dirname(target), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(target, content);
    else await Deno.writeFile(target, content);
  }
  for (const [path, target] of Object.entries(options.symlinks ?? {})) {
    await Deno.mkdir(dirname(join(dir, path)), { recursive: true });
    await Deno.symlink(target, join(dir, path));
  }
  const trusted = options.trusted ?? true;
  const now = new Date().toISOString();
  await registerEntries(
    home,
    localEntry(name, dir, {
      trusted,
      trusted_digest: trusted ? await computeDigest(dir) : null,
      installed_at: now,
      updated_at: now,
    }),
  );
  return dir;
}

/** A SKILL.md with the given front matter lines and body. */
export function skillMd(name: string, frontMatter: string[], body: string): string {
  return [
    "---",
    `name: ${name}`,
    `description: Test skill ${name}.`,
    ...frontMatter,
    "---",
    "",
    body,
    "",
  ].join("\n");
}

/** A toolset class with `ping`, a slow `sleep` and a `crash` that kills the host. */
export const LIMITED_TOOLSET = `
import os, time
from typing import Annotated

class Limited:
    """A toolset used by tests."""

    def ping(self, text: Annotated[str, "Text to echo"] = "pong") -> str:
        """Echo the text."""
        return text

    def sleep(self, seconds: float) -> str:
        """Sleep for a while."""
        time.sleep(seconds)
        return "slept"

    def crash(self) -> None:
        """End the host process abruptly."""
        os._exit(9)

    def env(self, name: str):
        """Read an environment variable."""
        return os.environ.get(name)
`;

/** `limited`: a trusted skill with one good toolset, one that fails to import, a script. */
export async function installLimited(
  home: string,
  allowedTools = "limited__*",
  extra: string[] = [],
): Promise<string> {
  return await installSkill(home, "limited", {
    "SKILL.md": skillMd("limited", [
      `allowed-tools: ${allowedTools}`,
      "toolsets:",
      "  - tools.limited:Limited",
      "  - tools.broken:Broken",
      ...extra,
    ], "# Limited\n\nLIMITED-BODY-MARKER: use limited__ping."),
    "tools/__init__.py": "",
    "tools/limited.py": LIMITED_TOOLSET,
    "tools/broken.py": "import module_that_does_not_exist\n",
    "scripts/echo.py": "import sys, json\nprint(json.dumps({'args': sys.argv[1:]}))\n",
  });
}
