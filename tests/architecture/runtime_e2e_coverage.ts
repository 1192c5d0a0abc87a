/**
 * The modules of src/runtime/ that no unit test imports, each with the end-to-end or
 * hardening test that runs it through the real CLI (tests/architecture/test_tree_test.ts
 * holds every other runtime module to a unit test that imports it).
 *
 * Data, not a waiver: the list only shrinks. A module given a unit test must leave it (the
 * house test fails while it stands here), and a new runtime module needs a unit test or a
 * line here naming the test that covers it.
 */
export const RUNTIME_E2E_COVERED: Readonly<Record<string, string>> = {
  "src/runtime/audit/guide.ts": "tests/e2e/audit/lint_test.ts",
  "src/runtime/audit/lint_targets.ts": "tests/e2e/audit/lint_test.ts",
  "src/runtime/catalog/bundled.ts": "tests/hardening/consistency/bundled_race_test.ts",
  "src/runtime/catalog/contents.ts": "tests/e2e/cli/catalog_cli_test.ts",
  "src/runtime/catalog/dir_reads.ts": "tests/e2e/cli/catalog_cli_test.ts",
  "src/runtime/catalog/load_terms.ts": "tests/e2e/cli/activation_warnings_test.ts",
  "src/runtime/exec/stdin_feed.ts": "tests/e2e/run/run_test.ts",
  "src/runtime/exec/transaction.ts": "tests/hardening/workspace/transactional_workspace_test.ts",
  "src/runtime/governance/attestation.ts": "tests/e2e/signing/lock_attest_test.ts",
  "src/runtime/governance/enforce.ts": "tests/e2e/audit/org_policy_test.ts",
  "src/runtime/governance/install_policy.ts": "tests/e2e/audit/org_policy_test.ts",
  "src/runtime/governance/policy_files.ts": "tests/e2e/audit/org_policy_test.ts",
  "src/runtime/inspect/audit_target.ts": "tests/e2e/audit/audit_test.ts",
  "src/runtime/inspect/toolset_probe.ts": "tests/e2e/cli/check_states_test.ts",
  "src/runtime/lifecycle/signatures.ts": "tests/e2e/signing/signer_trust_test.ts",
  "src/runtime/lifecycle/update_installed.ts": "tests/e2e/update/update_output_test.ts",
  "src/runtime/masks/clean_git_config.ts": "tests/hardening/secrets/git_credentials_test.ts",
  "src/runtime/oci/pack.ts": "tests/e2e/sources/oci_add_test.ts",
  "src/runtime/oci/unpack.ts": "tests/hardening/hostile_input/oci_bombs_test.ts",
  "src/runtime/os/paths.ts": "tests/e2e/project/deno_task_test.ts",
  "src/runtime/os/timer.ts": "tests/e2e/run/run_test.ts",
  "src/runtime/project/drift.ts": "tests/e2e/project/lockfile_clones_test.ts",
  "src/runtime/project/foreign.ts": "tests/e2e/peer/peer_interop_test.ts",
  "src/runtime/project/links.ts": "tests/e2e/peer/peer_agents_test.ts",
  "src/runtime/project/restore.ts": "tests/e2e/project/lockfile_clones_test.ts",
  "src/runtime/sandbox/mode.ts": "tests/hardening/policy_mode/protections_test.ts",
  "src/runtime/sandbox/mounts.ts": "tests/hardening/sandbox/sandbox_test.ts",
  "src/runtime/sandbox/overlay.ts": "tests/hardening/sandbox/overlay_engines_test.ts",
  "src/runtime/services/control.ts": "tests/e2e/run/background_service_test.ts",
  "src/runtime/services/relay.ts": "tests/hardening/sandbox/services_test.ts",
  "src/runtime/services/start.ts": "tests/e2e/run/background_service_test.ts",
  "src/runtime/services/supervisor.ts": "tests/e2e/run/background_service_test.ts",
  "src/runtime/sigstore/gitsign.ts": "tests/e2e/signing/gitsign_test.ts",
  "src/runtime/sigstore/oci_discovery.ts": "tests/e2e/signing/sigstore_oci_test.ts",
  "src/runtime/sigstore/oci_signer.ts": "tests/e2e/signing/sigstore_oci_test.ts",
  "src/runtime/sigstore/oms.ts": "tests/e2e/signing/oms_test.ts",
  "src/runtime/store/home.ts": "tests/e2e/lifecycle/home_hygiene_test.ts",
  "src/runtime/store/lock.ts": "tests/hardening/consistency/concurrency_test.ts",
  "src/runtime/store/project_records.ts": "tests/e2e/project/project_lock_test.ts",
  "src/runtime/web/fetch_web.ts": "tests/e2e/sources/web_sources_test.ts",
  "src/runtime/web/http.ts": "tests/e2e/sources/web_sources_test.ts",
  "src/runtime/web/tar.ts": "tests/e2e/sources/web_sources_test.ts",
  "src/runtime/web/well_known_site.ts": "tests/e2e/peer/web_publish_test.ts",
  "src/runtime/web/zip.ts": "tests/e2e/sources/web_sources_test.ts",
  "src/runtime/workflows/dependencies.ts": "tests/e2e/lifecycle/dependencies_test.ts",
  "src/runtime/workflows/update_steps.ts": "tests/e2e/update/update_precision_test.ts",
  "src/runtime/workspace/finish.ts": "tests/hardening/workspace/workspace_test.ts",
  "src/runtime/workspace/types.ts": "tests/hardening/workspace/workspace_test.ts",
};
