// lowlight with its common grammars only: imported by ./highlight.ts when first needed, as a
// module of its own so the bundle leaves out the grammars of `all`.
export { common, createLowlight } from 'lowlight'
