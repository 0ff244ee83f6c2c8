import type { Page } from './usePagedRows';

/** Every row of a paged list that is short by nature (a run's findings, its calls), page by page. */
export async function fetchAll<T>(fetchPage: (offset: number, limit: number) => Promise<Page<T>>, limit = 2000): Promise<T[]> {
  const rows: T[] = [];
  for (;;) {
    const page = await fetchPage(rows.length, limit);
    rows.push(...page.rows);
    if (page.rows.length === 0 || rows.length >= page.total) return rows;
  }
}
