// Structured JSON logs (pino). Secrets are removed twice: known fields are redacted by path, and
// anything shaped like a docwright key or a bearer token is masked wherever it appears in a line.
import pino, { type LevelWithSilent, type Logger } from 'pino';

const SECRET_PATTERNS: RegExp[] = [
  /\bdw_[0-9A-Za-z]{38}\b/g, // docwright API keys
  /\b(Bearer|token|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, // authorization values in messages
];

/** Masks secrets inside free text: log messages, error messages shown to users. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, (m) => `${m.slice(0, 6)}[redacted]`);
  return out;
}

/**
 * By default lines go to stdout synchronously, like process.stdout's own writes to a pipe or a
 * file: a line logged before the start banner is printed before it, and none is lost on exit.
 * Only a few lines a minute are logged at info (requests are at debug), so the cost is small.
 */
export function createLogger(
  level: LevelWithSilent,
  destination: pino.DestinationStream = pino.destination({ dest: 1, sync: true }),
): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          '*.apiKey',
          '*.token',
          '*.secret',
          'key',
          '*.key',
        ],
        censor: '[redacted]',
      },
      hooks: {
        logMethod(args, method) {
          method.apply(
            this,
            args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as Parameters<typeof method>,
          );
        },
      },
    },
    destination,
  );
}

export type { Logger };
