"""Unit tests for the hello-extended toolset (skills/core/hello-extended/toolsets/hello.py)."""

import sys
import typing
import unittest
from pathlib import Path

from .by_path import load_by_path

# Importing skill files must not leave __pycache__ inside the skill directories.
sys.dont_write_bytecode = True

ROOT = Path(__file__).resolve().parents[2]
MODULE_PATH = ROOT / "skills" / "core" / "hello-extended" / "toolsets" / "hello.py"


# The skill directory name contains a dash, so import the file by path.
hello = load_by_path("hello_extended_toolset", MODULE_PATH)


class GreetInLanguageTest(unittest.TestCase):
    def setUp(self):
        self.toolset = hello.HelloExtended()

    def test_greets_in_every_supported_language(self):
        expected = {
            "en": "Hello, Ada!",
            "es": "¡Hola, Ada!",
            "fr": "Bonjour, Ada!",
            "de": "Hallo, Ada!",
            "ja": "こんにちは、Adaさん！",
            "zh": "你好，Ada！",
        }
        for code, text in expected.items():
            with self.subTest(language=code):
                result = self.toolset.greet_in_language("Ada", code)
                self.assertTrue(result["success"])
                self.assertEqual(result["result"], text)
                self.assertIsInstance(result["message"], str)
                self.assertNotIn("error", result)

    def test_defaults_to_english(self):
        self.assertEqual(self.toolset.greet_in_language("Ada")["result"], "Hello, Ada!")

    def test_language_code_is_case_and_space_insensitive(self):
        self.assertEqual(self.toolset.greet_in_language("Ada", " FR ")["result"], "Bonjour, Ada!")

    def test_unsupported_language_returns_error_envelope(self):
        result = self.toolset.greet_in_language("Ada", "xx")
        self.assertEqual(
            result,
            {
                "success": False,
                "error": "unsupported_language",
                "message": "Language 'xx' is not supported; use one of: en, es, fr, de, ja, zh",
            },
        )

    def test_empty_name_is_invalid_input(self):
        result = self.toolset.greet_in_language("  ", "en")
        self.assertFalse(result["success"])
        self.assertEqual(result["error"], "invalid_input")

    def test_non_string_language_does_not_raise(self):
        result = self.toolset.greet_in_language("Ada", None)
        self.assertEqual(result["error"], "unsupported_language")


class GreetMultipleTest(unittest.TestCase):
    def setUp(self):
        self.toolset = hello.HelloExtended(config={"unused": True})

    def test_greets_each_name_in_order(self):
        result = self.toolset.greet_multiple(["Ada", "Grace", "Linus"], "es")
        self.assertTrue(result["success"])
        self.assertEqual(result["result"], ["¡Hola, Ada!", "¡Hola, Grace!", "¡Hola, Linus!"])
        self.assertIn("3", result["message"])

    def test_empty_list_is_invalid_input(self):
        result = self.toolset.greet_multiple([])
        self.assertFalse(result["success"])
        self.assertEqual(result["error"], "invalid_input")

    def test_non_list_names_is_invalid_input(self):
        self.assertEqual(self.toolset.greet_multiple("Ada")["error"], "invalid_input")

    def test_blank_name_in_list_is_invalid_input(self):
        self.assertEqual(self.toolset.greet_multiple(["Ada", ""])["error"], "invalid_input")

    def test_unsupported_language_returns_error(self):
        result = self.toolset.greet_multiple(["Ada"], "klingon")
        self.assertFalse(result["success"])
        self.assertEqual(result["error"], "unsupported_language")
        self.assertIn("'klingon'", result["message"])


class ToolSurfaceTest(unittest.TestCase):
    def test_constructor_needs_no_arguments(self):
        self.assertIsNone(hello.HelloExtended().config)

    def test_public_methods_are_exactly_the_tools(self):
        public = sorted(name for name in dir(hello.HelloExtended) if not name.startswith("_"))
        self.assertEqual(public, ["greet_in_language", "greet_multiple"])

    def test_tools_have_docstrings_and_described_type_hints(self):
        for name in ("greet_in_language", "greet_multiple"):
            method = getattr(hello.HelloExtended, name)
            with self.subTest(tool=name):
                self.assertTrue(method.__doc__ and method.__doc__.strip())
                hints = typing.get_type_hints(method, include_extras=True)
                self.assertIs(hints["return"], dict)
                for param in ("language", "name" if name == "greet_in_language" else "names"):
                    self.assertIs(typing.get_origin(hints[param]), typing.Annotated)
                    self.assertIsInstance(hints[param].__metadata__[0], str)


if __name__ == "__main__":
    unittest.main()
