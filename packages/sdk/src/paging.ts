// Cursor paging as an async iterator: follows next_cursor until null, one request per page, and
// only when the caller asks for more (breaking out of the loop stops the requests).

export interface Page<T> {
  items: T[];
  next: string | null | undefined;
}

export function paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncIterable<T> & { pages(): AsyncIterable<T[]> } {
  async function* pages(): AsyncGenerator<T[]> {
    let cursor: string | undefined;
    do {
      const page = await fetchPage(cursor);
      yield page.items;
      cursor = page.next ?? undefined;
    } while (cursor);
  }
  return {
    pages,
    async *[Symbol.asyncIterator]() {
      for await (const items of pages()) yield* items;
    },
  };
}
