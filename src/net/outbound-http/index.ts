// The one way docwright's server reaches a URL that a user or a visitor chose (webhooks, Web Bot
// Auth key directories, repository URLs): see docs/security.md, "Outbound requests".
export { checkOutboundUrl } from './check-url.ts';
export { type OutboundPolicy, OutboundRefusedError } from './policy.ts';
export {
  OutboundFailedError,
  type OutboundRequest,
  type OutboundResponse,
  outboundRequest,
} from './request.ts';
export { isSpecialPurposeAddress } from './special-addresses.ts';
