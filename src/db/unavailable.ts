// Whether an error means "the database cannot be reached right now" (refused or dropped
// connections, a server shutting down or refusing connections), as opposed to a fault of the
// statement. Such failures are the operator's outage, not a bug and not the client's mistake, so
// the HTTP layer answers them with 503 database_unavailable and Retry-After instead of a 500.
// Sources: Node's socket error codes; node-postgres's messages for connections it lost or could
// not open; PostgreSQL's SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, crash,
// cannot connect now) and 53300 (too many connections).

const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const PG_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (
    typeof code === 'string' &&
    (SOCKET_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true;
  if (typeof message === 'string' && PG_MESSAGES.test(message)) return true;
  // Connecting to a name with several addresses fails with one error per address.
  if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => isDatabaseUnavailable(e, depth + 1)))
    return true;
  return cause !== undefined && isDatabaseUnavailable(cause, depth + 1);
}
