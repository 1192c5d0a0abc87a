/**
 * A corpus of hostile skill/script names and paths: traversal in many encodings, absolute
 * and drive paths, NUL and control characters, Unicode look-alikes, reserved and device
 * names, over-long names. Every entry point that takes a name must refuse all of them.
 */

const TRAVERSALS = [
  "..",
  ".",
  "../",
  "..\\",
  "../..",
  "../../../etc/passwd",
  "..\\..\\windows\\system32",
  "....//....//etc",
  "..%2f..%2fetc",
  "%2e%2e%2f",
  "%2e%2e/%2e%2e/etc",
  "..%5c..%5c",
  "%252e%252e%252f",
  "..%c0%af",
  "..%c1%9c",
  "%c0%ae%c0%ae/",
  "..;/",
  "..\u2215..",
  "..\u2044etc",
  "\uff0e\uff0e\uff0f",
  "．．／etc",
  "skill/../../x",
  "skill/..",
  "./skill",
  "skill/.",
  "a/b",
  "a\\b",
  "skill%00",
  "..%00",
  "~",
  "~root",
  "~/.ssh",
  "$HOME",
  "${HOME}",
  "`id`",
  "$(id)",
  "|id",
  ";id",
  "&&id",
  "-rf",
  "--help",
  "-",
];

const ABSOLUTE = [
  "/",
  "/abs",
  "/etc/passwd",
  "//server/share",
  "\\\\server\\share",
  "C:",
  "C:\\",
  "C:\\Windows",
  "c:/windows",
  "D:skill",
  "\\\\?\\C:\\x",
  "file:///etc/passwd",
  "http://x/y",
  "skill://kalshi-markets/SKILL.md",
];

const CONTROL = [
  "\0",
  "skill\0",
  "\0skill",
  "sk\0ill",
  "skill\n",
  "skill\r\n",
  "\nskill",
  "skill\t",
  "sk ill",
  " skill",
  "skill ",
  "\u001b[31mred",
  "skill\u0007",
  "skill\u007f",
  "skill\u0085",
  "skill\u2028",
  "skill\u200b",
  "\ufeffskill",
  "skill\u202e",
  "ski\u00adll",
];

const LOOKALIKES = [
  "ѕkill", // Cyrillic dze
  "skіll", // Cyrillic i
  "kalshi–markets", // en dash
  "kalshi—markets", // em dash
  "kalshi‐markets", // hyphen U+2010
  "kalshi−markets", // minus sign
  "kalshi_markets\u0301",
  "ｋａｌｓｈｉ",
  "kalshi．markets",
  "caf\u00e9",
  "cafe\u0301",
  "ß",
  "İ",
  "ǅ",
  "日本語",
  "😀",
  "skill😀",
  "\ud800",
];

const RESERVED = [
  "__pycache__",
  "__PYCACHE__",
  "...",
  "....",
  "con",
  "CON",
  "prn",
  "aux",
  "nul",
  "NUL",
  "com1",
  "COM9",
  "lpt1",
  "LPT9",
  "-",
  "--",
  "_",
  "___",
  "",
  " ",
];

const PUNCTUATION = "!\"#$%&'()*+,/:;<=>?@[\\]^`{|}~".split("").flatMap((
  ch,
) => [ch, `skill${ch}`, `${ch}skill`]);

const LONG = [
  "a".repeat(65),
  "a".repeat(100),
  "a".repeat(256),
  "a".repeat(4097),
  "a-".repeat(40),
  `${"../".repeat(40)}etc/passwd`,
];

export const HOSTILE_NAMES: readonly string[] = [
  ...new Set([
    ...TRAVERSALS,
    ...ABSOLUTE,
    ...CONTROL,
    ...LOOKALIKES,
    ...RESERVED,
    ...PUNCTUATION,
    ...LONG,
  ]),
];

/** Hostile relative paths for file readers (read_skill_file, skill:// resources). */
export const HOSTILE_PATHS: readonly string[] = [
  ...new Set([
    ...TRAVERSALS.filter((p) => p !== "" && p !== "-" && p !== "--help"),
    ...ABSOLUTE,
    "references/../../../../etc/passwd",
    "references/../SKILL.md/../../x",
    "scripts/../../..",
    "references/%2e%2e/%2e%2e/x",
    "references/\0x",
    "references\\..\\..\\x",
  ]),
];
