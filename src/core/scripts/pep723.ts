/**
 * PEP 723 inline script metadata: the `# /// script` block of a Python script, read just
 * far enough to know whether the script needs dependencies (and so `uv`) to run; and the
 * `requirements.txt` a script without a block may have instead, read as far.
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

/**
 * Distributions whose import name is not their own (the common ones skills declare); any
 * other is imported by its normalised name (`python-foo` → `python_foo`).
 */
const IMPORT_NAMES: Readonly<Record<string, string>> = {
  "pyyaml": "yaml",
  "beautifulsoup4": "bs4",
  "pillow": "PIL",
  "python-dateutil": "dateutil",
  "scikit-learn": "sklearn",
  "scikit-image": "skimage",
  "opencv-python": "cv2",
  "opencv-python-headless": "cv2",
  "python-docx": "docx",
  "python-pptx": "pptx",
  "pymupdf": "fitz",
  "pypdf2": "PyPDF2",
  "attrs": "attr",
  "protobuf": "google",
  "python-dotenv": "dotenv",
  "pyjwt": "jwt",
  "typing-extensions": "typing_extensions",
  "google-genai": "google",
  "faiss-cpu": "faiss",
  "msgpack-python": "msgpack",
  "pycryptodome": "Crypto",
};

/**
 * The distribution a PEP 508 requirement names (`requests[socks]>=2; python_version>"3"` →
 * `requests`), lower case, or undefined for what is not a plain name (a URL, a path).
 */
export function requirementName(requirement: string): string | undefined {
  const match = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[<>=!~;@(]|$)/.exec(
    requirement,
  );
  if (match === null) return undefined;
  if (/@\s*\S/.test(requirement.slice(match[0].length - 1))) return undefined; // a direct URL
  return match[1]!.toLowerCase().replace(/[._]+/g, "-");
}

/** The top-level module a distribution is imported as. */
export function importNameOf(distribution: string): string {
  return IMPORT_NAMES[distribution] ?? distribution.replaceAll("-", "_");
}

/**
 * The requirements a `requirements.txt` lists, one per line (comments, blank lines and
 * continuations read as pip reads them), or undefined when a line is anything else: an
 * option (`-r other.txt`, `--index-url`, `--hash`), a URL, a path or an environment marker.
 * Only a file of plain requirements says every package it would install.
 */
export function requirementsTxtEntries(text: string): string[] | undefined {
  const entries: string[] = [];
  const lines = text.replace(/\\\r?\n/g, " ").split(/\r?\n/);
  for (const raw of lines) {
    const line = raw.replace(/(?:^|\s)#.*$/, "").trim();
    if (line === "") continue;
    // An environment marker (`; sys_platform == "win32"`) may leave a line out: not told here.
    if (line.startsWith("-") || /\s-|;/.test(line) || requirementName(line) === undefined) {
      return undefined;
    }
    entries.push(line);
  }
  return entries;
}
