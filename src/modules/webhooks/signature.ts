// Webhook signatures: HMAC-SHA256 with the project's webhookSecret over "<timestamp>.<body>",
// sent as "docwright-signature: t=<unix seconds>,v1=<hex>". The timestamp is signed with the
// body so a captured delivery cannot be replayed later with a fresh timestamp; receivers refuse
// timestamps older than a few minutes (docs/webhooks.md shows how).
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'docwright-signature';

export function signatureHeader(secret: string, timestamp: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${digest}`;
}
