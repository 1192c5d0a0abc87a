/**
 * The completion scripts of `skills completions` (pure), derived from the command specs:
 * every command and alias, its flags (with the common ones), what its positionals and
 * flag values complete to. Bash and zsh here, fish in completions_fish.ts.
 */

import { GLOBAL_FLAGS } from "./commands.ts";
import { type CommandSpec, COMMON_FLAGS, type FlagSpec } from "./spec.ts";

export interface CompletionFlag {
  long: string;
  short?: string;
  /** Placeholder of the value when the flag takes one, e.g. `D` for `--dir D`. */
  value?: string;
  description: string;
  complete?: FlagSpec["complete"];
}

/** What a command's positional arguments complete to. */
type PositionalKind = "skill" | "skill+script" | "path" | "shell" | "none";

export interface CompletionCommand {
  name: string;
  /** The name, then the aliases: every word that runs the command. */
  words: string[];
  summary: string;
  flags: CompletionFlag[];
  positional: PositionalKind;
  /** From this positional on, words go to the command untouched (no flag completion). */
  rawFrom: number | undefined;
}

/** The shells `skills completions` renders for, and completes as its argument. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

function completionFlag(long: string, flag: FlagSpec): CompletionFlag {
  // One line per flag in a completion menu: continuation lines are joined.
  const out: CompletionFlag = { long, description: flag.description.split("\n").join(" ") };
  if (flag.short !== undefined) out.short = flag.short;
  if (flag.type === "string") out.value = flag.value ?? long.toUpperCase();
  if (flag.complete !== undefined) out.complete = flag.complete;
  return out;
}

/** A command's documented flags in help order, then the common ones it does not list. */
function flagsOf(spec: CommandSpec): CompletionFlag[] {
  const listed = Object.entries(spec.flags).map(([long, f]) => completionFlag(long, f));
  const common = Object.entries(COMMON_FLAGS).filter(([long]) => !Object.hasOwn(spec.flags, long))
    .map(([long, f]) => completionFlag(long, f));
  return [...listed, ...common];
}

function positionalKind(spec: CommandSpec): PositionalKind {
  const [first, second] = spec.positionals;
  if (first?.complete === "skill" && second?.complete === "script") return "skill+script";
  return first === undefined || first.complete === "script" ? "none" : first.complete;
}

export function completionCommands(specs: readonly CommandSpec[]): CompletionCommand[] {
  return specs.map((spec) => {
    const raw = spec.positionals.findIndex((p) => p.raw);
    return {
      name: spec.name,
      words: [spec.name, ...spec.aliases ?? []],
      summary: spec.summary,
      flags: flagsOf(spec),
      positional: positionalKind(spec),
      rawFrom: raw < 0 ? undefined : raw,
    };
  });
}

/** The options accepted before a command (and `--version`). */
export const globalFlags = (): CompletionFlag[] =>
  Object.entries(GLOBAL_FLAGS).map(([long, f]) => completionFlag(long, f));

export const sq = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
const flagWords = (f: CompletionFlag) => f.short ? [`--${f.long}`, `-${f.short}`] : [`--${f.long}`];
export const valueFlags = (c: CompletionCommand) =>
  c.flags.filter((f) => f.value !== undefined).flatMap(flagWords);
/** The names of the commands whose positionals complete to `kind`. */
const namesOf = (cmds: CompletionCommand[], kind: (p: PositionalKind) => boolean) =>
  cmds.filter((c) => kind(c.positional)).map((c) => c.name);
/** Every word (name or alias) of the commands whose positionals complete to `kind`. */
export const wordsOf = (cmds: CompletionCommand[], kind: (p: PositionalKind) => boolean) =>
  cmds.filter((c) => kind(c.positional)).flatMap((c) => c.words);
/** The long names of the value flags that complete to `kind`, across every command. */
const flagsCompleting = (cmds: CompletionCommand[], kind: CompletionFlag["complete"]) => [
  ...new Set(cmds.flatMap((c) => c.flags).filter((f) => f.complete === kind).map((f) => f.long)),
];

const pattern = (words: string[]) => words.join("|");

