// The dashboard module's public surface: the Fastify plugin that serves the web dashboard.
// Other code imports this file, never the files beside it.
export { type DashboardPluginOptions, registerDashboard } from './plugin.ts';
