// Giving back what start-up left: V8 keeps the garbage and the grown young generation of a
// process's first seconds while the process then waits, since an idle heap is not collected.
// One last-resort collection (full collections until nothing more is freed, compacting the
// old space and shrinking the young generation back to its smallest) once the start-up work
// is done gives ~7 MB back in a warmed kernel (~4 MB once it has warmed up again: the
// collection also drops compiled code and caches, src/kernel/warm.ts) and ~3 MB in the
// daemon, in 30–60 ms (bench/notes/memory.md, "Idle after ready"). Node offers no
// collection call without --expose-gc, which is set here, at run time: on the command line it
// would change V8's flag hash from the start, and Node's code cache for its builtins would be
// refused.
// The collection also drops the bytecode of every function not running at that moment
// (V8's bytecode age set to one collection for its length, then back to V8's own six):
// start-up code (modules' bodies, configuration, the warm-up's first pass) never runs
// again, and what does is compiled again from the source on its next call. A kernel runs
// its warm-up steps again right after, which compiles its first step's code back. ~0.7 MB
// less in the daemon, ~1 MB in a kernel (bench/notes/memory.md, "Bundles and bytecode").
// HEARTH_COMPACT_FLUSH=0 keeps V8's own age (to measure without it).

/** V8's default --bytecode-old-age: the major collections a function's bytecode survives unused. */
const V8_BYTECODE_OLD_AGE = 6

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void

let collect: Collect | undefined

/** One last-resort collection, now. */
export function compactHeap(): void {
  const v8 = process.getBuiltinModule('node:v8')
  if (!collect) {
    v8.setFlagsFromString('--expose-gc')
    collect = process.getBuiltinModule('node:vm').runInNewContext('gc') as Collect
  }
  const flush = process.env.HEARTH_COMPACT_FLUSH !== '0'
  if (flush) v8.setFlagsFromString('--bytecode-old-age=1')
  try {
    collect({ type: 'major', execution: 'sync', flavor: 'last-resort' })
  } finally {
    if (flush) v8.setFlagsFromString(`--bytecode-old-age=${V8_BYTECODE_OLD_AGE}`)
  }
}

/**
 * Compacts `delayMs` from now if `idle()` says nothing is being served then: the collection
 * holds the thread, and work that arrived in the meantime goes first and keeps the heap as
 * it is. `after` runs once the heap is compacted. HEARTH_COMPACT_AFTER_START=0 turns it off
 * (to measure without it).
 */
export function compactWhenIdle(idle: () => boolean, delayMs: number, after?: () => void): void {
  if (process.env.HEARTH_COMPACT_AFTER_START === '0') return
  setTimeout(() => {
    if (!idle()) return
    compactHeap()
    after?.()
  }, delayMs).unref()
}
