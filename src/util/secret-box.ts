// Encryption at rest for the secrets docwright stores (code-host tokens, model API keys, webhook
// secrets): AES-256-GCM with the server key. The context (e.g. "prj_x/codeHostToken") is bound as
// associated data, so a ciphertext copied into another row or field does not decrypt there.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export function sealSecret(key: Buffer, context: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

export class SecretUnreadableError extends Error {
  constructor(context: string) {
    super(
      `The stored secret ${context} cannot be decrypted: it was sealed with another DOCWRIGHT_SECRET_KEY, or altered. Set the secret again.`,
    );
    this.name = 'SecretUnreadableError';
  }
}

export function openSecret(key: Buffer, context: string, sealed: string): string {
  const [version, iv, body] = sealed.split('.');
  if (version !== VERSION || !iv || !body) throw new SecretUnreadableError(context);
  try {
    const bytes = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SecretUnreadableError(context);
  }
}
