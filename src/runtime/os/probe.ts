/**
 * Finds external tools: on PATH (`findOnPath`, for the launcher and the sandbox) and with
 * their versions (python3, uv, git, for `skills check`).
 */

import { DELIMITER, isAbsolute, join } from "./paths.ts";

interface ToolProbe {
  name: string;
  command: string;
  found: boolean;
  version: string | null;
  detail: string | null;
}

export async function probeTool(
  name: string,
  command: string,
  args: string[] = ["--version"],
): Promise<ToolProbe> {
  try {
    const output = await new Deno.Command(command, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
    const version = /(\d+\.\d+(?:\.\d+)?)/.exec(text)?.[1] ?? null;
    return {
      name,
      command,
      found: output.success,
      version,
      detail: output.success ? null : text.trim().slice(0, 200),
    };
  } catch (error) {
    const detail = error instanceof Deno.errors.NotFound
      ? "not found on PATH"
      : error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied
      ? "not allowed by this binary's permissions"
      : (error as Error).message;
    return { name, command, found: false, version: null, detail };
  }
}

/** Whether an executable `name` exists in one of env.PATH's directories. */
export function findOnPath(
  name: string,
  env: Readonly<Record<string, string>>,
  os: typeof Deno.build.os = Deno.build.os,
): string | undefined {
  const windows = os === "windows";
  const path = env.PATH ?? env.Path ?? "";
  const names = windows ? [`${name}.exe`, `${name}.cmd`, `${name}.bat`] : [name];
  for (const dir of path.split(windows ? ";" : DELIMITER)) {
    // An empty or relative entry means the working directory: never searched.
    if (dir === "" || !isAbsolute(dir)) continue;
    for (const file of names) {
      const candidate = join(dir, file);
      try {
        // Synchronous: a dozen PATH entries are a dozen tiny lookups on every `skills run`,
        // and the async round trips cost more than the lookups.
        const info = Deno.statSync(candidate);
        if (info.isFile && (windows || ((info.mode ?? 0o111) & 0o111) !== 0)) return candidate;
      } catch { /* not here */ }
    }
  }
  return undefined;
}
