/**
 * core/records — what is written down about skills: registry entries (`registry`), the
 * project lockfile (`lockfile`) in the form vercel-labs' CLI reads too (`peer_lockfile`),
 * this user's project approvals and agent links (`project_records`), content digests
 * (`digest`), what an update changes (`changes`), and the two scopes those records belong
 * to (`scope`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
