/** The millisecond timestamp a UUIDv7 carries in its first 48 bits. */
export function uuidV7Time(id: string): number {
  return Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)
}

/** UUIDs are case-insensitive on input; rows hold the lower-case form. */
export const lower = (id: string) => id.toLowerCase()
