/**
 * runtime/exec/languages — how a script is started, by its language (the table is
 * core/scripts/script_language.ts): the launch plan, a program and its argv, never a
 * shell line (`launch_plan`), and Python's own way of getting there: uv and PEP 723, a
 * requirements file, or a plain python3 when nothing needs installing or everything declared
 * already imports there (`python`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
