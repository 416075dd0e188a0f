/** The peer's P1 envelope: `{items, total, page, size, pages}`; pages is 0 when total is 0. */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
  pages: number;
}

export interface PageRequest {
  page: number;
  size: number;
}

export const MAX_PAGE_SIZE = 100;

export function pageOf<T>(items: T[], total: number, req: PageRequest): Page<T> {
  return { items, total, page: req.page, size: req.size, pages: total === 0 ? 0 : Math.ceil(total / req.size) };
}

export const offsetOf = (req: PageRequest) => (req.page - 1) * req.size;
