/**
 * Skills that need skills: what a SKILL.md says it requires, read from the two places tools
 * write it, and the semver ranges a requirement may carry. Pure.
 *
 * The Agent Skills front matter is frozen at six fields, and `metadata` (a mapping of strings)
 * is its extension point, so both forms live there:
 *
 * - `metadata.requires` (ours): one requirement per line (or comma-separated), each a source
 *   as `skills add` takes it — `owner/repo@skill`, a git URL, `oci://…`, a website — and,
 *   after a space, an optional semver range for sources with versions (a git repository's
 *   or an OCI repository's tags: `^1.2`, `~1.2.0`, `>=1.0 <2`, `1.x`, `1.2.3`). An entry with
 *   no `/`, `:` or `@` names no source (`docker`): it is left unread, and `add` says so.
 * - `toolhive.requires` (ToolHive's; a top-level key of its front matter, and also read under
 *   `metadata`, with its older `skillet.requires`): OCI references without a scheme, one
 *   string, one per line, or — as ToolHive writes it — a YAML list (`ghcr.io/org/base:v1`).
 */

import { compareSemver, parseSemver } from "../manifest/semver.ts";

/** One skill another requires. */
export interface Requirement {
  /** The source as `skills add` takes it. */
  source: string;
  /** A semver range its version (a git tag) must satisfy; undefined for any. */
  range: string | undefined;
  /** The metadata key it was read from. */
  field: string;
}

/** At most this many requirements per skill (a hostile manifest cannot fan out without end). */
const MAX_REQUIREMENTS = 100;
const TOOLHIVE_KEYS = ["toolhive.requires", "skillet.requires"];

function entries(text: string): string[] {
  return text.split(/[\n,]/).map((e) => e.trim()).filter((e) => e !== "" && !e.startsWith("#"));
}

/** The requirements a skill's metadata states, and why any of them cannot be read. */
export function requirementsOf(
  metadata: Readonly<Record<string, string>> | undefined,
  toolhive: readonly string[] = [],
): { requirements: Requirement[]; problems: string[]; unread: string[] } {
  const requirements: Requirement[] = [];
  const problems: string[] = [];
  const unread: string[] = [];
  for (const reference of toolhive) {
    if (/\s|:\/\//.test(reference)) {
      problems.push(`toolhive.requires: '${reference}' is not an OCI reference without a scheme`);
    } else {requirements.push({
        source: `oci://${reference}`,
        range: undefined,
        field: "toolhive.requires",
      });}
  }
  if (metadata === undefined) return { requirements, problems, unread };
  for (const entry of entries(metadata.requires ?? "")) {
    const [source, ...rest] = entry.split(/\s+/);
    // `metadata` is every tool's free map: a bare word (grahama1970's `requires: docker`, a
    // program the skill needs) names no source at all, and is another tool's note, not ours.
    if (!/[/:@]/.test(source!)) {
      unread.push(entry);
      continue;
    }
    const range = rest.length > 0 ? rest.join(" ") : undefined;
    if (range !== undefined && parseRange(range) === undefined) {
      problems.push(`requires: '${entry}' has a range that is not a semver range`);
      continue;
    }
    requirements.push({ source: source!, range, field: "requires" });
  }
  for (const key of TOOLHIVE_KEYS) {
    for (const reference of entries(metadata[key] ?? "")) {
      if (/\s|:\/\//.test(reference)) {
        problems.push(`${key}: '${reference}' is not an OCI reference without a scheme`);
        continue;
      }
      requirements.push({ source: `oci://${reference}`, range: undefined, field: key });
    }
  }
  if (requirements.length > MAX_REQUIREMENTS) {
    problems.push(`more than ${MAX_REQUIREMENTS} requirements`);
    requirements.length = MAX_REQUIREMENTS;
  }
  return { requirements, problems, unread };
}

type Version = NonNullable<ReturnType<typeof parseSemver>>;
type Comparator = { op: "<" | "<=" | ">" | ">=" | "="; version: Version };
/** Alternatives (`||`), each a set of comparators that must all hold. */
type Range = Comparator[][];

