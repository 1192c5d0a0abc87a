/**
 * What the data-flow analysis knows by name: where secrets are (credential and key files,
 * keychains, browser and cloud CLI stores, by path or by a glob that reaches them), where
 * code persists (start-up files, authorized_keys, cron, hooks, units, editor and agent
 * settings), and which calls fetch, decode, send and execute, in Python, JavaScript and
 * shell. Data, so that docs/reviewing.md can list it and tests can pin it.
 */

import { isSecretFileName } from "../../policy/workspace_rules.ts";

/** Labels a value can carry through the analysis. */
export type Label =
  | `env:${string}` // one environment variable (`env:*`: the whole environment)
  | `file:${string}` // a credential file's path or contents
  | `store:${string}` // what a keychain or cloud-CLI command printed (`store:github`)
  | `persist:${string}` // a path where code persists
  | `param:${number}` // a parameter of the function being read (for its summary)
  | `closure:${number}` // a parameter of the function around a nested one being read
  | `envparam:${number}` // the environment variable that parameter names (returnLabels)
  | "fetched" // bytes from the network
  | "filetext" // text read from a file (the script's own, a document, one saved earlier) or a function's source
  | "decoded" // bytes decoded from base64, hex, rot13, compression
  | "concealed"; // decoded from the script's own constants: text its author wrote hidden

/** Credential stores, home-relative, used to test globs (`~/.s?h/id_*` reaches the first). */
const SECRET_FILES = [
  ".ssh/id_rsa",
  ".ssh/id_ed25519",
  ".ssh/id_ecdsa",
  ".aws/credentials",
  ".git-credentials",
  ".netrc",
  ".kube/config",
  ".docker/config.json",
  ".config/gcloud/application_default_credentials.json",
  ".config/gcloud/credentials.db",
  ".azure/msal_token_cache.json",
  ".config/gh/hosts.yml",
  ".npmrc",
  ".pypirc",
  ".gnupg/private-keys-v1.d/key.key",
  "Library/Keychains/login.keychain-db",
  ".config/google-chrome/Default/Login Data",
  ".config/google-chrome/Default/Cookies",
  "Library/Application Support/Google/Chrome/Default/Login Data",
  ".mozilla/firefox/profile/logins.json",
  ".mozilla/firefox/profile/key4.db",
  ".password-store/x.gpg",
  ".vault-token",
  ".bash_history",
  ".zsh_history",
  ".python_history",
  ".psql_history",
  ".mysql_history",
  ".cargo/credentials.toml",
  ".terraform.d/credentials.tfrc.json",
  ".gem/credentials",
];

/** A path (or the folder) that holds secrets; public keys and plain config do not. */
const SECRET_PATH =
  /(?:^|[/\\~])\.ssh(?:[/\\](?!(?:config|known_hosts\w*|authorized_keys|[\w.-]+\.pub)$)[\w.*?-]+)?[/\\]?$|\.aws[/\\]credentials|\.git-credentials|(?:^|[/\\~])\.netrc$|\.kube[/\\]config$|(?:^|[/\\~])\.kube[/\\]?$|\.docker[/\\]config\.json|\.config[/\\]gcloud(?:[/\\]|$)|[/\\]gcloud[/\\](?:credentials|access_tokens|legacy_credentials|application_default)|(?:^|[/\\~])\.azure(?:[/\\]|$)|\.config[/\\]gh[/\\]hosts\.yml|(?:^|[/\\~])\.(?:npmrc|pypirc|vault-token)$|(?:^|[/\\~])\.gnupg|\.keychain(?:-db)?$|[/\\]Keychains(?:[/\\]|$)|Login Data$|[/\\]Cookies$|key4\.db$|logins\.json$|\.password-store|(?:^|[/\\~])\.(?:bash|zsh|sh|python|psql|mysql|node_repl|sqlite)_history$|\.cargo[/\\]credentials(?:\.toml)?$|\.terraform\.d[/\\]credentials\.tfrc\.json$|\.gem[/\\]credentials$/;

