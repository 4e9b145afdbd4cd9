// The webhooks module's public surface: the dispatcher that delivers job events to the URLs a
// project configured. Other code imports this file, never the files beside it.
export { createWebhookDispatcher } from './from-config.ts';