function partial(text: string): { version: Version; given: number } | undefined {
  const match = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$/.exec(text);
  if (match === null) return parseFullWithPrerelease(text);
  const parts = [match[1], match[2], match[3]];
  let given = 0;
  const numbers: number[] = [];
  for (const part of parts) {
    if (part === undefined || /^[xX*]$/.test(part)) break;
    numbers.push(Number(part));
    given++;
  }
  const [major = 0, minor = 0, patch = 0] = numbers;
  return { version: { major, minor, patch, prerelease: [] }, given };
}

function parseFullWithPrerelease(text: string): { version: Version; given: number } | undefined {
  const version = parseSemver(text);
  return version === undefined ? undefined : { version, given: 3 };
}

function bump(version: Version, at: number): Version {
  const next = { major: version.major, minor: version.minor, patch: version.patch, prerelease: [] };
  if (at === 0) return { ...next, major: next.major + 1, minor: 0, patch: 0 };
  if (at === 1) return { ...next, minor: next.minor + 1, patch: 0 };
  return { ...next, patch: next.patch + 1 };
}

/** One comparator term (`^1.2`, `~1.2.0`, `>=1.0`, `1.x`, `1.2.3`) as comparators. */
function term(text: string): Comparator[] | undefined {
  const op = /^(\^|~|>=|<=|>|<|=)?(.*)$/.exec(text)!;
  const parsed = partial(op[2]!);
  if (parsed === undefined) return undefined;
  const { version, given } = parsed;
  const lower: Comparator = { op: ">=", version };
  switch (op[1]) {
    case "^": {
      const at = version.major > 0 || given === 1 ? 0 : version.minor > 0 || given === 2 ? 1 : 2;
      return [lower, { op: "<", version: bump(version, at) }];
    }
    case "~":
      return [lower, { op: "<", version: bump(version, given <= 1 ? 0 : 1) }];
    case ">=":
    case "<=":
    case ">":
    case "<":
      return [{ op: op[1], version }];
    default:
      if (given === 0) return [];
      return given === 3 ? [{ op: "=", version }] : [lower, {
        op: "<",
        version: bump(version, given - 1),
      }];
  }
}

/** A range (`^1.2 || >=3`), or undefined when it is not one. */
export function parseRange(text: string): Range | undefined {
  const alternatives: Range = [];
  for (const alternative of text.split("||")) {
    const set: Comparator[] = [];
    const terms = alternative.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1").split(/\s+/);
    for (const t of terms.filter((t) => t !== "")) {
      const comparators = term(t);
      if (comparators === undefined) return undefined;
      set.push(...comparators);
    }
    alternatives.push(set);
  }
  return alternatives.length === 0 ? undefined : alternatives;
}

function holds(c: Comparator, v: Version): boolean {
  const order = compareSemver(v, c.version);
  switch (c.op) {
    case "<":
      return order < 0;
    case "<=":
      return order <= 0;
    case ">":
      return order > 0;
    case ">=":
      return order >= 0;
    case "=":
      return order === 0;
  }
}

/** Whether a version (a tag such as `v1.2.3`) satisfies a range; prereleases only when named. */
export function satisfies(range: string, tag: string): boolean {
  const parsed = parseRange(range);
  const version = parseSemver(tag);
  if (parsed === undefined || version === undefined) return false;
  return parsed.some((set) =>
    set.every((c) => holds(c, version)) &&
    (version.prerelease.length === 0 || set.some((c) => c.version.prerelease.length > 0))
  );
}

/** The highest of `tags` that satisfies every range, or undefined. */
export function bestTag(ranges: readonly string[], tags: readonly string[]): string | undefined {
  const fitting = tags.filter((t) => ranges.every((r) => satisfies(r, t)));
  return fitting.sort((a, b) => compareSemver(parseSemver(b)!, parseSemver(a)!))[0];
}
