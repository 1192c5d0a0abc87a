/**
 * core/policy — what a script may see and do: the environment it gets (`env_policy`, `dotenv`),
 * the hosts it may reach and which addresses are public (`net_grants`, `ip_ranges`; how a
 * grant is written: `grant_syntax`; who owns a host name, by the Public Suffix List, loaded
 * only when an audit's judgement needs it: `host_owners`), the
 * workspace's guarded paths and secret files (`workspace_rules`), and the protections table with
 * where each holds (`protections`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
