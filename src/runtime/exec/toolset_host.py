"""skills toolset host: serves one skill's Python toolset classes over JSON lines.

Standard library only; ships inside the `skills` binary and runs as
`python3 -B toolset_host.py <skill_dir> <module:Class>...` with the skill
directory as working directory and the skill's allowlisted environment.

Each public method of each toolset class becomes a tool described by a JSON
Schema built from its type hints (str, int, float, bool, list[...], dict,
Optional, Literal, Enum, Annotated descriptions) and its docstring.

Protocol: one JSON object per line.
  stdin : {"id": 1, "op": "describe"}
          {"id": 2, "op": "call", "tool": "greet", "arguments": {...}}
          {"id": 3, "op": "shutdown"}
  stdout: {"id": 1, "protocol": 1, "tools": [...], "errors": [...]}
          {"id": 2, "envelope": {"success": true, "result": ..., "message": "..."}}
Anything a toolset prints goes to stderr; stdout belongs to the protocol.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import importlib
import inspect
import json
import os
import re
import sys
import traceback
import types
import typing

PROTOCOL_VERSION = 1
MAX_RESPONSE_BYTES = 1_000_000
MAX_DESCRIPTION_CHARS = 1024
TOOLSET_REF = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")
TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Returns|Return|Yields|Raises|Examples?|Notes?)\s*:?\s*$"
)
NONE_TYPE = type(None)
UNION_TYPES = (typing.Union, types.UnionType)
SEQUENCE_ORIGINS = (
    list,
    set,
    frozenset,
    collections.abc.Sequence,
    collections.abc.MutableSequence,
    collections.abc.Set,
    collections.abc.Iterable,
    collections.abc.Collection,
)
MAPPING_ORIGINS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)


def success(result, message):
    return {"success": True, "result": result, "message": message}


def failure(code, message):
    return {"success": False, "error": code, "message": message}


# --- JSON Schema from type hints -------------------------------------------------------


def schema_for(hint):
    """Returns (schema, description) for a type hint; unknown hints accept anything."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        schema, description = schema_for(args[0])
        for meta in args[1:]:
            if isinstance(meta, str) and meta.strip():
                description = meta.strip()
            elif isinstance(getattr(meta, "description", None), str):
                description = meta.description
        return schema, description
    if hint is inspect.Parameter.empty or hint is typing.Any or hint is object:
        return {}, None
    if hint is NONE_TYPE or hint is None:
        return {"type": "null"}, None
    if hint is bool:
        return {"type": "boolean"}, None
    if hint is int:
        return {"type": "integer"}, None
    if hint is float:
        return {"type": "number"}, None
    if hint is str:
        return {"type": "string"}, None
    if hint in (list, tuple, set, frozenset):
        return {"type": "array"}, None
    if hint is dict:
        return {"type": "object"}, None
    if origin is typing.Literal:
        return literal_schema(args), None
    if origin in UNION_TYPES:
        return union_schema(args)
    if origin in SEQUENCE_ORIGINS:
        schema = {"type": "array"}
        if args:
            items, _ = schema_for(args[0])
            if items:
                schema["items"] = items
        return schema, None
    if origin is tuple:
        schema = {"type": "array"}
        if len(args) == 2 and args[1] is Ellipsis:
            items, _ = schema_for(args[0])
            if items:
                schema["items"] = items
        elif args and args != ((),):
            schema["minItems"] = schema["maxItems"] = len(args)
        return schema, None
    if origin in MAPPING_ORIGINS:
        schema = {"type": "object"}
        if len(args) == 2:
            values, _ = schema_for(args[1])
            if values:
                schema["additionalProperties"] = values
        return schema, None
    if inspect.isclass(hint) and issubclass(hint, enum.Enum):
        return literal_schema(tuple(member.value for member in hint)), None
    return {}, None


def literal_schema(values):
    schema = {"enum": list(values)}
    kinds = {json_type(value) for value in values}
    if len(kinds) == 1 and None not in kinds:
        schema = {"type": kinds.pop(), "enum": list(values)}
    return schema


def json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def union_schema(args):
    members = [arg for arg in args if arg is not NONE_TYPE]
    nullable = len(members) < len(args)
    if len(members) == 1:
        schema, description = schema_for(members[0])
        if not nullable or not schema:
            return schema, description
        kind = schema.get("type")
        if isinstance(kind, str):
            schema = {**schema, "type": [kind, "null"]}
            if "enum" in schema:
                schema["enum"] = [*schema["enum"], None]
            return schema, description
        return {"anyOf": [schema, {"type": "null"}]}, description
    schemas = [schema_for(member)[0] for member in members]
    if any(not schema for schema in schemas):
        return {}, None
    if nullable:
        schemas.append({"type": "null"})
    return {"anyOf": schemas}, None


