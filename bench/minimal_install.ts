/**
 * The least a Deno program can do to install one skill from a local bare repository, for
 * the informational floor row of bench/rows/add.ts: the same git reads as `skills add`
 * (one `git cat-file --batch`: HEAD's commit, its trees, its blobs), the files written,
 * each hashed, and a registry written atomically with fsync. It has none of what makes the
 * install safe: no validation, no lock, no journal, no staging ownership, no signal
 * handling, no error messages. Usage: minimal_install.ts <bare repo> <home>
 */

const [gitDir, home] = Deno.args as [string, string];
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const git = new Deno.Command("git", {
  args: [`--git-dir=${gitDir}`, "cat-file", "--batch"],
  stdin: "piped",
  stdout: "piped",
}).spawn();
const writer = git.stdin.getWriter();
const reader = git.stdout.getReader();
let buffered = new Uint8Array(0);

async function readMore(): Promise<void> {
  const { value, done } = await reader.read();
  if (done) throw new Error("git stopped answering");
  const merged = new Uint8Array(buffered.length + value.length);
  merged.set(buffered);
  merged.set(value, buffered.length);
  buffered = merged;
}

/** Asks for every name at once and reads the objects back in order. */
async function objects(names: string[]): Promise<Uint8Array[]> {
  void writer.write(encoder.encode(names.join("\n") + "\n"));
  const out: Uint8Array[] = [];
  for (const _ of names) {
    let newline;
    while ((newline = buffered.indexOf(10)) < 0) await readMore();
    const size = Number(decoder.decode(buffered.subarray(0, newline)).split(" ")[2]);
    while (buffered.length < newline + size + 2) await readMore();
    out.push(buffered.slice(newline + 1, newline + 1 + size));
    buffered = buffered.subarray(newline + size + 2);
  }
  return out;
}

const hex = (bytes: Uint8Array) =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

const head = Deno.readTextFileSync(`${gitDir}/HEAD`).trim().slice("ref: ".length);
const [commit] = await objects([`${head}^{commit}`]);
let level = [{ oid: decoder.decode(commit!.subarray(5, 45)), path: "" }];
const files: { oid: string; path: string; mode: string }[] = [];
while (level.length > 0) {
  const trees = await objects(level.map((t) => t.oid));
  const next: typeof level = [];
  trees.forEach((tree, i) => {
    for (let at = 0; at < tree.length;) {
      const space = tree.indexOf(32, at);
      const nul = tree.indexOf(0, space);
      const mode = decoder.decode(tree.subarray(at, space));
      const name = decoder.decode(tree.subarray(space + 1, nul));
      const path = level[i]!.path ? `${level[i]!.path}/${name}` : name;
      const oid = hex(tree.subarray(nul + 1, nul + 21));
      if (mode === "40000") next.push({ oid, path });
      else files.push({ oid, path, mode });
      at = nul + 21;
    }
  });
  level = next;
}

const dest = `${home}/skills/bench-markets`;
const blobs = await objects(files.map((f) => f.oid));
await writer.close();
await git.status;
const lines: string[] = [];
for (const [i, file] of files.entries()) {
  const target = `${dest}/${file.path}`;
  Deno.mkdirSync(target.slice(0, target.lastIndexOf("/")), { recursive: true });
  Deno.writeFileSync(target, blobs[i]!, { mode: file.mode === "100755" ? 0o755 : 0o644 });
  const digest = await crypto.subtle.digest("SHA-256", Deno.readFileSync(target));
  lines.push(`${file.path} ${hex(new Uint8Array(digest))}`);
}
const digest = hex(
  new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(lines.join("\n")))),
);
const registry = Deno.openSync(`${home}/registry.json.tmp`, { write: true, create: true });
registry.writeSync(encoder.encode(JSON.stringify({ skills: { "bench-markets": { digest } } })));
registry.syncSync();
registry.close();
Deno.renameSync(`${home}/registry.json.tmp`, `${home}/registry.json`);
console.log(`Installed bench-markets (${digest.slice(0, 12)})`);
