// A closed vocabulary written once: each word with its description, in the order it is served.
// The words' list and their union type are read from the descriptions, so the two cannot disagree.

/** The words of a vocabulary, in the order its descriptions are written. */
export function wordsOf<const D extends Readonly<Record<string, string>>>(descriptions: D): readonly (keyof D & string)[] {
  // Object.keys of a record literal gives exactly its own string keys, in the order written.
  return Object.keys(descriptions) as (keyof D & string)[];
}
