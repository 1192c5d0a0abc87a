/** Opens tool surfaces the same way for `skills chat`, `skills context` and the benchmarks. */

import { UsageError } from "../../core/errors.ts";
import type { Catalog } from "../../runtime/catalog/catalog.ts";
import { resolve } from "../../runtime/os/paths.ts";
import { allowedToolsEnabled } from "../surface/allowed_tools.ts";
import type { CatalogWatch } from "../surface/catalog_watch.ts";
import { createToolSurface } from "../surface/tools.ts";
import type { ToolSurface, ToolSurfaceOptions } from "../surface/tool_surface.ts";

export interface SurfaceFactoryOptions {
  home: string;
  catalog: Catalog;
  env: Readonly<Record<string, string>>;
  /** Warnings and debug lines (stderr). */
  log?: (message: string) => void;
  /** `AGENT_SKILLS=all-untrusted`: untrusted skills' code may run. */
  allowUntrusted?: boolean;
  /** The user's directory, shown read-only to sandboxed scripts. */
  cwd?: string;
  /** Surfaces follow the catalog as other commands change it (mcp, chat). */
  catalogWatch?: CatalogWatch;
  /**
   * `<location>` in what the model is told: MCP's resource URI (`mcp`: a client can read
   * it), else none (`chat`: the model activates skills by name). Never a host path: an HTTP
   * client or a provider would see the server's folders.
   */
  location?: "resource";
  /** `chat --review`: asked before a script's changes to the workspace are applied. */
  reviewWorkspace?: ToolSurfaceOptions["reviewWorkspace"];
}

/** A function that opens a fresh surface for a set of active skills. */
export function surfaceFactory(
  options: SurfaceFactoryOptions,
): (active: ReadonlySet<string>) => Promise<ToolSurface> {
  const enforceAllowedTools = allowedToolsEnabled(options.env.SKILLS_ALLOWED_TOOLS);
  return (active) =>
    createToolSurface({
      home: options.home,
      // A watched catalog: the newest view (a new session opens on what is installed now).
      catalog: options.catalogWatch?.view.catalog ?? options.catalog,
      active,
      env: options.env,
      enforceAllowedTools,
      ...(options.location ? { includeLocation: options.location } : {}),
      allowUntrusted: options.allowUntrusted === true,
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.catalogWatch ? { catalogWatch: options.catalogWatch } : {}),
      ...(options.reviewWorkspace ? { reviewWorkspace: options.reviewWorkspace } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
}

/**
 * The workspace of `chat` and `mcp` surfaces: `--workspace DIR` (relative to where the command
 * runs), or that directory. A folder that is not there is a usage error, said at start.
 */
export function workspaceDir(cwd: string, given: string | undefined): string {
  if (given === undefined) return cwd;
  const dir = resolve(cwd, given);
  let isDirectory = false;
  try {
    isDirectory = Deno.statSync(dir).isDirectory;
  } catch { /* reported below */ }
  if (!isDirectory) {
    throw new UsageError(
      `Invalid --workspace '${given}': not a folder`,
      "Name the folder scripts should run in and may write",
    );
  }
  return dir;
}
