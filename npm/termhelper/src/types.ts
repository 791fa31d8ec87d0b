// The native protocol's params and answers (docs/protocol.md), as TypeScript
// types. docs/schema/ holds the same shapes as JSON Schema; a test generates
// declarations from the schemas and checks that these agree with them.

/** `initialize` params. The client fills these from its start options. */
export interface InitializeParams {
  clientInfo?: { name: string; version?: string };
  capabilities?: { approval?: boolean; outputStream?: boolean };
  /** false: every command needs approval (commands from an untrusted source). */
  trusted?: boolean;
  /** Count the host as gone after three such periods without a byte from it (100 to 86400000; absent: never); a quiet host sends `$/ping`. */
  heartbeatMs?: number;
}

export interface InitializeResult {
  serverInfo: { name: "termhelper"; version: string };
  /** The native protocol's version; Termhelper.start refuses any but PROTOCOL_VERSION. */
  protocolVersion: 1;
  platform: { os: string; arch: string; shell: string; pty: string };
  root: string;
  /** The sessions a background helper (persist) held for the root before this connection: read on from their cursors. */
  restored: SessionInfo[];
  limits: { timeoutMs: number; maxStreamChars: number; maxLineChars: number };
  /**
   * How commands are confined here, as measured at start; reason is null when all the config asks for is in force;
   * limits are the caps on a confined command that hold here.
   */
  sandbox: { mode: SandboxMode; backend: string; network: "proxy" | "open" | "off"; reason: string | null; limits?: string[] };
  /** What a person should know: a project config's ignored keys, processes not held by a cgroup. */
  warnings?: string[];
}

/** How much a confined command may write: "off" is the policy alone. */
export type SandboxMode = "workspace-write" | "read-only" | "off";

/** Something the sandbox stopped: a host (or a unix socket's path), a path written or read. */
export interface Denial {
  kind: "network" | "write" | "read" | "limit";
  host?: string;
  port?: number;
  path?: string;
  /** Kind "limit": which cap was reached, and what failed. */
  reason?: string;
}

/** `exec/run` params. */
export interface RunParams {
  /** A shell command line, run by the platform shell. */
  command: string;
  /** A directory inside the root, relative to it or absolute. */
  cwd?: string;
  /** Variables to set for this command; null unsets one. */
  env?: Record<string, string | null>;
  mode?: "pty" | "pipes";
  /** The command is meant to keep running (dev server, watcher). */
  background?: boolean;
  /** Wall-clock lifetime; 0 is none. */
  timeoutMs?: number;
  /** Longest the call blocks before it answers with a live session. */
  yieldMs?: number;
  /** pty mode only: "separate" puts stderr on a pipe. */
  stderr?: "merged" | "separate";
  /** Written to the command's input at start (pipes mode: then closed). */
  stdin?: string;
  cols?: number;
  rows?: number;
  /** Background: answer as soon as the output matches this RE2 pattern. */
  readyPattern?: string;
  /** Background: answer as soon as this loopback TCP port accepts. */
  readyPort?: number;
  /** A narrower mode than the config's runs as asked; a wider one needs approval. */
  sandbox?: SandboxMode;
}

/** A prompt the command is blocked on. */
export interface Prompt {
  text: string;
  /** A password read: ask the person, answer with write({secret: true}). */
  secret: boolean;
}

/**
 * A position in a session's output: every answer carrying output carries
 * the cursor just after it; `read({ sessionId, cursor })` answers from
 * there, again if asked twice (after a reattach too, with persist).
 */
export type Cursor = number;

/** The answer for a command that has finished. */
export interface Finished {
  exitCode: number;
  /** The signal that killed it ("SIGKILL"), else null. */
  signal: string | null;
  durationMs: number;
  timedOut: boolean;
  output: string;
  /** Present only where stderr is apart. */
  stderr?: string;
  truncated: boolean;
  fullOutputPath: string | null;
  /** One line for an activity card: "exit 0 · 412ms". */
  summary: string;
  /** Present only when the sandbox stopped something it can name. */
  sandbox?: { denied: Denial[] };
  /** The position just after this answer's output. */
  cursor: Cursor;
  /** A read from a cursor older than what is kept: the bytes no longer kept (fullOutputPath has them). */
  skipped?: number;
  /** A read from a cursor stopped at the cap: read on from `cursor`. */
  more?: true;
}

/** The answer for a command that is still alive. */
export interface Alive {
  sessionId: string;
  pid: number;
  state: "running" | "waiting" | "background";
  output: string;
  stderr?: string;
  /** Some of the session's output was cut from this window; the spill file has it. */
  truncated?: boolean;
  fullOutputPath?: string;
  prompt?: Prompt;
  /** TCP ports the session's tree listens on. */
  ports?: number[];
  /** With readyPattern or readyPort: whether it became ready. */
  ready?: boolean;
  /** The terminal shows a page (a full-screen program): `output` is that page, row by row. */
  screen?: boolean;
  /** Under a lifetime cap: how long after this answer the cap ends the command. */
  endsInMs?: number;
  /** Each call on the session counts `endsInMs` again (the default cap of a command that has yielded). */
  capRenews?: boolean;
  /** The position just after this answer's output. */
  cursor: Cursor;
  /** A read from a cursor older than what is kept: the bytes no longer kept (fullOutputPath has them). */
  skipped?: number;
  /** A read from a cursor stopped at the cap: read on from `cursor`. */
  more?: true;
}

