/**
 * The token scan behind scripts/check_exports.ts: masks comments and strings, then reads a
 * TypeScript module's exports, re-exports and imports with regular expressions. Good for
 * this repository's style (one statement per export, literal import specifiers), not a
 * parser: scripts/check_exports.ts says exactly what it understands.
 */

export interface Scanned {
  /** The source with comments blanked and every string or template replaced by `"#<n>"`. */
  code: string;
  strings: string[];
  comments: string[];
}

const REGEX_AFTER_WORD = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "yield",
  "await",
  "instanceof",
]);

/** Masks comments and strings (a small lexer: quotes, templates with `${}`, regex literals). */
export function scan(text: string): Scanned {
  const strings: string[] = [];
  const comments: string[] = [];
  let i = 0;
  const lastSignificant = (before: string) => {
    const trimmed = before.trimEnd();
    const word = /[\w$]+$/.exec(trimmed)?.[0];
    return { char: trimmed.at(-1) ?? "", word };
  };
  const readQuoted = (quote: string): string => {
    let value = "";
    i++;
    while (i < text.length && text[i] !== quote) {
      if (text[i] === "\\") value += text[i++];
      value += text[i++] ?? "";
    }
    i++;
    return value;
  };
  // Template literal from its opening backtick; `${…}` parts are lexed as code and dropped.
  const readTemplate = (): string => {
    let value = "";
    i++;
    while (i < text.length && text[i] !== "`") {
      if (text[i] === "\\") value += text[i++] ?? "";
      else if (text[i] === "$" && text[i + 1] === "{") {
        i += 2;
        lexCode(true);
        value += "${}";
        continue;
      }
      value += text[i++] ?? "";
    }
    i++;
    return value;
  };
  const skipRegex = () => {
    let inClass = false;
    i++;
    while (i < text.length && text[i] !== "\n") {
      const c = text[i]!;
      if (c === "\\") i++;
      else if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      else if (c === "/" && !inClass) break;
      i++;
    }
    i++;
    while (/[a-z]/.test(text[i] ?? "")) i++;
  };
  // Lexes code until the end, or (inside `${}`) until the matching `}`; returns the masked code.
  function lexCode(inTemplate: boolean): string {
    let depth = 0;
    let out = "";
    const emit = (s: string) => out += s;
    while (i < text.length) {
      const c = text[i]!;
      const next = text[i + 1];
      if (c === "/" && next === "/") {
        const end = text.indexOf("\n", i);
        const stop = end === -1 ? text.length : end;
        comments.push(text.slice(i, stop));
        i = stop;
      } else if (c === "/" && next === "*") {
        const end = text.indexOf("*/", i + 2);
        const stop = end === -1 ? text.length : end + 2;
        comments.push(text.slice(i, stop));
        emit(text.slice(i, stop).replace(/[^\n]/g, " "));
        i = stop;
      } else if (c === '"' || c === "'") {
        strings.push(readQuoted(c));
        emit(`"#${strings.length - 1}"`);
      } else if (c === "`") {
        strings.push(readTemplate());
        emit(`"#${strings.length - 1}"`);
      } else if (c === "/") {
        const { char, word } = lastSignificant(out);
        const regex = (word !== undefined && /^[\w$]+$/.test(char))
          ? REGEX_AFTER_WORD.has(word)
          : char === "" || "(,=:[!&|?{};+-*%<>~^".includes(char);
        if (regex) {
          skipRegex();
          emit('"#re"');
        } else {
          emit(c);
          i++;
        }
      } else {
        if (inTemplate && c === "{") depth++;
        if (inTemplate && c === "}" && depth-- === 0) {
          i++;
          return out;
        }
        emit(c);
        i++;
      }
    }
    return out;
  }
  const code = lexCode(false);
  return { code, strings, comments };
}

/** One module's exports and how it uses other modules, with specifiers unresolved. */
export interface ModuleFacts {
  /** Names this module declares and exports itself. */
  declared: Set<string>;
  /** Re-exports: exported name → [specifier, original name]; `*` names a star re-export. */
  reexports: { name: string; from: string; original: string }[];
  /** Specifier → names used from it; `*` means every export. */
  uses: Map<string, Set<string>>;
  /** Every import specifier, bare ones included, and `@ts-types` ones. */
  specifiers: Set<string>;
}

const ID = String.raw`[A-Za-z_$][\w$]*`;

function names(list: string): { local: string; exported: string }[] {
  return list.split(",").map((item) => item.trim().replace(/^type\s+/, ""))
    .filter((item) => item !== "")
    .map((item) => {
      const [local, exported] = item.split(/\s+as\s+/);
      return { local: local!.trim(), exported: (exported ?? local!).trim() };
    });
}

/** The names bound by a destructuring pattern `{ a, b: c, d = 1 }` or `[a, b]` (keys for objects). */
function patternKeys(pattern: string): string[] {
  return pattern.replace(/^[{[]|[}\]]$/g, "").split(",")
    .map((part) => part.trim().split(/[:=]/)[0]!.trim().replace(/^\.\.\./, ""))
    .filter((name) => new RegExp(`^${ID}$`).test(name));
}

