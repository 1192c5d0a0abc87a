/** Finds external tools (python3, uv, git) and their versions for `skills check`. */

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
