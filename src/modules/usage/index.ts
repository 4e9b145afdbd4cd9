// The usage module's public surface: the price table, each model call priced and counted against
// the project's budget, the budget checks at job creation, and the usage export. Other code
// imports this file, never the files beside it; the HTTP route is registered by src/http/app.ts.
export { checkBudget, formatUsd } from './budget.ts';
export {
  type BudgetAlert,
  chargeModelCall,
  type ModelCallCharge,
  type ModelCallUsage,
  type SpendLimit,
} from './charge.ts';
export {
  costOf,
  loadPriceTable,
  type ModelCallTokens,
  PriceTable,
  PriceTableError,
  readPriceFile,
  roundUsd,
} from './price-table.ts';
export { type BudgetAlertRow, selectMonthAlerts as monthBudgetAlerts } from './queries.ts';
export { exportUsage } from './report.ts';
