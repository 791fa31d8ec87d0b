// The errors a client call can end with, and the application error codes
// of the protocol (docs/protocol.md, "Errors").

/** Application error codes, and the JSON-RPC ones a host may meet. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  NoSuchSession: -32001,
  CwdOutsideRoot: -32002,
  BlockedByPolicy: -32003,
  ApprovalRefused: -32004,
  StartFailed: -32005,
  TooManySessions: -32006,
  SandboxRequired: -32007,
  /** --persist: the background helper refused this connection (data.setting: the setting that differs). */
  HelperRefused: -32008,
  RequestCancelled: -32800,
} as const;

/** A request the helper refused: `code` is one of ErrorCode, `data` as the protocol says. */
export class ResponseError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "ResponseError";
    this.code = code;
    this.data = data;
  }
}

/** Where the binary's path came from, for a message that says what to change. */
export type BinarySource = "bin" | "TERMHELPER_BIN" | "package" | "spawn";

/**
 * The error for a helper that could not be spawned: what went wrong and
 * what to do, never a bare ENOENT or EACCES. `code` stays the OS's.
 */
export function spawnError(err: Error & { code?: string }, path: string, source: BinarySource): Error {
  const what = source === "spawn" ? `the spawn prefix's command ${path}` : `the termhelper binary ${path}`;
  let msg: string;
  switch (err.code) {
    case "ENOENT":
      msg = `${what} does not exist. ${missingFix(source)}`;
      break;
    case "EACCES":
    case "EPERM":
      msg = `${what} is not executable (${err.code}). Make it executable (chmod +x ${path}), or reinstall termhelper; on a volume mounted noexec, put it elsewhere.`;
      break;
    default:
      msg = `${what} could not be started: ${err.message}`;
  }
  const out: Error & { code?: string } = new Error(`termhelper: ${msg}`, { cause: err });
  out.code = err.code;
  return out;
}

function missingFix(source: BinarySource): string {
  switch (source) {
    case "bin":
      return "The bin option must name a termhelper binary.";
    case "TERMHELPER_BIN":
      return "TERMHELPER_BIN must name a termhelper binary; unset it to use the one npm installed.";
    case "spawn":
      return "Install it, or give its full path in spawn.";
    default:
      return "Reinstall termhelper (npm install termhelper) so that npm installs its platform package again.";
  }
}

/** The error a call ends with when its signal aborts: the signal's reason, as fetch does. */
export function abortReason(signal: { reason?: unknown }): unknown {
  if (signal.reason !== undefined) {
    return signal.reason;
  }
  const err = new Error("This operation was aborted");
  err.name = "AbortError";
  return err;
}
