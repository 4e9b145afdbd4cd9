// The HTTP server could not listen where it was told to: a configuration problem, not a bug.
const REASONS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use (another server on that port?); choose another PORT',
  EACCES: 'permission denied (ports below 1024 need privileges); choose another PORT',
  EADDRNOTAVAIL: 'this machine has no such address; check HOST',
  ENOTFOUND: 'the host name does not resolve; check HOST',
  EAI_AGAIN: 'the host name does not resolve; check HOST',
};

export class ListenError extends Error {
  constructor(host: string, port: number, cause: NodeJS.ErrnoException) {
    const reason = (cause.code && REASONS[cause.code]) ?? cause.message;
    super(`Cannot listen on ${host}:${port}: ${reason}.`, { cause });
    this.name = 'ListenError';
  }

  static wrap(host: string, port: number, error: unknown): unknown {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    return code && code in REASONS ? new ListenError(host, port, error as NodeJS.ErrnoException) : error;
  }
}
