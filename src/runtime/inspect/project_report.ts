/**
 * The project seen from here (issue 17): skills-lock.json vs the folders on disk vs this
 * user's trust, and the links `skills link` made (project and user scope), each drift with
 * its fix. Untrusted project skills are a note: that is how a fresh clone starts.
 */

import type { Catalog } from "../catalog/catalog.ts";
import { projectDrift } from "../project/drift.ts";
import { trustedDigest, verifyLinks } from "../project/links.ts";

type Drift = Awaited<ReturnType<typeof projectDrift>>[number];
type LinkProblem = Awaited<ReturnType<typeof verifyLinks>>[number];

/** The project check's result. */
export interface ProjectResult {
  healthy: boolean;
  /**
   * The project's part of the report, or undefined when there is nothing to say about it:
   * no project, or one without a lockfile, project skills or drift.
   */
  shown?: {
    root: string;
    repository: NonNullable<Catalog["project"]>["root"]["repository"];
    lock: NonNullable<Catalog["project"]>["lock"];
    drift: Drift[];
  };
  /** Links that no longer point where `skills link` made them point. */
  links: LinkProblem[];
}

export async function projectReport(home: string, catalog: Catalog): Promise<ProjectResult> {
  const project = catalog.project;
  const root = project?.root.root;
  const projectSkills = catalog.skills.filter((s) => s.scope === "project");
  const drift = project === undefined
    ? []
    : await projectDrift(project.root.root, home, project.lock, projectSkills);
  const byDir = new Map(catalog.skills.map((s) => [s.dir, s]));
  const links = await verifyLinks(home, root, (target) => {
    const skill = byDir.get(target);
    return skill === undefined ? undefined : trustedDigest(skill);
  });
  const shown = project !== undefined &&
    (project.lock.state !== "absent" || projectSkills.length > 0 || drift.length > 0);
  return {
    healthy: drift.every((d) => d.severity !== "error") && links.length === 0,
    ...(shown
      ? {
        shown: {
          root: project.root.root,
          repository: project.root.repository,
          lock: project.lock,
          drift,
        },
      }
      : {}),
    links,
  };
}

/** The project check's fields of the `--json` report. */
export function projectJson({ shown, links }: ProjectResult): Record<string, unknown> {
  return {
    project: shown === undefined ? null : {
      root: shown.root,
      repository: shown.repository,
      lockfile: shown.lock.state === "absent" ? null : shown.lock.path,
      lockfile_state: shown.lock.state,
      drift: shown.drift.map(({ name, kind, problem, fix, severity, files }) => ({
        name,
        kind,
        problem,
        fix,
        severity,
        files: files ?? [],
      })),
    },
    links: links.map((l) => ({
      path: l.link.path,
      skill: l.link.skill,
      agent: l.link.agent,
      problem: l.problem,
      fix: l.fix,
    })),
  };
}
