/**
 * core/records — what is written down about skills, each record parsed, checked and written
 * here as text (its file on disk is runtime/store's module of the same name): registry
 * entries (`registry`), the project lockfile (`lockfile`) in the form vercel-labs' CLI reads
 * too (`peer_lockfile`), this user's project approvals and agent links (`project_records`), a
 * change's journal (`journal`); content digests (`digest`, over the in-thread SHA-256
 * of `sha256`), what an update changes
 * (`changes`), and the two scopes those records belong to (`scope`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
