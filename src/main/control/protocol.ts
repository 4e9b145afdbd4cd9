// The control socket speaks HTTP/1.1 with JSON in and out, so both ends use node:http and an
// operator can poke it with `curl --unix-socket`:
//   POST /run  {"command": "keys create", "input": {...}}
//   200 {"result": ...}   or   4xx/5xx {"error": message, "code": ..., "details"?: [...]}
export const RUN_PATH = '/run';
export const MAX_REQUEST_BYTES = 1024 * 1024;

export interface RunRequest {
  command: string;
  input: unknown;
}

export interface RunSuccess {
  result: unknown;
}

export interface RunFailure {
  error: string;
  code: string;
  details?: { location?: string; name?: string; message: string }[];
}
