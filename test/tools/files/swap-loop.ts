// A process that races the file tools: it swaps a workspace path between the real thing and
// a symbolic link out (to hearth's home or a directory outside) in a tight loop, until it is
// killed. Arguments: `file|dir`, the path, where the link points, and (for a file) the
// content the real file is given each time.
//   node swap-loop.ts file /ws/notes.txt /home/.hearth/creds.json 'alpha needle'
import { existsSync, lstatSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'

const [mode, target, linkTo, content = ''] = process.argv.slice(2)
const real = `${target}.swap-real`
const link = `${target}.swap-link`
const pad = `${target}.swap-pad`

// Swallows the errors of a step the tools raced (a write renamed its file over the target).
function step(fn: () => void): void {
  try {
    fn()
  } catch {
    // the next round puts things right
  }
}

/** Makes `link` a link out again, should a tool have put something else there. */
function relink(): void {
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) return
  step(() => rmSync(link, { recursive: true, force: true }))
  step(() => symlinkSync(linkTo, link))
}

// Each state (the real thing, the link) lasts about as long as the other: the next one is
// made ready while it stands.
if (mode === 'file') step(() => writeFileSync(real, content))
relink()
process.stdout.write('swapping\n')
for (;;) {
  if (mode === 'file') {
    // Renames replace the target at once: it is always a file or a link, never missing.
    step(() => renameSync(real, target))
    relink()
    step(() => writeFileSync(pad, content)) // as long as the file's own making below
    step(() => renameSync(link, target))
    step(() => writeFileSync(real, content))
  } else {
    // A link cannot replace a directory by rename: the directory steps aside for one call.
    step(() => renameSync(target, real))
    step(() => renameSync(link, target))
    step(() => renameSync(target, link))
    step(() => renameSync(real, target))
    // A write made the directory anew while it stood aside: that one goes, the loop goes on.
    if (existsSync(real)) {
      step(() => rmSync(target, { recursive: true, force: true }))
      step(() => renameSync(real, target))
    }
    relink()
  }
}
