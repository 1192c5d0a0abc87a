/**
 * The session options of commands: `--skills` and `--workspace` as chat and mcp receive them.
 * Opening the session itself is runtime/catalog/catalog_session.ts's.
 */

/** The surface options (spec.ts's SURFACE_FLAGS) as chat and mcp receive them. */
export function surfaceOptions(values: { skills?: string; workspace?: string }): {
  /** `--skills a,b`, as given (else AGENT_SKILLS decides). */
  skills: string | undefined;
  /** `--workspace DIR`, as given (see agent/library/surface_factory.workspaceDir). */
  workspace: string | undefined;
} {
  return { skills: values.skills, workspace: values.workspace };
}
