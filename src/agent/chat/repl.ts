/**
 * The interactive chat: a small state machine that needs no terminal, so tests drive it
 * directly. Answer text streams to stdout; each tool call is one dim line on stderr;
 * slash commands; Ctrl-C cancels the running turn (and its script) and keeps the REPL;
 * Ctrl-D (end of input) or /exit leaves.
 */

import { describeError, isSkillError } from "../../core/errors.ts";
import type { Output } from "../../core/io.ts";
import { inert } from "../../core/terminal_text.ts";
import { type ChatLoop, emptyUsage, type TurnObserver } from "./chat_loop.ts";
import type { RequestTokens } from "./tokens.ts";
import { describeOutcome, describeToolCall, dim } from "./tool_lines.ts";
import type { ActivationCheckpoint, ToolSurface } from "../surface/tool_surface.ts";

interface ReplIo {
  stdout: Output;
  stderr: Output;
  color: boolean;
  readLine(): Promise<string | null>;
}

interface ReplOptions {
  loop: ChatLoop;
  io: ReplIo;
  /** Active skills (name and description), for /skills; `userOnly`: hidden from the model. */
  skills: { name: string; description: string; userOnly?: boolean }[];
  /** A fresh tool surface for /reset (activations are forgotten with the conversation). */
  openSurface(): Promise<ToolSurface>;
  /** Tokens of the next request (o200k_base): fixed overhead and conversation. */
  measure(): Promise<RequestTokens>;
  /** Ctrl-C subscription; without it, `interrupt()` is only called by the owner. */
  onInterrupt?: ((listener: () => void) => () => void) | undefined;
  /** Printed on stderr before the first prompt. */
  banner?: string;
  /** Installed skills not active in this session: `/<name>` says how to activate one. */
  inactive?: readonly string[];
}

type ReplState = "idle" | "turn" | "closed";

export const REPL_HELP = `Commands:
  /help      Show this help
  /skills    Active skills, and which ones the model has activated
  /tools     Tools the model can call right now
  /context   Tokens of the fixed overhead and of the conversation so far
  /reset     Start a new conversation (forgets activations too)
  /exit      Leave (Ctrl-D works too)
  /<skill> [arguments]
             Start a skill yourself: its instructions (with $ARGUMENTS filled in)
             go to the model as your message — also skills hidden from the model
Ctrl-C cancels the current turn and any running script.
`;

const PROMPT = "> ";

/** Writes streamed text to stdout and one dim line per tool call to stderr. */
export function terminalObserver(io: Pick<ReplIo, "stdout" | "stderr" | "color">): TurnObserver & {
  /** Whether the last text written to stdout ended without a newline. */
  openLine(): boolean;
  /** Finishes a tool line left open by a cancelled call. */
  closeToolLine(note: string): void;
} {
  let openText = false;
  let openTool = false;
  return {
    onTextDelta(text) {
      io.stdout.write(text);
      if (text !== "") openText = !text.endsWith("\n");
    },
    onStepText(text, hasToolCalls) {
      if (hasToolCalls && text !== "" && openText) {
        io.stdout.write("\n");
        openText = false;
      }
    },
    onToolCallStart(call) {
      io.stderr.write(dim(`→ ${describeToolCall(call.name, call.arguments)}`, io.color));
      openTool = true;
    },
    onToolCallEnd(record) {
      io.stderr.write(dim(` ${describeOutcome(record.result, record.duration_ms)}\n`, io.color));
      openTool = false;
    },
    openLine: () => openText,
    closeToolLine(note) {
      if (openTool) io.stderr.write(dim(` ✗ ${note}\n`, io.color));
      openTool = false;
    },
  };
}

export class Repl {
  state: ReplState = "idle";
  readonly usage = emptyUsage();
  readonly #options: ReplOptions;
  #turn: AbortController | undefined;

  constructor(options: ReplOptions) {
    this.#options = options;
  }

