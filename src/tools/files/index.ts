// The built-in file tools, in the order the model sees them. The kernel registers these;
// each is a ToolSpec (src/tools/types.ts) confined to the workspace (src/tools/confine.ts).
import type { ToolSpec } from '../types.ts'
import { editTool } from './edit.ts'
import { globTool } from './glob.ts'
import { grepTool } from './grep.ts'
import { listTool } from './list.ts'
import { readTool } from './read.ts'
import { writeTool } from './write.ts'

export const fileTools: ToolSpec<any>[] = [readTool, listTool, globTool, grepTool, writeTool, editTool]

export { setHearthHome } from '../confine.ts'
export { createGrepTool } from './grep.ts'
