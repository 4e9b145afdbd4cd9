// The MCP endpoint's own error codes (declared in src/contract/error-codes.ts).
import { MCP_ERROR_CODES } from '../contract/index.ts';
import { defineErrors } from '../errors/app-error.ts';

export const mcpErrors = defineErrors(MCP_ERROR_CODES);
