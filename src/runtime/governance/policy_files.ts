/**
 * Finding and reading the policy files. Each exists or not; only when one does are the YAML
 * reader and the policy's modules loaded, so a machine without a policy pays three `lstat`s
 * on `skills run`. A policy file that is not a regular file, cannot be read or does not parse
 * refuses everything (`policy_denied`): a rule that cannot be read must not stop applying.
 *
 * `SKILLS_SYSTEM_POLICY` replaces the system file's path. It exists for tests (which cannot
 * write `/etc`) and is documented as such: whoever sets the CLI's environment could as well
 * run another program, so it grants nothing new; a working directory's `.env` cannot set it
 * (core/policy/dotenv.ts admits only the CLI's own settings).
 */

import type { OrgPolicy, PolicyLevel } from "../../core/governance/org_policy.ts";
import { SkillError } from "../../core/errors.ts";
import { projectRootFrom } from "../../core/records/scope.ts";
import { lstatSyncOrNull } from "../os/fs.ts";
import { dirname, join } from "../os/paths.ts";

/** Where the system's policy is, unless SKILLS_SYSTEM_POLICY (tests) names another file. */
const SYSTEM_POLICY_FILE = "/etc/skills/policy.yaml";
const USER_POLICY_FILE = "policy.yaml";
const PROJECT_POLICY_FILE = [".agents", "policy.yaml"];

/** The project's root seen from `dir` (the nearest folder with `.git`, else `dir`). */
export function projectRootOf(dir: string): string {
  let from = dir;
  try {
    from = Deno.realPathSync(dir);
  } catch { /* searched from where it says, as the catalog does */ }
  const probe = { present: (path: string) => lstatSyncOrNull(path) !== null, join, dirname };
  return projectRootFrom(from, probe).root;
}

/** The policy files that may apply, in order (system, user, project), present or not. */
function policyPaths(
  env: Readonly<Record<string, string>>,
  home: string,
  projectRoot: string | undefined,
): { level: PolicyLevel; file: string }[] {
  const system = env.SKILLS_SYSTEM_POLICY || SYSTEM_POLICY_FILE;
  const paths: { level: PolicyLevel; file: string }[] = [
    { level: "system", file: system },
    { level: "user", file: join(home, USER_POLICY_FILE) },
  ];
  if (projectRoot !== undefined) {
    paths.push({ level: "project", file: join(projectRoot, ...PROJECT_POLICY_FILE) });
  }
  return paths;
}

/** Of {@link policyPaths}, those that exist (cheap: one lstat each). */
function presentPolicies(
  env: Readonly<Record<string, string>>,
  home: string,
  projectRoot: string | undefined,
): { level: PolicyLevel; file: string }[] {
  return policyPaths(env, home, projectRoot).filter(({ file }) => {
    const info = lstatSyncOrNull(file);
    if (info === null) return false;
    if (!info.isFile) {
      throw new SkillError("policy_denied", `Cannot read the policy ${file}: it is not a file`, {
        hint: "Make it a regular file (see docs/signatures.md)",
      });
    }
    return true;
  });
}

/**
 * The policy in force for a command in `home` (and the project at `projectRoot`), or null
 * when no policy file exists.
 */
export async function loadOrgPolicy(
  env: Readonly<Record<string, string>>,
  home: string,
  projectRoot: string | undefined,
): Promise<OrgPolicy | null> {
  const present = presentPolicies(env, home, projectRoot);
  if (present.length === 0) return null;
  const [{ policyLayer }, { loadFrontMatterYaml, FrontMatterError }] = await Promise.all([
    import("../../core/governance/org_policy.ts"),
    import("../../core/manifest/frontmatter.ts"),
  ]);
  const layers = [];
  for (const { level, file } of present) {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (error) {
      throw new SkillError(
        "policy_denied",
        `Cannot read the policy ${file}: ${(error as Error).message}`,
      );
    }
    let document: unknown;
    try {
      document = await loadFrontMatterYaml(text, 1);
    } catch (error) {
      const line = error instanceof FrontMatterError && error.line !== undefined ? error.line : 1;
      throw new SkillError(
        "policy_denied",
        `Invalid policy ${file}:${line}: ${(error as Error).message}`,
        {
          hint:
            "Fix the policy file (see docs/signatures.md); nothing runs or installs while it is invalid",
        },
      );
    }
    layers.push(policyLayer(document, text, file, level));
  }
  return { layers };
}

/** What `skills policy` shows: the files looked for, and every rule with where it was written. */
interface PolicyReport {
  files: { level: PolicyLevel; file: string; present: boolean }[];
  rules: { level: PolicyLevel; key: string; value: unknown; file: string; line: number }[];
}

/** The policy seen from `cwd` (its project's file too), rule by rule with provenance. */
export async function policyReport(
  env: Readonly<Record<string, string>>,
  home: string,
  cwd: string,
): Promise<PolicyReport> {
  const root = projectRootOf(cwd);
  const files = policyPaths(env, home, root).map((p) => ({
    ...p,
    present: lstatSyncOrNull(p.file) !== null,
  }));
  const policy = await loadOrgPolicy(env, home, root);
  if (policy === null) return { files, rules: [] };
  const { layerRules } = await import("../../core/governance/org_policy.ts");
  const rules = policy.layers.flatMap((layer) =>
    layerRules(layer).map((r) => ({
      level: layer.level,
      key: r.key,
      value: r.value,
      file: r.file,
      line: r.line,
    }))
  );
  return { files, rules };
}
