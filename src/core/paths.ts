/**
 * Path helpers with node:path's semantics for the handful of functions we use. Importing
 * any `node:` module starts Deno's Node compatibility layer, about 7 ms on every command;
 * these few functions do not need it. POSIX rules everywhere, Windows rules (either
 * separator, drive and UNC roots, `\` in results) when running on Windows.
 */

const WINDOWS = Deno.build.os === "windows";

export const SEP = WINDOWS ? "\\" : "/";
/** The PATH list separator. */
export const DELIMITER = WINDOWS ? ";" : ":";

const SEPARATORS = WINDOWS ? /[\\/]+/ : /\/+/;

/** The root of an absolute path ("/", "C:\", "\\server\share\"), or "" when relative. */
function rootOf(path: string): string {
  if (!WINDOWS) return path.startsWith("/") ? "/" : "";
  const unc = /^[\\/]{2}[^\\/]+[\\/]+[^\\/]+[\\/]*/.exec(path);
  if (unc) return unc[0].replace(/[\\/]+/g, "\\").replace(/\\?$/, "\\");
  const drive = /^[A-Za-z]:[\\/]/.exec(path);
  if (drive) return `${path.slice(0, 2)}\\`;
  return /^[\\/]/.test(path) ? "\\" : "";
}

export function isAbsolute(path: string): boolean {
  return rootOf(path) !== "";
}

/** A POSIX path with nothing to normalise: no empty, `.` or `..` segment. */
const NEEDS_WORK = /\/\/|(?:^|\/)\.{1,2}(?:\/|$)/;

/** Resolves `.` and `..` segments and repeated separators; keeps a trailing separator. */
export function normalize(path: string): string {
  if (path === "") return ".";
  // Listing a thousand skills normalises thousands of clean paths: skip the split.
  if (!WINDOWS && !NEEDS_WORK.test(path)) return path;
  const root = rootOf(path);
  const segments: string[] = [];
  for (const segment of path.slice(root.length).split(SEPARATORS)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length > 0 && segments[segments.length - 1] !== "..") segments.pop();
      else if (root === "") segments.push("..");
      continue;
    }
    segments.push(segment);
  }
  const body = segments.join(SEP);
  const trailing = SEPARATORS.test(path.slice(-1)) ? SEP : "";
  if (root !== "") return root + body + (body === "" ? "" : trailing);
  return (body === "" ? "." : body) + trailing;
}

export function join(...parts: string[]): string {
  const present = parts.filter((part) => part !== "");
  return present.length === 0 ? "." : normalize(present.join(SEP));
}

/** An absolute path: `parts` resolved right to left, then against the working directory. */
export function resolve(...parts: string[]): string {
  if (parts.length === 1 && isAbsolute(parts[0]!)) return stripTrailing(normalize(parts[0]!));
  let path = "";
  for (let i = parts.length - 1; i >= 0 && !isAbsolute(path); i--) {
    const part = parts[i]!;
    if (part !== "") path = path === "" ? part : `${part}${SEP}${path}`;
  }
  if (!isAbsolute(path)) path = path === "" ? Deno.cwd() : `${Deno.cwd()}${SEP}${path}`;
  return stripTrailing(normalize(path));
}

function stripTrailing(path: string): string {
  return path.length > rootOf(path).length && path.endsWith(SEP) ? path.slice(0, -1) : path;
}

export function dirname(path: string): string {
  if (path === "") return ".";
  const root = rootOf(path);
  const rest = path.slice(root.length).replace(WINDOWS ? /[\\/]+$/ : /\/+$/, "");
  const cut = Math.max(rest.lastIndexOf("/"), WINDOWS ? rest.lastIndexOf("\\") : -1);
  if (cut < 0) return root === "" ? "." : root;
  return root + rest.slice(0, cut);
}

export function basename(path: string): string {
  const rest = path.slice(rootOf(path).length).replace(WINDOWS ? /[\\/]+$/ : /\/+$/, "");
  return rest.split(SEPARATORS).pop() ?? "";
}

/** The path from `from` to `to` ("" when they are the same place). */
export function relative(from: string, to: string): string {
  const a = resolve(from);
  const b = resolve(to);
  const same = WINDOWS ? (x: string, y: string) => x.toLowerCase() === y.toLowerCase() : (
    x: string,
    y: string,
  ) => x === y;
  if (same(a, b)) return "";
  if (!same(rootOf(a), rootOf(b))) return b;
  const fromParts = a.slice(rootOf(a).length).split(SEP).filter((s) => s !== "");
  const toParts = b.slice(rootOf(b).length).split(SEP).filter((s) => s !== "");
  let common = 0;
  while (
    common < fromParts.length && common < toParts.length &&
    same(fromParts[common]!, toParts[common]!)
  ) common++;
  const up = fromParts.slice(common).map(() => "..");
  return [...up, ...toParts.slice(common)].join(SEP);
}
