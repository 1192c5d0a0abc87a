/**
 * core/audit/flow — the audit's small data-flow analysis inside one script: what it knows by
 * name (`vocabulary`: secret and persistence paths, fetch, decode, send, exec and write
 * calls, network and shell commands), the tokenizer that tells comments, strings and
 * docstrings of Python, JS/TS, shell and PowerShell from code (`audit_code`, which the engine
 * reads too), tokens and statements of Python and JavaScript (`lexer`) and their flow
 * (`code_flow`), shell words with constant folding (`shell_words`) and their flow
 * (`shell_flow`), PowerShell's statements and script blocks (`powershell_statements`) and
 * their pipelines, calls and flow (`powershell_flow`), the flows
 * reported (`flow_model`) and the entry by language (`flow`). Pure: text in, flows out; the engine (../engine.ts) turns flows into findings.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
