/**
 * runtime/exec/spawn — starting a launch plan: inside the OS sandbox, with the request
 * built for the skill (`sandbox_request`: mode, governance, network, limits) and the keys
 * of its cache (`skill_identity`), or in policy mode as the leader of its own process group
 * whose whole tree a kill helper ends (`process_group`, kill_helper.py); `spawn_plan`
 * picks between them.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