export function moduleFacts(source: string): ModuleFacts {
  const { code, strings, comments } = scan(source);
  const str = (ref: string) => strings[Number(ref)] ?? "";
  const facts: ModuleFacts = {
    declared: new Set(),
    reexports: [],
    uses: new Map(),
    specifiers: new Set(),
  };
  const use = (specifier: string, name: string) => {
    facts.specifiers.add(specifier);
    const set = facts.uses.get(specifier) ?? new Set();
    set.add(name);
    facts.uses.set(specifier, set);
  };
  const STR = String.raw`"#(\d+)"`;

  // Declarations.
  const declaration = new RegExp(
    String
      .raw`\bexport\s+(?:declare\s+)?(?:async\s+)?(?:function\s*\*?|abstract\s+class|class|interface|type|const\s+enum|enum|const|let|var|namespace)\s+(${ID})`,
    "g",
  );
  for (const m of code.matchAll(declaration)) facts.declared.add(m[1]!);
  for (const m of code.matchAll(/\bexport\s+(?:const|let|var)\s+(\{[^}]*\}|\[[^\]]*\])/g)) {
    for (const name of patternKeys(m[1]!)) facts.declared.add(name);
  }
  if (/\bexport\s+default\b/.test(code)) facts.declared.add("default");

  // Export lists, local or re-exported.
  const list = new RegExp(String.raw`\bexport\s+(?:type\s+)?\{([^}]*)\}(?:\s*from\s*${STR})?`, "g");
  for (const m of code.matchAll(list)) {
    for (const { local, exported } of names(m[1]!)) {
      if (m[2] === undefined) facts.declared.add(exported);
      else facts.reexports.push({ name: exported, from: str(m[2]), original: local });
    }
    if (m[2] !== undefined) facts.specifiers.add(str(m[2]));
  }
  for (
    const m of code.matchAll(
      new RegExp(String.raw`\bexport\s+\*\s+as\s+(${ID})\s+from\s*${STR}`, "g"),
    )
  ) {
    facts.reexports.push({ name: m[1]!, from: str(m[2]!), original: "*" });
    facts.specifiers.add(str(m[2]!));
  }
  for (const m of code.matchAll(new RegExp(String.raw`\bexport\s+\*\s+from\s*${STR}`, "g"))) {
    facts.reexports.push({ name: "*", from: str(m[1]!), original: "*" });
    facts.specifiers.add(str(m[1]!));
  }

  // Static imports.
  const staticImport = new RegExp(
    String
      .raw`\bimport\s+(?:type\s+)?(?:(${ID})\s*,?\s*)?(?:\{([^}]*)\}|\*\s+as\s+(${ID}))?\s*from\s*${STR}`,
    "g",
  );
  for (const m of code.matchAll(staticImport)) {
    const [, defaultName, list, namespace, ref] = m;
    const specifier = str(ref!);
    facts.specifiers.add(specifier);
    if (defaultName !== undefined && defaultName !== "type") use(specifier, "default");
    for (const { local } of names(list ?? "")) use(specifier, local);
    if (namespace !== undefined) {
      for (const name of namespaceUses(code, namespace, m.index! + m[0].length)) {
        use(specifier, name);
      }
    }
  }
  for (const m of code.matchAll(new RegExp(String.raw`\bimport\s*${STR}`, "g"))) {
    facts.specifiers.add(str(m[1]!));
  }

  // Dynamic imports of literal paths.
  for (const m of code.matchAll(new RegExp(String.raw`\bimport\s*\(\s*${STR}\s*\)`, "g"))) {
    const specifier = str(m[1]!);
    const before = code.slice(0, m.index);
    const after = code.slice(m.index! + m[0].length);
    const destructured = /(?:const|let|var)\s*(\{[^}]*\})\s*=\s*(?:await\s+)?$/.exec(before);
    const direct = /^\s*\.\s*([\w$]+)/.exec(after) ??
      (/\(\s*await\s*$/.test(before) ? /^\s*\)\s*\.\s*([\w$]+)/.exec(after) : null);
    if (destructured) { for (const name of patternKeys(destructured[1]!)) use(specifier, name); }
    else if (direct && direct[1] !== "then") use(specifier, direct[1]!);
    else use(specifier, "*");
  }

  // `// @ts-types="…"` comments name import-map entries too.
  for (const comment of comments) {
    const m = /@ts-types\s*=\s*["']([^"']+)["']/.exec(comment);
    if (m) facts.specifiers.add(m[1]!);
  }
  return facts;
}

/** The members read from a namespace import, or `*` when it is used any other way. */
function namespaceUses(code: string, namespace: string, from: number): string[] {
  const used: string[] = [];
  for (
    const m of code.slice(from).matchAll(
      new RegExp(String.raw`(?<![\w$.])${namespace}\b(\s*\.\s*([\w$]+))?`, "g"),
    )
  ) {
    if (m[2] === undefined) return ["*"];
    used.push(m[2]);
  }
  return used;
}
