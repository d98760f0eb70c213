import type { TObject, TSchema } from '@sinclair/typebox';
import type { FastifySchemaValidationError, RouteShorthandOptions } from 'fastify';
import { badRequest } from '../http/errors.js';

/** What a parameter must be, in the words the 400 uses: "limit: must be an integer from 1 to 200". */
function expectation(schema: TSchema | undefined): string {
  if (schema?.type === 'integer') {
    const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
    if (maximum !== undefined && maximum < Number.MAX_SAFE_INTEGER) {
      return `must be an integer from ${minimum ?? 0} to ${maximum}`;
    }
    return 'must be a positive integer';
  }
  return 'is not valid';
}

function parameterOf(error: FastifySchemaValidationError): string {
  const path = error.instancePath.replace(/^\//, '').split('/')[0];
  if (path) return path;
  const missing = (error.params as Record<string, unknown>).missingProperty;
  return typeof missing === 'string' ? missing : 'request';
}

/**
 * Route option `schemaErrorFormatter`: a 400 that names the parameter and says what it
 * must be, whether the schema or our own parsing found the problem.
 */
export function parameterErrors(
  ...schemas: TObject[]
): NonNullable<RouteShorthandOptions['schemaErrorFormatter']> {
  return (errors: FastifySchemaValidationError[]) => {
    const first = errors[0];
    if (!first) return badRequest('request', 'is not valid');
    const name = parameterOf(first);
    const schema = schemas.find((s) => name in s.properties)?.properties[name];
    return badRequest(name, expectation(schema));
  };
}