/**
 * Whether `path` names a project's `.env` (or `.env.local`, `.env.production`), or is a glob
 * whose last part reaches one (`.env*`, `*.env`; not `*`, whose last part names none): its keys,
 * read and sent, leave whole, as the environment's would. Told by the table the sandbox hides
 * secret files by (core/policy/workspace_rules.ts), so `.env.example` and the other templates
 * are none here either.
 */
function namesEnvFile(path: string): boolean {
  const name = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  if (!/[*?[]/.test(name)) return /^\.env(?:\.|$)/i.test(name) && isSecretFileName(name);
  if (!name.includes(".env") || /\s/.test(name)) return false;
  const glob = globToRegExp(name);
  return [".env", ".env.local", ".env.production"].some((file) => glob.test(file));
}

/**
 * Where code or access persists after the skill ran: shell start-up files, keys, schedulers,
 * hooks, units, editor and agent settings, Python's start-up hooks (`sitecustomize.py`, a
 * `.pth` file), pip's index and git's config (its aliases and hooks run commands), the hooks a
 * repository's tools run on their own (pre-commit's config, husky's hooks; not direnv's `.envrc`,
 * which runs only once the user allows its new text), and what an
 * agent reads in every session (its skills folders, the rules files of agents; `CLAUDE.md` and
 * `AGENTS.md` as a command's target only: {@link instructionFile}).
 */
const PERSIST_PATH =
  /(?:^|[/\\~])\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|xprofile|xinitrc)$|config\.fish$|authorized_keys\d?$|(?:^|\/)etc\/(?:cron|rc\.local|profile\.d|systemd)|\/var\/spool\/cron|\.git[/\\]hooks(?:[/\\]|$)|systemd[/\\](?:user|system)(?:[/\\]|$)|\.(?:service|timer)$|Launch(?:Agents|Daemons)|\.vscode[/\\](?:settings|tasks)\.json$|\.claude[/\\](?:settings(?:\.local)?\.json$|commands|agents|hooks)|(?:^|[/\\~])\.cursor[/\\]|Code[/\\]User[/\\]settings\.json$|(?:^|[/\\])\.mcp\.json$|\.gemini[/\\]settings\.json$|\.codex[/\\]config\.toml$|Start Menu[/\\]Programs[/\\]Startup|CurrentVersion[/\\]Run|(?:^|\/)etc\/ld\.so\.preload$|(?:^|\/)etc\/sudoers(?:\.d)?(?:\/|$)|autostart[/\\](?:[^/\\]+\.desktop)?$|(?:^|[/\\~])\.(?:claude|codex|agents|cursor|gemini|windsurf|opencode|goose|github)[/\\]skills[/\\]|\.github[/\\]copilot-instructions\.md$|(?:^|[/\\])\.(?:cursorrules|windsurfrules|clinerules)$|(?:^|[/\\])(?:site|user)customize\.py$|\.pth$|(?:^|[/\\~])\.(?:pip[/\\]pip\.conf|config[/\\]pip[/\\]pip\.conf)$|(?:^|[/\\])pip\.ini$|(?:^|[/\\~])\.gitconfig$|\.config[/\\]git[/\\]config$|(?:^|[/\\])\.git[/\\]config$|(?:^|[/\\])\.pre-commit-config\.ya?ml$|(?:^|[/\\])\.husky[/\\][\w.-]+$/;

/** Strips what points at a home folder: `~/`, `$HOME/`, `/home/u/`, `/Users/u/`, `/root/`. */
function homeRelative(path: string): string {
  return path.replace(
    /^(?:~|\$\{?HOME\}?|\/home\/[^/]+|\/Users\/[^/]+|\/root|%USERPROFILE%)[/\\]?/,
    "",
  );
}

function globToRegExp(glob: string): RegExp {
  let out = "";
  for (let k = 0; k < glob.length; k++) {
    const c = glob[k]!;
    if (c === "*") out += glob[k + 1] === "*" ? (k++, ".*") : "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const close = glob.indexOf("]", k);
      if (close === -1) out += "\\[";
      else {
        out += "[" + glob.slice(k + 1, close).replace(/^!/, "^").replace(/\\/g, "\\\\") + "]";
        k = close;
      }
    } else out += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`(?:^|/)${out}$`);
}

