/** Empty optional inputs are left out of the body rather than sent as ''. */
export function optional(value: string): string | undefined {
  return value.trim() === '' ? undefined : value.trim();
}
