// The TypeScript client for termhelper: spawns the helper (here or through a
// command prefix such as ssh) and speaks its JSON-RPC protocol over the
// child's stdio with vscode-jsonrpc, in LSP framing. The declarations it
// ships name no Node.js or vscode-jsonrpc type, so that they compile in any
// consumer setup (CommonJS or ESM, node10 to nodenext resolution, with or
// without @types/node in its types).
import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import * as jsonrpc from "vscode-jsonrpc/node";
import { locateBinary } from "./binary.js";
import { ResponseError, abortReason, spawnError, type BinarySource } from "./errors.js";
import type {
  ApprovalDecision,
  ApprovalRequest,
  ExitedEvent,
  Finished,
  InitializeParams,
  InitializeResult,
  KillParams,
  ListResult,
  OutputEvent,
  PolicyCheckParams,
  PolicyCheckResult,
  ReadParams,
  ResizeParams,
  Result,
  RunParams,
  ScreenParams,
  ScreenResult,
  TrashEntry,
  TrashListResult,
  TrashRestoreParams,
  WaitingEvent,
  WriteParams,
} from "./types.js";

export * from "./types.js";
export { ErrorCode, ResponseError } from "./errors.js";
export { findBinary, platformPackage, version } from "./binary.js";

/** The native protocol version this client speaks; start refuses a helper that speaks another. */
export const PROTOCOL_VERSION = 1;

/** An AbortSignal, or anything shaped like one (the DOM's, Node's, a polyfill's). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** Options every call takes. */
export interface CallOptions {
  /**
   * Gives up on the call: it rejects at once with the signal's reason, and
   * the helper gets $/cancelRequest (a foreground exec/run's whole tree is
   * ended; a read or write only stops waiting, the session goes on).
   */
  signal?: AbortSignalLike;
}

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
  /**
   * --persist: the sessions outlive this connection, in a background helper
   * for the user and the root, for this long after the last connection is
   * gone ("10m", "2h"). Starting again with the same root and options
   * reattaches to them (list() shows them, read() reads on); close() ends
   * only this connection. Not on Windows.
   */
  persist?: string;
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
  /** Gives up on starting: the helper is killed and start rejects. */
  signal?: AbortSignalLike;
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
  /** The helper process ended: its exit code, or the signal that ended it. */
  close: (code: number | null, signal: string | null) => void;
}

/** A running termhelper and the connection to it. */
export class Termhelper {
  /** The helper's answer to initialize: version, platform, root, limits. */
  info!: InitializeResult;
  private readonly child: ChildProcess;
  private readonly conn: jsonrpc.MessageConnection;
  private readonly events = new EventEmitter();
  private readonly closeTimeoutMs: number;
  private readonly gone: Promise<void>;
  private exit?: string;
  private closing?: Promise<void>;

