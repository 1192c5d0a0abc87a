"""Unit tests for the toolset host (src/runtime/exec/toolset_host.py)."""

import enum
import io
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import typing
import unittest
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

from .by_path import load_by_path

sys.dont_write_bytecode = True

ROOT = Path(__file__).resolve().parents[2]
HOST_PATH = ROOT / "src" / "runtime" / "exec" / "toolset_host.py"


host = load_by_path("skills_toolset_host", HOST_PATH)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class SchemaForTest(unittest.TestCase):
    def schema(self, hint):
        return host.schema_for(hint)[0]

    def test_scalars(self):
        self.assertEqual(self.schema(str), {"type": "string"})
        self.assertEqual(self.schema(int), {"type": "integer"})
        self.assertEqual(self.schema(float), {"type": "number"})
        self.assertEqual(self.schema(bool), {"type": "boolean"})

    def test_lists_and_dicts(self):
        self.assertEqual(self.schema(list[str]), {"type": "array", "items": {"type": "string"}})
        self.assertEqual(self.schema(typing.List[int]), {"type": "array", "items": {"type": "integer"}})
        self.assertEqual(self.schema(list), {"type": "array"})
        self.assertEqual(
            self.schema(dict[str, int]),
            {"type": "object", "additionalProperties": {"type": "integer"}},
        )
        self.assertEqual(self.schema(tuple[int, ...]), {"type": "array", "items": {"type": "integer"}})

    def test_optional_becomes_nullable(self):
        self.assertEqual(self.schema(Optional[int]), {"type": ["integer", "null"]})
        self.assertEqual(self.schema(str | None), {"type": ["string", "null"]})

    def test_literal_and_enum_become_enums(self):
        self.assertEqual(self.schema(Literal["a", "b"]), {"type": "string", "enum": ["a", "b"]})
        self.assertEqual(self.schema(Literal[1, "x"]), {"enum": [1, "x"]})
        self.assertEqual(self.schema(Color), {"type": "string", "enum": ["red", "blue"]})
        self.assertEqual(
            self.schema(Optional[Literal["a"]]), {"type": ["string", "null"], "enum": ["a", None]}
        )

    def test_union_of_types_is_any_of(self):
        self.assertEqual(self.schema(int | str), {"anyOf": [{"type": "integer"}, {"type": "string"}]})

    def test_annotated_carries_a_description(self):
        schema, description = host.schema_for(Annotated[list[str], "People to greet"])
        self.assertEqual(schema, {"type": "array", "items": {"type": "string"}})
        self.assertEqual(description, "People to greet")

        class Field:
            description = "from a Field-like object"

        self.assertEqual(host.schema_for(Annotated[int, Field()])[1], "from a Field-like object")

    def test_unknown_hints_accept_anything(self):
        self.assertEqual(self.schema(Any), {})
        self.assertEqual(self.schema(object), {})
        self.assertEqual(self.schema(set[Any]), {"type": "array"})


class DescribeFunctionTest(unittest.TestCase):
    def test_builds_schema_from_hints_defaults_and_docstring(self):
        def add(a: int, b: Annotated[int, "Second operand"] = 2, *, note: Optional[str] = None) -> int:
            """Add two numbers.

            Longer explanation.

            Args:
                a: First operand.
                b: Ignored, Annotated wins.

            Returns:
                The sum.
            """
            return a + b

        definition = host.describe_function("add", add)
        self.assertEqual(definition["name"], "add")
        self.assertEqual(definition["description"], "Add two numbers.\n\nLonger explanation.")
        self.assertEqual(
            definition["input_schema"],
            {
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "description": "First operand."},
                    "b": {"type": "integer", "description": "Second operand", "default": 2},
                    "note": {"type": ["string", "null"]},
                },
                "required": ["a"],
            },
        )

    def test_skips_var_args_and_uses_name_without_docstring(self):
        def anything(*args, **kwargs):
            return None

        definition = host.describe_function("anything", anything)
        self.assertEqual(definition["description"], "anything")
        self.assertEqual(definition["input_schema"], {"type": "object", "properties": {}})


