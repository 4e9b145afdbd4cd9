// "1 page", "2 pages": the count and its noun, for sentences people read.

/** The count with its noun, in the plural unless the count is 1 (`plural` when not noun + "s"). */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