/**
 * The labels of data that runs as code no one reviewed, kept with a file it is written to
 * (downloaded or decoded bytes): a shell or an interpreter later given that file runs them.
 */
export function unreviewedCode(labels: Iterable<Label>): Set<Label> {
  return new Set([...labels].filter((l) => l === "fetched" || l === "decoded"));
}

/**
 * What a file keeps of the data written to it: code no one reviewed ({@link unreviewedCode}),
 * and a secret (`echo "$KEY" > /tmp/k`), which whatever later reads or uploads that file by its
 * path (`curl -T /tmp/k`, `scp /tmp/k host:`, `files={"f": open("/tmp/k", "rb")}`) sends.
 */
export function heldByFile(labels: Iterable<Label>): Set<Label> {
  return new Set([...labels].filter((l) => l === "fetched" || l === "decoded" || isSecret(l)));
}

/** Whether a label is a secret's: a variable's, a credential file's or store's, or a parameter's. */
export function isSecret(label: Label): boolean {
  return /^(?:env|envparam|file|store):/.test(label);
}

/** `text` as one shell word, single-quoted: what a command line rebuilt from an argv holds. */
export function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A file's path as written files are kept by, wherever they are recorded: `./x.sh` is `x.sh`. */
export function fileKey(path: string): string {
  return path.replace(/^(?:\.\/)+/, "");
}

/**
 * Whether a secret's label is a `.env` file's (read whole): one of its keys read by name is then
 * that variable, as the environment's would be (code_flow.ts).
 */
export function isEnvFileLabel(label: string): boolean {
  return label.startsWith("file:") && namesEnvFile(label.slice("file:".length));
}