TOOLSET_SOURCE = textwrap.dedent(
    '''
    from __future__ import annotations
    import asyncio
    from typing import Annotated, Literal

    class Calc:
        """A calculator."""

        def __init__(self, config=None):
            self.config = config
            self.calls = 0

        def add(self, a: int, b: Annotated[int, "Second"] = 1) -> int:
            """Add numbers."""
            self.calls += 1
            return a + b

        def envelope(self, ok: bool) -> dict:
            """Return an envelope."""
            if ok:
                return {"success": True, "result": [1, 2], "message": "fine"}
            return {"success": False, "error": "custom_code", "message": "nope"}

        def boom(self) -> None:
            """Raise."""
            raise RuntimeError("kaput")

        def loud(self) -> str:
            """Print to stdout, which must not corrupt the protocol."""
            print("noise on stdout")
            return "quiet"

        async def later(self, mode: Literal["x", "y"]) -> str:
            """Async."""
            await asyncio.sleep(0)
            return mode * 2

        def count(self) -> int:
            """How many add calls so far (state is kept between calls)."""
            return self.calls

        def _private(self):
            return "hidden"

    class NeedsConfig:
        def __init__(self, config):
            self.config = config

        def where(self) -> str:
            """Where the skill lives."""
            return self.config["skill_dir"]
    '''
)


class HostTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.skill = Path(self.tmp.name) / "calc-skill"
        (self.skill / "toolsets").mkdir(parents=True)
        (self.skill / "toolsets" / "__init__.py").write_text("")
        (self.skill / "toolsets" / "calc.py").write_text(TOOLSET_SOURCE)
        (self.skill / "toolsets" / "broken.py").write_text("raise ImportError('missing dependency')\n")
        (self.skill / "toolsets" / "quits.py").write_text("import sys\nsys.exit(3)\n")
        self.saved_path = list(sys.path)
        self.saved_modules = set(sys.modules)

    def tearDown(self):
        sys.path[:] = self.saved_path
        for name in set(sys.modules) - self.saved_modules:
            del sys.modules[name]
        self.tmp.cleanup()

    def load(self, *refs):
        h = host.Host(str(self.skill))
        h.load_all(list(refs))
        return h

    def test_public_methods_become_tools(self):
        h = self.load("toolsets.calc:Calc")
        names = [tool["name"] for tool in h.describe()]
        self.assertEqual(names, ["add", "envelope", "boom", "loud", "later", "count"])
        self.assertEqual(h.errors, [])

    def test_failed_toolsets_are_reported_and_skipped(self):
        h = self.load(
            "toolsets.broken:X",
            "toolsets.quits:Y",
            "toolsets.calc:Missing",
            "not a ref",
            "toolsets.calc:Calc",
        )
        self.assertEqual([e["toolset"] for e in h.errors], [
            "toolsets.broken:X",
            "toolsets.quits:Y",
            "toolsets.calc:Missing",
            "not a ref",
        ])
        self.assertIn("missing dependency", h.errors[0]["message"])
        self.assertIn("no class 'Missing'", h.errors[2]["message"])
        self.assertEqual(h.call("add", {"a": 2})["result"], 3)

    def test_modules_outside_the_skill_are_refused(self):
        h = self.load("json:JSONDecoder")
        self.assertEqual(h.describe(), [])
        self.assertIn("does not come from the skill directory", h.errors[0]["message"])

    def test_only_the_skill_directory_is_added_to_sys_path(self):
        before = list(sys.path)
        self.load("toolsets.calc:Calc")
        added = [p for p in sys.path if p not in before]
        self.assertEqual(added, [os.path.realpath(self.skill)])

    def test_constructor_receives_config_when_it_requires_one(self):
        h = self.load("toolsets.calc:NeedsConfig")
        self.assertEqual(h.call("where", {})["result"], os.path.realpath(self.skill))

    def test_plain_values_are_wrapped_and_state_is_kept(self):
        h = self.load("toolsets.calc:Calc")
        self.assertEqual(h.call("add", {"a": 2, "b": 5}), {"success": True, "result": 7, "message": "add completed"})
        self.assertEqual(h.call("count", {})["result"], 1)

    def test_envelopes_pass_through(self):
        h = self.load("toolsets.calc:Calc")
        self.assertEqual(h.call("envelope", {"ok": True}), {"success": True, "result": [1, 2], "message": "fine"})
        self.assertEqual(
            h.call("envelope", {"ok": False}),
            {"success": False, "error": "custom_code", "message": "nope"},
        )

    def test_exceptions_become_execution_failed(self):
        h = self.load("toolsets.calc:Calc")
        saved = sys.stderr
        sys.stderr = io.StringIO()
        try:
            result = h.call("boom", {})
        finally:
            sys.stderr = saved
        self.assertEqual(result["error"], "execution_failed")
        self.assertIn("RuntimeError: kaput", result["message"])

    def test_async_methods_are_awaited(self):
        h = self.load("toolsets.calc:Calc")
        self.assertEqual(h.call("later", {"mode": "y"})["result"], "yy")

    def test_arguments_are_checked_against_the_schema(self):
        h = self.load("toolsets.calc:Calc")
        cases = [
            ("add", {}, "Missing required argument 'a'"),
            ("add", {"a": 1, "c": 2}, "Unexpected argument 'c'"),
            ("add", {"a": "1"}, "argument 'a' must be integer"),
            ("add", {"a": True}, "argument 'a' must be integer"),
            ("later", {"mode": "z"}, "must be one of"),
            ("add", [1], "must be a JSON object"),
        ]
        for tool, arguments, expected in cases:
            with self.subTest(arguments=arguments):
                result = h.call(tool, arguments)
                self.assertEqual(result["error"], "invalid_arguments")
                self.assertIn(expected, result["message"])
        self.assertEqual(h.call("nope", {})["error"], "not_found")
        self.assertEqual(h.call("_private", {})["error"], "not_found")


