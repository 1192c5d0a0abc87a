/**
 * runtime/services — skills that keep running: a script started with `skills run --background`
 * stays up in its sandbox as a service, supervised by a detached `skills` process of its own
 * (supervisor.ts, started by start.ts through service_helper.py) that serves its loopback ports
 * on the host's 127.0.0.1 (relay.ts; init.py relays them out of the sandbox), ends it after its
 * idle timeout or lifetime, and applies its diff when it stops. Its state lives in
 * `$SKILLS_HOME/.services/<boot id>/<id>/`, alive only while the recorded process is (state.ts);
 * `skills ps`, `stop` and `logs`, and the lifecycle's stop when a skill is removed, updated or
 * untrusted, are control.ts.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */

export const LAYER = {
  owns: "runtime/services",
  mayImport: ["core", "generated", "runtime/os", "runtime/exec"],
} as const;
