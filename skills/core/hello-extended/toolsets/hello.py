"""HelloExtended: a small Python toolset showing the skill toolset pattern.

Every public method is a tool. Type hints (with `Annotated` descriptions) and the
docstrings describe the tool to the model; each tool returns the standard envelope
`{"success": True, "result": ..., "message": ...}` or
`{"success": False, "error": "<code>", "message": ...}` and never raises.
"""

from __future__ import annotations

from typing import Annotated, Any

GREETINGS: dict[str, str] = {
    "en": "Hello, {name}!",
    "es": "¡Hola, {name}!",
    "fr": "Bonjour, {name}!",
    "de": "Hallo, {name}!",
    "ja": "こんにちは、{name}さん！",
    "zh": "你好，{name}！",
}

LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "de": "German",
    "ja": "Japanese",
    "zh": "Chinese",
}


def _success(result: Any, message: str) -> dict:
    return {"success": True, "result": result, "message": message}


def _error(code: str, message: str) -> dict:
    return {"success": False, "error": code, "message": message}


def _unsupported(language: object) -> dict:
    return _error(
        "unsupported_language",
        f"Language '{language}' is not supported; use one of: {', '.join(GREETINGS)}",
    )


def _language(language: object) -> str | None:
    """Canonical language code ("FR " -> "fr"), or None when unsupported."""
    code = language.strip().lower() if isinstance(language, str) else None
    return code if code in GREETINGS else None


def _clean_name(name: object) -> str | None:
    return name.strip() if isinstance(name, str) and name.strip() else None


class HelloExtended:
    """Greets people in several languages (en, es, fr, de, ja, zh)."""

    def __init__(self, config: Any = None) -> None:
        self.config = config

    def greet_in_language(
        self,
        name: Annotated[str, "Name of the person to greet"],
        language: Annotated[str, "Language code: en, es, fr, de, ja or zh"] = "en",
    ) -> dict:
        """Greet one person in the given language.

        Args:
            name: Name of the person to greet.
            language: Language code: en, es, fr, de, ja or zh (default en).

        Returns:
            The greeting text as `result`, e.g. "Bonjour, Ada!".
        """
        code = _language(language)
        if code is None:
            return _unsupported(language)
        clean = _clean_name(name)
        if clean is None:
            return _error("invalid_input", "name must be a non-empty string")
        return _success(
            GREETINGS[code].format(name=clean),
            f"Greeted {clean} in {LANGUAGE_NAMES[code]}",
        )

    def greet_multiple(
        self,
        names: Annotated[list[str], "Names of the people to greet (at least one)"],
        language: Annotated[str, "Language code: en, es, fr, de, ja or zh"] = "en",
    ) -> dict:
        """Greet several people in the same language.

        Args:
            names: Names of the people to greet; must not be empty.
            language: Language code: en, es, fr, de, ja or zh (default en).

        Returns:
            A list of greetings as `result`, one per name, in the given order.
        """
        code = _language(language)
        if code is None:
            return _unsupported(language)
        if not isinstance(names, list) or not names:
            return _error("invalid_input", "names must be a non-empty list of strings")
        cleaned = [_clean_name(name) for name in names]
        if None in cleaned:
            return _error("invalid_input", "every name must be a non-empty string")
        greetings = [GREETINGS[code].format(name=name) for name in cleaned]
        return _success(greetings, f"Greeted {len(greetings)} people in {LANGUAGE_NAMES[code]}")