class ProtocolTest(unittest.TestCase):
    def test_serve_answers_each_line_and_stops_on_shutdown(self):
        h = host.Host(tempfile.gettempdir())
        h.tools["echo"] = (lambda text: text, host.describe_function("echo", lambda text: text))
        reader = io.StringIO(
            "\n".join([
                "not json",
                "[1]",
                json.dumps({"id": 1, "op": "describe"}),
                json.dumps({"id": 2, "op": "call", "tool": "echo", "arguments": {"text": "hi"}}),
                json.dumps({"id": 3, "op": "what"}),
                json.dumps({"id": 4, "op": "shutdown"}),
                json.dumps({"id": 5, "op": "describe"}),
            ])
            + "\n"
        )
        writer = io.StringIO()
        host.serve(h, reader, writer)
        lines = [json.loads(line) for line in writer.getvalue().splitlines()]
        self.assertEqual([line["id"] for line in lines], [None, None, 1, 2, 3, 4])
        self.assertEqual(lines[0]["envelope"]["error"], "parse_error")
        self.assertEqual(lines[2]["tools"][0]["name"], "echo")
        self.assertEqual(lines[3]["envelope"]["result"], "hi")
        self.assertEqual(lines[4]["envelope"]["error"], "invalid_arguments")

    def test_oversized_and_unserialisable_results_become_errors(self):
        big = {"id": 7, "envelope": host.success("x" * (host.MAX_RESPONSE_BYTES + 1), "big")}
        self.assertEqual(json.loads(host.respond(big))["envelope"]["error"], "execution_failed")
        odd = {"id": 8, "envelope": host.success(float("nan"), "nan")}
        self.assertEqual(json.loads(host.respond(odd))["envelope"]["error"], "execution_failed")
        sets = {"id": 9, "envelope": host.success({3, 1}, "set")}
        self.assertEqual(json.loads(host.respond(sets))["envelope"]["result"], [1, 3])


class SubprocessTest(unittest.TestCase):
    def run_host(self, module, source, target, requests):
        """The host run on its own, as the CLI runs it, in a skill whose toolsets/<module>.py is
        `source`, with `requests` on its stdin a line each; it must exit 0. Returns the run and
        the skill folder (removed when the test ends)."""
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        skill = Path(tmp.name) / "s"
        (skill / "toolsets").mkdir(parents=True)
        (skill / "toolsets" / f"{module}.py").write_text(source)
        done = subprocess.run(
            [sys.executable, "-B", str(HOST_PATH), str(skill), f"toolsets.{module}:{target}"],
            input="".join(json.dumps(request) + "\n" for request in requests),
            capture_output=True,
            text=True,
            cwd=skill,
            timeout=30,
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        return done, skill

    def test_toolset_stdout_goes_to_stderr_and_no_bytecode_is_written(self):
        done, skill = self.run_host("calc", TOOLSET_SOURCE, "Calc", [
            {"id": 1, "op": "call", "tool": "loud", "arguments": {}},
            {"id": 2, "op": "call", "tool": "add", "arguments": {"a": 1}},
        ])
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        self.assertEqual([line["envelope"]["result"] for line in lines], ["quiet", 2])
        self.assertIn("noise on stdout", done.stderr)
        self.assertEqual(list(skill.rglob("__pycache__")), [])

    def test_asyncio_is_imported_only_when_an_async_method_runs(self):
        probe = (
            "import sys\n\n"
            "class Probe:\n"
            "    def loaded(self) -> bool:\n"
            "        return 'asyncio' in sys.modules\n\n"
            "    async def later(self) -> str:\n"
            "        return 'awaited'\n"
        )
        calls = ["loaded", "later", "loaded"]
        done, _ = self.run_host("probe", probe, "Probe", [
            {"id": i, "op": "call", "tool": tool, "arguments": {}} for i, tool in enumerate(calls)
        ])
        results = [json.loads(line)["envelope"]["result"] for line in done.stdout.splitlines()]
        self.assertEqual(results, [False, "awaited", True])


if __name__ == "__main__":
    unittest.main()