  private constructor(child: ChildProcess, opts: StartOptions) {
    this.child = child;
    this.closeTimeoutMs = opts.closeTimeoutMs ?? 5000;
    this.conn = jsonrpc.createMessageConnection(
      new jsonrpc.StreamMessageReader(child.stdout!),
      new jsonrpc.StreamMessageWriter(child.stdin!),
    );
    this.gone = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.exit = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        // Its last answers may still be in the pipe: read them first
        // (the end of its output), unless another process keeps it open.
        afterOutput(child, () => {
          this.conn.dispose(); // fails the requests still waiting
          this.events.emit("close", code, signal);
          resolve();
        });
      });
    });
    child.stdin!.on("error", () => {}); // the helper went away; "close" says so
    child.stderr?.setEncoding("utf8").on("data", (text: string) => this.events.emit("stderr", text));
    this.listen(opts);
  }

  /** Spawns the helper, initializes it and checks that it speaks this client's protocol. */
  static async start(opts: StartOptions = {}): Promise<Termhelper> {
    const { argv, source } = command(opts);
    const child = spawn(argv[0], argv.slice(1), {
      stdio: ["pipe", "pipe", opts.stderr ?? "inherit"],
      env: { ...process.env, ...opts.env },
    });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (err) => reject(spawnError(err, argv[0], source)));
    });
    const th = new Termhelper(child, opts);
    try {
      th.info = await th.request<InitializeResult>("initialize", initializeParams(opts), { signal: opts.signal });
      checkProtocol(th.info, argv[0]);
    } catch (err) {
      child.kill("SIGKILL");
      throw err;
    }
    return th;
  }

  on<K extends keyof TermhelperEvents>(event: K, listener: TermhelperEvents[K]): this {
    this.events.on(event, listener);
    return this;
  }

  once<K extends keyof TermhelperEvents>(event: K, listener: TermhelperEvents[K]): this {
    this.events.once(event, listener);
    return this;
  }

  off<K extends keyof TermhelperEvents>(event: K, listener: TermhelperEvents[K]): this {
    this.events.off(event, listener);
    return this;
  }

  private listen(opts: StartOptions): void {
    for (const [method, event] of [
      ["session/exited", "exited"],
      ["session/waiting", "waiting"],
      ["session/output", "output"],
    ]) {
      this.conn.onNotification(method, (p: unknown) => {
        this.events.emit(event, p);
      });
    }
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

  /**
   * Sends any request; the typed methods below cover the protocol. A
   * refusal rejects with a ResponseError; an aborted signal, with its reason.
   */
  request<T>(method: string, params?: object, opts: CallOptions = {}): Promise<T> {
    const signal = opts.signal;
    if (signal?.aborted) {
      return Promise.reject(abortReason(signal));
    }
    const cancel = new jsonrpc.CancellationTokenSource();
    const sent =
      params === undefined
        ? this.conn.sendRequest<T>(method, cancel.token)
        : this.conn.sendRequest<T>(method, params, cancel.token);
    const answer = sent.catch((err: unknown) => {
      throw this.wireError(err, method);
    });
    if (!signal) {
      return answer.finally(() => cancel.dispose());
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        cancel.cancel(); // $/cancelRequest: the helper ends what it started for this call
        reject(abortReason(signal));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      answer.then(resolve, reject).finally(() => {
        signal.removeEventListener("abort", onAbort);
        cancel.dispose();
      });
    });
  }

  /** An error from the connection as a host wants it. */
  private wireError(err: unknown, method: string): unknown {
    if (err instanceof jsonrpc.ResponseError) {
      return new ResponseError(err.code, err.message, err.data);
    }
    if (this.exit !== undefined) {
      return new Error(`termhelper: the helper ${this.exit} before it answered ${method}`, { cause: err });
    }
    return err;
  }

  /** Runs a command: finished (exitCode) or still alive (sessionId). */
  run(params: RunParams, opts?: CallOptions): Promise<Result> {
    return this.request("exec/run", params, opts);
  }

  /** Sends input to a session (an answer to its prompt). */
  write(params: WriteParams, opts?: CallOptions): Promise<Result> {
    return this.request("session/write", params, opts);
  }

  /** A session's news: long-polls up to yieldMs, or waits until exit or a stable screen. */
  read(params: ReadParams, opts?: CallOptions): Promise<Result> {
    return this.request("session/read", params, opts);
  }

  /** Ends a session's whole process tree. */
  kill(params: KillParams, opts?: CallOptions): Promise<Finished> {
    return this.request("session/kill", params, opts);
  }

  /** Every session the helper knows, live or recently ended. */
  list(opts?: CallOptions): Promise<ListResult> {
    return this.request("session/list", undefined, opts);
  }

  resize(params: ResizeParams, opts?: CallOptions): Promise<null> {
    return this.request("session/resize", params, opts);
  }

  /** The terminal as a person would see it now. */
  screen(params: ScreenParams, opts?: CallOptions): Promise<ScreenResult> {
    return this.request("session/screen", params, opts);
  }

  /** What the policy would decide, without running anything. */
  policyCheck(params: PolicyCheckParams, opts?: CallOptions): Promise<PolicyCheckResult> {
    return this.request("policy/check", params, opts);
  }

  /** What the rm shim moved to the trash. */
  trashList(opts?: CallOptions): Promise<TrashListResult> {
    return this.request("trash/list", undefined, opts);
  }

  /** Puts a trashed item back where it was; refuses to overwrite. */
  trashRestore(params: TrashRestoreParams, opts?: CallOptions): Promise<TrashEntry> {
    return this.request("trash/restore", params, opts);
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

function initializeParams(opts: StartOptions): InitializeParams {
  return {
    clientInfo: opts.clientInfo ?? { name: "termhelper-node" },
    capabilities: { approval: opts.approval !== undefined, outputStream: opts.outputStream ?? false },
    trusted: opts.trusted ?? true,
  };
}

/** Refuses a helper that speaks another protocol version, saying what to do. */
function checkProtocol(info: InitializeResult, bin: string): void {
  if (info?.protocolVersion === PROTOCOL_VERSION) {
    return;
  }
  const server = info?.serverInfo ? `termhelper ${info.serverInfo.version}` : "it";
  throw new Error(
    `termhelper: ${bin} speaks protocol version ${info?.protocolVersion} (${server}), ` +
      `but this client speaks version ${PROTOCOL_VERSION}: use the binary of the same termhelper release as the npm package.`,
  );
}

/**
 * The spawn prefix that runs the helper in a running container over
 * `docker exec -i` (no terminal: one would rewrite the protocol's bytes).
 */
export function dockerExec(container: string, opts: { user?: string; workdir?: string } = {}): string[] {
  const argv = ["docker", "exec", "-i"];
  if (opts.user !== undefined) argv.push("--user", opts.user);
  if (opts.workdir !== undefined) argv.push("--workdir", opts.workdir);
  return [...argv, container];
}

/** The spawn prefix that runs the helper in a pod over `kubectl exec -i`. */
export function kubectlExec(
  pod: string,
  opts: { namespace?: string; container?: string; context?: string } = {},
): string[] {
  const argv = ["kubectl"];
  if (opts.context !== undefined) argv.push("--context", opts.context);
  argv.push("exec", "-i");
  if (opts.namespace !== undefined) argv.push("-n", opts.namespace);
  if (opts.container !== undefined) argv.push("-c", opts.container);
  return [...argv, pod, "--"];
}

/** The command line that starts the helper, and where its first word came from. */
function command(opts: StartOptions): { argv: string[]; source: BinarySource } {
  const prefix = opts.spawn ?? [];
  let bin = opts.bin;
  let source: BinarySource = "bin";
  if (bin === undefined && prefix.length > 0) {
    bin = "termhelper";
  } else if (bin === undefined) {
    ({ path: bin, source } = locateBinary(process.env));
  }
  const args = [bin];
  if (opts.root !== undefined) args.push("--root", opts.root);
  if (opts.config !== undefined) args.push("--config", opts.config);
  if (opts.persist !== undefined) args.push("--persist", opts.persist);
  if (prefix.length > 0) source = "spawn";
  return { argv: [...prefix, ...args, ...(opts.args ?? [])], source };
}

/** p, or a rejection after ms. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms}ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Calls done once the helper's output has ended (or half a second after
 * its exit, if something else still holds it open) and the connection
 * has dealt with what it read: it takes one message per turn of the
 * event loop, so a few milliseconds more are given to it. */
function afterOutput(child: ChildProcess, done: () => void): void {
  const out = child.stdout;
  let called = false;
  const once = () => {
    if (!called) {
      called = true;
      clearTimeout(fallback);
      setTimeout(done, 20);
    }
  };
  const fallback = setTimeout(once, 500);
  if (!out || out.readableEnded || out.destroyed) {
    once();
    return;
  }
  out.once("end", once);
  out.once("close", once);
}
