/**
 * agent/chat — `skills chat`: the agent loop and its model step (`chat_loop`, `model_step`),
 * providers with their configuration and errors (`providers`, `provider_config`,
 * `provider_errors`, `endpoint_guard`), the REPL and its tool lines (`repl`, `tool_lines`),
 * and token accounting (`tokens` over the compact o200k_base vocabulary of `o200k`,
 * `accounting`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
