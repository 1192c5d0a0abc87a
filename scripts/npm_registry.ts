/**
 * verdaccio, a real npm registry, installed from npm into a cache folder so the npm-source
 * tests publish to and install from the real thing on a loopback port
 * (tests/e2e/sources/npm_source_test.ts, tests/helpers/npm_registry.ts). The version is pinned.
 *
 *   deno run -A scripts/npm_registry.ts      # install (once; .ci/run does this) and print the path
 *
 * verdaccio 6 depends (through its request library) on `node-fetch@cjs`, a dist-tag the npm
 * registry does not serve any more; the install pins that one dependency to node-fetch 2.7.0,
 * the CommonJS line the tag named. The folder is `$SKILLS_VERDACCIO_DIR`, else
 * `$XDG_CACHE_HOME/skills-tests/…`, else `~/.cache/skills-tests/…`, filled in a temporary
 * sibling and renamed into place, so tests running in parallel never see half an install.
 */

import { dirname, join } from "node:path";

const VERDACCIO_VERSION = "6.1.6";

function cacheDir(): string {
  const explicit = Deno.env.get("SKILLS_VERDACCIO_DIR");
  if (explicit) return explicit;
  const base = Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/tmp", ".cache");
  return join(base, "skills-tests", `verdaccio-${VERDACCIO_VERSION}`);
}

/** verdaccio's entry script (run with the `node` on PATH). */
function entryIn(dir: string): string {
  return join(dir, "node_modules", "verdaccio", "bin", "verdaccio");
}

async function present(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** The installed verdaccio, installing it first when the cache does not hold it. Throws when npm fails. */
export async function ensureVerdaccio(): Promise<string> {
  const dir = cacheDir();
  const entry = entryIn(dir);
  if (await present(entry)) return entry;
  await Deno.mkdir(dirname(dir), { recursive: true });
  const temp = await Deno.makeTempDir({ dir: dirname(dir), prefix: ".verdaccio-" });
  try {
    await Deno.writeTextFile(
      join(temp, "package.json"),
      JSON.stringify({
        private: true,
        dependencies: { verdaccio: VERDACCIO_VERSION },
        overrides: { "node-fetch": "2.7.0" },
      }),
    );
    const npm = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", temp],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!npm.success) {
      throw new Error(
        `npm could not install verdaccio@${VERDACCIO_VERSION}: ${
          new TextDecoder().decode(npm.stderr)
        }`,
      );
    }
    await Deno.rename(temp, dir).catch(async (error) => {
      if (!(await present(entry))) throw error;
    });
  } finally {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
  }
  if (!(await present(entryIn(dir)))) {
    throw new Error(`verdaccio is not where it was installed: ${dir}`);
  }
  return entryIn(dir);
}

if (import.meta.main) console.log(await ensureVerdaccio());