def parse_docstring(doc):
    """Splits a docstring into its description (before any section) and `Args:` entries."""
    summary, params = [], {}
    section, current = None, None
    for raw in doc.splitlines():
        line = raw.strip()
        match = SECTION.match(line)
        if match and not raw.startswith((" ", "\t")):
            section = match.group(1).lower()
            current = None
            continue
        if section is None:
            summary.append(line)
        elif section in ("args", "arguments", "parameters", "params") and line:
            entry = re.match(r"^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(\([^)]*\))?\s*:\s*(.*)$", line)
            if entry:
                current = entry.group(1)
                params[current] = entry.group(3).strip()
            elif current is not None:
                params[current] = f"{params[current]} {line}".strip()
    text = "\n".join(summary).strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text[:MAX_DESCRIPTION_CHARS], params


def describe_function(name, func):
    """The tool definition of one callable: name, description, input schema."""
    signature = inspect.signature(func)
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception:  # unresolvable forward references: fall back to "any"
        hints = {}
    description, arg_docs = parse_docstring(inspect.getdoc(func) or "")
    properties, required = {}, []
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        schema, arg_description = schema_for(hints.get(param.name, inspect.Parameter.empty))
        schema = dict(schema)
        arg_description = arg_description or arg_docs.get(param.name)
        if arg_description:
            schema["description"] = arg_description[:MAX_DESCRIPTION_CHARS]
        if param.default is param.empty:
            required.append(param.name)
        elif param.default is not None and is_json_value(param.default):
            schema["default"] = param.default
        properties[param.name] = schema
    input_schema = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    return {"name": name, "description": description or name, "input_schema": input_schema}


def is_json_value(value):
    try:
        json.dumps(value, allow_nan=False)
        return True
    except (TypeError, ValueError):
        return False


# --- argument checks ---------------------------------------------------------------------


def check_value(value, schema, where):
    """Returns a problem description, or None when `value` fits `schema`."""
    if not schema:
        return None
    if "anyOf" in schema:
        if any(check_value(value, option, where) is None for option in schema["anyOf"]):
            return None
        return f"{where} has the wrong type"
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(json.dumps(option) for option in schema["enum"])
        return f"{where} must be one of {allowed}"
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(fits(value, k) for k in kinds):
            return f"{where} must be {' or '.join(kinds)}"
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problem = check_value(item, schema["items"], f"{where}[{index}]")
            if problem:
                return problem
    return None


def fits(value, kind):
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True


# --- results --------------------------------------------------------------------------------


def jsonable(value):
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def to_envelope(value, tool):
    """A returned envelope passes through; anything else is wrapped as a success."""
    if isinstance(value, dict) and isinstance(value.get("success"), bool):
        envelope = dict(value)
        if envelope["success"]:
            envelope.setdefault("result", None)
        elif not isinstance(envelope.get("error"), str):
            envelope["error"] = "execution_failed"
        if not isinstance(envelope.get("message"), str):
            envelope["message"] = f"{tool} {'completed' if envelope['success'] else 'failed'}"
        return envelope
    return success(value, f"{tool} completed")


def encode(document):
    return json.dumps(document, ensure_ascii=False, default=jsonable, allow_nan=False)


# --- the host ---------------------------------------------------------------------------------


