// JSON bodies stay within the protocol's frame limit (1 MiB of UTF-8, before any content
// coding). A page that would pass it ends early and its continuation carries on from there;
// a single item is bounded where it is made (long texts are read through content pages).

/** The largest JSON response or SSE frame, in UTF-8 bytes. */
export const MAX_JSON_BYTES = 1024 * 1024

/** Room kept for a page's continuation tokens and other small fields added after fitting. */
export const CONTINUATION_ROOM = 4096

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value))
}

/**
 * How many of `items`, taken from the start, fit in `budget` bytes of JSON (each counted
 * with its separating comma). At least `min` are kept whatever their size.
 */
export function countThatFit(items: readonly unknown[], budget: number, min = 0): number {
  let used = 0
  for (let i = 0; i < items.length; i++) {
    used += jsonBytes(items[i]) + 1
    if (used > budget && i >= min) return i
  }
  return items.length
}

/** The longest run of `items` ending with the last one that fits in `budget` bytes. */
export function countThatFitFromEnd(items: readonly unknown[], budget: number, min = 0): number {
  return countThatFit([...items].reverse(), budget, min)
}

/** countThatFit for items already serialized (`texts`, JSON each). */
export function countTextsThatFit(texts: readonly string[], budget: number, min = 0): number {
  // UTF-8 takes at most three bytes per UTF-16 unit: most pages are known to fit unmeasured.
  let units = 0
  for (const t of texts) units += t.length + 1
  if (units * 3 <= budget) return texts.length
  let used = 0
  for (let i = 0; i < texts.length; i++) {
    used += Buffer.byteLength(texts[i]) + 1
    if (used > budget && i >= min) return i
  }
  return texts.length
}
