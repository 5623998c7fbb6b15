// 32-bit FNV-1a over the UTF-8 bytes of a string: the hash that places a session in an
// account pool (docs/accounts.md). Offset basis 2166136261, prime 16777619, unsigned.
const OFFSET_BASIS = 0x811c9dc5
const PRIME = 0x01000193
const utf8 = new TextEncoder()

/** FNV-1a (32 bit) of the UTF-8 encoding of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = OFFSET_BASIS
  for (const byte of utf8.encode(text)) {
    hash ^= byte
    hash = Math.imul(hash, PRIME)
  }
  return hash >>> 0
}
