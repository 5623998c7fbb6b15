// A real MCP server over stdio (the SDK's StdioServerTransport), run by the daemon's kernel
// as a settings group `mcp` command: `node test/fakes/mcp/stdio-server.ts [--crash-at-start]`.
//   --crash-at-start  writes a reason to stderr and exits 1 before it speaks MCP
// Its `crash` tool writes to stderr and exits 3 in the middle of a call.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { fakeMcpServer } from './tools.ts'

if (process.argv.includes('--crash-at-start')) {
  process.stderr.write(
    `fake server cannot start: no database (token ${process.env.FAKE_MCP_TOKEN ?? 'none'})\n`,
  )
  process.exit(1)
}

const server = fakeMcpServer('fake-stdio', {
  env: process.env,
  crash: () => {
    process.stderr.write('fake server crashing on purpose\n')
    process.exit(3)
  },
})
await server.connect(new StdioServerTransport())
