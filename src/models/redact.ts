// Removes secrets from text that came from a provider (error messages may echo a key, a header or
// a URL with a token) before it reaches a job record, an event or a log line.

const REDACTED = '[redacted]';

// Shapes of credentials that may appear even when the caller did not know the exact value: a
// bearer token, an x-api-key header echoed back, provider key formats (sk-..., sk-ant-...), and
// docwright's own keys (dw_...).
const CREDENTIAL_PATTERNS: RegExp[] = [
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi,
  /\b(x-api-key|api-key|api_key|apikey|authorization)(["']?\s*[:=]\s*["']?)[^\s"',;}]{4,}/gi,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{8,}/g,
  /\bdw_[A-Za-z0-9]{8,}/g,
  /([?&](?:key|api_key|apikey|token|access_token)=)[^&\s"']+/gi,
];

/** Known secrets shorter than this are not replaced: they would match ordinary words. */
const MIN_SECRET_LENGTH = 6;

export function redactSecrets(text: string, secrets: readonly (string | null | undefined)[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= MIN_SECRET_LENGTH) result = result.split(secret).join(REDACTED);
  }
  return result
    .replace(CREDENTIAL_PATTERNS[0]!, (_m, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(
      CREDENTIAL_PATTERNS[1]!,
      (_m, name: string, separator: string) => `${name}${separator}${REDACTED}`,
    )
    .replace(CREDENTIAL_PATTERNS[2]!, REDACTED)
    .replace(CREDENTIAL_PATTERNS[3]!, REDACTED)
    .replace(CREDENTIAL_PATTERNS[4]!, (_m, prefix: string) => `${prefix}${REDACTED}`);
}
