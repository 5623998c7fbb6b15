// lowlight and its common grammars, loaded by ./highlight.ts when first needed. Plain
// JavaScript with its own declarations (./grammars.d.ts): highlight.js's type declarations
// pull the DOM library into the whole program, whose Blob types then disagree with Node's.
export { common, createLowlight } from 'lowlight'
