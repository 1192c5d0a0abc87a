/**
 * core/audit — what a reviewer looks for before trusting a skill: the audit rules as data
 * (`audit_rules`), their engine with severity by context (`audit`), the tokenizer that tells
 * comments, strings and docstrings from code (`audit_code`), lint's checks (`lint`) with the
 * guide section for each (`lint_guide`), the OWASP Agentic Skills Top 10 every rule names
 * (`owasp_ast`), and SARIF output (`sarif`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
