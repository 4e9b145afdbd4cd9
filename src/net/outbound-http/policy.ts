// What a caller allows for one kind of outbound request, and the error that says what was refused.

export interface OutboundPolicy {
  /** What is being fetched, for messages: "webhooks", "repository URLs", "key directories". */
  purpose: string;
  /** Only https URLs. */
  requireHttps: boolean;
  /** Let requests reach special-purpose addresses (loopback, private...): an operator's choice. */
  allowPrivateAddresses: boolean;
  /** The setting that allows them, named in messages (e.g. DOCWRIGHT_WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivateSetting?: string;
}

/** The URL or the address it leads to is not allowed by the policy; nothing was sent. */
export class OutboundRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

export function addressRefused(policy: OutboundPolicy, host: string, address: string): OutboundRefusedError {
  const what = host === address ? host : `${host} resolves to ${address}, which`;
  const unless = policy.allowPrivateSetting ? ` unless ${policy.allowPrivateSetting}=true` : '';
  return new OutboundRefusedError(
    `${what} is a loopback, private, link-local or other special-purpose address; ${policy.purpose} are not fetched from there${unless}`,
  );
}

/** Parses the URL and checks its scheme, credentials and (for an IP literal) its address. */
export function checkUrlShape(raw: string | URL, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw;
  } catch {
    throw new OutboundRefusedError(`the URL for ${policy.purpose} is not a valid URL`);
  }
  const schemes = policy.requireHttps ? ['https:'] : ['https:', 'http:'];
  if (!schemes.includes(url.protocol)) {
    const unless =
      policy.requireHttps && policy.allowPrivateSetting
        ? ` (http only with ${policy.allowPrivateSetting}=true)`
        : '';
    throw new OutboundRefusedError(
      `${policy.purpose} must use ${policy.requireHttps ? 'https' : 'http or https'}, not ${url.protocol}${unless}`,
    );
  }
  return url;
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}
