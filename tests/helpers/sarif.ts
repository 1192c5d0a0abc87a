/**
 * Validating SARIF logs against the SARIF 2.1.0 JSON schema, for tests only. The schema
 * (sarif-2.1.0-rtm.5, the schema of the final 2.1.0 release, JSON Schema draft-04) is the
 * copy @microsoft/jest-sarif ships; ajv 6 is the validator that package itself uses, with
 * its draft-04 meta-schema and full format checks (uri, date-time, ...).
 */

import schema from "@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json" with {
  type: "json",
};
import draft04 from "ajv/lib/refs/json-schema-draft-04.json" with { type: "json" };
import Ajv from "ajv/lib/ajv.js";

interface Validate {
  (data: unknown): boolean;
  errors?: unknown[] | null;
}

let validator: Validate | undefined;

/** The schema's complaints about `log` (empty when it is valid SARIF 2.1.0). */
export function sarifErrors(log: unknown): unknown[] {
  if (validator === undefined) {
    // deno-lint-ignore no-explicit-any
    const ajv = new (Ajv as any)({ schemaId: "auto", allErrors: true, format: "full" });
    ajv.addMetaSchema(draft04);
    validator = ajv.compile(schema) as Validate;
  }
  return validator(log) ? [] : [...(validator.errors ?? [])];
}
