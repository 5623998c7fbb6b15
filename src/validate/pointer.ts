// JSON Pointers (RFC 6901) as problems name the place of an error: `/a/b~1c`. Apart from the
// schema checks so that the strict JSON reader, loaded at start, does not load the compiler.

export function pointerOf(path: readonly (string | number)[]): string {
  return path.map((s) => '/' + String(s).replaceAll('~', '~0').replaceAll('/', '~1')).join('')
}

export function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~')
}