/** The secret `path` names (itself, or a store its glob reaches), or undefined. */
export function secretPath(path: string): string | undefined {
  const p = path.trim();
  if (p.length < 4 || p.length > 300 || /\.pub$/.test(p)) return undefined;
  // A glob that reaches a store: only path-like text (`~/.s?h/id_*`), not any pattern.
  if (/[*?[]/.test(p) && /^(?:~|\$\{?HOME|\/|\.)/.test(p) && /[/\\]/.test(p) && !/\s/.test(p)) {
    const glob = globToRegExp(homeRelative(p).replace(/^\/+/, ""));
    if (SECRET_FILES.some((f) => glob.test(f))) return p;
  }
  return SECRET_PATH.test(p) || namesEnvFile(p) ? p : undefined;
}

/**
 * Commands that print a secret from a keychain or a cloud CLI's store: their output is a
 * credential like a key file's content (`security find-generic-password -w`, `gh auth token`,
 * `gcloud auth print-access-token`, `aws configure get aws_secret_access_key`, …).
 */
const SECRET_COMMAND =
  /^(?:security\s+(?:find-(?:generic|internet)-password|dump-keychain|export)\b|secret-tool\s+lookup\b|gh\s+auth\s+token\b|gcloud\s+auth\s+(?:print-access-token|print-identity-token|application-default\s+print-access-token)\b|aws\s+(?:configure\s+(?:get|export-credentials)|sts\s+get-session-token|ecr\s+get-login-password)\b|az\s+account\s+get-access-token\b|op\s+(?:read|item\s+get)\b|pass\s+show\b|git\s+credential\s+fill\b|kubectl\s+config\s+view\s+--raw\b|docker-credential-\w+\s+get\b)/;

/** Whose service a store's secret is for: a cloud CLI's token goes to its cloud. */
const STORE_SERVICE: Readonly<Record<string, string>> = {
  gh: "github",
  gcloud: "googleapis google",
  aws: "amazonaws aws",
  az: "azure microsoft",
  kubectl: "",
  "docker-credential": "docker",
};

/**
 * The label of a command line that prints a secret: `store:<service words> <command>` for a
 * cloud CLI (its token sent to its own cloud is how it is used), `file:<command>` for a
 * keychain or password manager (its secrets belong to anything).
 */
export function secretCommand(line: string): Label | undefined {
  const m = SECRET_COMMAND.exec(line.trim());
  if (m === null) return undefined;
  const tool = m[0].split(/\s+/)[0]!.replace(/^docker-credential-\w+$/, "docker-credential");
  const service = STORE_SERVICE[tool];
  return service === undefined || service === "" ? `file:${m[0]}` : `store:${service}|${m[0]}`;
}

/** The persistence location `path` names, or undefined. */
/**
 * `CLAUDE.md`, `AGENTS.md`, `GEMINI.md`: instructions an agent reads in every session. A
 * persistence target only where a command writes to one by name (`>> CLAUDE.md`): scripts read
 * them for a project's name far more often than they write them, and a path's label travels
 * with what is read through it.
 */
export function instructionFile(path: string): string | undefined {
  return /(?:^|[/\\])(?:CLAUDE|AGENTS|GEMINI)\.md$/.test(path.trim()) ? path.trim() : undefined;
}

export function persistPath(path: string): string | undefined {
  const p = path.trim();
  return p.length < 5 || p.length > 300 || !PERSIST_PATH.test(p) ? undefined : p;
}

/** Environment variables that are not secrets (where a path or a shell starts). */
const PLAIN_ENV = new Set([
  "HOME",
  "PATH",
  "PWD",
  "OLDPWD",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LC_ALL",
  "TERM",
  "TMPDIR",
  "TMP",
  "TEMP",
  "EDITOR",
  "HOSTNAME",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_RUNTIME_DIR",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "NODE_ENV",
  "DEBUG",
  "CI",
  "NO_COLOR",
  "PYTHONPATH",
  "VIRTUAL_ENV",
  "CLAUDE_PLUGIN_ROOT",
  "CLAUDE_PROJECT_DIR",
  "SKILL_DIR",
  "RANDOM",
  "LINENO",
  "SECONDS",
  "BASH_SOURCE",
  "IFS",
]);

const SECRET_WORD =
  /^(?:KEY|KEYS|APIKEY|TOKEN|TOKENS|SECRET|SECRETS|PASS|PASSWD|PASSWORD|PASSPHRASE|CRED|CREDS|CREDENTIAL|CREDENTIALS|AUTH|COOKIE|COOKIES|SESSION|PAT|PRIVATE|SIGNING|WEBHOOK|DSN|JWT|BEARER)$/;

/**
 * Whether a variable's name says it holds a secret (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
 * `DB_PASSWORD`); `VERSION` or `REGION` are configuration. The whole environment always is.
 */
export function secretName(name: string): boolean {
  if (PLAIN_ENV.has(name)) return false;
  const upper = name.toUpperCase();
  return upper.split(/[^A-Z0-9]+/).some((w) => SECRET_WORD.test(w)) ||
    /(?:KEY|TOKEN|SECRET|PASSWORD)$/.test(upper);
}

/** Calls (last name, or full dotted name) whose result is bytes from the network. */
export const FETCH_CALLS =
  /^(?:(?:urllib\.request\.|urllib2\.|request\.)?urlopen|(?:requests|httpx|urllib3|aiohttp|session|client|http|https|axios|got|ky|superagent)\.(?:get|request|post|put|patch|stream|send)|fetch|axios|got|ky|ofetch|\$fetch|requests\.Session\.get|https?\.get|urlretrieve|(?:pool|http)\.request|Deno\.readAll)$/;

/**
 * Calls (and methods) that read a file's text: what they return, run, is whatever the file
 * holds — the script's own comments, a document, a download saved earlier.
 */
export const READ_CALLS =
  /^(?:open|read_text|read_bytes|readFileSync|readFile|readTextFile|readTextFileSync)$/;

/** Calls that decode bytes: base64, hex, rot13 and friends, decompression. */
export const DECODE_CALLS =
  /(?:^|\.)(?:b64decode|b32decode|b16decode|a85decode|b85decode|urlsafe_b64decode|standard_b64decode|decodebytes|decodestring|unhexlify|a2b_base64|a2b_hex|fromhex|atob|decompress|inflateSync|gunzipSync|inflateRawSync|brotliDecompressSync)$|^codecs\.decode$|^marshal\.loads$|^(?:chr|unichr)$|^String\.from(?:CharCode|CodePoint)$/;

/** Calls that run their argument as code. */
export const EXEC_CALLS =
  /^(?:exec|eval|builtins\.exec|builtins\.eval|__builtins__\.exec|__builtins__\.eval|(?:globalThis|global|window|self)\.eval|Function|new Function|vm\.runInNewContext|vm\.runInThisContext|vm\.runInContext|vm\.Script|new vm\.Script|vm\.compileFunction|Worker|worker_threads\.Worker|import|__import__|importlib\.import_module|setTimeout|setInterval|execScript|WebAssembly\.(?:instantiate|instantiateStreaming|compile|compileStreaming)|new WebAssembly\.Module)$/;

/**
 * Methods that run their argument as code whatever their receiver is called (Python's
 * `code.InteractiveInterpreter().runsource(src)`, Node's `new Module(id)._compile(src, file)`).
 */
export const EXEC_METHODS = /^(?:runsource|runcode|_compile)$/;

/** Calls that hand their (string) argument to a shell. */
export const SHELL_CALLS =
  /^(?:os\.system|os\.popen|libc\.system|libc\.popen|commands\.getoutput|asyncio\.create_subprocess_shell|subprocess\.getoutput|subprocess\.getstatusoutput|child_process\.exec|child_process\.execSync|Bun\.\$|execa\.execaCommand(?:Sync)?)$/;

/** Calls that start a process from an argv list (a shell when shell=True or `sh -c`). */
export const PROCESS_CALLS =
  /^(?:subprocess\.(?:run|call|check_call|check_output|Popen)|asyncio\.create_subprocess_exec|os\.exec\w*|os\.spawn\w*|os\.posix_spawnp?|pty\.spawn|child_process\.(?:spawn|spawnSync|execFile|execFileSync)|Deno\.Command|new Deno\.Command|Deno\.run|Bun\.spawn|Bun\.spawnSync|execa|execa\.sync|execa\.execa(?:Sync|Node)?)$/;

/** Calls that send data off the machine (the first argument or any keyword may carry it). */
export const SEND_CALLS =
  /^(?:(?:urllib\.request\.|urllib2\.)?(?:urlopen|Request)|(?:requests|httpx|urllib3|aiohttp|axios|got|ky|superagent|undici)\.\w+|requests|httpx\.Client|http\.client\.HTTPS?Connection|socket\.(?:socket|create_connection|gethostbyname|gethostbyname_ex|getaddrinfo|gethostbyaddr)|dns\.resolver\.(?:resolve|query)|smtplib\.SMTP(?:_SSL)?|ftplib\.FTP(?:_TLS)?|paramiko\.(?:SSHClient|Transport|SFTPClient\.from_transport)|telnetlib\.Telnet|asyncio\.open_connection|websocket\.(?:create_connection|WebSocket)|websockets\.(?:connect|(?:sync\.)?client\.connect)|fabric\.Connection|pysftp\.Connection|asyncssh\.connect|fetch|axios|got|ky|https?\.(?:request|get)|net\.(?:connect|createConnection)|(?:new )?net\.Socket|tls\.connect|dgram\.createSocket|dns\.(?:lookup|resolve\w*)|dns\.promises\.\w+|Deno\.connect(?:Tls)?|new WebSocket|WebSocket|navigator\.sendBeacon|nodemailer\.createTransport|new XMLHttpRequest|webbrowser\.open(?:_new(?:_tab)?)?)$/;

/**
 * Methods that send through an object a send call made (a connection, a request); an SSH
 * connection's commands and uploads too (`exec_command`, fabric's `run`, `put` of a path).
 */
export const SEND_METHODS =
  /^(?:request|send|sendall|sendto|write|end|send_message|sendmail|post|put|patch|get|putrequest|putheader|connect|storbinary|storlines|sendMail|emit|exec_command|invoke_shell|run|sudo|putfo)$/;

/**
 * The SEND_METHODS whose arguments are the message, not its destination (a mail, a socket's
 * bytes, an SSH command): they go where their connection goes, whatever address they hold.
 */
export const RAW_SENDS =
  /^(?:send|sendall|write|end|sendmail|send_message|sendMail|storbinary|storlines|exec_command|invoke_shell|run|sudo|putfo|emit)$/;

/** Calls that write a file (a persistence location as their target is a finding). */
export const WRITE_CALLS =
  /^Bun\.write$|(?:^|\.)(?:write_text|write_bytes|writeFileSync|writeFile|appendFileSync|appendFile|copyFileSync|copyFile|copy|copy2|copyfile|copytree|writeTextFile|writeTextFileSync|symlink|symlinkSync|rename|move|createWriteStream)$/;

/** Names of commands that reach the network. */
export const NET_COMMANDS = new Set([
  "curl",
  "wget",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "telnet",
  "scp",
  "sftp",
  "ssh",
  "git", // a secret in a remote's address or a header option leaves with it
  "rsync",
  "ftp",
  "mail",
  "mailx",
  "sendmail",
  "mutt",
  "dig",
  "nslookup",
  "host",
  "drill",
  "http",
  "https",
  "xh",
  "aria2c",
  "ping", // its `-p` pattern is bytes of the packets it sends
  // A URL opener or a browser fetches the address it is given, a query's secret with it.
  "xdg-open",
  "open",
  "gio",
  "sensible-browser",
  "x-www-browser",
  "www-browser",
  "firefox",
  "chromium",
  "chromium-browser",
  "google-chrome",
  "lynx",
  "w3m",
  "links",
  // An index's address (`--index-url https://user:$TOKEN@host/simple`) is where pip sends it.
  "pip",
  "pip3",
]);

/** Names of commands that run code given on stdin, with `-c`/`-e`, or from a file. */
export const EXEC_COMMANDS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "python",
  "python3",
  "python2",
  "perl",
  "ruby",
  "node",
  "php",
  "pwsh",
  "powershell",
  "iex",
  "source",
  ".",
  "eval",
]);

