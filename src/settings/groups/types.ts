import type { FileContents } from '../files.ts'

/** One settings group: how it reads, how a validated patch applies, what a candidate must hold. */
export interface GroupCodec {
  /** The public representation (secrets as {saved: true}). */
  read(files: FileContents): unknown
  /** The files after the patch (a deep copy; the inputs are not changed). */
  apply(files: FileContents, patch: Record<string, unknown>): FileContents
  /**
   * Throws a HearthError when the whole candidate group is not acceptable. `builtIn`: the
   * profiles the running daemon adds itself (never stored), which a default may name.
   */
  check(candidate: FileContents, builtIn?: ReadonlySet<string>): void
}

/** Deep copy of the three files, so a codec can edit freely. */
export const copyFiles = (f: FileContents): FileContents => structuredClone(f)
