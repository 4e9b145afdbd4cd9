// Request validation with two Ajv instances. Query strings, path parameters and headers arrive
// as text, so they are coerced to the declared types ("50" → 50). Bodies are JSON and already
// typed: coercing them would turn {"prompt": 42} into "42" and accept it, so they are not.
import { Ajv, type Options } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;

function ajvWith(options: Options): Ajv {
  // useDefaults fills in documented defaults (e.g. limit=50); removeAdditional drops unknown
  // body fields instead of failing, so older servers accept newer clients' extra fields.
  const ajv = new Ajv({
    useDefaults: true,
    removeAdditional: true,
    allErrors: false,
    strict: false,
    ...options,
  });
  addFormats(ajv);
  return ajv;
}

const forText = ajvWith({ coerceTypes: 'array' });
const forJson = ajvWith({ coerceTypes: false });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? forJson : forText).compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
