/**
 * What protects the user when a skill's code runs, one row per protection: whether the OS
 * sandbox (bubblewrap) and policy mode (no bubblewrap, macOS, Windows, SKILLS_SANDBOX=off)
 * enforce it, and the test that proves it. `skills check` lists the rows this machine's mode
 * lacks; docs/security.md states the same table.
 */

interface Protection {
  id: string;
  /** What it does, for `skills check` and docs/security.md. */
  label: string;
  sandbox: boolean;
  /** true, false, or what policy mode does instead. */
  policy: boolean | string;
  /** The test that proves it (under tests/). */
  test: string;
}

export const PROTECTIONS: readonly Protection[] = [
  {
    id: "trust",
    label: "only trusted skills run, from a copy verified against the approved digest",
    sandbox: true,
    policy: true,
    test: "hardening/trust/trust_bypass_test.ts",
  },
  {
    id: "env",
    label: "scripts get a cleared environment plus the skill's allowlist",
    sandbox: true,
    policy: true,
    test: "hardening/hostile_input/env_patterns_test.ts",
  },
  {
    id: "tree-kill",
    label: "a timeout, Ctrl-C or a killed CLI ends the script and everything it started",
    sandbox: true,
    policy: "its process group, and a parent watch in Python scripts (a setsid escape survives)",
    test: "hardening/policy_mode/process_hygiene_test.ts",
  },
  {
    id: "planted-startup",
    label:
      "Python start-up code a script plants (sitecustomize, usercustomize, .pth) never runs in a later script",
    sandbox: true,
    policy:
      "not from the user site or folders it cannot write; a .pth in a site-packages you can write (a venv, pyenv, uv's cache) still runs",
    test: "hardening/policy_mode/planted_sitecustomize_test.ts",
  },
  {
    id: "hidden-home",
    label: "your home, $SKILLS_HOME and other skills are out of sight",
    sandbox: true,
    policy: false,
    test: "hardening/sandbox/sandbox_test.ts",
  },
  {
    id: "read-only",
    label: "the filesystem is read-only but the work folder and the skill's cache",
    sandbox: true,
    policy: false,
    test: "hardening/sandbox/sandbox_test.ts",
  },
  {
    id: "guarded-paths",
    label:
      "the workspace is copy-on-write: its diff applied as you, any .git, hooks, shell, editor, agent and CI settings held back",
    sandbox: true,
    policy: "guarded paths a run creates are moved to quarantine; changed ones are reported",
    test: "hardening/workspace/transactional_workspace_test.ts",
  },
  {
    id: "write-grants",
    label:
      "a --write folder's guarded paths stay read-only at any depth, its .git and .github cannot be swapped, and guarded paths made there are moved aside after the run",
    sandbox: true,
    policy: false,
    test: "hardening/workspace/write_grants_test.ts",
  },
  {
    id: "secrets",
    label:
      "secret files in the workspace (.env*, .npmrc, .netrc, …) cannot be read; git configs show no credentials",
    sandbox: true,
    policy: false,
    test: "hardening/secrets/secret_names_test.ts",
  },
  {
    id: "network",
    label: "no network but the public hosts the skill declares and you grant",
    sandbox: true,
    policy: false,
    test: "hardening/network/network_sweep_test.ts",
  },
  {
    id: "processes",
    label: "its own process namespace: no other process's environment or files",
    sandbox: true,
    policy: false,
    test: "hardening/sandbox/sandbox_test.ts",
  },
  {
    id: "limits",
    label: "limits on processes, memory, CPU time and file size",
    sandbox: true,
    policy: false,
    test: "hardening/sandbox/sandbox_limits_test.ts",
  },
  {
    id: "private-tmp",
    label: "private /tmp and /var/tmp, and a cache of the skill's own",
    sandbox: true,
    policy: false,
    test: "hardening/workspace/workspace_test.ts",
  },
  {
    id: "receipt",
    label: "a receipt of the files each run changed and the connections it made",
    sandbox: true,
    policy: "files only (connections are not seen)",
    test: "hardening/workspace/workspace_test.ts",
  },
  {
    id: "services",
    label:
      "a service (run --background) is reached only at its loopback ports, writes live only its --write folders, and ends with stop, idle, lifetime, removal, update or untrust",
    sandbox: true,
    policy: "services do not start without the sandbox",
    test: "hardening/sandbox/services_test.ts",
  },
];

/** The protections a mode lacks, or only approximates (with what it does instead). */
export function missingProtections(mode: "bwrap" | "policy"): Protection[] {
  return PROTECTIONS.filter((p) => mode === "bwrap" ? !p.sandbox : p.policy !== true);
}
