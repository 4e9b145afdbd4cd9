import type { App, AppContext } from '../../http/context.ts';

export function registerJobRoutes(_app: App, _context: AppContext): void {}
