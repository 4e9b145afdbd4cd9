// Which pages may send views for a project. A browser's Origin header is an origin serialization:
// scheme://host[:port], the host lower-case (punycode for international names), a default port
// left out, nothing after it. The header must be exactly that and exactly equal to an allowed
// origin: new URL() alone reads "https://evil@docs.example.com" and "https://docs.example.com/evil"
// as the origin https://docs.example.com, and such a header must never be reflected.
// Entries of the allowedOrigins setting are typed by people, so case and a default port are
// forgiven there ("https://Docs.Example.com:443" allows "https://docs.example.com"); an entry with
// a user, a path (even "/"), a query or a fragment allows nothing.

/** scheme://host[:port] and nothing else: no "/", "?", "#", "@", backslash or white space after the scheme. */
const ORIGIN_SHAPE = /^https?:\/\/[^/?#@\\\s]+$/i;

/** The canonical origin of an allowedOrigins entry, or null when the entry is not an http(s) origin. */
export function canonicalOrigin(entry: string): string | null {
  if (!ORIGIN_SHAPE.test(entry)) return null;
  try {
    return new URL(entry).origin;
  } catch {
    return null;
  }
}

/**
 * The allowed origin that the Origin header is, exactly, or null. Opaque origins ("null": file
 * pages, sandboxed frames) and anything that is not an origin serialization match nothing.
 */
export function matchAllowedOrigin(origin: string, allowed: readonly string[] | undefined): string | null {
  if (!allowed || canonicalOrigin(origin) !== origin) return null;
  return allowed.some((entry) => canonicalOrigin(entry) === origin) ? origin : null;
}
