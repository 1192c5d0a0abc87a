/** scripts/check_exports.ts: which exports and import-map entries count as unused. */
import assert from "node:assert/strict";
import { findUnused, parseAllowlist } from "../../scripts/check_exports.ts";
import { scan } from "../../scripts/export_scan.ts";

function unused(files: Record<string, string>, entryPoints: string[] = []): string[] {
  return findUnused(new Map(Object.entries(files)), {}, entryPoints).unusedExports;
}

Deno.test("check_exports scan() masks comments, strings, templates and regex literals", () => {
  const { code, strings } = scan(
    [
      "// export function inComment() {}",
      "const a = `export const inTemplate = ${1 / 2} and ${`nested ${'x'}`}`;",
      "const b = /export function inRegex\\/[/]/g.test('s') ? 4 / 2 : 1;",
      "export const real = '// not a comment';",
    ].join("\n"),
  );
  assert.doesNotMatch(code, /inComment|inTemplate|inRegex/);
  assert.match(code, /export const real = "#\d+";/);
  assert.match(code, /\? 4 \/ 2 : 1/, "division after a number is not a regex");
  assert.ok(strings.includes("// not a comment"));
});

Deno.test("check_exports lists exports no other file imports, of every declaration kind", () => {
  assert.deepEqual(
    unused({
      "src/a.ts": [
        "export function used() {}",
        "export async function unusedFn() {}",
        "export class UnusedClass {}",
        "export interface UnusedInterface {}",
        "export type UnusedType = string;",
        "export const { destructured, other } = { destructured: 1, other: 2 };",
        "export default 1;",
        "const local = 1;",
        "export { local as renamed };",
        "used(); unusedFn();", // used only here: still an unused export
      ].join("\n"),
      "tests/a_test.ts": 'import { other, used } from "../src/a.ts";',
    }),
    [
      "src/a.ts:UnusedClass",
      "src/a.ts:UnusedInterface",
      "src/a.ts:UnusedType",
      "src/a.ts:default",
      "src/a.ts:destructured",
      "src/a.ts:renamed",
      "src/a.ts:unusedFn",
    ],
  );
});

Deno.test("check_exports follows type, default, namespace and dynamic imports", () => {
  assert.deepEqual(
    unused({
      "src/lib.ts": [
        "export type T = 1;",
        "export default function main() {}",
        "export const viaNs = 1;",
        "export const notViaNs = 1;",
        "export const lazy = 1;",
        "export const lazyUnused = 1;",
        "export const direct = 1;",
        "export interface InType {}",
      ].join("\n"),
      "src/user.ts": [
        'import main, { type T } from "./lib.ts";',
        'import * as ns from "./lib.ts";',
        "ns.viaNs;",
        'const { lazy } = await import("./lib.ts");',
        '(await import("./lib.ts")).direct;',
        'let x: import("./lib.ts").InType;',
      ].join("\n"),
      "src/whole.ts": "export const a = 1;\nexport const b = 2;",
      "src/passes.ts": 'const m = import("./whole.ts"); register(m);',
    }),
    ["src/lib.ts:lazyUnused", "src/lib.ts:notViaNs"],
  );
});

Deno.test("check_exports counts a re-export as a use only when the re-export is used", () => {
  assert.deepEqual(
    unused({
      "src/inner.ts": "export const a = 1;\nexport const b = 2;\nexport const c = 3;",
      "src/star.ts": "export const s = 1;\nexport const t = 2;",
      "src/facade.ts": [
        'export { a, b as bee } from "./inner.ts";',
        'export * from "./star.ts";',
      ].join("\n"),
      "tests/f_test.ts": 'import { a, s } from "../src/facade.ts";',
    }),
    [
      "src/facade.ts:bee",
      "src/inner.ts:b",
      "src/inner.ts:c",
      "src/star.ts:t",
    ],
  );
});

Deno.test("check_exports exempts command contracts, LAYER and entry points, nothing else", () => {
  assert.deepEqual(
    unused(
      {
        "src/cli/commands/list.ts": [
          "export function help() {}",
          "export function parse() {}",
          "export async function run() {}",
          "export const handlesInterrupt = true;",
          "export interface ListOptions {}",
        ].join("\n"),
        "src/cli/commands/all.ts": 'export const M = { list: () => import("./list.ts") };',
        "src/core/mod.ts": "export const LAYER = {};\nexport const OTHER = 1;",
        "src/main.ts": "export function main() {}",
      },
      ["src/main.ts"],
    ),
    [
      "src/cli/commands/all.ts:M",
      "src/cli/commands/list.ts:ListOptions",
      "src/core/mod.ts:OTHER",
    ],
  );
});

Deno.test("check_exports finds import-map entries nothing uses, @ts-types and subpaths included", () => {
  const report = findUnused(
    new Map([
      ["src/a.ts", '// @ts-types="@types/yaml"\nimport yaml from "yaml";\nimport "sdk/client.js";'],
      ["tests/b.ts", 'import { x } from "tok/encoding/o200k";\nconst s = "unused-pkg";'],
    ]),
    {
      "yaml": "npm:yaml@1",
      "@types/yaml": "npm:@types/yaml@1",
      "sdk/": "npm:/sdk@1/",
      "tok": "npm:tok@1",
      "unused-pkg": "npm:unused-pkg@1",
    },
    [],
  );
  assert.deepEqual(report.unusedImports, ["unused-pkg"]);
});

Deno.test("check_exports allowlist lines are path:name, with comments and blanks skipped", () => {
  assert.deepEqual(
    [...parseAllowlist("# known findings\nsrc/a.ts:x\n\n  src/b.ts:y  # why\n")],
    ["src/a.ts:x", "src/b.ts:y"],
  );
});
