/**
 * Path rules with node:path's semantics for the handful of functions we use. Importing
 * any `node:` module starts Deno's Node compatibility layer, about 7 ms on every command;
 * these few functions do not need it. POSIX rules, or Windows rules (either separator,
 * drive and UNC roots, `\` in results): the platform is a parameter, so both are tested
 * on any machine. The running platform's rules are bound in `runtime/os/paths.ts`.
 */

type PathFlavor = "posix" | "windows";

export interface PathRules {
  readonly SEP: string;
  /** The PATH list separator. */
  readonly DELIMITER: string;
  isAbsolute(path: string): boolean;
  normalize(path: string): string;
  join(...parts: string[]): string;
  resolve(...parts: string[]): string;
  dirname(path: string): string;
  basename(path: string): string;
  relative(from: string, to: string): string;
}

/**
 * The path functions of `flavor`; `cwd` answers `resolve` for relative paths.
 * long because: a closure over one flavor's separators: the path functions are its methods.
 */
export function pathRules(flavor: PathFlavor, cwd: () => string): PathRules {
  const WINDOWS = flavor === "windows";
  const SEP = WINDOWS ? "\\" : "/";
  const DELIMITER = WINDOWS ? ";" : ":";
  const SEPARATORS = WINDOWS ? /[\\/]+/ : /\/+/;

  /** The root of an absolute path ("/", "C:\", "\\server\share\"), or "" when relative. */
  function rootOf(path: string): string {
    if (!WINDOWS) return path.startsWith("/") ? "/" : "";
    const unc = /^[\\/]{2}([^\\/]+)[\\/]+([^\\/]+)[\\/]*/.exec(path);
    if (unc) return `\\\\${unc[1]}\\${unc[2]}\\`;
    const drive = /^[A-Za-z]:[\\/]/.exec(path);
    if (drive) return `${path.slice(0, 2)}\\`;
    return /^[\\/]/.test(path) ? "\\" : "";
  }

  /** The root as written in `path` (its separators kept), for dirname and basename. */
  function writtenRoot(path: string): string {
    if (!WINDOWS) return path.startsWith("/") ? "/" : "";
    const root = /^[\\/]{2}[^\\/]+[\\/]+[^\\/]+[\\/]*|^[A-Za-z]:[\\/]|^[\\/]/.exec(path);
    return root === null ? "" : root[0];
  }

  function isAbsolute(path: string): boolean {
    return rootOf(path) !== "";
  }

  /** A POSIX path with nothing to normalise: no empty, `.` or `..` segment. */
  const NEEDS_WORK = /\/\/|(?:^|\/)\.{1,2}(?:\/|$)/;

  /** Resolves `.` and `..` segments and repeated separators; keeps a trailing separator. */
  function normalize(path: string): string {
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

  function join(...parts: string[]): string {
    const present = parts.filter((part) => part !== "");
    return present.length === 0 ? "." : normalize(present.join(SEP));
  }

  /** An absolute path: `parts` resolved right to left, then against the working directory. */
  function resolve(...parts: string[]): string {
    if (parts.length === 1 && isAbsolute(parts[0]!)) return stripTrailing(normalize(parts[0]!));
    let path = "";
    let i = parts.length - 1;
    for (; i >= 0 && !isAbsolute(path); i--) {
      const part = parts[i]!;
      if (part !== "") path = path === "" ? part : `${part}${SEP}${path}`;
    }
    if (!isAbsolute(path)) path = path === "" ? cwd() : `${cwd()}${SEP}${path}`;
    if (WINDOWS && rootOf(path) === "\\") {
      // `\dir` is rooted but has no drive: it takes the drive of the nearest part (or of
      // the working directory) that names one, as Windows does.
      const device = [...parts.slice(0, i + 1).reverse(), cwd()].map(rootOf).find((root) =>
        root.length > 1
      );
      if (device !== undefined) path = device.slice(0, -1) + path;
    }
    return stripTrailing(normalize(path));
  }

  function stripTrailing(path: string): string {
    return path.length > rootOf(path).length && path.endsWith(SEP) ? path.slice(0, -1) : path;
  }

  function dirname(path: string): string {
    if (path === "") return ".";
    const root = writtenRoot(path);
    const rest = path.slice(root.length).replace(WINDOWS ? /[\\/]+$/ : /\/+$/, "");
    const cut = Math.max(rest.lastIndexOf("/"), WINDOWS ? rest.lastIndexOf("\\") : -1);
    if (cut < 0) return root === "" ? "." : root;
    return root + rest.slice(0, cut);
  }

  function basename(path: string): string {
    // Like node, only a drive prefix is set aside: a UNC share is a name like any other.
    const drive = WINDOWS && /^[A-Za-z]:/.test(path) ? 2 : 0;
    const rest = path.slice(drive).replace(WINDOWS ? /[\\/]+$/ : /\/+$/, "");
    return rest.split(SEPARATORS).pop() ?? "";
  }

  /** The path from `from` to `to` ("" when they are the same place). */
  function relative(from: string, to: string): string {
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

  return { SEP, DELIMITER, isAbsolute, normalize, join, resolve, dirname, basename, relative };
}
