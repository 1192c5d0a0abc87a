/**
 * Live catalogs for the long-running surfaces (`skills mcp`, `skills chat`, the library):
 * a skill added, updated, trusted, untrusted or removed by another command is seen without
 * a restart. The change signal is cheap: every lifecycle command replaces
 * `$SKILLS_HOME/registry.json` atomically (a new inode, size and mtime), and a project's
 * `skills-lock.json` and skill folders change with `skills add --project`, so a few stats
 * per tick tell whether to load the catalog again; nothing is parsed while nothing changed.
 * Subscribers get the new catalog and the active skills; what a changed skill serves is
 * still checked against its trusted digest on every read (ToolSurface.served).
 */

import { type Context, debug } from "../../core/io.ts";
import type { Catalog } from "../../runtime/catalog/catalog.ts";
import { openSession, type Session } from "../../runtime/catalog/catalog_session.ts";
import { registryPath } from "../../runtime/store/registry.ts";
import { join } from "../../runtime/os/paths.ts";

/** How often a watch with a timer looks (a few stats each time). */
export const CATALOG_POLL_MS = 500;

export interface CatalogView {
  catalog: Catalog;
  /** Canonical names of the active skills. */
  active: ReadonlySet<string>;
}

export interface CatalogWatchOptions {
  home: string;
  /** Loads the catalog afresh and decides which skills are active. */
  load(): Promise<CatalogView>;
  /** The view the caller started with (its stamp is taken now). */
  initial: CatalogView;
  log?: (message: string) => void;
}

type Listener = (view: CatalogView) => Promise<unknown> | unknown;

/** The files whose stat changes when the catalog does. */
function watchedPaths(home: string, catalog: Catalog): string[] {
  const paths = [registryPath(home)];
  const project = catalog.project;
  if (project !== undefined) {
    paths.push(project.lock.path);
    for (const dir of [".agents/skills", ".claude/skills"]) {
      paths.push(join(project.root.root, dir));
    }
  }
  return paths;
}

/** Inode, size and modification time of each path ("-" when absent). */
function stampOf(paths: readonly string[]): string {
  return paths.map((path) => {
    try {
      const info = Deno.statSync(path);
      return `${info.ino ?? ""}:${info.size}:${info.mtime?.getTime() ?? ""}`;
    } catch {
      return "-";
    }
  }).join("|");
}

export class CatalogWatch {
  readonly #options: CatalogWatchOptions;
  #view: CatalogView;
  #paths: string[];
  #stamp: string;
  #checking: Promise<boolean> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #listeners = new Set<Listener>();

  constructor(options: CatalogWatchOptions) {
    this.#options = options;
    this.#view = options.initial;
    this.#paths = watchedPaths(options.home, options.initial.catalog);
    // Unknown: a change made while the initial view was loading would otherwise be stamped
    // as seen. The first check loads once more (subscribers hear only of real changes).
    this.#stamp = "";
  }

  /** The latest catalog and active skills. */
  get view(): CatalogView {
    return this.#view;
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Loads the catalog again when its files changed, and hands it to every subscriber (after
   * they have taken it). True when it changed. Concurrent calls share one check.
   */
  check(): Promise<boolean> {
    if (this.#checking !== undefined) return this.#checking;
    if (stampOf(this.#paths) === this.#stamp) return Promise.resolve(false);
    this.#checking = this.#reload().finally(() => this.#checking = undefined);
    return this.#checking;
  }

  async #reload(): Promise<boolean> {
    // Stamp first: a change made while loading is seen by the next check.
    const stamp = stampOf(this.#paths);
    let view: CatalogView;
    try {
      view = await this.#options.load();
    } catch (error) {
      // A registry caught mid-change or unreadable: keep looking, say why once per change.
      this.#options.log?.(`Cannot load the changed catalog: ${(error as Error).message}`);
      this.#stamp = stamp;
      return false;
    }
    this.#view = view;
    const paths = watchedPaths(this.#options.home, view.catalog);
    // Other paths (a project appeared): stamp them now; else keep the stamp taken before.
    this.#stamp = paths.join("\n") === this.#paths.join("\n") ? stamp : stampOf(paths);
    this.#paths = paths;
    await Promise.all([...this.#listeners].map(async (listener) => {
      try {
        await listener(view);
      } catch (error) {
        this.#options.log?.(`A catalog subscriber failed: ${(error as Error).message}`);
      }
    }));
    return true;
  }

  /** Looks every `intervalMs`; `unref` lets the program exit while it watches (the library). */
  start(intervalMs = CATALOG_POLL_MS, unref = false): void {
    if (this.#timer !== undefined) return;
    const timer = setInterval(() => void this.check(), intervalMs);
    if (unref) Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#listeners.clear();
  }
}

/**
 * The watch `skills chat` and `skills mcp` keep over the session they opened (with
 * `skillsOverride`, their `--skills`): reloaded the same way when the catalog changes, its
 * activation warnings then only debug lines (they were said at start). Not started yet.
 */
export function watchSession(
  ctx: Context,
  session: Session,
  skillsOverride: string | undefined,
  log: (message: string) => void,
): CatalogWatch {
  return new CatalogWatch({
    home: session.home,
    initial: { catalog: session.catalog, active: session.active },
    load: async () => {
      const again = await openSession(ctx, skillsOverride);
      for (const warning of again.activationWarnings) debug(ctx, warning);
      return { catalog: again.catalog, active: again.active };
    },
    log,
  });
}
