import type { App, AppContext } from '../../http/context.ts';

export function registerAnalyticsRoutes(_app: App, _context: AppContext): void {}
