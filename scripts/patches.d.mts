// Types of ./patches.mjs, for the tests that import it.
export interface Patch {
  name: string
  filter: RegExp
  patch: (file: string, source: string) => string
}
export declare const PATCHES: Patch[]
export declare function packageOf(file: string): { name: string; version: string }
export declare function replaceExactly(
  file: string,
  source: string,
  edit: { find: string; replace: string; count?: number },
): string
export declare function sqliteAddonFromPackage(file: string, source: string): string
export declare function lazyPiTuiTables(file: string, source: string): string
export declare const patchPlugin: (patch: Patch) => { name: string; setup(build: unknown): void }
