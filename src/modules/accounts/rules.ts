// What an email address and a password must look like, checked before anything is hashed or
// stored, with messages that say which rule failed.
import type { ErrorDetail } from '../../errors/app-error.ts';
import { accountErrors } from './errors.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';

const EMAIL_PATTERN = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>".]+$/;

export function normaliseEmail(raw: unknown): string {
  return typeof raw === 'string' ? raw.trim() : '';
}

export function checkEmail(email: string): string | null {
  if (email === '') return 'Enter an email address.';
  if (email.length > 254 || !EMAIL_PATTERN.test(email))
    return `"${email.slice(0, 80)}" is not an email address.`;
  return null;
}

export function checkPassword(password: unknown): string | null {
  if (typeof password !== 'string' || password.length === 0) return 'Enter a password.';
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `The password must be at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (length > PASSWORD_MAX_LENGTH) return `The password must be at most ${PASSWORD_MAX_LENGTH} characters.`;
  return null;
}

/** Throws invalid_account naming every field at fault. */
export function assertAccountFields(fields: { email?: string; password: unknown; confirm?: unknown }): void {
  const details: ErrorDetail[] = [];
  if (fields.email !== undefined) {
    const problem = checkEmail(fields.email);
    if (problem) details.push({ location: 'body', name: 'email', message: problem });
  }
  const problem = checkPassword(fields.password);
  if (problem) details.push({ location: 'body', name: 'password', message: problem });
  else if (fields.confirm !== undefined && fields.confirm !== fields.password) {
    details.push({ location: 'body', name: 'confirm', message: 'The two passwords differ.' });
  }
  if (details.length > 0) {
    throw accountErrors.invalid_account(details.map((d) => d.message).join(' '), { details });
  }
}
