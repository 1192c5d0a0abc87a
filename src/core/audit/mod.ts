/**
 * core/audit — what a reviewer looks for before trusting a skill: the audit rules as data
 * (`audit_rules`), their engine with severity by context (`engine`, loaded only when a skill
 * is audited), one file's findings as the audit cache keeps them and what a report's reader
 * needs without the engine (`file_findings`), the flows it reports (`flow_findings`, over the
 * analysis of flow/, whose tokenizer also tells the engine comments, strings and docstrings
 * from code), the code a skill's documents give, read as code an agent runs
 * (`document_code`), lint's checks (`lint_checks`) with the guide section for each
 * (`lint_guide`), instructions fetched at run time (`remote_instructions`), the OWASP Agentic
 * Skills Top 10 every rule names (`owasp_ast`), and SARIF output (`sarif`); literals/ tells,
 * in one scan of a text, which rule patterns cannot match it.
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
