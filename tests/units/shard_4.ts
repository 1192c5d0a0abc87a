/** Shard 4 of the unit test files, in one isolate (tests/helpers/unit_shards.ts). */
import { importUnitShard } from "../helpers/unit_shards.ts";

await importUnitShard(4);
