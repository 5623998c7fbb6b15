// Version and source commit of this build. The bundle defines __HEARTH_COMMIT__; running
// the TypeScript sources directly reports "dev".
import pkg from '../package.json' with { type: 'json' }

declare const __HEARTH_COMMIT__: string | undefined

export const VERSION: string = pkg.version
export const COMMIT: string = typeof __HEARTH_COMMIT__ === 'string' ? __HEARTH_COMMIT__ : 'dev'
export const BUILD = `${VERSION}+${COMMIT}`
