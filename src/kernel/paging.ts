import { badRequest } from './errors.js';

export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 100;

export interface PageRequest {
  page: number;
  perPage: number;
}

export interface PaginationMeta {
  page: number;
  per_page: number;
  total_items: number;
  total_pages: number;
}

export interface Page<T> {
  data: T[];
  pagination_meta: PaginationMeta;
}

export function pageRequest(page: number | undefined, perPage: number | undefined): PageRequest {
  const p = page ?? 0;
  const pp = perPage ?? DEFAULT_PER_PAGE;
  if (!Number.isInteger(p) || p < 0) throw badRequest('page must be an integer >= 0');
  if (!Number.isInteger(pp) || pp < 1 || pp > MAX_PER_PAGE) {
    throw badRequest(`per_page must be an integer between 1 and ${MAX_PER_PAGE}`);
  }
  return { page: p, perPage: pp };
}

export function paginationMeta(req: PageRequest, totalItems: number): PaginationMeta {
  return {
    page: req.page,
    per_page: req.perPage,
    total_items: totalItems,
    total_pages: Math.ceil(totalItems / req.perPage),
  };
}

export interface OrderBy<C extends string> {
  column: C;
  direction: 'asc' | 'desc';
}

/** Parses `column.direction` against an allow-list; anything else is a 400 naming `order_by`. */
export function parseOrderBy<C extends string>(
  value: string | undefined,
  allowed: readonly C[],
  fallback: OrderBy<C>,
): OrderBy<C> {
  if (value === undefined || value === '') return fallback;
  const [column, direction, ...rest] = value.split('.');
  if (rest.length > 0 || !allowed.includes(column as C) || (direction !== 'asc' && direction !== 'desc')) {
    throw badRequest(
      `order_by must be one of ${allowed.map((c) => `${c}.asc|${c}.desc`).join(', ')}; got '${value}'`,
    );
  }
  return { column: column as C, direction };
}
