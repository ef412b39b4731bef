import type { FastifyInstance } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { findUnstorableText, NOT_STORABLE } from '../kernel/text.js';
import { sendError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route checks the text of its body itself (usage events report it per event). */
    checksBodyText?: boolean;
  }
}

/**
 * Refuses path parameters, query parameters and JSON bodies holding text the database cannot
 * store, with a 400 naming the field, instead of letting the database fail the request as a 500.
 */
export function registerTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request, reply) => {
    const field =
      findUnstorableText(request.params, '') ??
      findUnstorableText(request.query, '') ??
      (request.routeOptions.config?.checksBodyText ? undefined : findUnstorableText(request.body, ''));
    if (field !== undefined) return sendError(request, reply, new AppError('BAD_REQUEST', `${field || 'body'} ${NOT_STORABLE}`));
  });
}
