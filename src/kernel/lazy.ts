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
