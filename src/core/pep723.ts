/**
 * PEP 723 inline script metadata: the `# /// script` block of a Python script, read just
 * far enough to know whether the script needs dependencies (and so `uv`) to run.
 */

/**
 * The dependencies a PEP 723 `# /// script` block declares: "none" when there is no block
 * or `dependencies` is missing/empty, the list when it has entries, "unknown" when the
 * block cannot be read (treated as needing uv).
 */
export function pep723Dependencies(source: string): "none" | "unknown" | string[] {
  const lines = source.split(/\r?\n/);
  const start = lines.findIndex((l) => l === "# /// script");
  if (start === -1) return "none";
  const body: string[] = [];
  let closed = false;
  for (const line of lines.slice(start + 1)) {
    if (line === "# ///") {
      closed = true;
      break;
    }
    if (line === "#") body.push("");
    else if (line.startsWith("# ")) body.push(line.slice(2));
    else return "unknown";
  }
  if (!closed) return "unknown";
  const toml = body.join("\n");
  const match = /^dependencies\s*=\s*/m.exec(toml);
  if (match === null) return "none";
  // `dependencies` must be a top-level key: no [table] header before it.
  if (/^\s*\[/m.test(toml.slice(0, match.index))) return "none";
  const items = scanTomlStringArray(toml.slice(match.index + match[0].length));
  if (items === undefined) return "unknown";
  return items.length === 0 ? "none" : items;
}

/** Reads a TOML array of strings (`["a", 'b[x]>=1', ...]`, comments and newlines allowed). */
function scanTomlStringArray(text: string): string[] | undefined {
  if (text[0] !== "[") return undefined;
  const items: string[] = [];
  let i = 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "]") return items;
    if (c === "#") {
      const end = text.indexOf("\n", i);
      i = end === -1 ? text.length : end + 1;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let value = "";
      while (j < text.length && text[j] !== c) {
        if (c === '"' && text[j] === "\\") j++;
        value += text[j] ?? "";
        j++;
      }
      if (j >= text.length) return undefined;
      items.push(value);
      i = j + 1;
    } else if (c === "," || /\s/.test(c)) i++;
    else return undefined;
  }
  return undefined;
}