/** Either shape: `exitCode` means finished, `sessionId` alone means alive. */
export type Result = Finished | Alive;

/** True when the answer is the finished shape. */
export function isFinished(r: Result): r is Finished {
  return typeof (r as Finished).exitCode === "number";
}

export interface WriteParams {
  sessionId: string;
  /** "\u0003" is Ctrl-C, "\u0004" Ctrl-D. */
  input: string;
  /** Never logged, masked wherever it is echoed back. */
  secret?: boolean;
  yieldMs?: number;
}

export interface ReadParams {
  sessionId: string;
  yieldMs?: number;
  /** "exit": wait for the end; "stable": wait for the screen to settle. */
  until?: "exit" | "stable";
  stableMs?: number;
  /** Read from this position (an earlier answer's cursor), without consuming it. */
  cursor?: Cursor;
}

/** The first signal session/kill sends to the whole tree; also accepted without "SIG". */
export type Signal = "SIGTERM" | "SIGINT" | "SIGHUP" | "SIGKILL" | "TERM" | "INT" | "HUP" | "KILL";

export interface KillParams {
  sessionId: string;
  signal?: Signal;
  graceMs?: number;
}

export interface SessionInfo {
  sessionId: string;
  pid: number;
  command: string;
  cwd: string;
  state: "running" | "waiting" | "background" | "exited";
  startedAt: string;
  exitCode?: number;
  ports?: number[];
  /** The position at the end of its output so far. */
  cursor: Cursor;
}

export interface ListResult {
  sessions: SessionInfo[];
}

export interface ResizeParams {
  sessionId: string;
  cols: number;
  rows: number;
}

export interface ScreenResult {
  cols: number;
  rows: number;
  /** `rows` entries, row 0 at the top, trailing blanks trimmed. */
  lines: string[];
  cursor: { row: number; col: number };
  altScreen: boolean;
}

export interface ScreenParams {
  sessionId: string;
}

export interface PolicyCheckParams {
  command: string;
  /** The directory it would run in: inside the root, relative to it or absolute. */
  cwd?: string;
  /** Judge it as exec/run would with this sandbox mode (default: the config's). */
  sandbox?: SandboxMode;
}

export type Decision = "allow" | "ask" | "deny";

export interface PolicyCheckResult {
  decision: Decision;
  reasons: string[];
  /** The mode it would run in (for "ask": once approved); "off" for a line that leaves the sandbox. */
  sandbox: SandboxMode;
}

/** An item the rm shim moved to the trash. */
export interface TrashEntry {
  id: string;
  /** The absolute path it was deleted from, and where trash/restore puts it back. */
  path: string;
  /** When it was moved, RFC 3339. */
  deletedAt: string;
  /** Bytes; a folder's files summed. */
  size: number;
  /** The command line that deleted it. */
  command: string;
  isDir: boolean;
}

export interface TrashListResult {
  entries: TrashEntry[];
}

export interface TrashRestoreParams {
  id: string;
}

/** `approval/request` from the helper: a command that needs a yes. */
export interface ApprovalRequest {
  /** "command": a command about to run; "network": a host a running command tries to reach. */
  kind: "command" | "network";
  /** Safe to show: control, bidirectional and zero-width characters are written as escapes (`\r`, `\x1b`, `\u202e`). */
  command: string;
  /** The line exactly as it will run, present only when it differs from `command`. */
  exactCommand?: string;
  /** Where it would run (kind "command"). */
  cwd?: string;
  /** Kind "network": the host as the command named it, and the port. */
  host?: string;
  port?: number;
  reasons: string[];
  /** The project's files that make another program run code which confined commands made or changed since the last question. */
  planted?: string[];
}

/** "always" also allows the command's name (and subcommand) for this root from now on. */
export type ApprovalDecision = "allow" | "deny" | "always";

/** The host's answer to `approval/request`. */
export interface ApprovalResult {
  decision: ApprovalDecision;
}

/** `session/exited`: sent for every session the moment it ends. */
export interface ExitedEvent {
  sessionId: string;
  exitCode: number;
  signal: string | null;
  durationMs: number;
  timedOut: boolean;
  summary: string;
  /** The end of its output. */
  cursor: Cursor;
}

/** `session/waiting`: a live session became blocked on its input. */
export interface WaitingEvent {
  sessionId: string;
  prompt: Prompt;
}

/** `session/output`: raw text as it arrives (escape sequences kept). */
export interface OutputEvent {
  sessionId: string;
  /** "output": the terminal (or stdout); "stderr": where stderr is apart. */
  stream: "output" | "stderr";
  data: string;
}
