// hearth's own `User-Agent` for providers that take a client's name.
import { arch, platform, release } from 'node:os'
import { VERSION } from '../../build-info.ts'

/** `hearth/<version> (<platform> <release>; <arch>)`. */
export function userAgent(): string {
  return `hearth/${VERSION} (${platform()} ${release()}; ${arch()})`
}
