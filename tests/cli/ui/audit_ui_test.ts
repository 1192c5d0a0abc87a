import assert from "node:assert/strict";
import { endpointsText } from "../../../src/cli/ui/audit_ui.ts";

Deno.test("endpointsText() lists a few URLs, and tells many by host, most named first", () => {
  const few = ["https://api.weather.gov/points", "https://api.example.org/x"];
  assert.equal(endpointsText(few), few.join(", "));
  // A document skill's XML namespace names: dozens of URLs, a handful of hosts.
  const many = [
    ...Array.from({ length: 6 }, (_, i) => `http://schemas.openxmlformats.org/drawingml/${i}`),
    ...Array.from({ length: 3 }, (_, i) => `http://www.w3.org/XML/${i}`),
    "https://api.weather.gov/points",
    "not a url://x",
  ];
  assert.equal(
    endpointsText(many),
    "11 URLs on 4 hosts: schemas.openxmlformats.org (6), www.w3.org (3), " +
      "api.weather.gov (1), not a url://x (1)",
  );
});