/** Shell `case` arms mapping each alias to its command's name. */
const aliasArms = (cmds: CompletionCommand[], arm: (name: string) => string) =>
  cmds.filter((c) => c.words.length > 1).map((c) =>
    `${pattern(c.words.slice(1))}) ${arm(c.name)} ;;`
  );

// long because: a template of the bash script; the pieces are computed just above it.
export function renderBash(cmds: CompletionCommand[]): string {
  const flagCases = cmds.map((c) =>
    `    ${c.name}) echo ${sq(c.flags.flatMap(flagWords).join(" "))} ;;`
  ).join("\n");
  const valueCases = cmds.filter((c) => valueFlags(c).length > 0)
    .map((c) => `    ${c.name}) echo ${sq(valueFlags(c).join(" "))} ;;`).join("\n");
  const rawCases = cmds.filter((c) => c.rawFrom !== undefined)
    .map((c) => `    ${c.name}) echo ${c.rawFrom} ;;`).join("\n");
  const aliases = aliasArms(cmds, (name) => `echo ${name}`).map((a) => `    ${a}\n`).join("");
  const at = (kind: (p: PositionalKind) => boolean, index: string) =>
    namesOf(cmds, kind).map((w) => `${w}:${index}`).join("|");
  const skillAt0 = at((p) => p === "skill" || p === "skill+script", "0");
  const scriptAt1 = at((p) => p === "skill+script", "1");
  const pathAny = at((p) => p === "path", "*");
  const shellAt0 = at((p) => p === "shell", "0");
  const skillLists = flagsCompleting(cmds, "skill-list").map((l) => `--${l}`);
  const directories = flagsCompleting(cmds, "directory").map((l) => `--${l}`);
  const topWords = [...cmds.flatMap((c) => c.words), ...globalFlags().flatMap(flagWords)];
  return `# bash completion for skills — generated by \`skills completions bash\`
_skills_command() {
  case "$1" in
${aliases}    *) echo "$1" ;;
  esac
}
_skills_flags() {
  case "$1" in
${flagCases}
  esac
}
_skills_value_flags() {
  case "$1" in
${valueCases}
  esac
}
# The positional from which a command's words are passed on untouched (no flags to complete).
_skills_raw_from() {
  case "$1" in
${rawCases}
    *) echo 999 ;;
  esac
}
_skills() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local prog="\${COMP_WORDS[0]}" cmd="" first="" pos=0 skip=0 i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    if [[ -z "$cmd" ]]; then
      [[ "$w" == -* ]] || cmd="$(_skills_command "$w")"
      continue
    fi
    if [[ "$w" == -* && "$w" != *=* ]]; then
      [[ " $(_skills_value_flags "$cmd") " == *" $w "* ]] && skip=1
      continue
    fi
    [[ "$w" == -* ]] && continue
    ((pos == 0)) && first="$w"
    pos=$((pos + 1))
  done
  COMPREPLY=()
  if [[ -z "$cmd" ]]; then
    COMPREPLY=($(compgen -W ${sq(topWords.join(" "))} -- "$cur"))
    return 0
  fi
  case "$prev" in
${
    skillLists.length > 0
      ? `    ${pattern(skillLists)})
      local prefix=""
      [[ "$cur" == *,* ]] && prefix="\${cur%,*},"
      COMPREPLY=($(compgen -P "$prefix" -W "all all-untrusted none $("$prog" completions --list-skills 2>/dev/null)" -- "\${cur##*,}"))
      return 0 ;;
`
      : ""
  }${
    directories.length > 0
      ? `    ${pattern(directories)}) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;\n`
      : ""
  }  esac
  if ((skip)); then COMPREPLY=($(compgen -f -- "$cur")); return 0; fi
  if [[ "$cur" == -* ]] && ((pos < $(_skills_raw_from "$cmd"))); then
    COMPREPLY=($(compgen -W "$(_skills_flags "$cmd")" -- "$cur"))
    return 0
  fi
  case "$cmd:$pos" in
${
    skillAt0
      ? `    ${skillAt0})
      COMPREPLY=($(compgen -W "$("$prog" completions --list-skills 2>/dev/null)" -- "$cur")) ;;
