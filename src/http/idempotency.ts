// The Idempotency-Key header, shared by the routes that honour it (job creation, ingest batches):
// a client that retries a request whose answer it did not get sends the same key, and gets the
// first answer again instead of a second job or a second count. Keys are kept 24 hours.
import { httpErrors } from '../errors/request-errors.ts';

/** The header's value, checked; null when the request has none. */
export function checkIdempotencyKey(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (!/^[\x21-\x7e]{1,255}$/.test(raw)) {
    throw httpErrors.invalid_header(
      'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces (a UUID is a good choice).',
      { details: [{ location: 'header', name: 'Idempotency-Key', message: 'malformed' }] },
    );
  }
  return raw;
}
