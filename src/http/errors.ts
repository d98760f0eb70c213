import type { FastifyError, FastifyInstance } from 'fastify';

/** An answer for the user: a status, a snake_case code and a sentence for a person. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export const badRequest = (field: string, problem: string) =>
  new HttpError(400, 'invalid_request', `${field}: ${problem}`);
export const notFound = (what: string) => new HttpError(404, 'not_found', `${what} was not found.`);

/** `/name` → `name`; ajv's `must have required property 'x'` names the field itself. */
function fieldOf(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return 'request';
  const params = first.params as Record<string, unknown>;
  const path = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (typeof params.missingProperty === 'string') {
    return path ? `${path}.${params.missingProperty}` : params.missingProperty;
  }
  if (typeof params.additionalProperty === 'string') {
    return path ? `${path}.${params.additionalProperty}` : params.additionalProperty;
  }
  return path || (error.validationContext ?? 'request');
}

function validationDetail(error: FastifyError): string {
  const first = error.validation?.[0];
  const field = fieldOf(error);
  if (!first) return error.message;
  const params = first.params as Record<string, unknown>;
  if (typeof params.missingProperty === 'string') return `${field}: is required`;
  if (typeof params.additionalProperty === 'string') return `${field}: is not a known field`;
  return `${field}: ${first.message ?? 'is not valid'}`;
}

/** One error handler for the whole app: every failure is `{error, detail}`. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      return reply
        .code(error.status)
        .headers(error.headers)
        .send({ error: error.code, detail: error.detail });
    }
    if (error.validation) {
      return reply.code(400).send({ error: 'invalid_request', detail: validationDetail(error) });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code =
        error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'unsupported_media_type'
          : error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? 'body_too_large'
            : error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
                error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
                error instanceof SyntaxError
              ? 'invalid_json'
              : 'bad_request';
      return reply.code(status).send({ error: code, detail: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({
      error: 'internal_error',
      detail: 'Something went wrong on our side; it has been logged.',
    });
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({
      error: 'not_found',
      detail: `No route for ${request.method} ${request.url.split('?')[0]}.`,
    });
  });
}
