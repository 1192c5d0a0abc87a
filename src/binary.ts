/**
 * Entry point of the bundle (`deno task bundle`) and the compiled binary (`deno task
 * compile`): the same program as main.ts, with command modules (and js-yaml) imported by
 * literal specifiers so the bundler embeds them all.
 */

import { COMMAND_MODULES } from "./cli/commands/all.ts";
import { useCommandLoaders } from "./cli/registry/command_table.ts";
import { useYamlLoader } from "./core/manifest/frontmatter.ts";
import { main } from "./main.ts";

useCommandLoaders(COMMAND_MODULES);
useYamlLoader(() => import("js-yaml"));
Deno.exit(await main(Deno.args));