class Host:
    """Loads toolset classes from one skill directory and dispatches calls to them."""

    def __init__(self, skill_dir):
        self.skill_dir = os.path.realpath(skill_dir)
        self.tools = {}  # name -> (bound callable, definition)
        self.errors = []  # [{"toolset": ref, "message": text}]

    def load_all(self, refs):
        for ref in refs:
            try:
                self.load(ref)
            except Exception as error:  # one bad toolset never stops the others
                self.errors.append({"toolset": ref, "message": error_text(error)})
            except SystemExit as error:
                self.errors.append({"toolset": ref, "message": f"exited during import ({error.code})"})

    def load(self, ref):
        if not TOOLSET_REF.match(ref):
            raise ValueError(f"'{ref}' is not a module:Class reference")
        module_name, class_name = ref.split(":")
        if self.skill_dir not in sys.path:
            sys.path.insert(0, self.skill_dir)
        module = importlib.import_module(module_name)
        origin = os.path.realpath(getattr(module, "__file__", None) or "")
        if not origin.startswith(self.skill_dir + os.sep):
            raise ImportError(f"module '{module_name}' does not come from the skill directory")
        cls = getattr(module, class_name, None)
        if not inspect.isclass(cls):
            raise ImportError(f"module '{module_name}' has no class '{class_name}'")
        instance = instantiate(cls, self.skill_dir)
        for name in public_method_names(cls):
            definition = describe_function(name, getattr(instance, name))
            if not TOOL_NAME.match(name):
                self.errors.append({"toolset": ref, "message": f"method '{name}' is not a valid tool name"})
            elif name in self.tools:
                self.errors.append({"toolset": ref, "message": f"tool '{name}' is defined twice; kept the first"})
            else:
                self.tools[name] = (getattr(instance, name), definition)

    def describe(self):
        return [definition for _, definition in self.tools.values()]

    def call(self, tool, arguments):
        if not isinstance(tool, str) or tool not in self.tools:
            return failure("not_found", f"Unknown tool '{tool}'; available: {', '.join(self.tools) or 'none'}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return failure("invalid_arguments", "Tool arguments must be a JSON object")
        func, definition = self.tools[tool]
        schema = definition["input_schema"]
        properties = schema["properties"]
        unknown = [key for key in arguments if key not in properties]
        if unknown:
            return failure("invalid_arguments", f"Unexpected argument '{unknown[0]}' for {tool}")
        missing = [key for key in schema.get("required", []) if key not in arguments]
        if missing:
            return failure("invalid_arguments", f"Missing required argument '{missing[0]}' for {tool}")
        for key, value in arguments.items():
            problem = check_value(value, properties[key], f"argument '{key}'")
            if problem:
                return failure("invalid_arguments", f"{tool}: {problem}")
        try:
            result = invoke(func, arguments)
        except Exception as error:
            traceback.print_exc(file=sys.stderr)
            return failure("execution_failed", f"{tool} failed: {error_text(error)}")
        except SystemExit as error:
            return failure("execution_failed", f"{tool} called exit({error.code})")
        return to_envelope(result, tool)


def error_text(error):
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def instantiate(cls, skill_dir):
    """`Class()`, or `Class(config)` when the constructor requires one argument."""
    try:
        params = [
            p
            for p in inspect.signature(cls).parameters.values()
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        params = []
    if len(params) == 1:
        return cls({"skill_dir": skill_dir})
    return cls()


def public_method_names(cls):
    """Public methods in definition order (subclass first), excluding `object`'s."""
    names = []
    for klass in cls.__mro__:
        if klass is object:
            continue
        for name, attr in vars(klass).items():
            if name.startswith("_") or name in names:
                continue
            if isinstance(attr, (staticmethod, classmethod)) or inspect.isfunction(attr):
                names.append(name)
    return names


def invoke(func, arguments):
    signature = inspect.signature(func)
    positional = [
        arguments[p.name]
        for p in signature.parameters.values()
        if p.kind == p.POSITIONAL_ONLY and p.name in arguments
    ]
    keywords = {key: value for key, value in arguments.items() if key not in {
        p.name for p in signature.parameters.values() if p.kind == p.POSITIONAL_ONLY
    }}
    result = func(*positional, **keywords)
    if inspect.isawaitable(result):
        # asyncio costs 35-50 ms to import: only toolsets with async methods pay for it.
        import asyncio

        result = asyncio.run(await_it(result))
    return result


async def await_it(awaitable):
    return await awaitable


# --- the protocol -------------------------------------------------------------------------------


def handle(host, line):
    """One request line → one response document (never raises)."""
    try:
        request = json.loads(line)
    except ValueError as error:
        return {"id": None, "envelope": failure("parse_error", f"Request is not JSON: {error}")}
    if not isinstance(request, dict):
        return {"id": None, "envelope": failure("parse_error", "Request must be a JSON object")}
    rid = request.get("id")
    op = request.get("op")
    if op == "describe":
        return {"id": rid, "protocol": PROTOCOL_VERSION, "tools": host.describe(), "errors": host.errors}
    if op == "call":
        envelope = host.call(request.get("tool"), request.get("arguments"))
        return {"id": rid, "envelope": envelope}
    if op == "shutdown":
        return {"id": rid, "ok": True}
    return {"id": rid, "envelope": failure("invalid_arguments", f"Unknown op '{op}'")}


def respond(document):
    """Serialises a response, replacing one that is too large or not serialisable."""
    try:
        text = encode(document)
    except (TypeError, ValueError) as error:
        text = encode({"id": document.get("id"), "envelope": failure(
            "execution_failed", f"The tool returned a value that is not JSON: {error}")})
    if len(text.encode("utf-8")) > MAX_RESPONSE_BYTES:
        text = encode({"id": document.get("id"), "envelope": failure(
            "execution_failed", f"The tool result is larger than {MAX_RESPONSE_BYTES} bytes")})
    return text


def serve(host, reader, writer):
    for line in reader:
        if not line.strip():
            continue
        document = handle(host, line)
        writer.write(respond(document) + "\n")
        writer.flush()
        if document.get("ok") is True:
            break


def claim_stdio():
    """Keeps private handles on the real stdin/stdout; toolset output goes to stderr."""
    protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8", errors="replace")
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull, encoding="utf-8")
    return protocol_in, protocol_out


def main(argv):
    if not argv:
        print("usage: toolset_host.py <skill_dir> <module:Class>...", file=sys.stderr)
        return 2
    sys.dont_write_bytecode = True
    # `python3 -c` / script mode put the cwd or this file's folder first; only the skill
    # directory belongs on the path.
    here = os.path.dirname(os.path.abspath(__file__)) if "__file__" in globals() else None
    sys.path[:] = [p for p in sys.path if p not in ("", ".", os.getcwd(), here)]
    protocol_in, protocol_out = claim_stdio()
    host = Host(argv[0])
    host.load_all(argv[1:])
    serve(host, protocol_in, protocol_out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
