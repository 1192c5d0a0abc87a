/**
 * core/scripts — a skill's scripts as programs: the languages as one table (`script_language`:
 * extensions, `#!` names, runners, install hints), PEP 723 metadata (`pep723`) and the hints a
 * failed run gets (`script_hints`).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
