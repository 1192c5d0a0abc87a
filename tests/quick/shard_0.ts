/** `deno task test:quick`: shard 0 of the unit test files, in one isolate (tests/helpers/quick.ts). */
import { importQuickShard } from "../helpers/quick.ts";

await importQuickShard(0);