  get #io(): ReplIo {
    return this.#options.io;
  }

  /** Ctrl-C: cancels the running turn, or reminds how to leave when idle. */
  interrupt(): "cancelled" | "idle" {
    if (this.state === "turn" && this.#turn) {
      this.#turn.abort();
      return "cancelled";
    }
    if (this.state === "idle") {
      this.#io.stderr.write("\n(Type /exit or press Ctrl-D to leave)\n" + PROMPT);
    }
    return "idle";
  }

  /** Reads lines until /exit or end of input. Returns the exit code. */
  async run(): Promise<number> {
    const unsubscribe = this.#options.onInterrupt?.(() => this.interrupt());
    try {
      if (this.#options.banner) this.#io.stderr.write(this.#options.banner);
      while (this.state !== "closed") {
        this.#io.stderr.write(PROMPT);
        let line: string | null;
        try {
          line = await this.#io.readLine();
        } catch (error) {
          // An overlong line is refused by the reader, which goes on after it.
          if (!isSkillError(error) || error.code !== "args_too_large") throw error;
          this.#io.stderr.write(`error: ${error.message}\n`);
          continue;
        }
        if (line === null) {
          this.#io.stderr.write("\n");
          break;
        }
        if (await this.handleLine(line) === "exit") break;
      }
      return 0;
    } finally {
      unsubscribe?.();
      this.state = "closed";
    }
  }

  /** One line of input: a slash command or a message to the model. */
  async handleLine(line: string): Promise<"continue" | "exit"> {
    const text = line.trim();
    if (text === "") return "continue";
    if (text.startsWith("/")) {
      try {
        return await this.#command(text);
      } catch (error) {
        this.#io.stderr.write(`error: ${describeError(error)}\n`);
        if (isSkillError(error) && error.hint) this.#io.stderr.write(`hint: ${error.hint}\n`);
        return "continue";
      }
    }
    await this.#runTurn(text);
    return "continue";
  }

  async #runTurn(text: string, startedAt?: ActivationCheckpoint): Promise<void> {
    const { loop } = this.#options;
    const io = this.#io;
    const printer = terminalObserver(io);
    const controller = new AbortController();
    this.#turn = controller;
    this.state = "turn";
    try {
      // Usage is added per request, so a cancelled turn's completed requests still count.
      const result = await loop.runTurn(text, {
        signal: controller.signal,
        observer: printer,
        usage: this.usage,
      });
      if (printer.openLine()) io.stdout.write("\n");
      if (result.finish === "max_steps") {
        io.stderr.write(
          `warning: stopped after ${result.steps} steps without a final answer ` +
            "(raise --max-steps)\n",
        );
      }
    } catch (error) {
      if (printer.openLine()) io.stdout.write("\n");
      // A skill the user started belongs to the turn it was started for.
      if (startedAt !== undefined) await loop.surface.restore(startedAt);
      if (isSkillError(error) && error.code === "cancelled") {
        printer.closeToolLine("cancelled");
        io.stderr.write("^C turn cancelled\n");
      } else {
        printer.closeToolLine("failed");
        io.stderr.write(`error: ${describeError(error)}\n`);
        if (isSkillError(error) && error.hint) io.stderr.write(`hint: ${error.hint}\n`);
      }
    } finally {
      this.#turn = undefined;
      if (this.state === "turn") this.state = "idle";
    }
  }

  async #command(text: string): Promise<"continue" | "exit"> {
    const [command = ""] = text.split(/\s+/);
    const io = this.#io;
    const { loop } = this.#options;
    switch (command) {
      case "/help":
        io.stdout.write(REPL_HELP);
        return "continue";
      case "/exit":
      case "/quit":
        this.state = "closed";
        return "exit";
      case "/skills": {
        const skills = this.#options.skills;
        if (skills.length === 0) {
          io.stdout.write("No active skills (set AGENT_SKILLS or pass --skills a,b).\n");
          return "continue";
        }
        for (const skill of skills) {
          const mark = loop.activated.has(skill.name)
            ? " (activated)"
            : skill.userOnly
            ? ` (hidden from the model: start it with /${skill.name})`
            : "";
          io.stdout.write(`${inert(skill.name)}${mark} — ${inert(skill.description)}\n`);
        }
        return "continue";
      }
      case "/tools": {
        const tools = loop.surface.listTools();
        if (tools.length === 0) io.stdout.write("No tools (no active skills).\n");
        for (const tool of tools) {
          io.stdout.write(`${inert(tool.name)} — ${inert(tool.description.split("\n")[0]!)}\n`);
        }
        return "continue";
      }
      case "/context": {
        const tokens = await this.#options.measure();
        io.stdout.write(
          `Next request (o200k_base tokens): fixed ${tokens.fixed} ` +
            `(system prompt ${tokens.system} + ${tokens.toolCount} tool definitions ${tokens.tools}), ` +
            `conversation ${tokens.conversation}, total ${tokens.total}\n` +
            `Reported by the provider this session: ${this.usage.requests} requests, ` +
            `${this.usage.input_tokens} input + ${this.usage.output_tokens} output tokens\n`,
        );
        return "continue";
      }
      case "/reset": {
        const old = loop.surface;
        loop.reset(await this.#options.openSurface());
        await old.close();
        io.stderr.write("Conversation reset.\n");
        return "continue";
      }
      default:
        return await this.#startSkill(command.slice(1), text.slice(command.length).trim());
    }
  }

  /** The installed, inactive skill `/<name>` names (any accepted spelling), if any. */
  #inactive(name: string): string | undefined {
    const key = name.toLowerCase().replaceAll("_", "-");
    return this.#options.inactive?.find((skill) => skill === key);
  }

  /** `/<skill> [arguments]`: the user starts a skill; its content is the message. */
  async #startSkill(name: string, args: string): Promise<"continue"> {
    const { loop } = this.#options;
    const io = this.#io;
    const startedAt = loop.surface.checkpoint();
    const envelope = await loop.surface.invokeSkill(name, args);
    if (!envelope.success) {
      if (envelope.error === "not_found" && this.#inactive(name) !== undefined) {
        const skill = this.#inactive(name)!;
        io.stderr.write(
          `Skill '${inert(skill)}' is installed but not active in this session: restart with ` +
            `--skills ${inert(skill)} (or AGENT_SKILLS=${inert(skill)}).\n`,
        );
      } else if (envelope.error === "not_found") {
        io.stderr.write(`Unknown command '/${name}'. Type /help for the commands.\n`);
      } else io.stderr.write(`error: ${envelope.message}\n`);
      return "continue";
    }
    io.stderr.write(dim(`→ ${envelope.message}\n`, io.color));
    await this.#runTurn(String(envelope.result), startedAt);
    return "continue";
  }
}
