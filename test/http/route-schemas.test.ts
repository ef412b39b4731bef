import { describe, expect, it, vi } from 'vitest';
import { SerializerSelector, type RouteDefinition } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { useHarness } from '../harness/app.js';

// Route validators and response serializers are compiled at a route's first request
// (src/http/validation.ts, serialization.ts), so a schema the compilers refuse no longer stops
// the start. This file records every route schema the app hands its compilers and compiles each
// one now, in place of the check Fastify made at start.
const seen = vi.hoisted(() => ({
  validators: [] as { route: Parameters<FastifySchemaCompiler<unknown>>[0]; validate: (data: unknown) => unknown }[],
  serializers: [] as { route: RouteDefinition; compile: (route: RouteDefinition) => unknown }[],
}));

vi.mock('../../src/http/validation.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/http/validation.js')>();
  const validatorCompiler: typeof real.validatorCompiler = (route) => {
    const validate = real.validatorCompiler(route);
    seen.validators.push({ route, validate: validate as (data: unknown) => unknown });
    return validate;
  };
  return { ...real, validatorCompiler };
});

vi.mock('../../src/http/serialization.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/http/serialization.js')>();
  const buildSerializer: typeof real.buildSerializer = (externalSchemas, options) => {
    const lazy = real.buildSerializer(externalSchemas, options);
    // The same compilation the app's serializer makes at its first response, made eagerly here.
    const compile = SerializerSelector()(externalSchemas, options);
    return (route) => {
      seen.serializers.push({ route, compile });
      return lazy(route);
    };
  };
  return { ...real, buildSerializer };
});

const harness = useHarness();

describe('route schemas', () => {
  it('compile, every validator and every response serializer of every route', async () => {
    await harness().service.app.ready();
    // Hundreds of each (a guard against recording nothing at all).
    expect(seen.validators.length).toBeGreaterThan(200);
    expect(seen.serializers.length).toBeGreaterThan(200);
    const failures: string[] = [];
    for (const { route, validate } of seen.validators) {
      try {
        validate({}); // the first call compiles; an object that does not match is no failure here
      } catch (error) {
        failures.push(`${route.method} ${route.url} ${route.httpPart}: ${(error as Error).message}`);
      }
    }
    for (const { route, compile } of seen.serializers) {
      try {
        compile(route);
      } catch (error) {
        failures.push(`${route.method} ${route.url} response ${route.httpStatus}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
