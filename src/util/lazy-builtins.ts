// Builtins the daemon needs only after it is ready, taken at first use: a module-level
// import would load them (and what they load) during start-up. `node:zlib` serves
// compressed responses and zstd request bodies; `node:child_process` starts kernels.

export const zlib = () => process.getBuiltinModule('node:zlib')
export const childProcess = () => process.getBuiltinModule('node:child_process')
