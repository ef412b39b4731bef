import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import { atFirstCall } from '../kernel/lazy.js';

/**
 * Fastify's own response serializers (fast-json-stringify, with the options Fastify passes),
 * each compiled at the first response its route sends instead of when the route is registered.
 * Compiling all of them at start kept about 270 generated functions and their source text on
 * the heap, some 15 MB (the invoice and subscription shapes alone are 100-140 kB of generated
 * code per route), though most routes are rarely called (docs/performance.md, "Memory"). Once
 * compiled, a serializer is kept; a schema error shows at the first response (a 500) instead of
 * at start, which test/http/route-schemas.test.ts checks for every route.
 */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    const serializer = atFirstCall(() => compile(route));
    return (data) => serializer()(data);
  };
};
