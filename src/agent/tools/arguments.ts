// Reads a tool's input as the model sent it. The JSON schema given to the model describes the
// input, but a model can still send a wrong type or forget a field; these checks turn that into a
// ToolRefusal that names the field, instead of a crash or a silent default.
import { ToolRefusal } from './guards.ts';

type Input = Record<string, unknown>;

export function asInput(input: unknown): Input {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new ToolRefusal('The tool input must be a JSON object with the documented fields.');
  return input as Input;
}

export function requiredString(input: Input, name: string): string {
  const value = input[name];
  if (typeof value !== 'string') throw new ToolRefusal(`"${name}" is required and must be a string.`);
  return value;
}

export function optionalString(input: Input, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ToolRefusal(`"${name}" must be a string.`);
  return value;
}

export function optionalLineNumber(input: Input, name: string): number | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new ToolRefusal(`"${name}" must be a whole number of 1 or more (lines are numbered from 1).`);
  return value;
}

export function optionalBoolean(input: Input, name: string): boolean | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new ToolRefusal(`"${name}" must be true or false.`);
  return value;
}
