/** The millisecond timestamp a UUIDv7 carries in its first 48 bits. */
export function uuidV7Time(id: string): number {
  return Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)
}
