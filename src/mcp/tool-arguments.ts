// Checks a tool call's arguments against the tool's input schema (from the contract) before the
// tool runs, with the HTTP API's rules for JSON bodies: no type coercion ({"limit": "5"} is
// refused, not read as 5), documented defaults filled in, and no NUL character in any string
// (PostgreSQL cannot store one). A refusal names the argument, as the API's 400s name a field.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import type { AppError } from '../errors/app-error.ts';
import { httpErrors } from '../errors/request-errors.ts';
import type { McpTool } from './tool.ts';
import { toToolSchema } from './tool-schemas.ts';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ useDefaults: true, coerceTypes: false, allErrors: false, strict: false }));

const compiled = new WeakMap<McpTool, ValidateFunction>();

function validatorOf(tool: McpTool): ValidateFunction {
  let validate = compiled.get(tool);
  if (!validate) {
    validate = ajv.compile(toToolSchema(tool.input));
    compiled.set(tool, validate);
  }
  return validate;
}

/** The arguments, checked and with defaults filled in; an invalid_parameter AppError otherwise. */
export function checkArguments(tool: McpTool, given: Record<string, unknown> | undefined): object {
  // A shallow copy is enough: defaults are filled in at the top level only (flat schemas), and
  // structuredClone cost more than the rest of the check.
  const args: Record<string, unknown> = { ...given };
  const validate = validatorOf(tool);
  if (!validate(args)) throw refusal(tool, validate.errors?.[0]);
  for (const [name, value] of Object.entries(args)) {
    if (typeof value === 'string' && value.includes('\0')) {
      const message = `Argument "${name}" contains a NUL character, which docwright does not accept.`;
      throw httpErrors.nul_character(message, { details: [{ location: 'arguments', name, message }] });
    }
  }
  return args;
}

function refusal(tool: McpTool, error: ErrorObject | undefined): AppError {
  const params = (error?.params ?? {}) as { missingProperty?: string; additionalProperty?: string };
  const path = error?.instancePath.replace(/^\//, '').replaceAll('/', '.') ?? '';
  let name: string | undefined = path || undefined;
  let message: string;
  if (params.missingProperty !== undefined) {
    name = params.missingProperty;
    message = `Argument "${name}" is required.`;
  } else if (params.additionalProperty !== undefined) {
    name = params.additionalProperty;
    const known = Object.keys(tool.input.properties).join(', ');
    message = `Unknown argument "${name}"; ${tool.name} takes ${known}.`;
  } else if (name !== undefined) {
    message = `Argument "${name}" ${error?.message ?? 'is not valid'}.`;
  } else {
    message = `The arguments ${error?.message ?? 'are not valid'}.`;
  }
  return httpErrors.invalid_parameter(message, {
    details: [{ location: 'arguments', ...(name === undefined ? {} : { name }), message }],
  });
}
