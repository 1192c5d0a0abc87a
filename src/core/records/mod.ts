/**
 * core/records — what is written down about skills: registry entries (`registry_model`), the
 * project lockfile in the form vercel-labs' CLI reads too (`lockfile_model`, `lockfile_peer`),
 * this user's project approvals and agent links (`project_records`), content digests
 * (`digest`, over the in-thread SHA-256 of `sha256`), what an update changes (`changes`), and the two scopes those records belong
 * to (`scope`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
