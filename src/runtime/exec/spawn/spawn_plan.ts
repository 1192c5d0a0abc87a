/**
 * Starting a launch plan: inside the OS sandbox when the run has a request for one
 * (runtime/sandbox prepares it), else in policy mode as the leader of its own process
 * group (./process_group.ts) with a work folder of its own.
 */

import { removeWorkFolder } from "../../os/fs.ts";
import { SkillError } from "../../../core/errors.ts";
import type { SandboxRequest } from "../../sandbox/launch.ts";
import type { LaunchPlan } from "../languages/launch_plan.ts";
// Type-only: the process group (policy mode) and the sandbox each load only in their own mode.
import type { LaunchedProcess, SpawnOptions } from "./process_group.ts";

/**
 * Spawns `plan` inside the OS sandbox `sandbox` describes (runtime/sandbox), or as
 * {@link spawnProcessGroup} does when it is undefined (policy mode). In the sandbox, killing
 * bubblewrap ends everything inside: it runs with --die-with-parent in its own PID
 * namespace, whose processes all die with its first one.
 */
export async function spawnLaunch(
  plan: LaunchPlan,
  options: SpawnOptions & { sandbox?: SandboxRequest | undefined },
): Promise<LaunchedProcess> {
  if (options.sandbox === undefined) return await spawnWithWorkDir(plan, options);
  const { prepareSandbox } = await import("../../sandbox/launch.ts");
  const uv = plan.launcher === "uv" || plan.launcher === "python-m-uv";
  const request = plan.launcher === "deno"
    ? withDenoAddressSpace(options.sandbox)
    : options.sandbox;
  const launch = await prepareSandbox(plan.command, plan.args, options.env, request, {
    uv,
    fetchesPackages: uv && plan.fetchesPackages === true,
  });
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(launch.command, {
      args: launch.args,
      env: launch.env,
      clearEnv: true,
      stdin: options.stdin ?? "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (error) {
    await launch.dispose();
    throw new SkillError(
      "dependency_unavailable",
      `Cannot start the sandbox (${launch.command}): ${(error as Error).message}`,
      { hint: "Set SKILLS_SANDBOX=off to run scripts in policy mode" },
    );
  }
  const killTree = () => {
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
    return Promise.resolve();
  };
  let released: Promise<void> | undefined;
  const release = () =>
    released ??= child.status.then(() => launch.dispose(), () => launch.dispose());
  // bubblewrap sets PWD; idmap.pl drops PERL_BADLANG before the script starts.
  const envNames = [...Object.keys(launch.env).filter((n) => n !== "PERL_BADLANG"), "PWD"];
  return { pid: child.pid, child, killTree, release, envNames: [...new Set(envNames)] };
}

/**
 * Deno reserves tens of GiB of address space at start-up (V8's cages), far past the 4 GiB
 * a Python script gets: the address-space limit, which bounds reservations rather than
 * memory used, is raised for it. The process, CPU and file limits still hold.
 */
const DENO_ADDRESS_SPACE = 256 * 1024 ** 3;

function withDenoAddressSpace(request: SandboxRequest): SandboxRequest {
  const memoryBytes = Math.max(request.limits.memoryBytes, DENO_ADDRESS_SPACE);
  return { ...request, limits: { ...request.limits, memoryBytes } };
}

/**
 * Policy mode: {@link spawnProcessGroup} with a fresh work folder of its own as
 * SKILLS_WORK_DIR (as in the sandbox), removed once the process is gone.
 */
async function spawnWithWorkDir(
  plan: LaunchPlan,
  options: SpawnOptions,
): Promise<LaunchedProcess> {
  const { spawnProcessGroup } = await import("./process_group.ts");
  const workDir = Deno.makeTempDirSync({ prefix: "skills-work-" });
  let spawned: LaunchedProcess;
  try {
    spawned = spawnProcessGroup(plan, {
      ...options,
      env: { ...options.env, SKILLS_WORK_DIR: workDir },
    });
  } catch (error) {
    Deno.removeSync(workDir, { recursive: true });
    throw error;
  }
  let released: Promise<void> | undefined;
  const release = () => released ??= spawned.release().then(() => removeWorkFolder(workDir));
  return { ...spawned, release, envNames: [...Object.keys(options.env), "SKILLS_WORK_DIR"] };
}
