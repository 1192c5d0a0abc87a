/**
 * core/governance — what an organisation says about skills and what a project can prove
 * about the ones it uses: the policy files (`/etc/skills/policy.yaml`,
 * `$SKILLS_HOME/policy.yaml`, `<project>/.agents/policy.yaml`) read into layers that each
 * keep the file and line of every rule, and the checks that every layer must pass, so that a
 * later file can only tighten (`org_policy`, its checks `policy_checks`); the bill of
 * materials of a lockfile in CycloneDX 1.6 and SPDX 2.3 (`sbom`) and the one digest of a
 * whole skill set (`set_digest`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
