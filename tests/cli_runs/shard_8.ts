/** Shard 8 of the test files that spawn the CLI, in one isolate (tests/helpers/shards.ts). */
import { importCliShard } from "../helpers/shards.ts";

await importCliShard(8);
