/**
 * cli/ui — what commands print: terminal handling (`tty`), shared rendering (`render`), the
 * reviews shown before a change (`audit_ui`, `lifecycle_ui`, `project_ui`, `update_ui`), and the
 * doctor's text report (`doctor_ui`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
