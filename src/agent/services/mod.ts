/**
 * agent/services — the model's service tools (`service_start`, `service_list`, `service_stop`)
 * on the tool surface chat, MCP and the library share, offered only when the user grants them
 * (`SKILLS_ALLOW_SERVICES=1`, the library's `allowServices`): the model may start only scripts
 * an active skill declares in `permissions.services`, with live folders inside the workspace
 * only, and stop only the services it started (runtime/services does the work).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
