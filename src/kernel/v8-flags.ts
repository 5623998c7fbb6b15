// V8 flags a kernel process sets on itself before its warm-up (bench/notes/kernels.md,
// "Memory of a kernel under a long reply"). Fetch parses HTTP/1.1 with llhttp compiled to WebAssembly; after a few replies V8
// recompiles its parser with its optimizing compiler on a worker thread, whose ~12 MB of
// compiler memory then stays in that thread's malloc arena for the life of the process: a
// fifth of a warmed kernel. The baseline compiler's code parses a reply's stream as fast
// for what a kernel reads (first tokens and the 20-session figures unchanged).
//
// They are set at run time, not on the command line: a flag there changes V8's flag hash,
// and Node's code cache for its builtins would be refused from the first line on.

/** Wasm stays on its baseline compiler: no tier-up, eager or dynamic. */
export const KERNEL_RUNTIME_V8_FLAGS = ['--no-wasm-tier-up', '--no-wasm-dynamic-tiering'] as const

/** Applies the flags; before the first fetch, which compiles the parser. */
export function setKernelV8Flags(): void {
  const v8 = process.getBuiltinModule('node:v8')
  for (const flag of KERNEL_RUNTIME_V8_FLAGS) v8.setFlagsFromString(flag)
}
