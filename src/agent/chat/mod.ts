/**
 * agent/chat — `skills chat`: the agent loop and its model step (`chat_loop`, `model_step`),
 * providers with their errors (`providers`, `provider_errors`, `endpoint_guard`), the REPL and
 * its tool lines (`repl`, `tool_lines`), and token accounting (`tokens`, `accounting`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
