/** Shard 0 of the unit test files, in one isolate (tests/helpers/shards.ts). */
import { importUnitShard } from "../helpers/shards.ts";

await importUnitShard(0);