/** Programs that run a command given as their arguments (after options of their own). */
const RUNNERS =
  /^(?:env|sudo|nohup|timeout|nice|ionice|taskset|stdbuf|setsid|busybox|doas|chrt|unbuffer|xargs|flock|caffeinate|runuser|chroot|unshare|nsenter|script|watch|parallel)$/;

/**
 * Where the interpreter a runner starts is named in a command's words (`timeout 5 sh`,
 * `sudo -u ci bash`): the first word past the runner's own options and their values that is
 * one; -1 when the first word is no runner or another program comes first (`timeout 5 grep -c
 * bash` runs grep).
 */
export function interpreterAfterRunner(words: readonly string[]): number {
  if (words.length < 2 || !RUNNERS.test(words[0]!.split("/").pop()!)) return -1;
  for (let k = 1; k < words.length; k++) {
    const text = words[k]!;
    if (EXEC_COMMANDS.has(text.split("/").pop()!)) return k;
    const option = text.startsWith("-");
    // A duration (`timeout 5`), an option's value, a variable set for the command (`env
    // -i PATH=/bin sh`, `sudo HOME=/x sh`).
    const value = /^[\d.]+[smhd]?$/.test(text) || /^[A-Za-z_]\w*=/.test(text) ||
      (k > 1 && /^(?:-\w|--\w[\w-]*)$/.test(words[k - 1]!));
    if (!option && !value) return -1;
  }
  return -1;
}

