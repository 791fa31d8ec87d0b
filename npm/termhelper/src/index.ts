// The TypeScript client for termhelper: spawns the helper (here or through a
// command prefix such as ssh) and speaks its JSON-RPC protocol over the
// child's stdio with vscode-jsonrpc, in LSP framing.
import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import jsonrpc from "vscode-jsonrpc/node";
import { findBinary } from "./binary.js";
import type {
  ApprovalDecision,
  ApprovalRequest,
  ExitedEvent,
  InitializeResult,
  KillParams,
  ListResult,
  OutputEvent,
  PolicyCheckResult,
  ReadParams,
  ResizeParams,
  Result,
  RunParams,
  ScreenResult,
  TrashEntry,
  WaitingEvent,
  WriteParams,
  Finished,
} from "./types.js";

export * from "./types.js";
export { findBinary, platformPackage } from "./binary.js";

/** The error a request fails with: `code` is one of ErrorCode or a JSON-RPC code. */
export const ResponseError = jsonrpc.ResponseError;

export interface StartOptions {
  /** The project root (--root); every command runs inside it. */
  root?: string;
  /** A TOML config file (--config). */
  config?: string;
  /**
   * Answers commands that need approval. Without it, the host is taken to
   * approve what it sends (hard blocks are still refused). A throw denies.
   */
  approval?: (req: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;
  /**
   * A command prefix to reach another machine or container, such as
   * ["ssh", "-T", "host"] or ["docker", "exec", "-i", "ctr"]. The helper's
   * path and flags follow it; bin then defaults to "termhelper" on that
   * side's PATH.
   */
  spawn?: string[];
  /** The termhelper binary: default TERMHELPER_BIN, else the installed platform package's. */
  bin?: string;
  /** The helper's environment, over this process's own. */
  env?: Record<string, string | undefined>;
  /** More flags for the helper, such as ["--log-level", "info"]. */
  args?: string[];
  /** Ask for `output` events (raw text as it arrives). Default false. */
  outputStream?: boolean;
  /** false marks commands from an untrusted source: every one needs approval. */
  trusted?: boolean;
  clientInfo?: { name: string; version?: string };
  /** The helper's stderr (its logs): inherited by default; "pipe" emits `stderr` events. */
  stderr?: "inherit" | "ignore" | "pipe";
  /** How long close() waits for each step before it kills. Default 5000. */
  closeTimeoutMs?: number;
}

/** The events a Termhelper emits. */
export interface TermhelperEvents {
  /** A session ended (every session ever handed out, foreground or not). */
  exited: (e: ExitedEvent) => void;
  /** A live session became blocked on its input. */
  waiting: (e: WaitingEvent) => void;
  /** Raw output, only with outputStream: true. */
  output: (e: OutputEvent) => void;
  /** The helper's stderr, only with stderr: "pipe". */
  stderr: (text: string) => void;
  /** The helper process ended. */
  close: (code: number | null, signal: NodeJS.Signals | null) => void;
}

export interface Termhelper {
  on<K extends keyof TermhelperEvents>(event: K, listener: TermhelperEvents[K]): this;
  once<K extends keyof TermhelperEvents>(event: K, listener: TermhelperEvents[K]): this;
  off<K extends keyof TermhelperEvents>(event: K, listener: TermhelperEvents[K]): this;
  emit<K extends keyof TermhelperEvents>(event: K, ...args: Parameters<TermhelperEvents[K]>): boolean;
}

/** A running termhelper and the connection to it. */
export class Termhelper extends EventEmitter {
  /** The helper's answer to initialize: version, platform, root, limits. */
  info!: InitializeResult;
  private readonly child: ChildProcess;
  private readonly conn: jsonrpc.MessageConnection;
  private readonly closeTimeoutMs: number;
  private readonly gone: Promise<void>;
  private closing?: Promise<void>;

