/**
 * The audit's cache: each file's findings (core/audit/file_findings.ts) under the SHA-256 of
 * the rules version, the file's path inside its skill, its size and its bytes — all that
 * decides them — shared by whatever audits through auditDir (add, update, install, audit).
 *
 * - In one process, a file audited before is not read by the rules again: the schemas three
 *   skills of one repository ship byte for byte, the version in use beside its update.
 * - Across processes, `skills audit` keeps the last audit of a skill of each name in
 *   `$SKILLS_HOME/.cache/audit/<rules version>/<hash of the name>.json` (one file a skill),
 *   and every audit reads it: a source reviewed with `skills audit` and then added, an
 *   installed skill audited and then updated, read only the files that changed. Installs and
 *   updates read the cache but never write it: a refused or failed one leaves the skills
 *   home exactly as it was.
 *
 * A hostile cache cannot widen what passes: an entry is found only by the hash of exactly the
 * bytes being audited under this rules version, and used only when every field of it checks
 * out (file_findings.validFileFindings; the rule's own text is looked up again); anything else
 * is a miss and the file is audited. The folder is the user's, under the skills home that no
 * sandboxed script can see.
 */

import { AUDIT_RULES_VERSION } from "../../core/audit/audit_rules.ts";
import type { AuditFile } from "../../core/audit/engine.ts";
import { type FileFindings, validFileFindings } from "../../core/audit/file_findings.ts";
import { sha256Hex } from "../../core/records/digest.ts";
import { writeFileAtomicSync } from "../os/fs.ts";
import { join } from "../os/paths.ts";

/** Files kept in one process's memory at most (a key and a few findings each). */
const MEMO_ENTRIES = 50_000;
/** A skill's stored entries past this are not kept (no skill ships more files). */
const MAX_STORED = 20_000;

/** Every file audited in this process, by key. */
const memo = new Map<string, FileFindings>();

/** The folder of this rules version's stored audits. */
export function auditCacheDir(home: string): string {
  return join(home, ".cache", "audit", AUDIT_RULES_VERSION.replace(/[^\w.-]/g, "_"));
}

/**
 * The key of one file: the SHA-256 of the rules version, its path, its size and the hex
 * SHA-256 of its bytes (hashed where they lie: no copy of a large file).
 */
export async function fileKey(file: AuditFile): Promise<string> {
  // sha256Hex hashes a small file in this thread: a round trip to WebCrypto's worker for each
  // of a thousand small files left the audit waiting on the event loop.
  const content = await sha256Hex(file.bytes);
  return await sha256Hex(
    `${AUDIT_RULES_VERSION}\0${file.path}\0${file.size ?? file.bytes.length}\0${content}`,
  );
}

/** One skill's audit against the cache: what it finds there, what it adds to it. */
export class AuditCacheSession {
  readonly #stored: Map<string, unknown>;
  readonly #path: string | undefined;
  readonly #seen = new Map<string, FileFindings>();
  #fresh = false;

  private constructor(path: string | undefined, stored: Map<string, unknown>) {
    this.#path = path;
    this.#stored = stored;
  }

  /**
   * Opens the stored audit of the skill called `name` in `home` (none without a home: the
   * process's memory only). A stored file that cannot be read or parsed is a miss.
   */
  static async open(home: string | undefined, name: string): Promise<AuditCacheSession> {
    if (home === undefined) return new AuditCacheSession(undefined, new Map());
    const path = join(auditCacheDir(home), `${(await sha256Hex(name)).slice(0, 32)}.json`);
    let stored = new Map<string, unknown>();
    try {
      const parsed = JSON.parse(Deno.readTextFileSync(path));
      if (parsed?.rules === AUDIT_RULES_VERSION && typeof parsed.files === "object") {
        stored = new Map(Object.entries(parsed.files as Record<string, unknown>));
      }
    } catch { /* none yet, or unreadable: every file is a miss */ }
    return new AuditCacheSession(path, stored);
  }

  /** The findings kept for the file of `key`, checked field by field; undefined: audit it. */
  get(key: string): FileFindings | undefined {
    const known = memo.get(key) ?? validFileFindings(this.#stored.get(key));
    if (known !== undefined) this.#seen.set(key, known);
    return known;
  }

  /** What the audit found in the file of `key`. */
  set(key: string, found: FileFindings): void {
    this.#seen.set(key, found);
    this.#fresh = true;
    if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
    memo.set(key, found);
  }

  /**
   * Keeps this audit's files as the skill's stored audit, when any was not there before
   * (a cache that cannot be written is no error: the next audit reads the files again).
   */
  save(): void {
    const same = this.#seen.size === this.#stored.size &&
      [...this.#seen.keys()].every((key) => this.#stored.has(key));
    if (this.#path === undefined || (!this.#fresh && same) || this.#seen.size > MAX_STORED) {
      return;
    }
    try {
      Deno.mkdirSync(join(this.#path, ".."), { recursive: true });
      writeFileAtomicSync(
        this.#path,
        JSON.stringify({ rules: AUDIT_RULES_VERSION, files: Object.fromEntries(this.#seen) }),
        { durable: false },
      );
    } catch { /* read-only home, full disk: no cache */ }
  }
}