`
      : ""
  }${
    scriptAt1
      ? `    ${scriptAt1})
      COMPREPLY=($(compgen -W "$("$prog" completions --list-scripts "$first" 2>/dev/null)" -- "$cur")) ;;
`
      : ""
  }${pathAny ? `    ${pathAny})\n      COMPREPLY=($(compgen -d -- "$cur")) ;;\n` : ""}${
    shellAt0
      ? `    ${shellAt0}) COMPREPLY=($(compgen -W "${SHELLS.join(" ")}" -- "$cur")) ;;\n`
      : ""
  }  esac
  return 0
}
complete -F _skills skills
`;
}

/** Escapes a description for a zsh `_arguments` spec inside single quotes (`[desc]`). */
const zq = (text: string) => text.replaceAll("'", `'\\''`).replace(/([[\]])/g, "\\$1");
/** Escapes a value message (between colons) for a zsh `_arguments` spec. */
const zmsg = (text: string) => zq(text).replaceAll(":", "\\:");

function zshFlag(f: CompletionFlag): string {
  const desc = zq(f.description);
  const value = f.value === undefined
    ? ""
    : f.complete === "skill-list"
    ? `:skills:_skills_skill_list`
    : f.complete === "directory"
    ? ":directory:_files -/"
    : `:${zmsg(f.value.toLowerCase())}:`;
  return f.short
    ? `'(-${f.short} --${f.long})'{-${f.short},--${f.long}}'[${desc}]${value}'`
    : `'--${f.long}[${desc}]${value}'`;
}

const ZSH_POSITIONALS: Record<PositionalKind, string[]> = {
  skill: ["'*:skill:_skills_skill_names'"],
  "skill+script": [
    "'1:skill:_skills_skill_names'",
    "'2:script:_skills_script_names'",
    "'*::script argument:_default'",
  ],
  path: ["'*:path:_files -/'"],
  shell: [`'1:shell:(${SHELLS.join(" ")})'`],
  none: [],
};

export function renderZsh(cmds: CompletionCommand[]): string {
  const commands = cmds.flatMap((c) => c.words.map((w) => `    ${sq(`${w}:${c.summary}`)}`))
    .join("\n");
  const cases = cmds.map((c) => {
    const lines = [...c.flags.map(zshFlag), ...ZSH_POSITIONALS[c.positional]];
    return `    ${c.name})\n      _arguments -s \\\n${
      lines.map((l) => `      ${l}`).join(" \\\n")
    } ;;`;
  }).join("\n");
  const globals = globalFlags().map((f) => `    ${zshFlag(f)} \\`).join("\n");
  const aliases = aliasArms(cmds, (name) => `cmd=${name}`).map((a) => `        ${a}\n`).join("");
  return `#compdef skills
# zsh completion for skills — generated by \`skills completions zsh\`

_skills_skill_names() {
  local -a names
  names=(\${(f)"$(\${_skills_prog:-skills} completions --list-skills 2>/dev/null)"})
  _describe -t skills 'skill' names
}

_skills_skill_list() {
  local -a names
  names=(all all-untrusted none \${(f)"$(\${_skills_prog:-skills} completions --list-skills 2>/dev/null)"})
  _values -s , 'skills' \${names[@]}
}

_skills_script_names() {
  local -a names
  names=(\${(f)"$(\${_skills_prog:-skills} completions --list-scripts \${words[2]} 2>/dev/null)"})
  _describe -t scripts 'script' names
}

_skills() {
  local curcontext="$curcontext" state line
  local -a commands
  local _skills_prog=\${words[1]}
  commands=(
${commands}
  )
  _arguments -C \\
${globals}
    '1:command:->command' \\
    '*::arguments:->arguments'
  case $state in
    command) _describe -t commands 'skills command' commands ;;
    arguments)
      local cmd=$words[1]
      case $cmd in
${aliases}      esac
      case $cmd in
${cases}
      esac ;;
  esac
}

if [[ "$funcstack[1]" == "_skills" ]]; then
  _skills "$@"
else
  compdef _skills skills
fi
`;
}
