// A process that races the file tools: it swaps a workspace path between the real thing and
// a symbolic link out (to hearth's home or a directory outside) in a tight loop, until it is
// killed. Arguments: `file|dir`, the path, where the link points, and (for a file) the
// content the real file is given each time.
//   node swap-loop.ts file /ws/notes.txt /home/.hearth/creds.json 'alpha needle'
import { renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'

const [mode, target, linkTo, content = ''] = process.argv.slice(2)
const real = `${target}.swap-real`
const link = `${target}.swap-link`

// Swallows the errors of a step the tools raced (a write renamed its file over the target).
function step(fn: () => void): void {
  try {
    fn()
  } catch {
    // the next round puts things right
  }
}

process.stdout.write('swapping\n')
for (;;) {
  if (mode === 'file') {
    // Both renames replace the target at once: it is always a file or a link, never missing.
    step(() => writeFileSync(real, content))
    step(() => renameSync(real, target))
    step(() => symlinkSync(linkTo, link))
    step(() => renameSync(link, target))
  } else {
    // A directory cannot be replaced by a rename of a link: it goes aside for a moment.
    step(() => renameSync(target, real))
    step(() => symlinkSync(linkTo, target))
    step(() => unlinkSync(target))
    step(() => renameSync(real, target))
  }
}
