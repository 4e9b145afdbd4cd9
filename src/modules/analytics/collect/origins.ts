// Which pages may send views for a project: the origins in its allowedOrigins setting, compared
// in their canonical form (lower-case scheme and host, default port left out), so that
// "https://Docs.Example.com:443" in the settings allows "https://docs.example.com".

/** The canonical origin, or null when the text is not an http(s) origin. */
export function canonicalOrigin(text: string): string | null {
  if (text === 'null') return null; // opaque origins (file:, sandboxed frames) are never allowed
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin;
  } catch {
    return null;
  }
}

export function isAllowedOrigin(origin: string, allowed: readonly string[] | undefined): boolean {
  const wanted = canonicalOrigin(origin);
  if (wanted === null || !allowed) return false;
  return allowed.some((entry) => canonicalOrigin(entry) === wanted);
}
