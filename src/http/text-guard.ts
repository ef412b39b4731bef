import type { FastifyInstance } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { findTextProblem } from '../kernel/text.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route checks the text of its body itself (usage events report it per event). */
    checksBodyText?: boolean;
  }
}

/**
 * Refuses path parameters, query parameters and JSON bodies holding text the database cannot
 * store, or nested absurdly deep, with a 400 naming the field, instead of letting the database
 * (or a stack overflow) fail the request as a 500.
 */
export function registerTextGuard(app: FastifyInstance): void {
  // Thrown, not sent: a route with its own error handler (the OAuth endpoints answer RFC 6749
  // JSON) renders it in its shape.
  app.addHook('preValidation', async (request) => {
    const problem =
      findTextProblem(request.params) ??
      findTextProblem(request.query) ??
      (request.routeOptions.config?.checksBodyText ? undefined : findTextProblem(request.body));
    if (problem) throw new AppError('BAD_REQUEST', `${problem.field || 'body'} ${problem.reason}`);
  });
}
