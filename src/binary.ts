/**
 * Entry point of the bundle (`deno task bundle`) and the compiled binary (`deno task
 * compile`): the same program as main.ts, with command modules imported by literal paths
 * so the bundler embeds them all.
 */

import { COMMAND_MODULES } from "./cli/command_modules.ts";
import { useCommandLoaders } from "./cli/commands.ts";
import { main } from "./main.ts";

useCommandLoaders(COMMAND_MODULES);
Deno.exit(await main(Deno.args));
