/**
 * cli/ui — what commands ask and print: terminal handling (`tty`), shared rendering
 * (`render`), the reviews shown before a change (`audit_ui`, `lifecycle_ui`, `project_ui`,
 * `update_ui`), the doctor's text report (`doctor_ui`), and the askers the workflows below
 * are given with the rendering of what they did: `skills add` of either scope (`add_ui`),
 * `skills trust`/`untrust` of a project skill (`trust_ui`); `skills eval`'s progress, tables and
 * gate (`eval_ui`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
