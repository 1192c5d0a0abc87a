/**
 * A tiny in-test ToolSurface for exercising the chat loop and the REPL without the real
 * one: `activate_skill` (mounts `demo__shout`), `echo`, and `slow` (waits until its signal
 * aborts, like a long script).
 */

import { type Envelope, fail, ok } from "../../../src/core/envelope.ts";
import type { ToolDefinition, ToolSurface } from "../../../src/agent/surface/tool_surface.ts";

export interface FakeSurface extends ToolSurface {
  calls: { name: string; args: unknown; aborted: boolean }[];
  closed: boolean;
  /** Resolves when `slow` has started. */
  slowStarted: Promise<void>;
}

const OBJECT = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
});

export function fakeSurface(options: { skills?: string[] } = {}): FakeSurface {
  const skills = options.skills ?? ["demo"];
  let activated = false;
  const listeners = new Set<() => void>();
  const started = Promise.withResolvers<void>();
  const base: ToolDefinition[] = [
    {
      name: "activate_skill",
      description: "Load a skill's instructions.",
      inputSchema: OBJECT({ name: { type: "string", enum: skills } }, ["name"]),
    },
    {
      name: "echo",
      description: "Echo the input.",
      inputSchema: OBJECT({ text: { type: "string" } }, ["text"]),
    },
    { name: "slow", description: "Take forever.", inputSchema: OBJECT({}) },
  ];
  const shout: ToolDefinition = {
    name: "demo__shout",
    description: "Shout a word.",
    inputSchema: OBJECT({ word: { type: "string" } }, ["word"]),
  };
  const surface: FakeSurface = {
    calls: [],
    closed: false,
    slowStarted: started.promise,
    systemPrompt: `You are a test agent.\n<available_skills>${
      skills.map((s) => `<skill><name>${s}</name></skill>`).join("")
    }</available_skills>`,
    listTools: () => (activated ? [...base, shout] : [...base]),
    async callTool(name, args, callOptions = {}): Promise<Envelope> {
      const signal = callOptions.signal;
      const record = { name, args, aborted: false };
      surface.calls.push(record);
      const input = (args ?? {}) as Record<string, unknown>;
      switch (name) {
        case "activate_skill":
          if (activated) return ok("already active", "Skill 'demo' is already active");
          activated = true;
          for (const listener of listeners) listener();
          return ok(
            `<skill_content name="demo">DEMO BODY</skill_content>`,
            "Activated skill 'demo'",
          );
        case "echo":
          return ok({ text: input.text }, "echoed");
        case "demo__shout":
          if (!activated) return fail("not_found", "Unknown tool 'demo__shout'");
          return ok(String(input.word).toUpperCase(), "shouted");
        case "slow":
          started.resolve();
          await new Promise<void>((resolve) => {
            if (signal?.aborted) return resolve();
            signal?.addEventListener("abort", () => resolve(), { once: true });
          });
          record.aborted = signal?.aborted ?? false;
          return fail("cancelled", "Tool call cancelled");
        default:
          return fail("not_found", `Unknown tool '${name}'`);
      }
    },
    activated: () => new Set(activated ? ["demo"] : []),
    checkpoint: () => ({ activated: activated ? ["demo"] : [] }),
    restore(checkpoint) {
      const was = activated;
      activated = checkpoint.activated.includes("demo");
      if (was !== activated) { for (const listener of listeners) listener(); }
      return Promise.resolve();
    },
    invokeSkill(name, args) {
      if (name !== "demo") return Promise.resolve(fail("not_found", `No active skill '${name}'`));
      activated = true;
      return Promise.resolve(ok(`DEMO BODY for ${args}`, "Started skill 'demo'"));
    },
    served(skill) {
      return Promise.resolve(skill);
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    // No stored skills and no catalog to follow.
    skills: () => [],
    updateCatalog: () => Promise.resolve(false),
    onSkillsChanged: () => () => {},
    refresh: () => Promise.resolve(),
    close() {
      surface.closed = true;
      return Promise.resolve();
    },
  };
  return surface;
}
