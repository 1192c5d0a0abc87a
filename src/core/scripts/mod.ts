/**
 * core/scripts — a skill's scripts as programs: the languages as one table (`script_language`:
 * extensions, `#!` names, runners, install hints), PEP 723 metadata and a requirements file's
 * list (`pep723`), and the hints a failed run gets (`script_hints`: a missing Python module or
 * npm package, a program not installed, a newer Python, a refused write, no network).
 *
 * This file documents the folder and is read by tests/architecture; nothing imports it.
 */
