// The automations module's public surface: automations and their runs (service), events in
// (intake), and the worker that turns runs into jobs. Other code imports this file, never the
// files beside it; the HTTP routes are registered by src/http/app.ts.
export type {
  CodeChangeDetails,
  CodeChangeRequest,
  ReadCodeChange,
} from './code-change-details.ts';
export { receiveCodeHostWebhook, triggerAutomation } from './intake.ts';
export {
  createAutomation,
  deleteAutomation,
  getAutomation,
  listAutomations,
  listRuns,
  updateAutomation,
} from './service.ts';
export { AutomationWorker, type AutomationWorkerOptions } from './worker.ts';
