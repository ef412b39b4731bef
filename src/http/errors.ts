import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { describeValidationError } from './validation.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `message` answers errors as `{message}` (the spec's shape B); default is `{code, message}`. */
    errorShape?: 'code' | 'message';
    /** Routes that take no API key (health, docs, OAuth token endpoints...). */
    public?: boolean;
  }
}

/**
 * Renders an AppError in the route's shape: the one place error bodies are written. A 401 always
 * carries its code, shape B included, so a client can tell "authenticate again" from any other
 * failure by one field. The body is serialized here, not by the route's response schema, which
 * would drop a field its schema does not list.
 */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  const shape = error.status === 401 ? 'code' : (request.routeOptions.config?.errorShape ?? 'code');
  const body = shape === 'message' ? { message: error.message } : { code: error.code, message: error.message };
  return reply.status(error.status).type('application/json').send(JSON.stringify(body));
}

/** The media type a request declared, as sent (without parameters such as charset), for messages. */
function sentMediaType(request: FastifyRequest): string | undefined {
  const header = request.headers['content-type'];
  if (header === undefined) return undefined;
  return header.split(';')[0]!.trim().slice(0, 100);
}

/** Maps framework and library errors to the contract; client mistakes are never a 500. */
function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) return new AppError('BAD_REQUEST', describeValidationError(error.validation as never, error.validationContext));
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const sent = sentMediaType(request);
      // Fastify's own message is only "Unsupported Media Type": name what was sent instead.
      const message = sent === undefined ? 'the body has no Content-Type header' : `content-type '${sent}' is not supported`;
      return new AppError('BAD_REQUEST', `${message}; send application/json`, 415);
    }
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('BAD_REQUEST', 'request body is too large', 413);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('BAD_REQUEST', `body is not valid JSON: ${error.message}`);
    // PostgreSQL's program_limit_exceeded: an indexed text beyond a btree entry's ~2,700 bytes.
    // Schemas bound the indexed fields; this is the net for any they miss (the statement failed,
    // so nothing was written).
    case '54000':
      return new AppError('BAD_REQUEST', 'a text value is too long to be stored; shorten the longest field');
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return new AppError('BAD_REQUEST', `body is not valid JSON: ${error.message}`);
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError(error.statusCode === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', error.message, error.statusCode);
  }
  return new AppError('INTERNAL_SERVER_ERROR', 'internal server error; quote the x-request-id header to support');
}

/**
 * `pageFallback` answers a browser's request for a page no route has (the dashboard's client
 * routes); everything else not found gets the contract's 404 body.
 */
export function registerErrorHandling(app: FastifyInstance, pageFallback?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error, request);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    pageFallback?.(request, reply) ?? sendError(request, reply, new AppError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
