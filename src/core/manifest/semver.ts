/** Just enough semver for `version` fields and min/max version gating; the version a skill shows. */

/**
 * The version a skill shows (`list`, `info`): `metadata.version`, the field the authors'
 * guide recommends and `publish` puts in the OCI version annotation, else the seed's
 * top-level `version` (publish's precedence). Here, not in manifest.ts, so that `list`
 * loads no validator for it.
 */
export function skillVersion(
  manifest: {
    version?: string | undefined;
    metadata?: Readonly<Record<string, string>> | undefined;
  },
): string | undefined {
  const fromMetadata = manifest.metadata?.version;
  return typeof fromMetadata === "string" && fromMetadata.trim() !== ""
    ? fromMetadata
    : manifest.version;
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
}

export function parseSemver(text: string): SemVer | undefined {
  const match = SEMVER.exec(text.trim().replace(/^v/, ""));
  if (!match) return undefined;
  return {
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3]),
    prerelease: match[4] ? match[4].split(".") : [],
  };
}

/** Negative when a < b, zero when equal, positive when a > b. */
export function compareSemver(a: SemVer, b: SemVer): number {
  for (const key of ["major", "minor", "patch"] as const) {
    if (a[key] !== b[key]) return a[key] - b[key];
  }
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return b.prerelease.length - a.prerelease.length;
  }
  const length = Math.max(a.prerelease.length, b.prerelease.length);
  for (let i = 0; i < length; i++) {
    const x = a.prerelease[i];
    const y = b.prerelease[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const nx = /^\d+$/.test(x) ? Number(x) : undefined;
    const ny = /^\d+$/.test(y) ? Number(y) : undefined;
    if (nx !== undefined && ny !== undefined) return nx - ny;
    if (nx !== undefined) return -1;
    if (ny !== undefined) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}
