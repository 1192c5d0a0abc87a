/**
 * core/policy — what a script may see and do: the environment it gets (`env_policy`, `dotenv`),
 * the hosts it may reach and which addresses are public (`net_grants`, `ip_ranges`; how a
 * grant is written: `grant_syntax`), the
 * workspace's guarded paths and secret files (`workspace_rules`), and the protections table with
 * where each holds (`protections`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
