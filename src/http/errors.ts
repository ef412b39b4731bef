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

/** Renders an AppError in the route's shape: the one place error bodies are written. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  const shape = request.routeOptions.config?.errorShape ?? 'code';
  const body = shape === 'message' ? { message: error.message } : { code: error.code, message: error.message };
  return reply.status(error.status).type('application/json').send(body);
}

/** Maps framework and library errors to the contract; client mistakes are never a 500. */
function toAppError(error: FastifyError): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) return new AppError('BAD_REQUEST', describeValidationError(error.validation as never, error.validationContext));
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('BAD_REQUEST', `content-type '${String(error.message).split(': ').pop()}' is not supported; send application/json`, 415);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('BAD_REQUEST', 'request body is too large', 413);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('BAD_REQUEST', 'body must not be empty when content-type is application/json');
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

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new AppError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