/** The language of code an interpreter is handed inline (`python3 -c`, `node -e`), if read. */
export function inlineLanguage(program: string): "python" | "javascript" | undefined {
  return /^python/.test(program) ? "python" : program === "node" ? "javascript" : undefined;
}

/** Commands whose name, assembled from pieces, hides what runs. */
export const SENSITIVE_COMMANDS = new Set([...NET_COMMANDS, ...EXEC_COMMANDS, "base64", "xxd"]);

/** Commands that decode their input. */
export function decodesInShell(command: string, args: readonly string[]): boolean {
  if (command === "base64" || command === "base32" || command === "basenc") {
    return args.some((a) => /^-(?:d|D|-decode)$|^-\w*d/.test(a));
  }
  if (command === "xxd") return args.some((a) => /^-\w*r/.test(a));
  if (command === "openssl") return args.some((a) => a === "-d" || a === "base64");
  // `printf '\x65\x63…'`, `echo -e '\0145…'`: text spelt in escapes is decoded as it prints.
  const escapes = /\\(?:x[0-9a-fA-F]|[0-7]{3}|0[0-7]{1,3}|u[0-9a-fA-F]{4})/;
  if (command === "printf") return escapes.test(args[0] ?? "");
  if (command === "echo" && args.some((a) => /^-\w*e/.test(a))) {
    return args.some((a) => escapes.test(a));
  }
  return /^(?:gunzip|zcat|uudecode|rev)$/.test(command) ||
    (command === "tr" && args.some((a) => /A-Za-z|a-zA-Z|N-ZA-M/.test(a)));
}

