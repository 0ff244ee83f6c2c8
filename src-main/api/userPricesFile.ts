/** Reads a user price file (docs/semantics.md §18): a clear error names the file and what is wrong. */
import { readFileSync } from 'node:fs';
import { parseUserPrices, type UserPrices } from '../../shared/cost/userPrices';

export class UserPricesError extends Error {}

export function readUserPrices(path: string): UserPrices {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserPricesError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    return parseUserPrices(text, path);
  } catch (error) {
    throw new UserPricesError((error as Error).message);
  }
}
