/**
 * A value made at its first use and kept: for libraries imported when first needed instead of at
 * start (docs/performance.md, "Memory"). Calls while it is being made share the one promise; a
 * failure is not kept, so the next call tries again.
 */
export function atFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}

/**
 * The synchronous form, for work most processes never need: the validators and serializers of
 * routes that are never called (src/http/validation.ts, serialization.ts). The value is kept once
 * made; a failure is not, so the next call tries again.
 */
export function atFirstCall<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
