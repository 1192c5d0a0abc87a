/**
 * Independent validators for the bills of materials `skills lock export` writes: Ajv 8 (with
 * ajv-formats) over the official schemas — CycloneDX 1.6 as `@cyclonedx/cyclonedx-library`
 * ships it (with the SPDX licence, crypto and JSF schemas it references), SPDX 2.3 as the
 * spdx/spdx-spec repository publishes it (tests/fixtures/schemas/, origin in the README there).
 * Ajv's options are the ones that library's own validator uses (remote schemas refused).
 */

import * as CDX from "@cyclonedx/cyclonedx-library";
import { Ajv } from "ajv-8";
import formatsModule from "ajv-formats";
import addFormats2019 from "ajv-formats-draft2019";

// ajv-formats is CommonJS: its default export is the plugin, typed as the module.
const addFormats = ((formatsModule as unknown as { default?: unknown }).default ??
  formatsModule) as unknown as (ajv: Ajv) => void;

/** Where the library keeps the schemas it ships (exported, but left out of its types). */
interface SchemaFiles {
  FILES: {
    CDX: { JSON_SCHEMA: Record<string, string | undefined> };
    SPDX: { JSON_SCHEMA: string };
    CryptoDefs: { JSON_SCHEMA: string };
    JSF: { JSON_SCHEMA: string };
  };
}

type Validate = (document: unknown) => string[];

const OPTIONS = {
  useDefaults: false,
  strict: false,
  strictSchema: false,
  addUsedSchema: false,
  loadSchema: (uri: string) => {
    throw new Error(`Remote schemas are disabled: ${uri}`);
  },
};

const readJson = async (path: string | URL) => JSON.parse(await Deno.readTextFile(path));

function validator(ajv: Ajv, schema: unknown): Validate {
  const check = ajv.compile(schema as object);
  return (document) =>
    check(document)
      ? []
      : (check.errors ?? []).map((e: { instancePath: string; message?: string }) =>
        `${e.instancePath} ${e.message}`
      );
}

/** A validator of CycloneDX 1.6 JSON documents. */
export async function cycloneDx16(): Promise<Validate> {
  const files = (CDX as unknown as { _Resources: SchemaFiles })._Resources.FILES;
  const schemas = {
    "http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json": await readJson(files.SPDX.JSON_SCHEMA),
    "http://cyclonedx.org/schema/cryptography-defs.SNAPSHOT.schema.json": await readJson(
      files.CryptoDefs.JSON_SCHEMA,
    ),
    "http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json": await readJson(
      files.JSF.JSON_SCHEMA,
    ),
  };
  const ajv = new Ajv({ ...OPTIONS, schemas });
  addFormats(ajv);
  addFormats2019(ajv, { formats: ["idn-email"] });
  ajv.addFormat("iri-reference", true);
  return validator(ajv, await readJson(files.CDX.JSON_SCHEMA[CDX.Spec.Version.v1dot6]!));
}

/** A validator of SPDX 2.3 JSON documents. */
export async function spdx23(): Promise<Validate> {
  const ajv = new Ajv(OPTIONS);
  addFormats(ajv);
  return validator(
    ajv,
    await readJson(new URL("../fixtures/schemas/spdx-2.3.schema.json", import.meta.url)),
  );
}
