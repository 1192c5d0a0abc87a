/**
 * A git config as a sandboxed script is shown it: everything git needs to read a repository
 * (`git log`, `git status`, `git diff`), none of the credentials a checkout leaves there.
 * Removed: the user and password of every URL (`https://x-access-token:TOKEN@host/…`, in a
 * remote's `url`, a `pushurl`, an `[url "…"]` header, a proxy), every key whose name says it
 * holds a secret (`http.<url>.extraheader` — what CI checkouts write as `AUTHORIZATION: basic
 * …` —, `*token*`, `*pass*`, `*secret*`), the `[credential]` sections (helpers and
 * usernames), and `[include]`/`[includeIf]` (they name other files, which may hold any of it).
 * Pure: runtime/masks reads the files and binds the result over them.
 */

/** Sections dropped whole. */
const DROPPED_SECTIONS = new Set(["credential", "include", "includeif"]);
/** Keys dropped in any section (compared in lower case; git's keys are case-insensitive). */
const SECRET_KEY = /extraheader|token|pass|secret|authorization|cookie/i;
/** `scheme://user[:password]@`: the userinfo of a URL. */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/@"'\\]*@/gi;
/** `[section]`, `[section "sub"]`, `[section.sub]`, then whatever follows on the line. */
const HEADER = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\](.*)$/;
const KEY = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=|$)/;

/**
 * Logical lines: a value continued with a backslash at the end of a line is one line (git
 * drops the backslash and newline), so a key is dropped with all of its value.
 */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let pending = "";
  for (const line of text.split("\n")) {
    const trailing = /(\\+)\r?$/.exec(line)?.[1]?.length ?? 0;
    if (trailing % 2 === 1) {
      pending += line.replace(/\\\r?$/, "");
      continue;
    }
    out.push(pending + line);
    pending = "";
  }
  if (pending !== "") out.push(pending);
  return out;
}

/** `text` (a git config file) without credentials; equal to `text` when it held none. */
export function sanitizeGitConfig(text: string): string {
  const out: string[] = [];
  let dropSection = false;
  let changed = false;
  for (const original of logicalLines(text)) {
    let line = original.replace(URL_USERINFO, "$1");
    const header = HEADER.exec(line);
    if (header !== null) {
      const name = header[1]!.split(".")[0]!.toLowerCase();
      dropSection = DROPPED_SECTIONS.has(name);
      // `[core] bare = false`: a key may follow the header on its line.
      const rest = header[2]!;
      if (!dropSection && KEY.test(rest) && SECRET_KEY.test(KEY.exec(rest)![1]!)) {
        line = line.slice(0, line.length - rest.length);
      }
      if (dropSection) {
        changed = true;
        continue;
      }
    } else if (dropSection) {
      changed = true;
      continue;
    } else {
      const key = KEY.exec(line)?.[1];
      if (key !== undefined && SECRET_KEY.test(key)) {
        changed = true;
        continue;
      }
    }
    if (line !== original) changed = true;
    out.push(line);
  }
  return changed ? out.join("\n") : text;
}

/**
 * The files `[include]` and `[includeIf "…"]` sections of `text` name (`path = …`, as
 * written: relative to the config's folder, or `~/…`): actions/checkout@v6 keeps the job's
 * token in such a file, so the sandbox masks them too.
 */
export function includedPaths(text: string): string[] {
  const paths: string[] = [];
  let inInclude = false;
  for (const line of logicalLines(text)) {
    const header = HEADER.exec(line);
    const body = header === null ? line : header[2]!;
    if (header !== null) {
      const name = header[1]!.split(".")[0]!.toLowerCase();
      inInclude = name === "include" || name === "includeif";
    }
    if (!inInclude) continue;
    const value = /^\s*path\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^#;]*?))\s*(?:[#;].*)?$/i.exec(body);
    const path = value?.[1] ?? value?.[2];
    if (path !== undefined && path !== "") paths.push(path);
  }
  return paths;
}