/** The host a URL or a host-like word names, lower case; undefined when none. */
export function hostOf(whole: string): string | undefined {
  const text = whole.length > 2048 ? whole.slice(0, 2048) : whole;
  const url = /\b(?:https?|wss?|ftp|smtp):\/\//i.exec(text);
  if (url !== null) return urlHost(text.slice(url.index + url[0].length));
  // `host`, `user@host:22/x`, and scp's and rsync's `user@host:path`.
  const bare = /^(?:[\w-]*@)?([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})(?::\d+)?(?:[/:].*)?$/
    .exec(text.trim());
  if (
    bare === null ||
    /\.(?:json|py|js|ts|sh|md|txt|yml|yaml|toml|csv|html|pkl|zip|gz)$/i.test(bare[1]!)
  ) {
    return undefined;
  }
  return bare[1]!.toLowerCase();
}

/**
 * The host of a URL's authority (`rest` starts after `://`), as the clients that send read it:
 * a tab or a line break inside is dropped, and a backslash ends the authority as a slash does
 * (WHATWG URLs, so fetch and Node: the host of `https://drop.example\\@api.github.com/` is
 * drop.example). A plain `user@host:port` is read as written; anything else in it (a percent
 * escape, a full-width or ideographic dot, a second `@`) by the WHATWG parser, which decodes
 * `api.openai.com%2edrop.com` and `api.openai.com．drop.com` to a host of drop.com, as fetch
 * sends them; Python's IDNA codec splits labels on those dots too. An authority a template
 * fills in (`{region}.api.example.com`, `${host}`) names no host: undefined, computed.
 */
function urlHost(rest: string): string | undefined {
  const authority = /^[^/?#\\\s"'`<>()[\],;|^]*/.exec(rest.replace(/[\t\n\r]/g, ""))![0];
  const plain = /^(?:[^@]*@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,})(?::\d*)?$/.exec(authority);
  if (plain !== null) return plain[1]!.toLowerCase();
  if (authority === "" || /[{}$]/.test(authority)) return undefined;
  let host: string;
  try {
    host = new URL(`https://${authority}/`).hostname;
  } catch {
    return undefined;
  }
  // (`api.example.com.` is the same host, written as a fully qualified name.)
  const bare = host.replace(/\.$/, "");
  return /^[a-z0-9.-]+\.[a-z]{2,}$/.test(bare) ? bare : undefined;
}

/** Whether `host` is an IPv4 address (literal in code; not a declared service). */
export function ipHost(text: string): string | undefined {
  const m = /(?:^|\/\/|@)((?:\d{1,3}\.){3}\d{1,3})\b/.exec(text);
  return m === null ? undefined : m[1];
}
