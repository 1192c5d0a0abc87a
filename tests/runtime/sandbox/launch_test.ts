import assert from "node:assert/strict";
import { uvIndexGrants } from "../../../src/runtime/sandbox/launch.ts";

Deno.test("uvIndexGrants(): PyPI by default, the user's own indexes when set", () => {
  assert.deepEqual(uvIndexGrants({}), [
    { host: "pypi.org", port: 443 },
    { host: "files.pythonhosted.org", port: 443 },
  ]);
  assert.deepEqual(
    uvIndexGrants({
      UV_INDEX_URL: "https://pypi.corp.example/simple",
      UV_INDEX: "internal=http://10.0.0.5:8080/simple other=https://[::1]:9443/",
      UV_EXTRA_INDEX_URL: "file:///opt/wheels not-a-url",
    }),
    [
      { host: "pypi.corp.example", port: 443 },
      { host: "10.0.0.5", port: 8080 },
      { host: "::1", port: 9443 },
    ],
  );
  assert.deepEqual(uvIndexGrants({ UV_EXTRA_INDEX_URL: "https://extra.example/simple" }), [
    { host: "extra.example", port: 443 },
    { host: "pypi.org", port: 443 },
    { host: "files.pythonhosted.org", port: 443 },
  ]);
});
