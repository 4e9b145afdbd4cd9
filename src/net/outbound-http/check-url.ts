// For URLs another program connects to (git fetches and pushes the repository itself): the same
// policy, checked on the addresses the host resolves to now. The program resolves again when it
// connects; callers check right before each run so a changed DNS answer is caught at the next one.
import { resolveAllowed } from './guarded-lookup.ts';
import { checkUrlShape, hostOf, type OutboundPolicy } from './policy.ts';

/** Checks the URL's scheme and, unless allowed, every address its host resolves to. */
export async function checkOutboundUrl(raw: string | URL, policy: OutboundPolicy): Promise<URL> {
  const url = checkUrlShape(raw, policy);
  if (!policy.allowPrivateAddresses) await resolveAllowed(hostOf(url), policy);
  return url;
}
