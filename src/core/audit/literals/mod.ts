/**
 * core/audit/literals — which rules can match a text, told before any of them runs: the
 * literals every match of a regular expression must hold, read from its source
 * (`required_literals`), and one pass over a text that finds which of all the rules' literals
 * it holds (`literal_scan`), so the engine runs only the patterns whose literals are all there
 * (`pattern_gate`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
