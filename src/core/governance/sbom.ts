/**
 * A project's lockfile as a bill of materials: CycloneDX 1.6 JSON or SPDX 2.3 JSON. Each skill
 * is a component (a package in SPDX) with its source, the commit or OCI manifest digest it is
 * pinned to, its digest, every file with its sha256, who signed it, the environment and network
 * it was approved for; the document carries the set digest (set_digest.ts). Apart from SPDX's
 * creation time, which that format requires, the output is a function of the lockfile, so a
 * re-export of an unchanged lockfile is the same bytes.
 *
 * SPDX 2.3 wants a SHA1 of each file and a package verification code made of them; the lockfile
 * keeps sha256 only, so packages say `filesAnalyzed: false` and their files are listed, with
 * their sha256, through CONTAINS relationships.
 */

import type { LockedSkill } from "../records/lockfile.ts";

interface SbomInput {
  /** The project's name (its root folder's). */
  project: string;
  /** The lockfile's skills by canonical name. */
  skills: Readonly<Record<string, LockedSkill>>;
  /** `sha256:…` of the whole set. */
  setDigest: string;
  tool: { name: string; version: string };
}

const hex = (digest: string) => digest.replace(/^sha256:/, "");

function sortedSkills(input: SbomInput): [string, LockedSkill][] {
  return Object.entries(input.skills).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `owner/repo` of a GitHub clone URL, if it is one. */
function githubRepo(url: string): string | undefined {
  const match = /^(?:https:\/\/|git@)github\.com[/:]([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url);
  return match === null ? undefined : `${match[1]}/${match[2]}`;
}

/** The package URL (purl) of a locked skill, where its source has a purl type. */
function purlOf(entry: LockedSkill): string | undefined {
  if (entry.commit === null) return undefined;
  if (entry.source.type === "git") {
    const repo = githubRepo(entry.source.url);
    if (repo === undefined) return undefined;
    const sub = entry.source.subpath === "" ? "" : `#${entry.source.subpath}`;
    return `pkg:github/${repo.toLowerCase()}@${entry.commit}${sub}`;
  }
  if (entry.source.type === "npm") {
    const name = entry.source.url.replace(/^npm:/, "");
    const version = entry.commit.split("@")[0]!;
    const path = name.startsWith("@") ? `%40${name.slice(1)}` : name;
    const sub = entry.source.subpath === "" ? "" : `#${entry.source.subpath}`;
    return `pkg:npm/${path}@${encodeURIComponent(version)}${sub}`;
  }
  if (entry.source.type === "oci") {
    const location = entry.source.url.replace(/^oci:\/\//, "");
    const name = location.split("/").pop()!.toLowerCase();
    return `pkg:oci/${name}@${encodeURIComponent(entry.commit)}?repository_url=${
      encodeURIComponent(location)
    }`;
  }
  return undefined;
}

/** Who signed, as one line: `alice@example.com (ssh)`, `issuer|subject (sigstore)`. */
function signerLine(signed: unknown): string | undefined {
  if (typeof signed !== "object" || signed === null) return undefined;
  const record = signed as Record<string, unknown>;
  if (typeof record.by !== "string") return undefined;
  const who = typeof record.issuer === "string" ? `${record.issuer}|${record.by}` : record.by;
  return typeof record.format === "string" ? `${who} (${record.format})` : who;
}

function ref(entry: LockedSkill): string | undefined {
  return entry.tag ?? entry.branch ?? entry.ref ?? undefined;
}

/** The facts each format writes as properties (CycloneDX) or a comment (SPDX). */
function facts(name: string, entry: LockedSkill): [string, string][] {
  const out: [string, string][] = [
    ["skills:name", name],
    ["skills:source", entry.source.url],
    ["skills:source-type", entry.source.type],
  ];
  if (entry.source.subpath !== "") out.push(["skills:subpath", entry.source.subpath]);
  const asked = ref(entry);
  if (asked !== undefined) out.push(["skills:ref", asked]);
  if (entry.commit !== null) {
    out.push([entry.source.type === "oci" ? "skills:oci-digest" : "skills:commit", entry.commit]);
  }
  out.push(["skills:digest", entry.digest]);
  out.push(["skills:permissions.env", entry.permissions.env.join(",")]);
  out.push(["skills:permissions.network", (entry.permissions.network ?? []).join(",")]);
  const signer = signerLine(entry.signed);
  out.push(["skills:signer", signer ?? "unsigned"]);
  return out;
}

/** A UUID made from the set digest, so the same set always gets the same serial number. */
function serialOf(setDigest: string): string {
  const h = hex(setDigest);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${
    h.slice(17, 20)
  }-${h.slice(20, 32)}`;
}

/** The lockfile as a CycloneDX 1.6 JSON document. */
export function cycloneDx(input: SbomInput): Record<string, unknown> {
  const components = sortedSkills(input).map(([name, entry]) => {
    const purl = purlOf(entry);
    const externalReferences = entry.source.type === "local" ? [] : [{
      type: entry.source.type === "git" ? "vcs" : "distribution",
      url: entry.source.url,
    }];
    return {
      type: "library",
      "bom-ref": `skill:${name}`,
      name,
      version: entry.commit ?? entry.digest,
      description: `Agent skill '${entry.name}'`,
      hashes: [{ alg: "SHA-256", content: hex(entry.digest) }],
      ...(purl === undefined ? {} : { purl }),
      ...(externalReferences.length === 0 ? {} : { externalReferences }),
      properties: facts(name, entry).map(([n, value]) => ({ name: n, value })),
      components: Object.entries(entry.files).sort(([a], [b]) => (a < b ? -1 : 1)).map((
        [path, sha256],
      ) => ({
        type: "file",
        "bom-ref": `skill:${name}/${path}`,
        name: path,
        hashes: [{ alg: "SHA-256", content: sha256 }],
      })),
    };
  });
  return {
    bomFormat: "CycloneDX",
    specVersion: "1.6",
    serialNumber: serialOf(input.setDigest),
    version: 1,
    metadata: {
      tools: { components: [{ type: "application", ...input.tool }] },
      component: { type: "application", "bom-ref": "project", name: input.project },
      properties: [{ name: "skills:set-digest", value: input.setDigest }],
    },
    components,
    dependencies: [
      { ref: "project", dependsOn: components.map((c) => c["bom-ref"]) },
      ...components.map((c) => ({ ref: c["bom-ref"] })),
    ],
  };
}

/** SPDX's `downloadLocation`: `git+https://host/path@commit#subpath`, a URL, or NOASSERTION. */
function downloadLocation(entry: LockedSkill): string {
  if (entry.source.type === "git" && /^https?:\/\//.test(entry.source.url)) {
    const at = entry.commit === null ? "" : `@${entry.commit}`;
    const sub = entry.source.subpath === "" ? "" : `#${entry.source.subpath}`;
    return `git+${entry.source.url}${at}${sub}`;
  }
  if (entry.source.type === "oci") return entry.source.url;
  return "NOASSERTION";
}

/** The lockfile as an SPDX 2.3 JSON document, created at `created`. */
export function spdx(input: SbomInput, created: Date): Record<string, unknown> {
  const packages: Record<string, unknown>[] = [];
  const files: Record<string, unknown>[] = [];
  const relationships: Record<string, string>[] = [];
  for (const [name, entry] of sortedSkills(input)) {
    const id = `SPDXRef-Skill-${name}`;
    const purl = purlOf(entry);
    packages.push({
      SPDXID: id,
      name,
      versionInfo: entry.commit ?? entry.digest,
      downloadLocation: downloadLocation(entry),
      filesAnalyzed: false,
      checksums: [{ algorithm: "SHA256", checksumValue: hex(entry.digest) }],
      licenseConcluded: "NOASSERTION",
      licenseDeclared: "NOASSERTION",
      copyrightText: "NOASSERTION",
      ...(purl === undefined ? {} : {
        externalRefs: [{
          referenceCategory: "PACKAGE-MANAGER",
          referenceType: "purl",
          referenceLocator: purl,
        }],
      }),
      comment: facts(name, entry).map(([n, value]) => `${n}=${value}`).join("\n"),
    });
    relationships.push({
      spdxElementId: "SPDXRef-DOCUMENT",
      relationshipType: "DESCRIBES",
      relatedSpdxElement: id,
    });
    const paths = Object.keys(entry.files).sort();
    paths.forEach((path, i) => {
      const fileId = `SPDXRef-File-${name}-${i + 1}`;
      files.push({
        SPDXID: fileId,
        fileName: `./${name}/${path}`,
        checksums: [{ algorithm: "SHA256", checksumValue: entry.files[path]! }],
      });
      relationships.push({
        spdxElementId: id,
        relationshipType: "CONTAINS",
        relatedSpdxElement: fileId,
      });
    });
  }
  return {
    spdxVersion: "SPDX-2.3",
    dataLicense: "CC0-1.0",
    SPDXID: "SPDXRef-DOCUMENT",
    name: `${input.project} skills`,
    documentNamespace: `https://spdx.org/spdxdocs/skills-${encodeURIComponent(input.project)}-${
      hex(input.setDigest)
    }`,
    comment: `skills:set-digest=${input.setDigest}`,
    creationInfo: {
      created: created.toISOString().replace(/\.\d{3}Z$/, "Z"),
      creators: [`Tool: ${input.tool.name}-${input.tool.version}`],
    },
    documentDescribes: packages.map((p) => p.SPDXID as string),
    packages,
    files,
    relationships,
  };
}
