/**
 * core/manifest — what a SKILL.md says: its front matter read (`frontmatter`, the small
 * `yaml_subset` parser with js-yaml behind it), the Agent Skills fields and ours (`manifest`,
 * `seed_fields`, `agent_fields`, `manifest_fields`), Claude plugin manifests
 * (`plugin_manifest`), versions (`semver`; names are core's own, ../names.ts), size limits
 * (`limits`) and the one validation kit (`validation`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