  private constructor(child: ChildProcess, opts: StartOptions) {
    super();
    this.child = child;
    this.closeTimeoutMs = opts.closeTimeoutMs ?? 5000;
    this.conn = jsonrpc.createMessageConnection(
      new jsonrpc.StreamMessageReader(child.stdout!),
      new jsonrpc.StreamMessageWriter(child.stdin!),
    );
    this.gone = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.conn.dispose(); // fails the requests still waiting
        this.emit("close", code, signal);
        resolve();
      });
    });
    child.stdin!.on("error", () => {}); // the helper went away; "close" says so
    child.stderr?.setEncoding("utf8").on("data", (text: string) => this.emit("stderr", text));
    this.listen(opts);
  }

  /** Spawns the helper and initializes it. */
  static async start(opts: StartOptions = {}): Promise<Termhelper> {
    const argv = command(opts);
    const child = spawn(argv[0], argv.slice(1), {
      stdio: ["pipe", "pipe", opts.stderr ?? "inherit"],
      env: { ...process.env, ...opts.env },
    });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    const th = new Termhelper(child, opts);
    try {
      th.info = await th.request<InitializeResult>("initialize", {
        clientInfo: opts.clientInfo ?? { name: "termhelper-node" },
        capabilities: { approval: opts.approval !== undefined, outputStream: opts.outputStream ?? false },
        trusted: opts.trusted ?? true,
      });
    } catch (err) {
      child.kill("SIGKILL");
      throw err;
    }
    return th;
  }

  private listen(opts: StartOptions): void {
    this.conn.onNotification("session/exited", (p: ExitedEvent) => {
      this.emit("exited", p);
    });
    this.conn.onNotification("session/waiting", (p: WaitingEvent) => {
      this.emit("waiting", p);
    });
    this.conn.onNotification("session/output", (p: OutputEvent) => {
      this.emit("output", p);
    });
    const approval = opts.approval;
    if (approval) {
      this.conn.onRequest("approval/request", async (req: ApprovalRequest) => {
        try {
          return { decision: await approval(req) };
        } catch {
          return { decision: "deny" };
        }
      });
    }
    this.conn.listen();
  }

  /** The helper's process id (the ssh client's, with a spawn prefix). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Sends any request; the typed methods below cover the protocol. */
  request<T>(method: string, params?: object): Promise<T> {
    if (params === undefined) {
      return this.conn.sendRequest<T>(method);
    }
    return this.conn.sendRequest<T>(method, params);
  }

  /** Runs a command: finished (exitCode) or still alive (sessionId). */
  run(params: RunParams): Promise<Result> {
    return this.request("exec/run", params);
  }

  /** Sends input to a session (an answer to its prompt). */
  write(params: WriteParams): Promise<Result> {
    return this.request("session/write", params);
  }

  /** A session's news: long-polls up to yieldMs, or waits until exit or a stable screen. */
  read(params: ReadParams): Promise<Result> {
    return this.request("session/read", params);
  }

  /** Ends a session's whole process tree. */
  kill(params: KillParams): Promise<Finished> {
    return this.request("session/kill", params);
  }

  list(): Promise<ListResult> {
    return this.request("session/list");
  }

  resize(params: ResizeParams): Promise<null> {
    return this.request("session/resize", params);
  }

  /** The terminal as a person would see it now. */
  screen(params: { sessionId: string }): Promise<ScreenResult> {
    return this.request("session/screen", params);
  }

  /** What the policy would decide, without running anything. */
  policyCheck(params: { command: string }): Promise<PolicyCheckResult> {
    return this.request("policy/check", params);
  }

  trashList(): Promise<{ entries: TrashEntry[] }> {
    return this.request("trash/list");
  }

  trashRestore(params: { id: string }): Promise<TrashEntry> {
    return this.request("trash/restore", params);
  }

  /**
   * Ends the helper: shutdown (every session's tree is killed), exit, and
   * a kill if it has not gone within closeTimeoutMs. Safe to call twice.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const t = this.closeTimeoutMs;
    try {
      await within(this.request("shutdown"), t);
      await this.conn.sendNotification("exit");
    } catch {
      // gone or stuck: the kill below settles it
    }
    this.child.stdin!.end();
    if (!(await within(this.gone, t).then(() => true, () => false))) {
      this.child.kill("SIGKILL");
      await this.gone;
    }
  }
}

/** The command line that starts the helper. */
function command(opts: StartOptions): string[] {
  const prefix = opts.spawn ?? [];
  const bin = opts.bin ?? (prefix.length > 0 ? "termhelper" : findBinary());
  const args = [bin];
  if (opts.root !== undefined) args.push("--root", opts.root);
  if (opts.config !== undefined) args.push("--config", opts.config);
  return [...prefix, ...args, ...(opts.args ?? [])];
}

/** p, or a rejection after ms. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms}ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
