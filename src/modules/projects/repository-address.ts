// The address policy for repository URLs, the same as for webhooks (src/net/outbound-http): git
// and the code-host API would otherwise let anyone allowed to set a repository URL reach
// loopback, private or cloud-metadata addresses from inside the operator's network. Checked when
// the URL is set and again before each job's git run (DNS answers change).
import {
  checkOutboundUrl,
  type OutboundPolicy,
  OutboundRefusedError,
} from '../../net/outbound-http/index.ts';

export interface RepositoryAccess {
  /** DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE: http and special-purpose addresses allowed. */
  allowPrivateAddresses: boolean;
}

export function repositoryPolicy(access: RepositoryAccess): OutboundPolicy {
  return {
    purpose: 'repository and code-host URLs',
    requireHttps: !access.allowPrivateAddresses,
    allowPrivateAddresses: access.allowPrivateAddresses,
    allowPrivateSetting: 'DOCWRIGHT_REPOSITORIES_ALLOW_PRIVATE',
  };
}

/**
 * Why the URL is refused, or null. A name that does not resolve at all is not refused here: git
 * reports that itself, and a project may be set up before its host is reachable.
 */
export async function repositoryAddressProblem(
  url: string,
  access: RepositoryAccess,
): Promise<string | null> {
  try {
    await checkOutboundUrl(url, repositoryPolicy(access));
    return null;
  } catch (error) {
    if (error instanceof OutboundRefusedError) return error.message;
    return null;
  }
}
