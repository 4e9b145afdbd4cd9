// A mistake in how a command was typed that commander itself cannot see (exit status 2).
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
